"""Loading and hashing policy bundles. The hash is over canonical JSON, so formatting never changes it."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from controlplane.contracts import PolicyBundle, PolicyRef, json_text
from controlplane.contracts.policy import bundle_hash, canonical_content
from controlplane.contracts.user_files import read_user_file

DEFAULT_BUNDLE_NAME = "default"


class PolicyBundleError(ValueError):
    """A bundle file is missing, unreadable or invalid. The message names the file, the field and the fix."""


@dataclass(frozen=True)
class LoadedPolicy:
    bundle: PolicyBundle
    hash: str
    source: str

    @cached_property
    def content(self) -> dict[str, Any]:
        """The bundle's canonical content (what ``hash`` is taken over), built once: every trace carries it, and
        dumping the whole bundle per request cost more than some gates."""
        return canonical_content(self.bundle)

    def ref(self, include_content: bool = True) -> PolicyRef:
        return PolicyRef(
            name=self.bundle.name,
            version=self.bundle.version,
            hash=self.hash,
            content=self.content if include_content else None,
        )


def parse_bundle(data: Any, source: str) -> LoadedPolicy:
    try:
        bundle = PolicyBundle.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        location = ".".join(str(part) for part in first["loc"]) or "(root)"
        raise PolicyBundleError(
            f"policy bundle {source}: field '{location}': {first['msg']} "
            f"({exc.error_count()} problem(s); see contracts/schemas/PolicyBundle.schema.json)"
        ) from None
    return LoadedPolicy(bundle=bundle, hash=bundle_hash(bundle), source=source)


def load_bundle(path: str | Path | None = None) -> LoadedPolicy:
    """Load a bundle file; None loads the shipped default bundle."""
    if path is None:
        text = resources.files(__package__).joinpath(f"{DEFAULT_BUNDLE_NAME}.json").read_text(encoding="utf-8")
        return parse_bundle(json.loads(text), source=f"builtin:{DEFAULT_BUNDLE_NAME}")
    file = Path(path)
    text = read_user_file(file, "policy bundle", "pass --policy with an existing bundle file", PolicyBundleError)
    try:
        data = json_text.loads(text)
    except json_text.JsonTextError as exc:
        raise PolicyBundleError(f"policy bundle {file} {exc} (fix the file; see "
                                "contracts/schemas/PolicyBundle.schema.json)") from None
    return parse_bundle(data, source=str(file))

"""Where a plane's policy bundle comes from: decided in this one place for the CLI, the API, ``serve`` and replay.

Order: an explicit bundle (``policy=`` / ``--policy FILE``, else ``$CONTROLPLANE_POLICY``), else the bundle promoted
in the trace store (``controlplane policy promote``), else the shipped default. When signatures are required
(``require_signed=True`` / ``--require-signed`` / ``CONTROLPLANE_REQUIRE_SIGNED_POLICY=1``) every bundle must carry
a valid signature: an explicit file its detached ``.sig``, a promoted bundle the signature stored with it. The shipped
default and a bundle given in code (a dict, PolicyBundle or LoadedPolicy not read from a signed file) are unsigned
and refused: fail closed, never a silent fallback.

A promoted bundle is looked up again on every request (one indexed SELECT), so ``policy promote`` and ``policy
rollback`` reach a running server and a long-lived embedded plane without a restart.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from controlplane.contracts import PolicyBundle
from controlplane.contracts.errors import ConfigurationError
from controlplane.policy_bundles.loader import LoadedPolicy, PolicyBundleError, load_bundle, parse_bundle
from controlplane.policy_bundles.signing import SignatureError, SigningConfig, read_signature, verify
from controlplane.traces.store import TraceStore

POLICY_ENV = "CONTROLPLANE_POLICY"

EXPLICIT, PROMOTED, SHIPPED = "explicit", "promoted", "shipped"


def signing_config(require_signed: bool | None = None, public_key: str | Path | None = None) -> SigningConfig:
    """``None`` follows $CONTROLPLANE_REQUIRE_SIGNED_POLICY; ``True``/``False`` decide in code (replay passes False:
    it re-judges recorded traces under their recorded policy, it serves nobody)."""
    if require_signed is False:
        return SigningConfig(False, Path(public_key) if public_key else None)
    return SigningConfig.from_env(require=True if require_signed else None, public_key=public_key)


def _as_configuration_error(exc: Exception) -> ConfigurationError:
    return ConfigurationError(str(exc))


def load_explicit(policy: Any, signing: SigningConfig) -> LoadedPolicy:
    """A bundle given by the caller: a file path, a LoadedPolicy, a PolicyBundle or a dict."""
    try:
        if isinstance(policy, (str, Path)):
            loaded = load_bundle(policy)
            signature_file: str | Path | None = policy
        elif isinstance(policy, LoadedPolicy):
            loaded = policy
            signature_file = policy.source if Path(policy.source).is_file() else None
        elif isinstance(policy, PolicyBundle):
            loaded, signature_file = parse_bundle(policy.model_dump(mode="json"), source="code"), None
        elif isinstance(policy, Mapping):
            loaded, signature_file = parse_bundle(dict(policy), source="code"), None
        else:
            raise ConfigurationError(
                f"policy must be a bundle file path, a LoadedPolicy, a PolicyBundle or a dict, not {type(policy).__name__}"
            )
        if signing.required:
            if signature_file is None:
                raise SignatureError(
                    f"signed policies are required, and the policy {loaded.source} was given in code, without a "
                    "signature: pass the bundle file (with its .sig) or promote a signed bundle"
                )
            verify(loaded.hash, read_signature(signature_file), signing.public_key())
        return loaded
    except PolicyBundleError as exc:
        raise _as_configuration_error(exc) from None


class PolicySource:
    """The policy a plane runs, resolved once at construction and refreshed per request when it is the promoted one."""

    def __init__(self, policy: Any, store: TraceStore | None, signing: SigningConfig, name: str | None = None):
        self.signing = signing
        self.store = store
        self.name = name
        self._lock = threading.Lock()
        if policy is None and os.environ.get(POLICY_ENV):
            policy = os.environ[POLICY_ENV]
        if policy is not None:
            self.kind = EXPLICIT
            self.current = load_explicit(policy, signing)
        elif store is not None:
            self.kind = PROMOTED
            self.current = self._promoted_now()
        else:
            self.kind = SHIPPED
            if signing.required:
                raise ConfigurationError(
                    "signed policies are required and this plane has no trace store to hold a promoted bundle; the "
                    "shipped default is unsigned: pass a signed bundle file (policy= / --policy) or a db with a signed "
                    "promoted bundle"
                )
            self.current = load_bundle()

    def _promoted_now(self) -> LoadedPolicy:
        from controlplane.policy_bundles.lifecycle import current_policy

        try:
            return current_policy(self.store, self.name, signing=self.signing)
        except PolicyBundleError as exc:
            raise _as_configuration_error(exc) from None

    def refresh(self) -> LoadedPolicy:
        """The policy for the next request: unchanged unless the store now promotes another bundle (or none)."""
        if self.kind != PROMOTED:
            return self.current
        from controlplane.policy_bundles.lifecycle import POLICY_NAME_ENV, PolicyLifecycle
        from controlplane.policy_bundles.loader import DEFAULT_BUNDLE_NAME

        name = self.name or os.environ.get(POLICY_NAME_ENV) or DEFAULT_BUNDLE_NAME
        promoted = PolicyLifecycle(self.store).promoted(name)
        current = self.current
        if promoted is not None and promoted.hash == current.hash:
            return current
        if promoted is None and current.source.startswith("builtin:"):
            return current
        with self._lock:
            fresh = self._promoted_now()  # signature checked again: a new bundle must meet the same bar
            self.current = fresh
            return fresh


__all__ = ["EXPLICIT", "PROMOTED", "SHIPPED", "PolicySource", "load_explicit", "signing_config"]

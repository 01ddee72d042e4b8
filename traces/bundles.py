"""Trace bundles: export stored traces to JSONL (one TraceBundle per line, optionally redacted) and import them.

Python API mirrored by the CLI (``controlplane trace export`` / ``controlplane trace import``)::

    summary = export_bundles(store, path, trace_ids=[...] | since=... | status=..., redaction=policy.redaction)
    summary = import_bundles(store, path, on_conflict="skip" | "rekey")

Every line is validated against the TraceBundle JSON Schema on export (before the file is written) and on import
(before anything is stored). Lines are canonical JSON (sorted keys, no spaces), so export -> import -> export of
the same traces is byte-for-byte identical. Import never clobbers: an id already in the store is skipped (default)
or stored under a new id ``<id>~<8 hex of the bundle line>`` (``on_conflict="rekey"``).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from controlplane.contracts import RedactionPolicy, TraceBundle, json_text
from controlplane.contracts.errors import first_validation_error
from controlplane.contracts.policy import PolicyBundle, bundle_hash
from controlplane.contracts.schemas import validate_instance

from .integrity import compute_integrity, integrity_problems
from .redaction import RedactionError, Redactor
from .store import TraceStore, TraceStoreError

CONFLICT_MODES = ("skip", "rekey")


class BundleError(ValueError):
    """A bundle file is missing, unreadable or holds a line that is not a valid TraceBundle."""


def canonical_line(data: dict[str, Any]) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def bundle_to_dict(bundle: TraceBundle) -> dict[str, Any]:
    return bundle.model_dump(mode="json")


def check_schema(data: Any, where: str) -> None:
    problems = validate_instance("TraceBundle", data, limit=3)
    if problems:
        raise BundleError(f"{where}: not a valid TraceBundle: " + "; ".join(str(p) for p in problems)
                          + " (see contracts/schemas/TraceBundle.schema.json)")


def redact_bundle(data: dict[str, Any], redactor: Redactor) -> dict[str, Any]:
    """A redacted copy of one bundle dict; raises RedactionError if anything sensitive would remain."""
    redacted = {}
    for key, value in data.items():
        if key in ("policy", "format", "trace_id", "created_at", "redaction", "budgets", "model", "integrity"):
            redacted[key] = value
        else:
            redacted[key] = redactor.value(value, key)
    leaks = [p for key in ("messages", "mode_decision", "evidence_pack", "retrieved_evidence_pack", "attempts",
                           "outcome", "events") for p in redactor.leaks(redacted.get(key), key, f"$.{key}")]
    if leaks:
        raise RedactionError(
            f"trace {data.get('trace_id')}: redaction left matches at {', '.join(leaks[:5])}; nothing was written "
            "(tighten the redaction patterns or export without that trace)"
        )
    previous = data.get("redaction") or {}
    redacted["redaction"] = redactor.describe() if not previous.get("applied") else previous
    problems = integrity_problems(data)
    if problems:  # never re-vouch for content that was altered before redaction
        raise RedactionError(f"trace {data.get('trace_id')}: {problems[0]}; nothing was written")
    redacted["integrity"] = compute_integrity(redacted)  # the hashes now vouch for the masked content
    return redacted


@dataclass
class ExportSummary:
    path: str
    trace_ids: list[str]
    redacted: bool
    sha256: str
    bytes: int
    redaction_counts: dict[str, int] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        return {"path": self.path, "traces": len(self.trace_ids), "trace_ids": self.trace_ids,
                "redacted": self.redacted, "sha256": self.sha256, "bytes": self.bytes,
                "redaction_counts": self.redaction_counts}


def select_trace_ids(store: TraceStore, trace_ids: Iterable[str] = (), since: str | None = None,
                     status: str | None = None, limit: int | None = None) -> list[str]:
    ids = list(dict.fromkeys(trace_ids))
    if ids:
        for trace_id in ids:
            store.require(trace_id)
        return ids
    if since is None and status is None:
        raise BundleError("say which traces to export: TRACE_ID..., --since TIME or --status STATUS")
    rows = store.list_traces(since=since, status=status, limit=limit, complete_only=True)
    if not rows:  # an empty bundle file would only fail later, at import ("holds no traces")
        wanted = " and ".join(part for part in (f"created since {since}" if since else "",
                                                f"with status {status}" if status else "") if part)
        raise BundleError(f"no complete trace in {store.path} was {wanted}; nothing was written (list them with: "
                          f"controlplane trace list --db {store.path})")
    return sorted((r["trace_id"] for r in rows), key=lambda t: t)


def export_bundles(store: TraceStore, path: str | Path, trace_ids: Iterable[str] = (), since: str | None = None,
                   status: str | None = None, redaction: RedactionPolicy | None = None,
                   limit: int | None = None) -> ExportSummary:
    """Write the selected traces to ``path`` (JSONL); ``redaction=None`` exports unredacted."""
    ids = select_trace_ids(store, trace_ids, since, status, limit)
    redactor = Redactor(redaction) if redaction is not None else None
    target = Path(path)
    digest_state = hashlib.sha256()
    size = 0
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as exc:
        raise BundleError(f"cannot write bundle file {target}: {exc} (pass -o with a writable path)") from None
    try:
        with os.fdopen(fd, "wb") as handle:  # streamed: memory stays flat however many traces are exported
            for trace_id in ids:
                data = bundle_to_dict(store.load_bundle(trace_id))
                if redactor is not None:
                    data = redact_bundle(data, redactor)
                check_schema(data, f"trace {trace_id}")
                line = (canonical_line(data) + "\n").encode("utf-8")
                handle.write(line)
                digest_state.update(line)
                size += len(line)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise BundleError(f"cannot write bundle file {target}: {exc} (pass -o with a writable path)") from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)  # nothing half-written is left behind
        raise
    digest = "sha256:" + digest_state.hexdigest()
    store.record_bundle_file(str(target), digest, ids, redacted=redactor is not None, direction="export")
    return ExportSummary(str(target), ids, redactor is not None, digest, size,
                         dict(redactor.counts) if redactor else {})


def iter_bundle_file(path: str | Path) -> Iterator[tuple[int, TraceBundle, str]]:
    """(line number, bundle, the line's text) for each non-blank line, schema-checked."""
    file = Path(path)
    try:
        handle = file.open(encoding="utf-8")
    except FileNotFoundError:
        raise BundleError(f"bundle file not found: {file} (make one with: controlplane trace export ... -o {file})") from None
    except OSError as exc:
        raise BundleError(f"cannot read bundle file {file}: {exc}") from None
    with handle:
        try:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                where = f"{file}:{number}"
                try:
                    data = json_text.loads(line)
                except json_text.JsonTextError as exc:
                    problem = f"not JSON ({exc.detail})" if exc.reason == "syntax" else str(exc)
                    raise BundleError(f"{where}: {problem}; each line must be one TraceBundle object") from None
                check_schema(data, where)
                try:
                    bundle = TraceBundle.model_validate(data)
                except ValidationError as exc:
                    loc, message = first_validation_error(exc)
                    raise BundleError(f"{where}: field '{loc}': {message}") from None
                yield number, bundle, line.rstrip("\n")
        except UnicodeDecodeError as exc:
            raise BundleError(f"{file} is not UTF-8 text ({exc.reason})") from None


def read_bundles(path: str | Path) -> list[TraceBundle]:
    bundles = [bundle for _, bundle, _ in iter_bundle_file(path)]
    if not bundles:
        raise BundleError(f"bundle file {path} holds no traces")
    return bundles


@dataclass
class ImportSummary:
    path: str
    imported: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    rekeyed: dict[str, str] = field(default_factory=dict)
    on_conflict: str = "skip"

    def as_json(self) -> dict[str, Any]:
        return {"path": self.path, "imported": self.imported, "skipped": self.skipped, "rekeyed": self.rekeyed,
                "on_conflict": self.on_conflict}

    def line(self) -> str:
        return (f"imported {len(self.imported)} trace(s) from {self.path}; skipped {len(self.skipped)} already present"
                + (f" (ids: {', '.join(self.skipped[:5])})" if self.skipped else "")
                + (f"; re-keyed {len(self.rekeyed)}: " + ", ".join(f"{a} -> {b}" for a, b in self.rekeyed.items())
                   if self.rekeyed else ""))


def tampering(bundle: TraceBundle) -> list[str]:
    """What was altered in a bundle since it was written: every integrity field, every evidence text against its
    hash, and the policy content against the policy hash. [] when nothing was."""
    data = bundle.model_dump(mode="json")
    problems = integrity_problems(data)
    content = data["policy"].get("content")
    if content is not None:
        digest = "sha256:" + hashlib.sha256(canonical_line(content).encode("utf-8")).hexdigest()
        if digest != bundle.policy.hash and _normalised_policy_hash(content) != bundle.policy.hash:
            problems.append(f"policy.content: hashes to {digest[:19]}..., not the recorded policy.hash "
                            f"{bundle.policy.hash[:19]}...")
    return problems


def _normalised_policy_hash(content: dict[str, Any]) -> str | None:
    """The policy hash of content written without its defaults (as a person might), or None if it is no bundle."""
    try:
        return bundle_hash(PolicyBundle.model_validate(content))
    except ValidationError:
        return None


def rekey(bundle: TraceBundle, new_id: str) -> TraceBundle:
    events = [e.model_copy(update={"trace_id": new_id}) for e in bundle.events]
    return bundle.model_copy(update={"trace_id": new_id, "events": events})


def import_bundles(store: TraceStore, path: str | Path, on_conflict: str = "skip") -> ImportSummary:
    """Load every bundle of a file into ``store``. All lines are validated before the first one is stored."""
    if on_conflict not in CONFLICT_MODES:
        raise BundleError(f"on_conflict must be one of {', '.join(CONFLICT_MODES)}, not {on_conflict!r}")
    entries = list(iter_bundle_file(path))
    if not entries:
        raise BundleError(f"bundle file {path} holds no traces")
    for number, bundle, _ in entries:  # nothing is stored if any line was altered
        altered = tampering(bundle)
        if altered:
            raise BundleError(f"{path}:{number}: trace {bundle.trace_id} was altered after export, nothing was "
                              f"imported: {'; '.join(altered[:3])}" + (f" (+{len(altered) - 3} more)" if len(altered) > 3
                                                                        else ""))
    summary = ImportSummary(str(path), on_conflict=on_conflict)
    seen: set[str] = set()
    for _, bundle, line in entries:
        trace_id = bundle.trace_id
        if store.exists(trace_id) or trace_id in seen:
            if on_conflict == "skip":
                summary.skipped.append(trace_id)
                continue
            new_id = f"{trace_id}~{hashlib.sha256(line.encode('utf-8')).hexdigest()[:8]}"
            if store.exists(new_id):
                summary.skipped.append(trace_id)
                continue
            bundle = rekey(bundle, new_id)
            summary.rekeyed[trace_id] = new_id
            trace_id = new_id
        try:
            store.save(bundle, imported_from=str(path))
        except TraceStoreError as exc:
            raise BundleError(f"cannot import trace {trace_id}: {exc}") from None
        seen.add(trace_id)
        summary.imported.append(trace_id)
    digest = "sha256:" + hashlib.sha256(Path(path).read_bytes()).hexdigest()
    store.record_bundle_file(str(path), digest, summary.imported, redacted=any(
        b.redaction.get("applied") for _, b, _ in entries), direction="import")
    return summary


__all__ = ["BundleError", "ExportSummary", "ImportSummary", "RedactionError", "export_bundles", "import_bundles",
           "iter_bundle_file", "read_bundles", "redact_bundle", "tampering"]

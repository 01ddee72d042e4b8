"""Policy lifecycle in SQLite: draft -> candidate -> promoted (-> retired), with who/when/why for every move.

Python API mirrored by ``controlplane policy ...``::

    life = PolicyLifecycle(store)
    life.register(loaded, actor="ana", reason="tighten legal")        # draft
    life.mark_candidate(ref, actor, reason)                            # candidate
    life.record_review(...)                                            # written by policy.review.run_review
    life.promote(ref, actor, reason, signing)                          # needs a fresh review of that exact hash
    life.rollback(name, actor, reason)                                 # the previously promoted bundle again
    current_policy(store, name)                                        # what the product should run

Invariants: exactly one promoted bundle per name (a partial unique index enforces it, so two concurrent promotions
cannot both win); every state change is a row in ``policy_transitions``; bundle content is stored by content hash,
so a stored version can never change under its hash.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controlplane.contracts.clock import utc_now
from controlplane.traces.store import TraceStore

from .loader import DEFAULT_BUNDLE_NAME, LoadedPolicy, PolicyBundleError, load_bundle, parse_bundle
from .signing import SignatureError, SigningConfig, read_signature, verify

STATES = ("draft", "candidate", "promoted", "retired", "rejected")
POLICY_NAME_ENV = "CONTROLPLANE_POLICY_NAME"


class LifecycleError(PolicyBundleError):
    """A lifecycle move is not allowed (no fresh review, wrong state, unknown bundle). The message says why."""


def default_actor() -> str:
    return os.environ.get("CONTROLPLANE_ACTOR") or os.environ.get("USER") or "unknown"


@dataclass(frozen=True)
class PolicyVersion:
    hash: str
    name: str
    version: str
    state: str
    source: str
    signature: dict[str, Any] | None
    created_at: str
    created_by: str
    content: dict[str, Any]

    def loaded(self) -> LoadedPolicy:
        loaded = parse_bundle(self.content, source=f"db:{self.hash[:19]}")
        if loaded.hash != self.hash:  # content stored under a hash it no longer has: never run it
            raise LifecycleError(f"stored policy {self.hash} no longer matches its content hash; the db was edited")
        return loaded

    def as_json(self) -> dict[str, Any]:
        return {"hash": self.hash, "name": self.name, "version": self.version, "state": self.state,
                "source": self.source, "signed": bool(self.signature), "created_at": self.created_at,
                "created_by": self.created_by}


class PolicyLifecycle:
    TABLES = ("policy_versions", "policy_transitions", "policy_reviews")

    def __init__(self, store: TraceStore):
        self.store = store
        self._absent = False
        if set(self.TABLES) <= set(store.db.table_names()):
            return  # read path (current_policy per request) takes no write lock
        if store.read_only:  # nothing was ever registered here, and nothing can be: read as empty
            self._absent = True
            return
        with store.transaction() as db:
            db["policy_versions"].create(
                {"hash": str, "name": str, "version": str, "state": str, "source": str, "signature": str,
                 "content": str, "created_at": str, "created_by": str, "updated_at": str},
                pk="hash", not_null={"hash", "name", "version", "state", "content"}, if_not_exists=True,
            )
            db.execute("CREATE UNIQUE INDEX IF NOT EXISTS policy_one_promoted ON policy_versions(name) "
                       "WHERE state = 'promoted'")
            db["policy_transitions"].create(
                {"id": int, "name": str, "hash": str, "from_state": str, "to_state": str, "actor": str,
                 "reason": str, "at": str},
                pk="id", if_not_exists=True,
            )
            db["policy_reviews"].create(
                {"id": int, "candidate_hash": str, "candidate_name": str, "baseline_hash": str, "created_at": str,
                 "reviewer": str, "trace_count": int, "newest_trace_created_at": str, "newest_trace_id": str,
                 "report_md": str, "report_json": str, "summary": str},
                pk="id", if_not_exists=True,
            )

    # -- reading ------------------------------------------------------------------------------------------------
    def _row(self, row: dict[str, Any]) -> PolicyVersion:
        return PolicyVersion(
            hash=row["hash"], name=row["name"], version=row["version"], state=row["state"], source=row["source"] or "",
            signature=json.loads(row["signature"]) if row["signature"] else None, created_at=row["created_at"],
            created_by=row["created_by"] or "", content=json.loads(row["content"]),
        )

    def list(self, name: str | None = None) -> list[PolicyVersion]:
        if self._absent:
            return []
        sql = "SELECT * FROM policy_versions" + (" WHERE name = ?" if name else "") + " ORDER BY name, created_at"
        return [self._row(r) for r in self.store.db.query(sql, [name] if name else [])]

    def get(self, ref: str) -> PolicyVersion:
        """By full hash, unique hash prefix (with or without ``sha256:``), or a bundle file path."""
        ref = str(ref)
        if Path(ref).is_file():
            loaded = load_bundle(ref)
            return self.get(loaded.hash)
        needle = ref if ref.startswith("sha256:") else "sha256:" + ref
        if self._absent:
            raise LifecycleError(f"no registered policy bundle {ref!r}: {self.store.path} holds none (and is read-only)")
        rows = list(self.store.db.query("SELECT * FROM policy_versions WHERE hash LIKE ?", [needle + "%"]))
        if not rows:
            raise LifecycleError(f"no registered policy bundle {ref!r}; register it with: controlplane policy register FILE")
        if len(rows) > 1:
            raise LifecycleError(f"{ref!r} matches {len(rows)} bundles; give more of the hash")
        return self._row(rows[0])

    def promoted(self, name: str) -> PolicyVersion | None:
        if self._absent:
            return None
        rows = list(self.store.db.query("SELECT * FROM policy_versions WHERE name = ? AND state = 'promoted'", [name]))
        return self._row(rows[0]) if rows else None

    def history(self, name: str | None = None) -> list[dict[str, Any]]:
        if self._absent:
            return []
        sql = "SELECT * FROM policy_transitions" + (" WHERE name = ?" if name else "") + " ORDER BY id"
        return list(self.store.db.query(sql, [name] if name else []))

    # -- moves --------------------------------------------------------------------------------------------------
    def register(self, loaded: LoadedPolicy, actor: str, reason: str, source: str | None = None,
                 signature: dict[str, Any] | None = None, state: str = "draft") -> PolicyVersion:
        """Store a bundle version (idempotent by hash); a new signature for a known hash is recorded."""
        if state not in ("draft", "candidate"):
            raise LifecycleError("a bundle is registered as draft or candidate; promote it after a review")
        existing = list(self.store.db.query("SELECT * FROM policy_versions WHERE hash = ?", [loaded.hash]))
        if existing:
            if signature and not existing[0]["signature"]:
                with self.store.transaction() as db:
                    db.execute("UPDATE policy_versions SET signature = ? WHERE hash = ?",
                               [json.dumps(signature, sort_keys=True), loaded.hash])
            return self.get(loaded.hash)
        from .loader import canonical_content

        now = utc_now()
        with self.store.transaction() as db:
            db["policy_versions"].insert({
                "hash": loaded.hash, "name": loaded.bundle.name, "version": loaded.bundle.version, "state": state,
                "source": source or loaded.source, "signature": json.dumps(signature, sort_keys=True) if signature else None,
                "content": json.dumps(canonical_content(loaded.bundle), sort_keys=True), "created_at": now,
                "created_by": actor, "updated_at": now,
            })
            self._transition(db, loaded.bundle.name, loaded.hash, None, state, actor, reason)
        return self.get(loaded.hash)

    def register_file(self, path: str | Path, actor: str, reason: str, state: str = "draft") -> PolicyVersion:
        loaded = load_bundle(path)
        return self.register(loaded, actor, reason, source=str(path), signature=read_signature(path), state=state)

    def _transition(self, db, name: str, content_hash: str, from_state: str | None, to_state: str, actor: str,
                    reason: str) -> None:
        db["policy_transitions"].insert({"name": name, "hash": content_hash, "from_state": from_state,
                                         "to_state": to_state, "actor": actor, "reason": reason, "at": utc_now()})

    def _set_state(self, db, version: PolicyVersion, to_state: str, actor: str, reason: str) -> None:
        db.execute("UPDATE policy_versions SET state = ?, updated_at = ? WHERE hash = ?", [to_state, utc_now(), version.hash])
        self._transition(db, version.name, version.hash, version.state, to_state, actor, reason)

    def mark_candidate(self, ref: str, actor: str, reason: str) -> PolicyVersion:
        version = self.get(ref)
        if version.state == "candidate":
            return version
        if version.state not in ("draft", "retired", "rejected"):
            raise LifecycleError(f"bundle {version.hash[:19]} is {version.state}; only a draft, retired or rejected "
                                 "bundle can become a candidate")
        with self.store.transaction() as db:
            self._set_state(db, version, "candidate", actor, reason)
        return self.get(version.hash)

    def reject(self, ref: str, actor: str, reason: str) -> PolicyVersion:
        version = self.get(ref)
        if version.state == "promoted":
            raise LifecycleError("a promoted bundle is replaced by promoting another or by rollback, not rejected")
        with self.store.transaction() as db:
            self._set_state(db, version, "rejected", actor, reason)
        return self.get(version.hash)

    # -- reviews ------------------------------------------------------------------------------------------------
    def record_review(self, candidate: LoadedPolicy, baseline_hash: str, reviewer: str, trace_count: int,
                      newest_trace_created_at: str | None, newest_trace_id: str | None, report_md: str,
                      report_json: str, summary: dict[str, Any]) -> int:
        with self.store.transaction() as db:
            table = db["policy_reviews"]
            table.insert({
                "candidate_hash": candidate.hash, "candidate_name": candidate.bundle.name,
                "baseline_hash": baseline_hash, "created_at": utc_now(), "reviewer": reviewer,
                "trace_count": trace_count, "newest_trace_created_at": newest_trace_created_at,
                "newest_trace_id": newest_trace_id, "report_md": report_md, "report_json": report_json,
                "summary": json.dumps(summary, sort_keys=True),
            })
            return table.last_pk

    def latest_review(self, content_hash: str) -> dict[str, Any] | None:
        rows = list(self.store.db.query(
            "SELECT * FROM policy_reviews WHERE candidate_hash = ? ORDER BY id DESC LIMIT 1", [content_hash]))
        return rows[0] if rows else None

    def newest_trace(self) -> tuple[str | None, str | None]:
        row = self.store.db.execute(
            "SELECT created_at, trace_id FROM traces WHERE status NOT IN ('in_progress', 'error') "
            "ORDER BY created_at DESC, trace_id DESC LIMIT 1").fetchone()
        return (row[0], row[1]) if row else (None, None)

    def complete_trace_count(self) -> int:
        return self.store.db.execute(
            "SELECT COUNT(*) FROM traces WHERE status NOT IN ('in_progress', 'error')").fetchone()[0]

    def review_problem(self, version: PolicyVersion) -> str | None:
        """Why ``version`` may not be promoted on its review, or None when a fresh review exists."""
        review = self.latest_review(version.hash)
        fix = f"run: controlplane policy review {version.hash[:19]} --db {self.store.path}"
        if review is None:
            return f"no review of bundle {version.hash} exists; {fix}"
        newest_at, newest_id = self.newest_trace()
        if newest_at is not None:
            covered = review["newest_trace_created_at"]
            if covered is None or (newest_at, newest_id) > (covered, review["newest_trace_id"] or ""):
                return (f"the review of {version.hash[:19]} (#{review['id']}) covered traces up to {covered}, but trace "
                        f"{newest_id} ({newest_at}) was stored after it; {fix}")
        summary = json.loads(review["summary"] or "{}")
        if summary.get("replay_errors"):
            return (f"the review of {version.hash[:19]} (#{review['id']}) could not replay {summary['replay_errors']} "
                    f"trace(s) (see {review['report_md']}); fix that and review again")
        stored_then = summary.get("store_trace_count")
        stored_now = self.complete_trace_count()
        if stored_then is not None and stored_now > stored_then:
            return (f"{stored_now - stored_then} trace(s) were stored (or imported) after the review of "
                    f"{version.hash[:19]} (#{review['id']}); {fix}")
        current = self.promoted(version.name)
        baseline = current.hash if current else _shipped_hash(version.name)
        if baseline and review["baseline_hash"] != baseline:
            return (f"the review of {version.hash[:19]} compared against {review['baseline_hash'][:19]}, but the "
                    f"current bundle of {version.name!r} is now {baseline[:19]}; {fix}")
        return None

    # -- promotion ----------------------------------------------------------------------------------------------
    def _meets_the_promotion_bar(self, version: PolicyVersion, signing: SigningConfig | None, move: str) -> None:
        """The one bar every bundle clears before it is the promoted one, by promotion or by rollback: a valid
        signature where required, content that still matches its hash and passes today's validation, every gate
        registered, and a fresh review of that exact hash against the bundle that is current now."""
        check_signature(version, signing or SigningConfig.from_env())
        try:
            loaded = version.loaded()  # content still matches its hash, and passes today's validation
        except PolicyBundleError as exc:
            raise LifecycleError(f"refusing to {move} {version.hash[:19]}: {exc}") from None
        missing = unregistered_gates(loaded)
        if missing:
            raise LifecycleError(f"refusing to {move} {version.hash[:19]}: it names gate(s) {', '.join(missing)} that "
                                 "no installed plugin registers; install the plugin or remove them")
        problem = self.review_problem(version)
        if problem:
            raise LifecycleError(f"refusing to {move} {version.hash[:19]}: {problem}")

    def promote(self, ref: str, actor: str, reason: str, signing: SigningConfig | None = None) -> PolicyVersion:
        version = self.get(ref)
        if version.state == "promoted":
            raise LifecycleError(f"bundle {version.hash[:19]} is already the promoted {version.name!r}")
        if version.state != "candidate":
            raise LifecycleError(f"bundle {version.hash[:19]} is {version.state}; make it a candidate first "
                                 f"(controlplane policy candidate {version.hash[:19]})")
        if not reason.strip():
            raise LifecycleError("say why: --why TEXT is recorded with the promotion")
        self._meets_the_promotion_bar(version, signing, "promote")
        with self.store.transaction() as db:
            current = self.promoted(version.name)
            if current is not None:
                self._set_state(db, current, "retired", actor, f"replaced by {version.hash[:19]}: {reason}")
            self._set_state(db, version, "promoted", actor, reason)
        return self.get(version.hash)

    def rollback(self, name: str, actor: str, reason: str, signing: SigningConfig | None = None) -> PolicyVersion:
        """Retire the promoted bundle of ``name`` and promote the one promoted before it."""
        current = self.promoted(name)
        if current is None:
            raise LifecycleError(f"no promoted bundle named {name!r}; nothing to roll back")
        promotions = [r for r in self.history(name) if r["to_state"] == "promoted" and r["hash"] != current.hash]
        if not promotions:
            raise LifecycleError(f"{name!r} has no previously promoted bundle to roll back to")
        previous = self.get(promotions[-1]["hash"])
        self._meets_the_promotion_bar(previous, signing, "roll back to")
        with self.store.transaction() as db:
            self._set_state(db, current, "retired", actor, f"rollback: {reason}")
            self._set_state(db, previous, "promoted", actor, f"rollback: {reason}")
        return self.get(previous.hash)


def unregistered_gates(loaded: LoadedPolicy) -> list[str]:
    """Gate ids the bundle enables that no installed plugin registers (built-ins, entry points)."""
    from controlplane.gates.registry import GateRegistry  # late: the registry loads every plugin

    return GateRegistry().missing_gates(loaded.bundle)


def _shipped_hash(name: str) -> str | None:
    return load_bundle().hash if name == DEFAULT_BUNDLE_NAME else None


def check_signature(version: PolicyVersion, signing: SigningConfig) -> None:
    if signing.required:
        verify(version.hash, version.signature, signing.public_key())


def current_policy(store: TraceStore, name: str | None = None, signing: SigningConfig | None = None) -> LoadedPolicy:
    """The bundle the product should run for ``name``: the promoted one, else the shipped default.

    In a deployment that requires signatures, an unsigned or badly signed bundle (the shipped default included)
    raises SignatureError: fail closed.
    """
    name = name or os.environ.get(POLICY_NAME_ENV) or DEFAULT_BUNDLE_NAME
    signing = signing or SigningConfig.from_env()
    promoted = PolicyLifecycle(store).promoted(name)
    if promoted is not None:
        check_signature(promoted, signing)
        return promoted.loaded()
    if name != DEFAULT_BUNDLE_NAME:
        raise LifecycleError(f"no promoted policy bundle named {name!r} in {store.path}; promote one first")
    if signing.required:
        raise SignatureError("signed policies are required and no signed bundle is promoted; the shipped default is "
                             "unsigned: sign, review and promote a bundle first")
    return load_bundle()


def load_checked(path: str | Path, signing: SigningConfig | None = None) -> LoadedPolicy:
    """Load a bundle file, verifying its detached signature when signatures are required."""
    loaded = load_bundle(path)
    signing = signing or SigningConfig.from_env()
    if signing.required:
        verify(loaded.hash, read_signature(path), signing.public_key())
    return loaded


def resolve_policy(store: TraceStore, path: str | Path | None = None, signing: SigningConfig | None = None) -> LoadedPolicy:
    """``--policy FILE`` if given (or $CONTROLPLANE_POLICY), else the promoted bundle, else the shipped default."""
    chosen = path or os.environ.get("CONTROLPLANE_POLICY") or None
    if chosen:
        return load_checked(chosen, signing)
    return current_policy(store, signing=signing)


__all__ = ["LifecycleError", "PolicyLifecycle", "PolicyVersion", "SignatureError", "current_policy", "load_checked",
           "resolve_policy"]

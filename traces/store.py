"""The SQLite trace store (sqlite-utils): normalised tables, WAL, durable writes, seq contiguous per trace.

A trace is written twice: ``begin`` records it as ``in_progress`` the moment a request starts, and ``save``
writes the complete run (events, gate results, attempts, outcome) in one transaction. A process killed between the
two leaves an ``in_progress`` trace, never a partial one reported as complete, and the database stays consistent.

Everything needed to rebuild a TraceBundle is stored, so export and replay read only from here. The store sits
behind this class so several app instances can later move to a shared SQL server without touching callers.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import datetime
from functools import lru_cache
from json.encoder import encode_basestring
from pathlib import Path
from typing import Any

import sqlite_utils

from controlplane.contracts import (
    AttemptRecord,
    CriticFinding,
    EvidencePack,
    GateResult,
    ModeDecision,
    PolicyRef,
    TraceBundle,
    TraceEvent,
    TraceOutcome,
    TraceStatus,
)
from controlplane.contracts.clock import utc_now

from . import column_json
from .integrity import compute_integrity

SCHEMA_VERSION = 1
# Columns that make a `traces` table ours; another application's table of that name is never touched.
TRACE_COLUMNS = frozenset({"trace_id", "created_at", "status", "messages", "outcome", "policy_hash", "attempt_count"})
DURABILITY = {"full": "FULL", "normal": "NORMAL", "extra": "EXTRA"}


class TraceStoreError(ValueError):
    """The trace database cannot be opened or written, or a trace is missing. The message says what to do."""


def _json(value: Any) -> str:
    """A JSON column's text: the canonical form (traces/column_json.py), the one the integrity map hashes."""
    return column_json.dumps(value)


def _json_strings(values: list[str]) -> str:
    """``_json`` of a list of strings, without an encoder call (a gate row has two such lists)."""
    if all(type(value) is str for value in values):
        return f"[{','.join(map(encode_basestring, values))}]" if values else "[]"
    return _json(values)


# Where an object key that was not a string would show in canonical text: after "{" or "," (inside a string a quote is
# always escaped), a number, true, false, null, NaN or Infinity in quotes. Arrays of such strings match too: then the
# payload is merely decoded again, never hashed wrongly.
# Two patterns with a literal start, not one that starts with [{,]: the regex engine scans for a literal prefix far
# faster (a save's 13 payloads: 35 -> 17 us); either matching is exactly the one pattern matching.
_NON_STRING_KEY_TAIL = r'(?:-?[0-9]|-?Infinity"|true"|false"|null"|NaN")'
_NON_STRING_KEY_FIRST = re.compile(r'\{"' + _NON_STRING_KEY_TAIL)
_NON_STRING_KEY_NEXT = re.compile(r',"' + _NON_STRING_KEY_TAIL)


def _may_hold_non_string_key(text: str) -> bool:
    return _NON_STRING_KEY_FIRST.search(text) is not None or _NON_STRING_KEY_NEXT.search(text) is not None


def _stored_payload(payload: Any) -> tuple[str, str]:
    """The column text of a value and the canonical text of the value ``load_bundle`` decodes from it. Columns are
    written in the integrity map's canonical form: for a value whose keys are all strings, the column text is the
    very text the map hashes, so a save encodes it once instead of encoding, decoding and re-encoding it."""
    text = _json(payload)
    # A key that was not a string (an int, say) is written as text, so the decoded object sorts its keys differently
    # (10 before 9 as text): only then is the canonical text taken again from the decoded payload.
    return text, (_json(json.loads(text)) if _may_hold_non_string_key(text) else text)


def _load(value: str | None) -> Any:
    return json.loads(value) if value else None


class TraceStore:
    """One SQLite file. Safe to share across threads (a connection per thread) and processes (SQLite locking).

    A database file this process may not write is opened read-only: listing, showing, exporting and replaying work,
    and any write raises TraceStoreError saying so.
    """

    def __init__(self, path: str | Path, durability: str = "full", busy_timeout_ms: int = 30_000):
        self.path = Path(path)
        if durability not in DURABILITY:
            raise TraceStoreError(f"durability must be one of {', '.join(DURABILITY)} (synchronous=OFF is not offered)")
        self._synchronous = DURABILITY[durability]
        self._busy_timeout_ms = busy_timeout_ms
        self._local = threading.local()
        # policy hashes whose snapshot this store has committed (snapshots are never deleted): save skips the lookup
        self._known_policies: set[str] = set()
        self.read_only = False
        if str(self.path) != ":memory:":
            parent = self.path.parent
            if self.path.is_file() and not (os.access(self.path, os.W_OK) and os.access(parent, os.W_OK)):
                self.read_only = True  # readable, not writable: serve reads, refuse writes
            else:
                try:
                    parent.mkdir(parents=True, exist_ok=True)
                except OSError as exc:
                    raise TraceStoreError(f"cannot create the directory for trace db {self.path}: {exc} "
                                          "(pass --db PATH)") from None
                if not os.access(parent, os.W_OK):
                    raise TraceStoreError(f"cannot write in {parent} for trace db {self.path} (pass --db PATH)")
        try:
            if self.read_only:
                self._check_schema(self.db)
            else:
                if self.path.is_file():  # look before the first write: WAL mode alone rewrites the file header
                    with sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True) as peek:
                        self._check_schema(sqlite_utils.Database(peek))
                self._ensure_schema()
        except sqlite3.DatabaseError as exc:
            raise TraceStoreError(f"{self.path} is not a usable SQLite trace db ({exc}); pass --db with another "
                                  "path") from None

    # -- connections --------------------------------------------------------------------------------------------
    @property
    def db(self) -> sqlite_utils.Database:
        db = getattr(self._local, "db", None)
        if db is None:
            conn = self._read_only_connection() if self.read_only else sqlite3.connect(
                str(self.path), timeout=self._busy_timeout_ms / 1000, isolation_level=None)
            conn.execute(f"PRAGMA busy_timeout={self._busy_timeout_ms}")
            if not self.read_only:
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute(f"PRAGMA synchronous={self._synchronous}")
            conn.execute("PRAGMA foreign_keys=ON")
            db = sqlite_utils.Database(conn)
            self._local.db = db
        return db

    def _read_only_connection(self) -> sqlite3.Connection:
        uri = Path(self.path).resolve().as_uri()
        conn = sqlite3.connect(f"{uri}?mode=ro", uri=True, timeout=self._busy_timeout_ms / 1000, isolation_level=None)
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return conn
        except sqlite3.OperationalError:
            # A WAL database in a directory we cannot write: SQLite cannot create its shared-memory file, so read
            # the file as it is (nothing can write it either, or we could).
            conn.close()
            return sqlite3.connect(f"{uri}?immutable=1", uri=True, isolation_level=None)

    @contextmanager
    def transaction(self, synced: bool = True) -> Iterator[sqlite_utils.Database]:
        """One write transaction. ``synced=False``: its commit is not fsync'd even at durability full (as at
        normal, it survives a killed process): for a record whose loss in a power cut costs nothing acknowledged,
        since the next synced commit makes it durable too (the WAL is one file, written in order)."""
        if self.read_only:
            raise TraceStoreError(f"trace db {self.path} is read-only for this user; this command writes to it (fix "
                                  "its permissions or pass --db with a writable path)")
        db = self.db
        # One connection with the level toggled around an unsynced commit, not a second connection at NORMAL: a
        # second connection's commit would make this one's page cache stale (re-read on its next transaction).
        relaxed = not synced and self._synchronous != "NORMAL"
        if relaxed:
            db.execute("PRAGMA synchronous=NORMAL")
        try:
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            else:
                db.execute("COMMIT")
        finally:
            if relaxed:
                db.execute(f"PRAGMA synchronous={self._synchronous}")

    def close(self) -> None:
        db = getattr(self._local, "db", None)
        if db is not None:
            db.conn.close()
            self._local.db = None

    # -- schema -------------------------------------------------------------------------------------------------
    def _check_schema(self, db: sqlite_utils.Database) -> None:
        """Refuse a database whose `traces` table belongs to someone else, before anything is created in it."""
        if "traces" not in db.table_names():
            if self.read_only:
                raise TraceStoreError(f"{self.path} holds no controlplane traces (and is read-only); pass --db with a "
                                      "trace db")
            return
        missing = sorted(TRACE_COLUMNS - set(db["traces"].columns_dict))
        if missing:
            raise TraceStoreError(f"{self.path} has a 'traces' table that is not a controlplane trace table (it lacks "
                                  f"{', '.join(missing)}); nothing was changed: pass --db with another path")

    def _ensure_schema(self) -> None:
        with self.transaction() as db:
            self._check_schema(db)
            db["meta"].create({"key": str, "value": str}, pk="key", if_not_exists=True)
            db["policy_snapshots"].create(
                {"hash": str, "name": str, "version": str, "content": str, "first_seen": str}, pk="hash", if_not_exists=True
            )
            db["traces"].create(
                {
                    "trace_id": str, "created_at": str, "finished_at": str, "status": str, "session_id": str,
                    "user_message": str, "messages": str, "mode_label": str, "domain_flags": str,
                    "mode_decision": str, "evidence_pack": str, "retrieved_evidence_pack": str,
                    "policy_name": str, "policy_version": str, "policy_hash": str, "model": str, "budgets": str,
                    "attempt_count": int, "assistant_text": str, "verified": int, "outcome": str,
                    "failing_gates": str, "duration_ms": float, "redaction": str, "imported_from": str,
                    "integrity": str,
                },
                pk="trace_id",
                not_null={"trace_id", "created_at", "status"},
                if_not_exists=True,
            )
            db["trace_events"].create(
                {"id": int, "trace_id": str, "seq": int, "phase": str, "gate_id": str, "attempt": int,
                 "payload": str, "ts": str},
                pk="id",
                not_null={"trace_id", "seq", "phase", "ts"},
                foreign_keys=[("trace_id", "traces", "trace_id")],
                if_not_exists=True,
            )
            db.execute("CREATE UNIQUE INDEX IF NOT EXISTS trace_events_seq ON trace_events(trace_id, seq)")
            db["regen_attempts"].create(
                {"id": int, "trace_id": str, "attempt": int, "raw_output": str, "envelope": str, "finish_reason": str,
                 "tokens_in": int, "tokens_out": int, "latency_ms": float, "regen_delta": str, "passed": int},
                pk="id",
                foreign_keys=[("trace_id", "traces", "trace_id")],
                if_not_exists=True,
            )
            db.execute("CREATE UNIQUE INDEX IF NOT EXISTS regen_attempts_n ON regen_attempts(trace_id, attempt)")
            db["gate_results"].create(
                {"id": int, "trace_id": str, "attempt": int, "position": int, "gate_id": str, "gate_version": str,
                 "result": str, "reason_codes": str, "evidence_refs": str, "cost_class": str, "latency_ms": float,
                 "tokens_in": int, "tokens_out": int, "details": str, "stage": str},
                pk="id",
                foreign_keys=[("trace_id", "traces", "trace_id")],
                if_not_exists=True,
            )
            db.execute("CREATE INDEX IF NOT EXISTS gate_results_trace ON gate_results(trace_id, attempt, position)")
            # No query reads gate_results by (gate_id, result), and keeping that index cost every save 30-50 µs (7 rows
            # scattered over it): stores that have it lose it.
            db.execute("DROP INDEX IF EXISTS gate_results_gate")
            db["critic_findings"].create(
                {"id": int, "trace_id": str, "finding_id": str, "severity": str, "type": str, "claim_id": str,
                 "evidence_ids": str, "explanation": str, "suggested_gate_delta": str, "status": str, "source": str,
                 "created_at": str, "reviewed_by": str, "reviewed_at": str},
                pk="id",
                if_not_exists=True,
            )
            db["human_feedback"].create(
                {"id": int, "trace_id": str, "claim_id": str, "label": str, "comment": str, "author": str,
                 "created_at": str},
                pk="id",
                if_not_exists=True,
            )
            db["trace_bundles"].create(
                {"id": int, "path": str, "sha256": str, "trace_ids": str, "trace_count": int, "exported_at": str,
                 "redacted": int, "direction": str},
                pk="id",
                if_not_exists=True,
            )
            if "integrity" not in db["traces"].columns_dict:  # stores written before bundles carried hashes
                db.execute("ALTER TABLE traces ADD COLUMN integrity TEXT")
            db.execute("CREATE INDEX IF NOT EXISTS traces_created ON traces(created_at)")
            db.execute("CREATE INDEX IF NOT EXISTS traces_status ON traces(status)")
            db["meta"].upsert({"key": "schema_version", "value": str(SCHEMA_VERSION)}, pk="key")

    # -- writing ------------------------------------------------------------------------------------------------
    def begin(self, trace_id: str, messages: list[dict[str, Any]], created_at: str | None = None,
              session_id: str | None = None) -> None:
        user_message = next((str(m.get("content", "")) for m in reversed(messages) if m.get("role") == "user"), "")
        # The in_progress row is there for a killed process (it shows a run that never finished); it is not an
        # acknowledged result, so its commit is not fsync'd: save's commit, which is, makes it durable with the run.
        # One fsync per request at durability full instead of two.
        with self.transaction(synced=False) as db:
            _insert_many(db, "traces", [
                {
                    "trace_id": trace_id, "created_at": created_at or utc_now(), "status": TraceStatus.IN_PROGRESS.value,
                    "session_id": session_id, "user_message": user_message, "messages": _json(messages),
                },
            ])

    def save(self, bundle: TraceBundle, session_id: str | None = None, imported_from: str | None = None) -> None:
        """Write a whole trace run in one transaction (replacing an in_progress row of the same id)."""
        _check_seq(bundle.trace_id, bundle.events)
        outcome = bundle.outcome
        last_gates = bundle.attempts[-1].gate_results if bundle.attempts else []
        failing = sorted({g.gate_id for g in last_gates if g.failed})
        policy_content = bundle.policy.content
        # each payload is encoded once: the same text is stored and (keys permitting) hashed into the integrity map
        stored_payloads = [_stored_payload(e.payload) for e in bundle.events]
        payloads = [text for text, _ in stored_payloads]
        messages, messages_canonical = _stored_payload(bundle.messages)
        outcome_json, outcome_canonical = (_stored_payload(outcome.model_dump(mode="json")) if outcome
                                           else (None, "null"))
        integrity = _json(_integrity_as_stored(bundle, [canonical for _, canonical in stored_payloads],
                                               messages_canonical, outcome_canonical))
        snapshot = policy_content is not None and bundle.policy.hash not in self._known_policies
        with self.transaction() as db:
            if snapshot:
                known = db.execute("SELECT 1 FROM policy_snapshots WHERE hash = ?", [bundle.policy.hash]).fetchone()
                if known is None:  # serialise the whole bundle only the first time its hash is seen
                    db["policy_snapshots"].insert(
                        {"hash": bundle.policy.hash, "name": bundle.policy.name, "version": bundle.policy.version,
                         "content": _json(policy_content), "first_seen": utc_now()},
                        ignore=True,
                    )
            # Child rows are written only here, in the transaction that completes the trace, so an in_progress
            # trace has none to replace; the upsert updates only an in_progress row (a complete one stays as stored).
            decision = bundle.mode_decision
            user_message = next(
                (str(m.get("content", "")) for m in reversed(bundle.messages) if m.get("role") == "user"), ""
            )
            written = _upsert_trace(db, {
                    "trace_id": bundle.trace_id,
                    "created_at": bundle.created_at,
                    "finished_at": utc_now(),
                    "status": (outcome.status.value if outcome else TraceStatus.ERROR.value),
                    "session_id": session_id,
                    "user_message": user_message,
                    "messages": messages,
                    "mode_label": decision.modeLabel if decision else None,
                    "domain_flags": _json(decision.domainFlags) if decision else None,
                    "mode_decision": decision.model_dump_json() if decision else None,
                    "evidence_pack": bundle.evidence_pack.model_dump_json() if bundle.evidence_pack else None,
                    "retrieved_evidence_pack": (
                        bundle.retrieved_evidence_pack.model_dump_json() if bundle.retrieved_evidence_pack else None
                    ),
                    "policy_name": bundle.policy.name,
                    "policy_version": bundle.policy.version,
                    "policy_hash": bundle.policy.hash,
                    "model": _json(bundle.model),
                    "budgets": _json(bundle.budgets if isinstance(bundle.budgets, dict) else bundle.budgets.model_dump()),
                    "attempt_count": len(bundle.attempts),
                    "assistant_text": outcome.assistant_text if outcome else "",
                    "verified": int(outcome.verified) if outcome else 0,
                    "outcome": outcome_json,
                    "failing_gates": _json(failing),
                    "duration_ms": _duration_ms(bundle.events),
                    "redaction": _json(bundle.redaction),
                    "imported_from": imported_from,
                    "integrity": integrity,
            })
            if not written:
                raise TraceStoreError(f"trace {bundle.trace_id} is already stored and complete")
            # Plain executemany on the known columns: sqlite-utils' insert_all re-reads the table schema on every
            # call, which cost more than the rows themselves (bench/hardening.py).
            _insert_many(db, "trace_events", (
                {
                    "trace_id": e.trace_id, "seq": e.seq, "phase": e.phase.value, "gate_id": e.gate_id,
                    "attempt": e.metadata.attempt, "payload": payload, "ts": e.ts,
                }
                for e, payload in zip(bundle.events, payloads, strict=True)
            ))
            for record in bundle.attempts:
                _insert_many(db, "regen_attempts", [
                    {
                        "trace_id": bundle.trace_id, "attempt": record.attempt, "raw_output": record.raw_output,
                        "envelope": _json(record.envelope) if record.envelope is not None else None,
                        "finish_reason": record.finish_reason.value, "tokens_in": record.tokens_in,
                        "tokens_out": record.tokens_out, "latency_ms": record.latency_ms,
                        "regen_delta": record.regen_delta.model_dump_json() if record.regen_delta else None,
                        "passed": int(all(not g.failed for g in record.gate_results)),
                    }
                ])
                _insert_many(db, "gate_results", (
                    _gate_row(bundle.trace_id, record.attempt, position, result)
                    for position, result in enumerate(record.gate_results)
                ))
        if snapshot:
            self._known_policies.add(bundle.policy.hash)  # committed: the snapshot row is there from now on

    def mark_error(self, trace_id: str, error: str) -> None:
        with self.transaction() as db:
            db.execute(
                "UPDATE traces SET status = ?, finished_at = ?, outcome = ? WHERE trace_id = ? AND status = ?",
                [TraceStatus.ERROR.value, utc_now(), _json({"status": "error", "error": error}), trace_id,
                 TraceStatus.IN_PROGRESS.value],
            )

    def add_findings(self, trace_id: str, findings: Iterable[CriticFinding], source: str, status: str = "proposed") -> int:
        rows = [
            {
                "trace_id": trace_id, "finding_id": f.finding_id, "severity": f.severity.value, "type": f.type.value,
                "claim_id": f.claim_id, "evidence_ids": _json(f.evidence_ids), "explanation": f.explanation,
                "suggested_gate_delta": f.suggested_gate_delta.model_dump_json() if f.suggested_gate_delta else None,
                "status": status, "source": source, "created_at": utc_now(),
            }
            for f in findings
        ]
        with self.transaction() as db:
            db["critic_findings"].insert_all(rows)
        return len(rows)

    def add_feedback(self, trace_id: str, label: str, comment: str = "", claim_id: str | None = None,
                     author: str = "") -> None:
        self.require(trace_id)
        with self.transaction() as db:
            db["human_feedback"].insert(
                {"trace_id": trace_id, "claim_id": claim_id, "label": label, "comment": comment, "author": author,
                 "created_at": utc_now()}
            )

    def record_bundle_file(self, path: str, sha256: str, trace_ids: list[str], redacted: bool, direction: str) -> None:
        if self.read_only and direction == "export":
            return  # the export log is a convenience; a read-only store can still be exported
        with self.transaction() as db:
            db["trace_bundles"].insert(
                {"path": path, "sha256": sha256, "trace_ids": _json(trace_ids), "trace_count": len(trace_ids),
                 "exported_at": utc_now(), "redacted": int(redacted), "direction": direction}
            )

    # -- reading ------------------------------------------------------------------------------------------------
    def require(self, trace_id: str) -> dict[str, Any]:
        rows = list(self.db.query("SELECT * FROM traces WHERE trace_id = ?", [trace_id]))
        if not rows:
            raise TraceStoreError(f"no trace {trace_id!r} in {self.path} (list them with: controlplane trace list --db {self.path})")
        return rows[0]

    def exists(self, trace_id: str) -> bool:
        return self.db.execute("SELECT 1 FROM traces WHERE trace_id = ?", [trace_id]).fetchone() is not None

    def events(self, trace_id: str) -> list[TraceEvent]:
        self.require(trace_id)
        rows = self.db.query("SELECT * FROM trace_events WHERE trace_id = ? ORDER BY seq", [trace_id])
        return [
            TraceEvent(
                trace_id=r["trace_id"], seq=r["seq"], phase=r["phase"], gate_id=r["gate_id"], payload=_load(r["payload"]) or {},
                ts=r["ts"], metadata={"seq": r["seq"], "attempt": r["attempt"]},
            )
            for r in rows
        ]

    def list_traces(self, since: str | None = None, status: str | None = None, limit: int | None = None,
                    complete_only: bool = False) -> list[dict[str, Any]]:
        clauses, params = [], []
        if since:
            clauses.append("created_at >= ?")
            params.append(since)
        if status:
            clauses.append("status = ?")
            params.append(status)
        if complete_only:
            clauses.append("status NOT IN ('in_progress', 'error')")
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        sql = (
            "SELECT trace_id, created_at, status, mode_label, domain_flags, attempt_count, failing_gates, "
            f"policy_hash, verified, user_message FROM traces {where} ORDER BY created_at DESC, trace_id DESC"
        )
        if limit:
            sql += f" LIMIT {int(limit)}"
        rows = []
        for row in self.db.query(sql, params):
            row["domain_flags"] = _load(row["domain_flags"]) or []
            row["failing_gates"] = _load(row["failing_gates"]) or []
            row["verified"] = bool(row["verified"])
            rows.append(row)
        return rows

    def load_bundle(self, trace_id: str) -> TraceBundle:
        """Rebuild the full TraceBundle of a complete trace from the normalised tables."""
        row = self.require(trace_id)
        if row["status"] == TraceStatus.IN_PROGRESS.value:
            raise TraceStoreError(f"trace {trace_id} is still in progress (or its writer died); it has no bundle")
        attempts = []
        gates_by_attempt: dict[int, list[GateResult]] = {}
        for g in self.db.query("SELECT * FROM gate_results WHERE trace_id = ? ORDER BY attempt, position", [trace_id]):
            gates_by_attempt.setdefault(g["attempt"], []).append(
                GateResult(
                    gate_id=g["gate_id"], gate_version=g["gate_version"], result=g["result"],
                    reason_codes=_load(g["reason_codes"]) or [], evidence_refs=_load(g["evidence_refs"]) or [],
                    cost_class=g["cost_class"],
                    measured={"latency_ms": g["latency_ms"] or 0.0, "tokens_in": g["tokens_in"] or 0,
                              "tokens_out": g["tokens_out"] or 0},
                    details=_load(g["details"]) or {},
                )
            )
        for a in self.db.query("SELECT * FROM regen_attempts WHERE trace_id = ? ORDER BY attempt", [trace_id]):
            attempts.append(
                AttemptRecord(
                    attempt=a["attempt"], raw_output=a["raw_output"] or "", envelope=_load(a["envelope"]),
                    finish_reason=a["finish_reason"], tokens_in=a["tokens_in"] or 0, tokens_out=a["tokens_out"] or 0,
                    latency_ms=a["latency_ms"] or 0.0, gate_results=gates_by_attempt.get(a["attempt"], []),
                    regen_delta=_load(a["regen_delta"]),
                )
            )
        snapshot = self.db.execute("SELECT content FROM policy_snapshots WHERE hash = ?", [row["policy_hash"]]).fetchone()
        bundle = TraceBundle(
            trace_id=trace_id,
            created_at=row["created_at"],
            messages=_load(row["messages"]) or [],
            mode_decision=ModeDecision.model_validate_json(row["mode_decision"]) if row["mode_decision"] else None,
            evidence_pack=EvidencePack.model_validate_json(row["evidence_pack"]) if row["evidence_pack"] else None,
            retrieved_evidence_pack=(
                EvidencePack.model_validate_json(row["retrieved_evidence_pack"]) if row["retrieved_evidence_pack"] else None
            ),
            attempts=attempts,
            outcome=TraceOutcome.model_validate_json(row["outcome"]) if row["outcome"] else None,
            events=self.events(trace_id),
            policy=PolicyRef(
                name=row["policy_name"] or "", version=row["policy_version"] or "", hash=row["policy_hash"] or "",
                content=_load(snapshot[0]) if snapshot else None,
            ),
            model=_load(row["model"]) or {},
            budgets=_load(row["budgets"]) or {},
            redaction=_load(row["redaction"]) or {},
            integrity=_load(row.get("integrity")) or {},
        )
        # a re-verification names the trace it edits in its user_edit event (kept there: no schema change)
        parent = next((e.payload.get("parent_trace_id") for e in bundle.events if e.phase.value == "user_edit"), None)
        if parent:
            bundle = bundle.model_copy(update={"parent_trace_id": parent})
        if not bundle.integrity:  # a trace stored before bundles carried hashes: vouch for it as it is now
            bundle = bundle.model_copy(update={"integrity": compute_integrity(bundle.model_dump(mode="json"))})
        return bundle

    # -- critic findings (review loop) ---------------------------------------------------------------------------
    def finding_ids(self, trace_id: str) -> set[str]:
        return {r[0] for r in self.db.execute("SELECT finding_id FROM critic_findings WHERE trace_id = ?", [trace_id])}

    def list_findings(self, status: str | None = None, trace_id: str | None = None, since: str | None = None,
                      limit: int | None = None) -> list[dict[str, Any]]:
        clauses, params = [], []
        for column, value in (("status", status), ("trace_id", trace_id)):
            if value:
                clauses.append(f"{column} = ?")
                params.append(value)
        if since:
            clauses.append("created_at >= ?")
            params.append(since)
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        sql = f"SELECT * FROM critic_findings {where} ORDER BY id" + (f" LIMIT {int(limit)}" if limit else "")
        rows = []
        for row in self.db.query(sql, params):
            row["evidence_ids"] = _load(row["evidence_ids"]) or []
            row["suggested_gate_delta"] = _load(row["suggested_gate_delta"])
            rows.append(row)
        return rows

    def get_finding(self, ref: str | int) -> dict[str, Any]:
        """A finding by its row id or its finding_id (unique across the store)."""
        text = str(ref)
        rows = (self.list_findings_by("id", int(text)) if text.isdigit() else self.list_findings_by("finding_id", text))
        if not rows:
            raise TraceStoreError(f"no critic finding {text!r} in {self.path} (list them with: controlplane critic list)")
        if len(rows) > 1:
            raise TraceStoreError(f"finding id {text!r} is ambiguous; use the row id shown by controlplane critic list")
        return rows[0]

    def list_findings_by(self, column: str, value: Any) -> list[dict[str, Any]]:
        rows = []
        for row in self.db.query(f"SELECT * FROM critic_findings WHERE {column} = ?", [value]):
            row["evidence_ids"] = _load(row["evidence_ids"]) or []
            row["suggested_gate_delta"] = _load(row["suggested_gate_delta"])
            rows.append(row)
        return rows

    def review_finding(self, ref: str | int, status: str, reviewer: str, note: str = "") -> dict[str, Any]:
        if status not in ("accepted", "rejected", "proposed"):
            raise TraceStoreError("a finding is accepted, rejected or proposed")
        row = self.get_finding(ref)
        with self.transaction() as db:
            if "review_note" not in db["critic_findings"].columns_dict:
                db["critic_findings"].add_column("review_note", str)
            db.execute("UPDATE critic_findings SET status = ?, reviewed_by = ?, reviewed_at = ?, review_note = ? "
                       "WHERE id = ?", [status, reviewer, utc_now(), note, row["id"]])
        return self.get_finding(row["id"])

    def feedback(self, trace_id: str | None = None) -> list[dict[str, Any]]:
        sql = "SELECT * FROM human_feedback" + (" WHERE trace_id = ?" if trace_id else "") + " ORDER BY id"
        return list(self.db.query(sql, [trace_id] if trace_id else []))

    def integrity_check(self) -> str:
        return self.db.execute("PRAGMA integrity_check").fetchone()[0]


def _insert_many(db: sqlite_utils.Database, table: str, rows: Iterable[dict[str, Any]]) -> None:
    """INSERT rows that all have the same keys (column names are ours, never user input)."""
    rows = list(rows)
    if not rows:
        return
    columns = tuple(rows[0])
    db.conn.executemany(_insert_sql(table, columns), [[row[c] for c in columns] for row in rows])


def _upsert_trace(db: sqlite_utils.Database, row: dict[str, Any]) -> bool:
    """Insert the trace row, or complete its in_progress row; False when a complete row of that id is there."""
    columns = tuple(row)
    return db.conn.execute(_upsert_sql(columns), [*(row[c] for c in columns), TraceStatus.IN_PROGRESS.value]).rowcount > 0


# The statements' text, written once per table and column list rather than on every save (the trace row has 27
# columns): the same text each time, so sqlite3's statement cache finds it too.
@lru_cache(maxsize=64)
def _insert_sql(table: str, columns: tuple[str, ...]) -> str:
    return f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' for _ in columns)})"


@lru_cache(maxsize=16)
def _upsert_sql(columns: tuple[str, ...]) -> str:
    updates = ", ".join(f"{c} = excluded.{c}" for c in columns if c != "trace_id")
    return f"{_insert_sql('traces', columns)} ON CONFLICT(trace_id) DO UPDATE SET {updates} WHERE traces.status = ?"


def _gate_row(trace_id: str, attempt: int, position: int, result: GateResult) -> dict[str, Any]:
    return {
        "trace_id": trace_id, "attempt": attempt, "position": position, "gate_id": result.gate_id,
        "gate_version": result.gate_version, "result": result.result.value,
        "reason_codes": _json_strings([c.value for c in result.reason_codes]),
        "evidence_refs": _json_strings(result.evidence_refs),
        "cost_class": result.cost_class.value, "latency_ms": result.measured.latency_ms,
        "tokens_in": result.measured.tokens_in, "tokens_out": result.measured.tokens_out,
        "details": _json(result.details), "stage": result.details.get("stage") if isinstance(result.details, dict) else None,
    }


def _integrity_as_stored(bundle: TraceBundle, canonical_payloads: list[str], messages_canonical: str,
                         outcome_canonical: str) -> dict[str, str]:
    """The integrity map of ``bundle`` exactly as ``load_bundle`` will rebuild it from the column texts: the canonical
    text of each event payload (``canonical_payloads``, one per event), of the messages and of the outcome as
    stored, so a trace read back unchanged always matches."""
    # Only what the map covers, each encoded the way its column is (gate details may hold values JSON cannot).
    data: dict[str, Any] = {
        "attempts": [{"raw_output": record.raw_output} for record in bundle.attempts],
        "redaction": bundle.redaction,
    }
    if (bundle.redaction or {}).get("applied"):  # the map covers evidence texts only where redaction masked them
        data["evidence_pack"] = bundle.evidence_pack.model_dump(mode="json") if bundle.evidence_pack else None
        data["retrieved_evidence_pack"] = (bundle.retrieved_evidence_pack.model_dump(mode="json")
                                           if bundle.retrieved_evidence_pack else None)
    # TraceEvent.model_dump(mode="json") as events() rebuilds it, in canonical form, around the payload texts: the
    # keys in sorted order (gate_id, metadata {attempt, seq}, payload, phase, seq, trace_id, ts), no spaces
    # (the event's fields are validated strings and ints: their JSON is written directly, not by the encoder)
    text = encode_basestring
    events = ",".join(
        f'{{"gate_id":{"null" if e.gate_id is None else text(e.gate_id)},"metadata":{{"attempt":'
        f'{"null" if e.metadata.attempt is None else f"{e.metadata.attempt:d}"},"seq":{e.seq:d}}},'
        f'"payload":{payload},"phase":{text(e.phase.value)},"seq":{e.seq:d},"trace_id":{text(e.trace_id)},'
        f'"ts":{text(e.ts)}}}'
        for e, payload in zip(bundle.events, canonical_payloads, strict=True)
    )
    return compute_integrity(data, events_json=f"[{events}]", messages_json=messages_canonical,
                             outcome_json=outcome_canonical)


def _check_seq(trace_id: str, events: list[TraceEvent]) -> None:
    for expected, event in enumerate(events):
        if event.trace_id != trace_id:
            raise TraceStoreError(f"event seq {event.seq} belongs to trace {event.trace_id}, not {trace_id}")
        if event.seq != expected:
            raise TraceStoreError(f"trace {trace_id}: events must have seq 0..n-1 contiguous; got {event.seq} at {expected}")


def _duration_ms(events: list[TraceEvent]) -> float | None:
    if len(events) < 2:
        return None
    try:
        first = datetime.fromisoformat(events[0].ts)
        last = datetime.fromisoformat(events[-1].ts)
    except ValueError:
        return None
    return round((last - first).total_seconds() * 1000, 3)

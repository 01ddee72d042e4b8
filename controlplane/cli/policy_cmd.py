"""`controlplane policy ...`: validate, diff, list, register, review, promote, rollback, sign policy bundles.

Each command is a thin layer over ``controlplane.policy_bundles`` (loader, diff, lifecycle, review, signing).
A CANDIDATE / REF is a bundle file path, a registered bundle's hash, or a unique prefix of it.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from controlplane.policy_bundles.loader import PolicyBundleError

from .common import InputError, db_option, emit_json, json_option, open_store


def _fail(exc: Exception):
    raise InputError(str(exc)) from None


def _actor(value: str | None) -> str:
    from controlplane.policy_bundles.lifecycle import default_actor

    return value or default_actor()


def _load(ref: str, store=None):
    """A LoadedPolicy from a file path, or from the store by hash."""
    from controlplane.policy_bundles.lifecycle import PolicyLifecycle
    from controlplane.policy_bundles.loader import load_bundle

    if ref == "builtin:default":
        return load_bundle()
    if Path(ref).is_file():
        return load_bundle(ref)
    if store is None:
        raise InputError(f"{ref!r} is not a bundle file; to name a registered bundle by hash, pass --db")
    return PolicyLifecycle(store).get(ref).loaded()


def _signing(require_signed: bool, public_key: Path | None):
    from controlplane.policy_bundles.signing import SigningConfig

    return SigningConfig.from_env(require=require_signed or None, public_key=public_key)


signing_options = [
    click.option("--require-signed", is_flag=True,
                 help="Refuse unsigned bundles (also: CONTROLPLANE_REQUIRE_SIGNED_POLICY=1)."),
    click.option("--public-key", type=click.Path(dir_okay=False, path_type=Path), default=None,
                 help="Ed25519 public key (PEM) that signatures must verify with (or CONTROLPLANE_POLICY_PUBLIC_KEY)."),
]


def with_signing(f):
    for option in reversed(signing_options):
        f = option(f)
    return f


@click.group("policy")
def policy_group() -> None:
    """Policy bundles: validate, diff, lifecycle (draft -> candidate -> promoted), review, signing."""


@policy_group.command("validate")
@click.argument("bundle_file", type=click.Path(dir_okay=False, path_type=Path))
@with_signing
@json_option
def validate(bundle_file: Path, require_signed: bool, public_key: Path | None, as_json: bool) -> None:
    """Schema-check a bundle file; print its name, version and content hash (and signature status)."""
    from controlplane.policy_bundles.lifecycle import load_checked, unregistered_gates
    from controlplane.policy_bundles.loader import load_bundle
    from controlplane.policy_bundles.signing import load_public_key, read_signature, verify

    signing = _signing(require_signed, public_key)
    try:
        loaded = load_checked(bundle_file, signing) if signing.required else load_bundle(bundle_file)
        signature = read_signature(bundle_file)
        status = "unsigned"
        if signature:
            status = "signed (not verified: no --public-key)"
            key = public_key or signing.public_key_path
            if key:
                verify(loaded.hash, signature, load_public_key(key))
                status = "signed, verified"
    except PolicyBundleError as exc:
        _fail(exc)
    missing = unregistered_gates(loaded)
    if missing:
        raise InputError(f"policy bundle {bundle_file}: gate(s) {', '.join(missing)} are not registered by any "
                         "installed plugin; install the plugin or remove them from 'gates'")
    data = {"valid": True, "name": loaded.bundle.name, "version": loaded.bundle.version, "hash": loaded.hash,
            "gates": [g.gate_id for g in loaded.bundle.gates], "signature": status}
    if as_json:
        emit_json(data)
    else:
        click.echo(f"valid: {data['name']} {data['version']} {data['hash']}  ({len(data['gates'])} gates; {status})")


@policy_group.command("diff")
@click.argument("old")
@click.argument("new")
@db_option
@json_option
def diff(old: str, new: str, db_path: Path | None, as_json: bool) -> None:
    """Every field that differs between two bundles (files, registered hashes, or builtin:default)."""
    from controlplane.policy_bundles.diff import diff_bundles, render_diff

    store = open_store(db_path) if db_path else None
    try:
        a, b = _load(old, store), _load(new, store)
    except PolicyBundleError as exc:
        _fail(exc)
    changes = diff_bundles(a, b)
    if as_json:
        emit_json({"old": a.hash, "new": b.hash, "changes": changes})
    else:
        click.echo(f"--- {a.bundle.name} {a.bundle.version} {a.hash[:19]}\n+++ {b.bundle.name} {b.bundle.version} "
                   f"{b.hash[:19]}")
        click.echo(render_diff(changes))


@policy_group.command("list")
@click.option("--name", default=None, help="Only bundles with this name.")
@click.option("--history", is_flag=True, help="Also print every state change with who, when and why.")
@db_option
@json_option
def list_(name: str | None, history: bool, db_path: Path | None, as_json: bool) -> None:
    """Registered bundle versions and their lifecycle state."""
    from controlplane.policy_bundles.lifecycle import PolicyLifecycle

    life = PolicyLifecycle(open_store(db_path))
    versions = life.list(name)
    moves = life.history(name) if history else []
    if as_json:
        emit_json({"versions": [v.as_json() for v in versions], "history": moves})
        return
    if not versions:
        click.echo("no registered policy bundles (add one with: controlplane policy register FILE)")
    for v in versions:
        click.echo(f"{v.state:<10} {v.name} {v.version:<10} {v.hash[:19]}  {'signed' if v.signature else 'unsigned':<8} "
                   f"by {v.created_by} at {v.created_at[:19]}")
    for m in moves:
        click.echo(f"  {m['at'][:19]}  {m['name']} {m['hash'][:19]} {m['from_state'] or '-'} -> {m['to_state']}  "
                   f"by {m['actor']}: {m['reason']}")


@policy_group.command("register")
@click.argument("bundle_file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--candidate", "as_candidate", is_flag=True, help="Register straight as a candidate.")
@click.option("--by", "actor", default=None, help="Who (default: $CONTROLPLANE_ACTOR or $USER).")
@click.option("--why", "reason", default="registered", help="Why; recorded.")
@db_option
@json_option
def register(bundle_file: Path, as_candidate: bool, actor: str | None, reason: str, db_path: Path | None,
             as_json: bool) -> None:
    """Add a bundle file to the store as a draft (its detached .sig, if any, is recorded too)."""
    from controlplane.policy_bundles.lifecycle import PolicyLifecycle

    try:
        version = PolicyLifecycle(open_store(db_path)).register_file(
            bundle_file, _actor(actor), reason, state="candidate" if as_candidate else "draft")
    except PolicyBundleError as exc:
        _fail(exc)
    if as_json:
        emit_json(version.as_json())
    else:
        click.echo(f"{version.state}: {version.name} {version.version} {version.hash}")


@policy_group.command("candidate")
@click.argument("ref")
@click.option("--by", "actor", default=None)
@click.option("--why", "reason", default="ready for review")
@db_option
def candidate(ref: str, actor: str | None, reason: str, db_path: Path | None) -> None:
    """Move a draft to candidate (a file not yet registered is registered first)."""
    from controlplane.policy_bundles.lifecycle import PolicyLifecycle

    life = PolicyLifecycle(open_store(db_path))
    try:
        if Path(ref).is_file():
            life.register_file(ref, _actor(actor), "registered", state="draft")
        version = life.mark_candidate(ref, _actor(actor), reason)
    except PolicyBundleError as exc:
        _fail(exc)
    click.echo(f"candidate: {version.name} {version.version} {version.hash}")


@policy_group.command("reject")
@click.argument("ref")
@click.option("--by", "actor", default=None)
@click.option("--why", "reason", required=True)
@db_option
def reject(ref: str, actor: str | None, reason: str, db_path: Path | None) -> None:
    """Reject a draft or candidate."""
    from controlplane.policy_bundles.lifecycle import PolicyLifecycle

    try:
        version = PolicyLifecycle(open_store(db_path)).reject(ref, _actor(actor), reason)
    except PolicyBundleError as exc:
        _fail(exc)
    click.echo(f"rejected: {version.name} {version.version} {version.hash}")


@policy_group.command("review")
@click.argument("candidate_ref")
@click.option("--limit", type=int, default=None, help="Replay at most the newest N stored traces.")
@click.option("-o", "--output", "out_base", default=None,
              help="Report base name: writes BASE.md and BASE.json (default: policy-review-<hash12>).")
@click.option("--by", "actor", default=None, help="Reviewer (default: $CONTROLPLANE_ACTOR or $USER).")
@click.option("--nli-backend", "nli_backend", default=None,
              help="NLI backend for nli_entailment in both replays (default: as each trace was recorded).")
@db_option
@json_option
def review(candidate_ref: str, limit: int | None, out_base: str | None, actor: str | None, nli_backend: str | None,
           db_path: Path | None, as_json: bool) -> None:
    """Replay stored traces under the current bundle and the candidate; write the verdict-change report."""
    from controlplane.policy_bundles.lifecycle import PolicyLifecycle
    from controlplane.review import run_review

    if limit is not None and limit < 1:
        raise InputError("--limit must be at least 1")
    store = open_store(db_path)
    life = PolicyLifecycle(store)
    try:
        loaded = _load(candidate_ref, store)
        if Path(candidate_ref).is_file():
            life.register_file(candidate_ref, _actor(actor), "registered for review", state="candidate")
        version = life.get(loaded.hash)
        if version.state == "draft":
            life.mark_candidate(loaded.hash, _actor(actor), "submitted for review")
        options = None
        if nli_backend:
            from controlplane.replay import ReplayOptions
            from controlplane.services import resolve_nli_backend

            options = ReplayOptions(nli_backend=resolve_nli_backend(nli_backend, loaded.bundle))
        report = run_review(store, loaded, limit=limit, out_base=out_base, reviewer=_actor(actor), options=options)
    except PolicyBundleError as exc:
        _fail(exc)
    s = report.summary
    if as_json:
        emit_json({"review_id": report.review_id, "markdown": str(report.md_path), "json": str(report.json_path),
                   "summary": s, "changes": report.data["changes"]})
        return
    click.echo(f"review #{report.review_id} of {loaded.bundle.name} {loaded.bundle.version} {loaded.hash[:19]} against "
               f"{report.data['baseline']['version']} {report.data['baseline']['hash'][:19]}: {s['traces']} trace(s), "
               f"{s['changed_traces']} with changed verdicts")
    for gate_id, entry in report.data["changes"]["gates"].items():
        counts = ", ".join(f"{t}: {n}" for t, n in entry["counts"].items())
        click.echo(f"  {gate_id}: {counts}")
    b, c = s["baseline"], s["candidate"]
    click.echo(f"  regen rate {b['regen_rate']:.1%} -> {c['regen_rate']:.1%}; refusal rate {b['refusal_rate']:.1%} -> "
               f"{c['refusal_rate']:.1%}")
    if not s["traces"]:
        click.echo("  warning: the store holds no complete traces, so this review shows nothing; record traffic first "
                   "if you can")
    click.echo(f"report: {report.md_path} and {report.json_path}")


@policy_group.command("promote")
@click.argument("candidate_ref")
@click.option("--by", "actor", default=None)
@click.option("--why", "reason", required=True, help="Why this bundle ships; recorded.")
@with_signing
@db_option
def promote(candidate_ref: str, actor: str | None, reason: str, require_signed: bool, public_key: Path | None,
            db_path: Path | None) -> None:
    """Promote a reviewed candidate (refused without a fresh review of that exact hash, or unsigned when required)."""
    from controlplane.policy_bundles.lifecycle import PolicyLifecycle

    store = open_store(db_path)
    life = PolicyLifecycle(store)
    try:
        if Path(candidate_ref).is_file():
            version = life.register_file(candidate_ref, _actor(actor), "registered for promotion", state="candidate")
            candidate_ref = version.hash
        version = life.promote(candidate_ref, _actor(actor), reason, _signing(require_signed, public_key))
    except PolicyBundleError as exc:
        _fail(exc)
    click.echo(f"promoted: {version.name} {version.version} {version.hash}")


@policy_group.command("rollback")
@click.argument("name", default="default")
@click.option("--by", "actor", default=None)
@click.option("--why", "reason", required=True)
@with_signing
@db_option
def rollback(name: str, actor: str | None, reason: str, require_signed: bool, public_key: Path | None,
             db_path: Path | None) -> None:
    """Put the previously promoted bundle of NAME back."""
    from controlplane.policy_bundles.lifecycle import PolicyLifecycle

    try:
        version = PolicyLifecycle(open_store(db_path)).rollback(name, _actor(actor), reason,
                                                                _signing(require_signed, public_key))
    except PolicyBundleError as exc:
        _fail(exc)
    click.echo(f"rolled back: {version.name} is {version.version} {version.hash} again")


@policy_group.command("current")
@click.argument("name", default="default")
@with_signing
@db_option
@json_option
def current(name: str, require_signed: bool, public_key: Path | None, db_path: Path | None, as_json: bool) -> None:
    """The bundle the product runs for NAME (promoted, else the shipped default)."""
    from controlplane.policy_bundles.lifecycle import current_policy

    try:
        loaded = current_policy(open_store(db_path), name, _signing(require_signed, public_key))
    except PolicyBundleError as exc:
        _fail(exc)
    if as_json:
        emit_json({"name": loaded.bundle.name, "version": loaded.bundle.version, "hash": loaded.hash,
                   "source": loaded.source})
    else:
        click.echo(f"{loaded.bundle.name} {loaded.bundle.version} {loaded.hash} ({loaded.source})")


@policy_group.command("keygen")
@click.argument("base", type=click.Path(dir_okay=False, path_type=Path))
def keygen(base: Path) -> None:
    """Make an ed25519 key pair: BASE.key (private, mode 600) and BASE.pub."""
    from controlplane.policy_bundles.signing import keygen as make

    try:
        key, pub = make(base)
    except PolicyBundleError as exc:
        _fail(exc)
    click.echo(f"private key: {key}\npublic key: {pub}")


@policy_group.command("sign")
@click.argument("bundle_file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--key", "key_path", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="Ed25519 private key (PEM) from policy keygen.")
def sign(bundle_file: Path, key_path: Path) -> None:
    """Sign a bundle's content hash; writes BUNDLE_FILE.sig next to it."""
    from controlplane.policy_bundles.loader import load_bundle
    from controlplane.policy_bundles.signing import load_private_key, sign_hash, signature_path

    try:
        loaded = load_bundle(bundle_file)
        signature = sign_hash(loaded.hash, load_private_key(key_path))
    except PolicyBundleError as exc:
        _fail(exc)
    path = signature_path(bundle_file)
    path.write_text(json.dumps(signature, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    click.echo(f"signed {loaded.hash} with {signature['key_id']}: {path}")

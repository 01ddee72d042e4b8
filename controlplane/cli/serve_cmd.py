"""`controlplane serve`: the OpenAI-compatible endpoint, trace API and trace viewer over HTTP (uvicorn).

A thin layer over ``controlplane.ControlPlane(...).serve(...)``; the flags are the CLI's usual names.
"""

from __future__ import annotations

from pathlib import Path

import click

from controlplane.adapters.openai_compat import is_loopback_host
from controlplane.errors import InputError

from .common import chosen_index, db_option, index_option, model_spec, policy_option, signing_options


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8080, show_default=True, type=click.IntRange(0, 65535), help="TCP port.")
@click.option("--model", "model", default=None,
              help="Model spec: scripted:FILE, gguf:PATH, default, openai:URL#MODEL (default: $CONTROLPLANE_MODEL).")
@db_option
@policy_option
@click.option("--collection", default=None, help="Default collection: requests without evidence are answered from it.")
@index_option
@click.option("--nli-backend", "nli_backend", default=None,
              help="NLI backend for nli_entailment: shipped, transformers:PATH, a plugin name, or none "
                   "(default: the policy's, else the shipped verifier; if it cannot load, claims fail closed).")
@click.option("--max-body-bytes", default=1_000_000, show_default=True, type=click.IntRange(1024),
              help="Larger request bodies get 413.")
@click.option("--workers", default=None, type=click.IntRange(1, 256), help="Pipeline threads (default: CPUs + 4).")
@click.option("--critic", "critic_spec", default=None,
              help="Model spec of the sync critic (G7) when the bundle calls for it (default: the main model).")
@signing_options
@click.option("--allow-remote", is_flag=True,
              help="Allow a non-loopback --host. The server has no authentication: put it behind one.")
def serve_command(host: str, port: int, model: str | None, db_path: Path | None, policy_path: Path | None,
                  collection: str | None, index_dir: Path | None, nli_backend: str | None, max_body_bytes: int,
                  workers: int | None, allow_remote: bool, legacy_index: Path | None = None,
                  critic_spec: str | None = None, require_signed: bool | None = None,
                  public_key: Path | None = None) -> None:
    """Serve POST /v1/chat/completions (OpenAI-compatible), /v1/traces, /healthz and the viewer at /traces.

    The policy is --policy, else the bundle promoted in --db (a later promotion or rollback takes effect on the next
    request), else the shipped default; with --require-signed an unsigned bundle stops the server before it starts.
    """
    from controlplane.api import ControlPlane

    if not is_loopback_host(host) and not allow_remote:
        raise InputError(f"--host {host} is not a loopback address; the server has no authentication and shows every "
                         "trace: add --allow-remote to serve it anyway (behind your own auth proxy)")
    plane = ControlPlane(
        model=model_spec(model), policy=policy_path, db=db_path, collection=collection,
        index=chosen_index(index_dir, legacy_index), nli_backend=nli_backend, critic=critic_spec,
        require_signed=require_signed or None, public_key=public_key, max_workers=workers,
    )
    where = f"http://{host}:{port}"
    click.echo(f"controlplane serving {plane.model_id} on {where}/v1 (viewer: {where}/traces; "
               f"traces: {plane.store.path if plane.store else 'not stored'})", err=True)
    try:
        plane.serve(host=host, port=port, max_body_bytes=max_body_bytes)
    finally:
        plane.close()

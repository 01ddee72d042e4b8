"""`controlplane serve`: the OpenAI-compatible endpoint, trace API and trace viewer over HTTP (uvicorn).

A thin layer over ``controlplane.ControlPlane(...).serve(...)``; the flags are the CLI's usual names.
"""

from __future__ import annotations

from pathlib import Path

import click

from controlplane.adapters.openai_compat import is_loopback_host
from controlplane.contracts.errors import InputError
from controlplane.server_limits import DEFAULT_BODY_TIMEOUT_S, DEFAULT_HEADER_TIMEOUT_S, DEFAULT_MAX_BODY_BYTES

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
@click.option("--max-body-bytes", default=DEFAULT_MAX_BODY_BYTES, show_default=True, type=click.IntRange(1024),
              help="Larger request bodies get 413.")
@click.option("--workers", default=None, type=click.IntRange(1, 256), help="Pipeline threads (default: CPUs + 4).")
@click.option("--critic", "critic_spec", default=None,
              help="Model spec of the sync critic (G7) when the bundle calls for it (default: the main model).")
@signing_options
@click.option("--allow-remote", is_flag=True,
              help="Allow a non-loopback --host. The server has no authentication: put it behind one.")
@click.option("--allowed-host", "allowed_hosts", multiple=True,
              help="A host name clients address this server by (repeatable; checked against the Host header to "
                   "stop DNS rebinding). Default: the loopback names and --host.")
@click.option("--unredacted-traces", is_flag=True,
              help="Serve trace text unredacted in /v1/traces and the viewer (local debugging only).")
@click.option("--header-timeout", default=DEFAULT_HEADER_TIMEOUT_S, show_default=True, type=click.FloatRange(0.1),
              help="Seconds a connection has to send its request headers (idle connections are closed too).")
@click.option("--body-timeout", default=DEFAULT_BODY_TIMEOUT_S, show_default=True, type=click.FloatRange(0.1),
              help="Seconds a connection has to send its whole request.")
def serve_command(host: str, port: int, model: str | None, db_path: Path | None, policy_path: Path | None,
                  collection: str | None, index_dir: Path | None, nli_backend: str | None, max_body_bytes: int,
                  workers: int | None, allow_remote: bool, allowed_hosts: tuple[str, ...], unredacted_traces: bool,
                  header_timeout: float, body_timeout: float, legacy_index: Path | None = None,
                  critic_spec: str | None = None, require_signed: bool | None = None,
                  public_key: Path | None = None) -> None:
    """Serve POST /v1/chat/completions (OpenAI-compatible), /v1/traces, /healthz and the viewer at /traces.

    The policy is --policy, else the bundle promoted in --db (a later promotion or rollback takes effect on the next
    request), else the shipped default; with --require-signed an unsigned bundle stops the server before it starts.
    """
    from controlplane.api import ControlPlane
    from controlplane.server import bind_socket, serve_app
    from controlplane.server_limits import LOOPBACK_HOST_NAMES

    bare_host = host.strip().strip("[]")
    if not is_loopback_host(bare_host) and not allow_remote:
        raise InputError(f"--host {host} is not a loopback address; the server has no authentication and shows every "
                         "trace: add --allow-remote to serve it anyway (behind your own auth proxy)")
    if header_timeout > body_timeout:
        raise InputError(f"--header-timeout {header_timeout} is longer than --body-timeout {body_timeout}; the body "
                         "deadline includes the headers")
    names = [*LOOPBACK_HOST_NAMES, *([bare_host] if bare_host not in ("0.0.0.0", "::") else []), *allowed_hosts]
    plane = ControlPlane(
        model=model_spec(model), policy=policy_path, db=db_path, collection=collection,
        index=chosen_index(index_dir, legacy_index), nli_backend=nli_backend, critic=critic_spec,
        require_signed=require_signed or None, public_key=public_key, max_workers=workers,
    )
    try:
        # Everything that can fail on bad settings fails here, before the banner: policy, gates, model, port.
        app = plane.app(max_body_bytes=max_body_bytes, allowed_hosts=names, unredacted_traces=unredacted_traces)
        sock = bind_socket(bare_host, port)
        bound_port = sock.getsockname()[1]
        shown = f"[{bare_host}]" if ":" in bare_host else bare_host
        where = f"http://{shown}:{bound_port}"
        click.echo(f"controlplane serving {plane.model_id} on {where}/v1 (viewer: {where}/traces; "
                   f"traces: {plane.store.path if plane.store else 'not stored'}; header/body timeouts "
                   f"{header_timeout:g}/{body_timeout:g} s)", err=True)
        serve_app(app, bare_host, bound_port, sock=sock, header_timeout=header_timeout, body_timeout=body_timeout)
    finally:
        plane.close()

"""The `controlplane` command. Each command group lives in its own module and mirrors a Python API call."""

from __future__ import annotations

import importlib
import os
import sys

import click

from controlplane.contracts.errors import InputError

# module name -> attribute holding a click command or group; each module owns one concept.
COMMAND_MODULES = (
    ("controlplane.cli.ask_cmd", "ask_command"),
    ("controlplane.cli.run_cmd", "run_command"),
    ("controlplane.cli.verify_cmd", "verify_command"),
    ("controlplane.cli.trace_cmd", "trace_group"),
    ("controlplane.cli.index_cmd", "index_group"),
    ("controlplane.cli.serve_cmd", "serve_command"),
    ("controlplane.nli.cli", "nli_group"),
    ("controlplane.nli.cli", "eval_command"),
    ("controlplane.cli.replay_cmd", "replay_command"),
    ("controlplane.cli.policy_cmd", "policy_group"),
    ("controlplane.cli.critic_cmd", "critic_group"),
    ("controlplane.cli.feedback_cmd", "feedback_command"),
    ("controlplane.cli.stats_cmd", "stats_command"),
    ("controlplane.cli.library_cmd", "library_group"),
    ("controlplane.cli.reverify_cmd", "reverify_command"),
)


def _user_errors() -> tuple[type[Exception], ...]:
    from controlplane.evidence_pack import EvidenceError
    from controlplane.policy_bundles.loader import PolicyBundleError
    from controlplane.traces.store import TraceStoreError

    return (InputError, EvidenceError, PolicyBundleError, TraceStoreError)


class ControlPlaneGroup(click.Group):
    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.exceptions.Abort, click.ClickException, SystemExit):
            raise
        except BrokenPipeError:  # the reader went away (`... | head -1`): what it read is all it wanted
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())  # so the interpreter's final flush cannot raise again
            sys.exit(0)
        except _user_errors() as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(2)
        except Exception as exc:  # never a traceback to a user; CONTROLPLANE_DEBUG=1 shows it
            if os.environ.get("CONTROLPLANE_DEBUG"):
                raise
            click.echo(f"internal error: {type(exc).__name__}: {exc} (rerun with CONTROLPLANE_DEBUG=1 for details)",
                       err=True)
            sys.exit(1)


@click.group(cls=ControlPlaneGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="controlplane")
def main() -> None:
    """Gate-pipeline control plane: evidence-bound answers from a local model, with replayable traces."""


def _register() -> None:
    for module_name, attribute in COMMAND_MODULES:
        main.add_command(getattr(importlib.import_module(module_name), attribute))


_register()

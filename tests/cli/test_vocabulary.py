"""One vocabulary (issue 12 item 5): ``--db`` is the trace store on every command, ``--index`` the vector index on
every command; the old spellings (``--index-db``, ``index ... --db``) still work, hidden, with a warning."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from controlplane.cli import main


def every_command(group: click.Group, prefix: str = ""):
    for name, command in sorted(group.commands.items()):
        path = f"{prefix} {name}".strip()
        if isinstance(command, click.Group):
            yield from every_command(command, path)
        else:
            yield path, command


def visible_options(command: click.Command) -> dict[str, click.Option]:
    return {flag: p for p in command.params if isinstance(p, click.Option) and not p.hidden for flag in p.opts}


def test_db_is_the_trace_store_and_index_the_vector_index_on_every_command():
    checked = {"--db": 0, "--index": 0}
    for path, command in every_command(main):
        options = visible_options(command)
        assert "--index-db" not in options, f"`{path}` shows --index-db; the vector index is --index"
        if "--db" in options:
            checked["--db"] += 1
            words = (options["--db"].help or "").lower()
            assert "trace" in words and "vector" not in words, f"`{path} --db` must name the trace store: {words!r}"
        if "--index" in options:
            checked["--index"] += 1
            assert "index" in (options["--index"].help or "").lower(), f"`{path} --index` must name the vector index"
    assert checked["--db"] >= 8 and checked["--index"] >= 6, checked  # run, ask, verify, serve, trace ..., index ...


@pytest.mark.parametrize("command", [["ask", "q"], ["serve"], ["index", "list"]])
def test_the_index_option_reaches_the_same_place_under_its_old_name(command, tmp_path):
    new = CliRunner().invoke(main, [*command, "--index", str(tmp_path / "a"), "--index-db", str(tmp_path / "b")]
                             if command[0] != "index" else
                             [*command, "--index", str(tmp_path / "a"), "--db", str(tmp_path / "b")])
    assert new.exit_code == 2 and "disagree" in new.output, new.output

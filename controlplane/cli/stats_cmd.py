"""`controlplane stats`: the seed's section-10 operating figures, as a table and as a PNG chart."""

from __future__ import annotations

from pathlib import Path

import click

from .common import db_option, emit_json, json_option, open_store, since_option_value


@click.command("stats")
@click.option("--since", default=None, help="ISO time; only traces created at or after it.")
@click.option("--png", "png_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also draw the figures as a PNG chart at this path.")
@click.option("--top", type=click.IntRange(1, 50), default=8, help="How many gates / reason codes to list.")
@db_option
@json_option
def stats_command(since: str | None, png_path: Path | None, top: int, db_path: Path | None, as_json: bool) -> None:
    """Regen rate, top failing gates and reason codes, UNKNOWN rate, citation density, refusal rate."""
    from controlplane.traces.stats import compute_stats, render_png, render_table

    figures = compute_stats(open_store(db_path), since=since_option_value(since), top=top)
    written = render_png(figures, png_path) if png_path else None
    if as_json:
        emit_json({**figures, "png": str(written) if written else None})
        return
    click.echo(render_table(figures))
    if written:
        click.echo(f"\nchart: {written}")

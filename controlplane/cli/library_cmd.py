"""`controlplane library`: expert libraries, curated high-credibility collections per domain (EBOM).

A thin layer over ``controlplane.evidence_pack.libraries`` (add_library, list_libraries, remove_library) and
``controlplane.evidence_pack.stdlib_docs`` (the sample library); the names match. Libraries live in the vector index
(``--index DIR``, as on ``index``, ``ask`` and ``serve``) as collections named ``lib.<name>``; a request routed to a
library's domain gets its passages first, ahead of general retrieval.
"""

from __future__ import annotations

import json

import click

from controlplane.contracts import Volatility
from controlplane.contracts.errors import InputError

from .index_cmd import _index_dir, _progress, index_dir_option

VOLATILITIES = [v.value for v in Volatility]


def _known_domains() -> list[str]:
    from controlplane.policy_bundles.loader import load_bundle

    return sorted(load_bundle().bundle.domains)


def _credibility(value: str) -> float:
    try:
        number = float(value)
    except ValueError:
        raise InputError(f"--credibility must be a number between 0 and 1 (got {value!r}), e.g. 0.95") from None
    return number


@click.group("library")
def library_group() -> None:
    """Expert libraries: curated, high-credibility collections per domain, queried before general retrieval."""


@library_group.command("add")
@click.argument("name")
@click.argument("paths", nargs=-1, required=True)
@click.option("--domain", required=True, help="Policy domain the library serves (e.g. coding).")
@click.option("--version", "version", required=True, help="Version of the library's content (e.g. 3.12.0).")
@click.option("--credibility", required=True, help="Source credibility 0..1 of every passage (EBOM; 0.95 official docs).")
@click.option("--volatility", type=click.Choice(VOLATILITIES), default="LOW", show_default=True,
              help="How fast the content goes stale (HIGH 1 h, MEDIUM 24 h, LOW 7 days, STATIC never).")
@click.option("--licence", default=None, help="Licence of the content, recorded in the library's metadata.")
@click.option("--source", default=None, help="Where the content comes from (URL or description).")
@index_dir_option
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def add_command(name: str, paths: tuple[str, ...], domain: str, version: str, credibility: str, volatility: str,
                licence: str | None, source: str | None, index: str | None, as_json: bool,
                legacy_db: str | None = None) -> None:
    """Add files and folders to library NAME (created if new); re-adding a file replaces its passages."""
    from controlplane.evidence_pack.libraries import add_library, check_library_name, check_library_settings
    from controlplane.evidence_pack.vector_store import VectorStore

    score = _credibility(credibility)
    check_library_name(name)
    check_library_settings(domain, version, score, volatility, _known_domains())
    store = VectorStore(_index_dir(index, legacy_db), create=True)
    report = add_library(store, name, list(paths), domain=domain, version=version, credibility=score,
                         volatility=volatility, licence=licence, source=source, progress=_progress)
    _report(report, name, store, as_json)


@library_group.command("build-stdlib")
@click.option("--name", default=None, help="Library name [default: python_stdlib_<major>_<minor>].")
@click.option("--modules", default=None, help="Comma-separated standard-library modules [default: a curated list].")
@click.option("--domain", default="coding", show_default=True, help="Policy domain the library serves.")
@click.option("--credibility", default="0.95", show_default=True, help="Credibility of every passage.")
@index_dir_option
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def build_stdlib_command(name: str | None, modules: str | None, domain: str, credibility: str, index: str | None,
                         as_json: bool, legacy_db: str | None = None) -> None:
    """Build the sample library offline: the installed Python's standard-library docstrings (PSF-2.0)."""
    from controlplane.evidence_pack import stdlib_docs
    from controlplane.evidence_pack.libraries import add_library, check_library_name, check_library_settings
    from controlplane.evidence_pack.vector_store import VectorStore

    name = name or stdlib_docs.default_library_name()
    score = _credibility(credibility)
    check_library_name(name)
    check_library_settings(domain, stdlib_docs.python_version(), score, "STATIC", _known_domains())
    wanted = [m.strip() for m in modules.split(",") if m.strip()] if modules is not None else None
    if wanted is not None and not wanted:
        raise InputError("--modules is empty; name standard-library modules, e.g. --modules json,pathlib")
    documents = stdlib_docs.stdlib_documents(wanted)  # every module checked before anything is written
    _progress(f"read the docstrings of {len(documents)} module(s) of Python {stdlib_docs.python_version()}")
    store = VectorStore(_index_dir(index, legacy_db), create=True)
    # STATIC: a given Python version's docstrings never change (EBOM: language syntax is cached indefinitely)
    report = add_library(store, name, documents, domain=domain, version=stdlib_docs.python_version(),
                         credibility=score, volatility="STATIC", licence=stdlib_docs.licence(),
                         source=f"docstrings of the installed CPython {stdlib_docs.python_version()} (pydoc)",
                         progress=_progress)
    _report(report, name, store, as_json)


def _report(report, name: str, store, as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps({"library": name, **report.to_dict()}, indent=2))
        return
    click.echo(f"library {name!r}: added {len(report.documents)} document(s), {report.chunks} passage(s) in "
               f"{store.db_dir}")


@library_group.command("list")
@index_dir_option
@click.option("--json", "as_json", is_flag=True, help="Print the libraries as JSON.")
def list_command(index: str | None, as_json: bool, legacy_db: str | None = None) -> None:
    """Libraries with domain, version, credibility, volatility, licence and size."""
    from controlplane.evidence_pack.libraries import list_libraries
    from controlplane.evidence_pack.vector_store import VectorStore

    store = VectorStore(_index_dir(index, legacy_db))
    libraries = list_libraries(store)
    if as_json:
        click.echo(json.dumps([lib.to_dict() for lib in libraries], indent=2, ensure_ascii=False))
        return
    if not libraries:
        click.echo(f"no expert libraries in {store.db_dir}; add one with `controlplane library add` or "
                   "`controlplane library build-stdlib`")
        return
    for lib in libraries:
        click.echo(f"{lib.name}\tdomain {lib.domain}\tversion {lib.version}\tcredibility {lib.credibility:.2f}\t"
                   f"volatility {lib.volatility}\t{lib.documents} document(s)\t{lib.chunks} passage(s)\t"
                   f"licence {lib.licence or '-'}")


@library_group.command("remove")
@click.argument("name")
@index_dir_option
def remove_command(name: str, index: str | None, legacy_db: str | None = None) -> None:
    """Remove library NAME and all its passages."""
    from controlplane.evidence_pack.libraries import remove_library
    from controlplane.evidence_pack.vector_store import VectorStore

    store = VectorStore(_index_dir(index, legacy_db))
    removed = remove_library(store, name)
    click.echo(f"removed library {name!r}: {removed} passage(s)")

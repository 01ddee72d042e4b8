"""Reading documents (text, Markdown, PDF) and cutting them into retrievable chunks with exact provenance.

Every chunk is a contiguous slice of its document's text: ``document.text[chunk.start_char:chunk.end_char] ==
chunk.text``. That is what lets a verifier (or a human) go from an evidence item back to the very characters it was
taken from. Offsets count Python characters (code points) in the text as decoded, line endings kept as they are in
the file (a CRLF file keeps its ``\\r``); for a PDF, the text is the pages' extracted text joined by a form feed, and a
chunk never crosses a page.

Chunking: Markdown is first cut into sections at headings (outside fenced code), so a chunk never mixes two sections
and carries its heading as its title. Within a section the text is cut into sentences (and list items / table rows),
packed greedily up to ``max_words``; a chunk prefers to end on a paragraph boundary when that keeps it at least half
full, and the next chunk repeats whole trailing sentences up to ``overlap_words`` so that a fact straddling the cut
stays retrievable.

``document_id`` is ``<name>@<first 12 hex of the file's sha256>``: the name is the path relative to the folder that
was indexed (or the file name), the hash pins the exact version a citation refers to.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from controlplane.contracts.errors import InputError
from controlplane.contracts.text import split_sentences

TEXT_SUFFIXES = {".txt", ".text"}
MARKDOWN_SUFFIXES = {".md", ".markdown"}
PDF_SUFFIXES = {".pdf"}
SUPPORTED_SUFFIXES = TEXT_SUFFIXES | MARKDOWN_SUFFIXES | PDF_SUFFIXES

PAGE_SEPARATOR = "\f"

DEFAULT_MAX_WORDS = 150  # MiniLM reads 256 word pieces; ~150 words plus a title stays inside that
DEFAULT_OVERLAP_WORDS = 30

_WORD = re.compile(r"\S+")
_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*\r?$")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")
# A blank line (possibly with spaces or \r) separates paragraphs.
_PARAGRAPH_BREAK = re.compile(r"\n[ \t\r]*\n")


@dataclass(frozen=True)
class Document:
    """One source document as read from disk."""

    document_id: str
    name: str
    source: str  # absolute path of the file
    text: str
    content_hash: str  # sha256 hex of the file's bytes
    kind: str  # "text" | "markdown" | "pdf"
    # For PDFs: (page number from 1, start_char, end_char) of each page inside `text`. Empty for unpaged documents.
    pages: tuple[tuple[int, int, int], ...] = ()
    title: str | None = None


@dataclass(frozen=True)
class Chunk:
    document_id: str
    source: str
    text: str
    start_char: int
    end_char: int
    chunk_index: int
    page: int | None = None
    title: str | None = None
    words: int = 0


@dataclass(frozen=True)
class _Unit:
    start: int
    end: int
    words: int
    starts_paragraph: bool


@dataclass
class _Section:
    start: int
    end: int
    heading: str | None = None
    titles: list[str] = field(default_factory=list)


def count_words(text: str) -> int:
    return len(_WORD.findall(text))


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# ---------------------------------------------------------------------------------------------------------- reading


def iter_document_paths(paths: Iterable[str | Path]) -> Iterator[tuple[Path, str]]:
    """Expand files and folders into (file, name) pairs, sorted, folders recursed for supported suffixes.

    A missing path, or a file with an unsupported suffix named explicitly, is an InputError (nothing silently
    skipped that the user asked for by name). Hidden files and folders inside a folder are skipped.
    """
    seen: set[Path] = set()
    for raw in paths:
        path = Path(raw).expanduser()
        if not path.exists():
            raise InputError(f"path not found: {raw}; give an existing file or folder to index")
        if path.is_dir():
            found = sorted(
                p
                for p in path.rglob("*")
                if p.is_file()
                and p.suffix.lower() in SUPPORTED_SUFFIXES
                and not any(part.startswith(".") for part in p.relative_to(path).parts)
            )
            for file in found:
                resolved = file.resolve()
                if resolved not in seen:
                    seen.add(resolved)
                    yield file, file.relative_to(path).as_posix()
        else:
            if path.suffix.lower() not in SUPPORTED_SUFFIXES:
                raise InputError(
                    f"unsupported file type: {raw}; index .txt, .md, .markdown or .pdf files "
                    "(convert other formats to text first)"
                )
            resolved = path.resolve()
            if resolved not in seen:
                seen.add(resolved)
                yield path, path.name


def read_document(path: str | Path, name: str | None = None) -> Document:
    """Read one file into a Document. Unreadable or undecodable files are InputErrors naming the file and the fix."""
    path = Path(path).expanduser()
    name = name or path.name
    suffix = path.suffix.lower()
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}; check the path and its permissions") from exc
    content_hash = sha256_hex(data)
    document_id = f"{name}@{content_hash[:12]}"
    source = str(path.resolve())
    if suffix in PDF_SUFFIXES:
        text, pages = _pdf_text(path, data)
        return Document(document_id, name, source, text, content_hash, "pdf", pages, title=path.stem)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"{path} is not UTF-8 text (byte {exc.start}); re-save it as UTF-8 before indexing"
        ) from exc
    if "\x00" in text:  # valid UTF-8, but a binary file (an image saved as .txt): no text to retrieve
        raise InputError(f"{path} holds NUL bytes: it is not text; index .txt, .md or .pdf documents only")
    kind = "markdown" if suffix in MARKDOWN_SUFFIXES else "text"
    title = _first_heading(text) if kind == "markdown" else None
    return Document(document_id, name, source, text, content_hash, kind, (), title=title or path.stem)


def document_from_text(text: str, name: str, *, kind: str = "markdown", source: str | None = None) -> Document:
    """A Document from text already in memory (caller-provided documents, tests)."""
    content_hash = sha256_hex(text.encode("utf-8"))
    title = _first_heading(text) if kind == "markdown" else None
    return Document(
        f"{name}@{content_hash[:12]}", name, source or name, text, content_hash, kind, (), title=title or name
    )


def _pdf_text(path: Path, data: bytes) -> tuple[str, tuple[tuple[int, int, int], ...]]:
    try:
        import io

        from pypdf import PdfReader
        from pypdf.errors import PdfReadError
    except ImportError as exc:  # pragma: no cover - pypdf is in the models extra
        raise InputError(f"cannot read {path}: PDF support needs pypdf; install controlplane[models]") from exc
    try:
        reader = PdfReader(io.BytesIO(data))
        page_texts = [(page.extract_text() or "") for page in reader.pages]
    except (PdfReadError, ValueError, KeyError, TypeError) as exc:
        raise InputError(f"cannot read PDF {path}: {exc}; check that the file is a valid, unencrypted PDF") from exc
    parts: list[str] = []
    pages: list[tuple[int, int, int]] = []
    offset = 0
    for number, page_text in enumerate(page_texts, start=1):
        if parts:
            parts.append(PAGE_SEPARATOR)
            offset += len(PAGE_SEPARATOR)
        pages.append((number, offset, offset + len(page_text)))
        parts.append(page_text)
        offset += len(page_text)
    return "".join(parts), tuple(pages)


def _first_heading(text: str) -> str | None:
    for section in _markdown_sections(text):
        if section.titles:
            return section.titles[0]
    return None


# --------------------------------------------------------------------------------------------------------- chunking


def chunk_document(
    document: Document, *, max_words: int = DEFAULT_MAX_WORDS, overlap_words: int = DEFAULT_OVERLAP_WORDS
) -> list[Chunk]:
    """Cut a document into chunks (see the module docstring). Deterministic: same text, same chunks."""
    if max_words < 1:
        raise InputError(f"max_words must be at least 1 (got {max_words})")
    if overlap_words < 0 or overlap_words >= max_words:
        raise InputError(f"overlap_words must be between 0 and max_words - 1 (got {overlap_words})")
    text = document.text
    regions: list[tuple[int | None, _Section]] = []
    if document.pages:
        for number, start, end in document.pages:
            title = f"{document.title or document.name} (page {number})"
            regions.append((number, _Section(start, end, titles=[title])))
    elif document.kind == "markdown":
        regions = [(None, section) for section in _markdown_sections(text)]
    else:
        regions = [(None, _Section(0, len(text), titles=[document.title or document.name]))]

    chunks: list[Chunk] = []
    for page, section in regions:
        title = _section_title(section, document)
        units = _split_long(_units(text, section.start, section.end), text, max_words)
        for start, end, words in _pack(units, max_words, overlap_words):
            chunks.append(
                Chunk(
                    document_id=document.document_id,
                    source=document.source,
                    text=text[start:end],
                    start_char=start,
                    end_char=end,
                    chunk_index=len(chunks),
                    page=page,
                    title=title,
                    words=words,
                )
            )
    return chunks


def _section_title(section: _Section, document: Document) -> str:
    titles = [t for t in section.titles if t]
    if not titles:
        return document.title or document.name
    if len(titles) == 1:
        return titles[0]
    return f"{titles[0]} › {titles[-1]}"


def _markdown_sections(text: str) -> list[_Section]:
    """Split Markdown at ATX headings outside fenced code. A heading with no body joins the section after it."""
    headings: list[tuple[int, int, str]] = []  # (offset of heading line, level, heading text)
    in_fence: str | None = None
    offset = 0
    for line in text.splitlines(keepends=True):
        stripped = line.rstrip("\r\n")
        fence = _FENCE.match(stripped)
        if fence:
            marker = fence.group(1)
            if in_fence is None:
                in_fence = marker
            elif in_fence == marker:
                in_fence = None
        elif in_fence is None:
            match = _HEADING.match(stripped)
            if match:
                headings.append((offset, len(match.group(1)), match.group(2).strip()))
        offset += len(line)

    sections: list[_Section] = []
    stack: list[tuple[int, str]] = []  # (level, text) of the enclosing headings
    body_start = _front_matter_end(text)
    headings = [h for h in headings if h[0] >= body_start]
    if not headings or headings[0][0] != body_start:
        boundaries = [(body_start, 0, "")] + headings
    else:
        boundaries = headings
    for i, (start, level, heading) in enumerate(boundaries):
        end = boundaries[i + 1][0] if i + 1 < len(boundaries) else len(text)
        if level:
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, heading))
        sections.append(_Section(start, end, heading or None, [h for _, h in stack]))

    merged: list[_Section] = []
    pending: _Section | None = None
    for section in sections:
        if pending is not None:
            section = _Section(pending.start, section.end, section.heading, section.titles)
            pending = None
        body = text[section.start : section.end]
        if section.heading is not None and count_words(body) <= count_words(section.heading) + 1:
            pending = section  # heading only: carry it into the next section
            continue
        if count_words(body) == 0:
            continue
        merged.append(section)
    if pending is not None:
        merged.append(pending)
    return merged


def _front_matter_end(text: str) -> int:
    """Offset just after a leading YAML front-matter block (``---`` ... ``---``), or 0. It is metadata, not prose."""
    match = re.match(r"---[ \t]*\r?\n.*?\n---[ \t]*(?:\r?\n|$)", text, re.DOTALL)
    return match.end() if match else 0


def _units(text: str, start: int, end: int) -> list[_Unit]:
    """Sentences (and list items, table rows) of text[start:end], as stripped spans, flagged at paragraph starts."""
    units: list[_Unit] = []
    for p_start, p_end in _spans(text, start, end, _PARAGRAPH_BREAK):
        first = True
        # the one sentence splitter; a line break ends a sentence only before a list item or table row
        for sentence in split_sentences(text[p_start:p_end], wrapped_lines=True):
            words = count_words(sentence.text)
            if words:
                units.append(_Unit(p_start + sentence.start, p_start + sentence.end, words, first))
                first = False
    return units


def _spans(text: str, start: int, end: int, separator: re.Pattern[str]) -> list[tuple[int, int]]:
    """Non-blank pieces of text[start:end] between separator matches, trimmed of surrounding whitespace."""
    spans: list[tuple[int, int]] = []
    cursor = start
    for match in separator.finditer(text, start, end):
        spans.append((cursor, match.start()))
        cursor = match.end()
    spans.append((cursor, end))
    trimmed = []
    for s, e in spans:
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if e > s:
            trimmed.append((s, e))
    return trimmed


def _split_long(units: list[_Unit], text: str, max_words: int) -> list[_Unit]:
    """A unit longer than max_words (a run-on sentence, a table) is cut at word boundaries."""
    out: list[_Unit] = []
    for unit in units:
        if unit.words <= max_words:
            out.append(unit)
            continue
        words = list(_WORD.finditer(text, unit.start, unit.end))
        for i in range(0, len(words), max_words):
            piece = words[i : i + max_words]
            out.append(_Unit(piece[0].start(), piece[-1].end(), len(piece), unit.starts_paragraph and i == 0))
    return out


def _pack(units: list[_Unit], max_words: int, overlap_words: int) -> Iterator[tuple[int, int, int]]:
    """Greedy packing of units into (start, end, words) chunks with whole-sentence overlap."""
    i = 0
    n = len(units)
    while i < n:
        total = units[i].words
        j = i
        while j + 1 < n and total + units[j + 1].words <= max_words:
            j += 1
            total += units[j].words
        if j + 1 < n and not units[j + 1].starts_paragraph:
            # Prefer to end at a paragraph boundary if the chunk stays at least half full.
            for b in range(j, i, -1):
                if units[b].starts_paragraph:
                    kept = sum(u.words for u in units[i:b])
                    if kept >= max_words // 2:
                        j = b - 1
                        total = kept
                    break
        yield units[i].start, units[j].end, total
        if j + 1 >= n:
            return
        # Next chunk starts with whole trailing sentences of this one, up to overlap_words, and always advances.
        nxt = j + 1
        overlap = 0
        while nxt - 1 > i and overlap + units[nxt - 1].words <= overlap_words:
            nxt -= 1
            overlap += units[nxt].words
        i = nxt

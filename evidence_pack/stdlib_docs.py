"""The sample expert library: the installed Python standard library's own docstrings, built offline.

One document per module: the module docstring, then every public function and class with its signature and
docstring (and the public methods a class defines itself). Nothing is downloaded: the text is read from the modules
of the running interpreter with ``inspect``, so the library's version is exactly the installed Python's. The
docstrings are CPython's, under the Python Software Foundation License Version 2 (PSF-2.0); the library's metadata
says so. Each document's source is the module's page on docs.python.org for this version (its citation address).

Built on demand (``controlplane library build-stdlib``), never committed: the default module list gives a few
thousand chunks; ``modules=`` builds a subset (the tests use two small modules).
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import platform
import sys
from collections.abc import Sequence

from controlplane.contracts.errors import InputError

from .chunking import Document

PSF_LICENCE = "PSF-2.0"
LICENCE_NOTE = ("Python Software Foundation License Version 2 (PSF-2.0): docstrings of CPython {version}, "
                "https://docs.python.org/{short}/license.html")
DOMAIN = "coding"
CREDIBILITY = 0.95  # EBOM: official documentation of the Python standard library
# Commonly used, import-safe modules (no side effects on import: never 'antigravity' or 'this').
DEFAULT_MODULES = (
    "abc", "argparse", "array", "asyncio", "base64", "bisect", "calendar", "collections", "collections.abc",
    "contextlib", "copy", "csv", "dataclasses", "datetime", "decimal", "difflib", "enum", "fnmatch", "fractions",
    "functools", "glob", "gzip", "hashlib", "heapq", "hmac", "html", "inspect", "io", "ipaddress", "itertools",
    "json", "logging", "math", "operator", "os", "os.path", "pathlib", "pickle", "pprint", "queue", "random", "re",
    "secrets", "shlex", "shutil", "sqlite3", "statistics", "string", "struct", "subprocess", "tempfile", "textwrap",
    "threading", "time", "timeit", "tomllib", "typing", "unicodedata", "urllib.parse", "uuid", "warnings", "weakref",
    "zipfile", "zlib",
)
_NEVER = frozenset({"antigravity", "this", "idlelib", "turtledemo", "tkinter", "turtle"})


def python_version() -> str:
    return platform.python_version()


def short_version() -> str:
    return f"{sys.version_info.major}.{sys.version_info.minor}"


def default_library_name() -> str:
    return f"python_stdlib_{sys.version_info.major}_{sys.version_info.minor}"


def licence() -> str:
    return LICENCE_NOTE.format(version=python_version(), short=short_version())


def _is_stdlib(name: str) -> bool:
    return name.split(".")[0] in sys.stdlib_module_names


def module_document(name: str) -> Document:
    """The docstrings of one standard-library module as a Document (InputError for anything else)."""
    if not isinstance(name, str) or not name or not _is_stdlib(name) or name.split(".")[0] in _NEVER:
        raise InputError(f"{name!r} is not a standard-library module this builder reads; name modules such as "
                         "json, collections or pathlib")
    try:
        module = importlib.import_module(name)
    except ImportError as exc:
        raise InputError(f"standard-library module {name!r} cannot be imported here: {exc}") from None
    parts = [f"Module {name} (Python {python_version()} standard library)", inspect.getdoc(module) or ""]
    for member_name, member in _public_members(module):
        parts.append(_member_text(f"{name}.{member_name}", member))
        if inspect.isclass(member):
            for method_name, method in sorted(vars(member).items()):
                if method_name.startswith("_") or not callable(method) or not inspect.getdoc(method):
                    continue
                parts.append(_member_text(f"{name}.{member_name}.{method_name}", method))
    text = "\n\n".join(p.strip() for p in parts if p and p.strip()) + "\n"
    # one page per module, submodules included (collections.abc.html): a shared source would make the index replace
    # one module's passages with the other's (re-adding a source replaces its chunks)
    page = name
    return Document(
        document_id=f"stdlib:{name}", name=name,
        source=f"https://docs.python.org/{short_version()}/library/{page}.html",
        text=text, content_hash=hashlib.sha256(text.encode("utf-8")).hexdigest(), kind="text",
        title=f"{name} — Python {python_version()} standard library",
    )


def _public_members(module) -> list[tuple[str, object]]:
    exported = getattr(module, "__all__", None)
    names = list(exported) if isinstance(exported, (list, tuple)) else [n for n in dir(module) if not n.startswith("_")]
    members = []
    for member_name in sorted(set(names)):
        member = getattr(module, member_name, None)
        if not (inspect.isfunction(member) or inspect.isbuiltin(member) or inspect.isclass(member)):
            continue
        if exported is None and getattr(member, "__module__", module.__name__) not in (module.__name__, None) \
                and not str(getattr(member, "__module__", "")).lstrip("_").startswith(module.__name__.split(".")[0]):
            continue  # imported from elsewhere, documented there
        if inspect.getdoc(member):
            members.append((member_name, member))
    return members


def _member_text(qualified: str, member: object) -> str:
    try:
        signature = str(inspect.signature(member))
    except (TypeError, ValueError):
        signature = ""
    kind = "class " if inspect.isclass(member) else ""
    return f"{kind}{qualified}{signature}\n{inspect.getdoc(member)}"


def stdlib_documents(modules: Sequence[str] | None = None) -> list[Document]:
    """Documents for ``modules`` (default: DEFAULT_MODULES), each validated before any is built."""
    names = list(dict.fromkeys(modules or DEFAULT_MODULES))
    return [module_document(name) for name in names]


__all__ = ["CREDIBILITY", "DEFAULT_MODULES", "DOMAIN", "PSF_LICENCE", "default_library_name", "licence",
           "module_document", "python_version", "stdlib_documents"]

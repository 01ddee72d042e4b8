"""Our folders load under one name each (issue 12 item 5): ``controlplane.gates``, never a bare ``gates``.

The repository root holds ``gates/``, ``traces/``, ``contracts/`` ... which the wheel maps under ``controlplane``. A
test that puts a folder on ``sys.path``, or imports one of them by its bare name, can load the same file twice as two
modules (two ``GateServices`` classes, two registries) and test something that never runs. Test helpers are reached
as ``tests.<folder>.<helper>`` instead: ``tests`` is a package.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SOURCE_FOLDERS = ("contracts", "evidence_pack", "gates", "policy_bundles", "traces")
BARE_IMPORT = re.compile(rf"^\s*(from|import)\s+({'|'.join(SOURCE_FOLDERS)})(\.|\s|$)", re.MULTILINE)
PATH_HACK = re.compile(r"sys\.path\.(insert|append|extend)|sys\.path\s*[+]?=")


def python_files(*folders: str):
    for folder in folders:
        yield from (p for p in (REPO / folder).rglob("*.py") if ".venv" not in p.parts)


def test_no_file_imports_our_folders_by_their_bare_names():
    offenders = [f"{p.relative_to(REPO)}: {m.group(0).strip()}"
                 for p in python_files("tests", "bench", "controlplane", *SOURCE_FOLDERS)
                 for m in BARE_IMPORT.finditer(p.read_text(encoding="utf-8"))]
    assert offenders == []


def test_no_test_puts_a_folder_on_sys_path():
    this = Path(__file__).resolve()
    offenders = [str(p.relative_to(REPO)) for p in python_files("tests")
                 if p.resolve() != this and PATH_HACK.search(p.read_text(encoding="utf-8"))]
    assert offenders == []


def test_no_source_folder_is_loaded_under_a_second_name_in_this_session():
    def places(module) -> list[str]:
        return [str(getattr(module, "__file__", None) or ""), *map(str, getattr(module, "__path__", []))]

    twice = [name for name in SOURCE_FOLDERS
             if name in sys.modules and any(place.startswith(str(REPO / name)) for place in places(sys.modules[name]))]
    assert twice == []


def test_one_control_plane_name():
    """``controlplane.ControlPlane`` is the one place a request is assembled; the engine under it is ``Pipeline``, and
    no second ``ControlPlane`` name may point at the engine (issue 12: one assembly path)."""
    import controlplane
    from controlplane import pipeline
    from controlplane.api import ControlPlane

    assert controlplane.ControlPlane is ControlPlane
    assert not hasattr(pipeline, "ControlPlane")
    assert pipeline.Pipeline is not ControlPlane

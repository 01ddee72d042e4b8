"""Run the benchmarks: ``./run bench`` (all) or ``./run bench NAME [ARGS...]`` (one, e.g. ``hardening --quick``).

Every module ``bench/NAME.py`` is a benchmark; each runs in its own interpreter (``python -m bench.NAME``), so one
benchmark's imports, threads or crash never skew or stop the next. ``./run bench --list`` lists them.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def available() -> list[str]:
    return sorted(p.stem for p in HERE.glob("*.py") if not p.stem.startswith("_"))


def run_one(name: str, args: list[str]) -> int:
    print(f"== bench.{name} {' '.join(args)}".rstrip(), flush=True)
    started = time.perf_counter()
    code = subprocess.call([sys.executable, "-m", f"bench.{name}", *args], cwd=HERE.parent)
    print(f"== bench.{name}: exit {code} after {time.perf_counter() - started:.1f} s", flush=True)
    return code


def main(argv: list[str]) -> int:
    names = available()
    if argv and argv[0] in ("-h", "--help", "--list"):
        print(__doc__.strip())
        print("\navailable: " + ", ".join(names))
        return 0
    if argv and not argv[0].startswith("-"):
        name, args = argv[0], argv[1:]
        if name not in names:
            print(f"no benchmark {name!r}; available: {', '.join(names)}", file=sys.stderr)
            return 2
        return run_one(name, args)
    failed = [name for name in names if run_one(name, argv) != 0]
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

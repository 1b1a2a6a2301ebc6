"""`python -m pipelines.bench [NAME ...]`: run the benchmarks and print their figures.

Each benchmark is a module pipelines/bench/<name>.py with `run(workdir: Path) -> dict`; the
figures are printed and written to bench-out/<name>.json, with the time and commit they were
measured on. Each benchmark runs in a child process of its own, so its peak memory (max resident
set size) is its own. At the end, one table of the headline figures, each beside its yardstick,
ratio and target (pipelines/bench/summary.py); bench-out/summary.md holds that table for every
benchmark measured so far.
"""
from __future__ import annotations

import datetime as dt
import importlib
import json
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

from pipelines.bench import summary

BENCHMARKS = ["mahjong", "bridge", "sweden", "site"]
OUT = Path("bench-out")


def _child(name: str) -> None:
    module = importlib.import_module(f"pipelines.bench.{name}")
    with tempfile.TemporaryDirectory(prefix=f"bench-{name}-") as workdir:
        figures = module.run(Path(workdir))
    figures["peak_memory_mib"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    print(json.dumps(figures, ensure_ascii=False, default=str))


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "--child":
        _child(argv[1])
        return 0
    names = argv or BENCHMARKS
    OUT.mkdir(exist_ok=True)
    headline: list[summary.Row] = []
    for name in names:
        if not Path(__file__).with_name(f"{name}.py").exists():
            print(f"{name}: no benchmark module yet", file=sys.stderr)
            continue
        done = subprocess.run([sys.executable, "-m", "pipelines.bench", "--child", name], capture_output=True, text=True)
        if done.returncode != 0:
            print(done.stdout, done.stderr, file=sys.stderr)
            return done.returncode
        figures = json.loads(done.stdout.strip().splitlines()[-1])
        figures["measured_at"] = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        figures["commit"] = _commit()
        (OUT / f"{name}.json").write_text(json.dumps(figures, ensure_ascii=False, indent=1), encoding="utf-8")
        print(f"== {name}")
        for key, value in figures.items():
            print(f"  {key}: {value}")
        headline += summary.rows(name, figures)
    print("== summary (bench-out/summary.md has every benchmark measured so far)")
    print(summary.table(headline), end="")
    measured = [row for name in BENCHMARKS if (OUT / f"{name}.json").exists()
                for row in summary.rows(name, json.loads((OUT / f"{name}.json").read_text(encoding="utf-8")))]
    (OUT / "summary.md").write_text(summary.table(measured), encoding="utf-8")
    return 0


def _commit() -> str:
    """The checkout's commit (short; "+" when files differ from it), or "" outside a git checkout
    (an installed wheel)."""
    here = Path(__file__).parent
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=here, timeout=10)
        changed = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True,
                                 cwd=here, timeout=10)
    except OSError:
        return ""
    if head.returncode != 0:
        return ""
    return head.stdout.strip() + ("+" if changed.stdout.strip() else "")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

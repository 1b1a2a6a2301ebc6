"""`python -m pipelines.bench [NAME ...]`: run the benchmarks and print their figures.

Each benchmark is a module pipelines/bench/<name>.py with `run(workdir: Path) -> dict`; the
figures are printed and written to bench-out/<name>.json. Each benchmark runs in a child process
of its own, so its peak memory (max resident set size) is its own.
"""
from __future__ import annotations

import importlib
import json
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

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
    for name in names:
        if not Path(__file__).with_name(f"{name}.py").exists():
            print(f"{name}: no benchmark module yet", file=sys.stderr)
            continue
        done = subprocess.run([sys.executable, "-m", "pipelines.bench", "--child", name], capture_output=True, text=True)
        if done.returncode != 0:
            print(done.stdout, done.stderr, file=sys.stderr)
            return done.returncode
        figures = json.loads(done.stdout.strip().splitlines()[-1])
        (OUT / f"{name}.json").write_text(json.dumps(figures, ensure_ascii=False, indent=1), encoding="utf-8")
        print(f"== {name}")
        for key, value in figures.items():
            print(f"  {key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

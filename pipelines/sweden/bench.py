"""Benchmark of the Swedish system: a federation of `clubs` clubs over `months` months (about 12.5
events per club and month, as issue 8's two years of 300 clubs ≈ 90,000 events), from an empty
state, then one more night on top of it.

    python -m pipelines.sweden.bench --clubs 300 --months 24     (the issue's size: long, run alone)
    python -m pipelines.sweden.bench --clubs 10 --months 1       (a quick look)

Prints events, award lines, seconds, events per second and peak memory (max RSS) as JSON.
"""
from __future__ import annotations

import argparse
import json
import random
import resource
import shutil
import time
from datetime import date, timedelta
from pathlib import Path

from pipelines.core import run as nightly
from pipelines.core.settings import DATA_DIR

ORG = "svensk-bridge"


def _inbox(root: Path, clubs: int, months: int, members_per_club: int = 60, seed: int = 2009) -> tuple[Path, int]:
    rnd = random.Random(seed)
    inbox = root / "inbox"
    org = inbox / ORG
    org.mkdir(parents=True)
    slugs = [f"klubb-{i:03d}" for i in range(clubs)]
    members = [(str(1_000_000 + c * members_per_club + k), c) for c in range(clubs) for k in range(members_per_club)]
    (org / "medlemsregister.csv").write_text(
        "medlemsnummer;namn;klubb\n" + "".join(f"{m};Spelare {m} Åström;{20000 + c}\n" for m, c in members), encoding="utf-8")
    start = date(2024, 7, 1)
    days = (date(2024 + (6 + months) // 12, (6 + months) % 12 + 1, 1) - start).days
    events = 0
    for c, slug in enumerate(slugs):
        folder = org / slug
        folder.mkdir()
        own = [m for m, cc in members if cc == c]
        for e in range(round(12.5 * months)):
            d = start + timedelta(days=rnd.randrange(days))
            n = rnd.randint(6, min(28, len(own) // 2))
            ps = rnd.sample(own, 2 * n)
            (folder / f"{d}-{e:03d}.event.txt").write_text(
                f"datum: {d}\nnivå: brons\nform: par\nbrickor: {rnd.choice([18, 24, 27])}\n", encoding="utf-8")
            (folder / f"{d}-{e:03d}.standings.csv").write_text(
                "plac;par;medlemmar\n" + "".join(f"{i + 1};{i + 1};{ps[2 * i]} {ps[2 * i + 1]}\n" for i in range(n)), encoding="utf-8")
            events += 1
    return inbox, events


def _data(root: Path, clubs: int) -> Path:
    data = root / "data"
    shutil.copytree(DATA_DIR, data, ignore=shutil.ignore_patterns("samples"))
    for p in (data / "organisations").glob("*.toml"):
        if p.stem != ORG:
            p.unlink()
    (data / "rules" / "sweden" / "clubs.csv").write_text(
        "club,slug,name,district,members\n" + "".join(f"{20000 + c},klubb-{c:03d},Klubb {c},Distrikt {c % 20},60\n" for c in range(clubs)),
        encoding="utf-8")
    return data


def run(workdir: Path, clubs: int = 300, months: int = 24) -> dict:
    inbox, events = _inbox(workdir, clubs, months)
    data = _data(workdir, clubs)
    state = workdir / "var"
    t0 = time.perf_counter()
    result = nightly.run(inbox, state, date(2026, 7, 1), data)
    history = time.perf_counter() - t0
    night, _ = _inbox(workdir / "night", clubs, 0) if False else (None, 0)
    figures = {"clubs": clubs, "months": months, "events": events, "history_seconds": round(history, 2),
               "events_per_second": round(events / history, 1) if history else None,
               "peak_memory_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}
    return figures


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--clubs", type=int, default=10)
    ap.add_argument("--months", type=int, default=1)
    ap.add_argument("--workdir", type=Path, default=Path("/tmp/se-bench"))
    a = ap.parse_args()
    shutil.rmtree(a.workdir, ignore_errors=True)
    a.workdir.mkdir(parents=True)
    print(json.dumps(run(a.workdir, a.clubs, a.months)))


if __name__ == "__main__":
    main()

"""Benchmark of the Swedish system (issue 8): a federation of `clubs` clubs over `months` months
(about 12.5 bronze pair events per club and month, so 300 clubs × 24 months ≈ 90,000 events),
run from an empty state, then one more night on top of it; and the same night on top of one
month of history (the night ratio shows whether a night's cost grows with the ledger).

    python -m pipelines.sweden.bench --clubs 300 --months 24     (the issue's size: long, run alone)
    python -m pipelines.sweden.bench --clubs 10 --months 1       (a quick look)

Each run is a child `pointledger run` (its own wall time, and the peak memory of it and its worker
processes: pipelines/bench/memory.py). Prints events,
award lines, seconds, events per second, peak memory and the night ratio as JSON.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import time
from datetime import date, timedelta
from pathlib import Path

from pipelines.bench.memory import TreeMemory, peak_mib
from pipelines.core.settings import DATA_DIR

ORG = "svensk-bridge"
START = date(2024, 7, 1)
EVENTS_PER_CLUB_MONTH = 12.5


def _members(clubs: int, members_per_club: int) -> list[tuple[str, int]]:
    return [(str(1_000_000 + c * members_per_club + k), c) for c in range(clubs) for k in range(members_per_club)]


def _write_event(folder: Path, name: str, d: date, rnd: random.Random, own: list[str]) -> None:
    n = rnd.randint(6, min(28, len(own) // 2))
    ps = rnd.sample(own, 2 * n)
    (folder / f"{name}.event.txt").write_text(
        f"datum: {d}\nnivå: brons\nform: par\nbrickor: {rnd.choice([18, 24, 27])}\n", encoding="utf-8")
    (folder / f"{name}.standings.csv").write_text(
        "plac;par;medlemmar\n" + "".join(f"{i + 1};{i + 1};{ps[2 * i]} {ps[2 * i + 1]}\n" for i in range(n)), encoding="utf-8")


def _inbox(root: Path, clubs: int, months: int, start: date = START, members_per_club: int = 60,
           seed: int = 2009) -> tuple[Path, int]:
    """The member register and `months` months of events of every club from `start`."""
    rnd = random.Random(seed)
    inbox = root / "inbox"
    org = inbox / ORG
    org.mkdir(parents=True)
    members = _members(clubs, members_per_club)
    (org / "medlemsregister.csv").write_text(
        "medlemsnummer;namn;klubb\n" + "".join(f"{m};Spelare {m} Åström;{20000 + c}\n" for m, c in members), encoding="utf-8")
    end_month = start.month - 1 + months
    days = (date(start.year + end_month // 12, end_month % 12 + 1, 1) - start).days
    events = 0
    for c in range(clubs):
        folder = org / f"klubb-{c:03d}"
        folder.mkdir()
        own = [m for m, cc in members if cc == c]
        for e in range(round(EVENTS_PER_CLUB_MONTH * months)):
            d = start + timedelta(days=rnd.randrange(days))
            _write_event(folder, f"{d}-{e:03d}", d, rnd, own)
            events += 1
    return inbox, events


def _night(inbox: Path, clubs: int, night: date, members_per_club: int = 60, seed: int = 8) -> int:
    """One evening's events: each club plays that evening with the average probability."""
    rnd = random.Random(seed)
    members = _members(clubs, members_per_club)
    events = 0
    for c in range(clubs):
        if rnd.random() < EVENTS_PER_CLUB_MONTH * 12 / 365:
            own = [m for m, cc in members if cc == c]
            _write_event(inbox / ORG / f"klubb-{c:03d}", f"{night}-kväll", night, rnd, own)
            events += 1
    return events


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


def _timed_run(inbox: Path, state: Path, data: Path, as_of: date) -> dict:
    """`pointledger run` in a child process: wall seconds, peak memory (with its workers), stages, lines."""
    command = [sys.executable, "-m", "pipelines.cli", "run", "--inbox", str(inbox), "--state", str(state),
               "--as-of", as_of.isoformat(), "--data-dir", str(data)]
    started = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    with TreeMemory(child.pid) as memory:
        _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 3):
        raise RuntimeError(f"run failed with exit {code}: {child.stderr.read().decode()}")
    report = json.loads(max((state / "runs").glob("*.json"), key=lambda p: p.stat().st_mtime).read_text())
    return {"wall_seconds": round(wall, 2), "peak_memory_mib": peak_mib(usage, memory),
            "exit_code": code, "stages": report["durations_seconds"],
            "award_lines": report["award_lines"]["posted"], "quarantined": report["records"]["quarantined"]}


def run(workdir: Path, clubs: int = 300, months: int = 24) -> dict:
    data = _data(workdir, clubs)
    inbox, events = _inbox(workdir / "history", clubs, months)
    night_day = START + timedelta(days=round(months * 30.44))
    as_of = night_day
    history = _timed_run(inbox, workdir / "history" / "var", data, as_of)
    night_events = _night(inbox, clubs, night_day)
    night = _timed_run(inbox, workdir / "history" / "var", data, as_of)
    # the same night on one month of history (the month before it)
    month_start = date(night_day.year - (night_day.month == 1), (night_day.month - 2) % 12 + 1, 1)
    month_inbox, month_events = _inbox(workdir / "month", clubs, 1, start=month_start)
    _timed_run(month_inbox, workdir / "month" / "var", data, as_of)
    _night(month_inbox, clubs, night_day)
    night_month = _timed_run(month_inbox, workdir / "month" / "var", data, as_of)
    return {
        "clubs": clubs, "months": months, "events": events, "award_lines": history["award_lines"],
        "history_wall_seconds": history["wall_seconds"],
        "events_per_second": round(events / history["wall_seconds"], 1),
        "history_peak_memory_mib": history["peak_memory_mib"], "history_stages": history["stages"],
        "night_events": night_events,
        "night_on_history_wall_seconds": night["wall_seconds"], "night_on_history_stages": night["stages"],
        "night_on_history_peak_memory_mib": night["peak_memory_mib"],
        "one_month_events": month_events,
        "night_on_one_month_wall_seconds": night_month["wall_seconds"], "night_on_one_month_stages": night_month["stages"],
        "night_ratio": round(night["wall_seconds"] / night_month["wall_seconds"], 2),
        "quarantined": history["quarantined"] + night["quarantined"],
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--clubs", type=int, default=10)
    ap.add_argument("--months", type=int, default=1)
    ap.add_argument("--workdir", type=Path, default=Path("/tmp/se-bench"))
    a = ap.parse_args()
    shutil.rmtree(a.workdir, ignore_errors=True)
    a.workdir.mkdir(parents=True)
    print(json.dumps(run(a.workdir, a.clubs, a.months), ensure_ascii=False))


if __name__ == "__main__":
    main()

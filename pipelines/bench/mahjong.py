"""Mahjong league benchmark: a synthetic league from inbox to leaderboard.

Three measurements, each `pointledger run` in a child process of its own (wall time from
os.wait4; peak memory of the run with its worker processes, pipelines/bench/memory.py):

1. full:  the whole league (500 players, 200,000 games over two years: one text post a day) from
          an empty state;
2. night_on_two_years: one new day of posts on top of that history;
3. night_on_one_month: the same new day on top of one month of history (the ratio 2/3 shows
          whether a night's cost grows with the ledger; the target is at most 1.2).

A night takes about 3 s, where the machine's own noise moves a single run by a fifth, so each
night is run NIGHTS times, each time on a fresh copy of its state (the history's state is copied
before its first night: a night changes it), alternating the two histories; the figures are each
night's median run, and every run's seconds are kept beside it.

Beside the full run, over the same posts and in the same run: the naive single-pass baseline
(`pipelines/bench/naive_mahjong.py`, plain Python, no validation), in a child process too; the
ratio full / naive has the target at most 3 (issue 13). And the floor
(`pipelines/bench/floor_mahjong.py`): the least work that writes what the run writes for the
league (its lake, a warehouse table, a page per player and season) with nothing checked, set-based
in Arrow and DuckDB, also in a child process: how much of the ratio the outputs alone take.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from datetime import date, timedelta
from pathlib import Path

import pandas as pd

from pipelines.bench.memory import TreeMemory, peak_mib
from pipelines.core.settings import DATA_DIR
from pipelines.mahjong.synth import generate_games, write_text_posts

PLAYERS = 500
GAMES = 200_000
START = date(2024, 12, 1)
DAYS = 730
ORG = "bench-league"
NIGHTS = 3  # runs of each night (median)


def _data_dir(workdir: Path) -> Path:
    """A copy of data/ whose one organisation is the synthetic league (the sample league's rules
    and calendar), as a club's office that scores one league configures it. The sample
    organisations stay out, as in the Swedish benchmark: each would be published, empty, by every
    run (about 1.5 s of a full run and 1 s of a night)."""
    data = workdir / "data"
    shutil.copytree(DATA_DIR, data, ignore=shutil.ignore_patterns("samples"))
    settings = (data / "organisations" / "sofu-mahjong.toml").read_text(encoding="utf-8")
    for other in (data / "organisations").glob("*.toml"):
        other.unlink()
    settings = settings.replace('organisation = "sofu-mahjong"', f'organisation = "{ORG}"')
    settings = settings.replace('display_name = "蒼風麻雀リーグ"', 'display_name = "Bench League"')
    (data / "organisations" / f"{ORG}.toml").write_text(settings, encoding="utf-8")
    return data


def _timed_run(inbox: Path, state: Path, data: Path, as_of: date) -> dict:
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
    report = max((state / "runs").glob("*.json"), key=lambda p: p.stat().st_mtime)
    import json

    stages = json.loads(report.read_text())["durations_seconds"]
    return {"wall_seconds": round(wall, 2), "peak_memory_mib": peak_mib(usage, memory),
            "in_process_seconds": round(sum(stages.values()), 2), "stages": stages}


def _timed_script(module: str, *args: Path) -> tuple[float, list[int]]:
    """(wall seconds, the integers it printed) of `python -m <module> <args>` in a child process.
    (No peak memory: the child's ru_maxrss counts the forked bench process before its exec.)"""
    started = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-m", module, *map(str, args)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
    _, status, _ = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{module} failed: {child.stderr.read().decode()}")
    return round(wall, 2), [int(x) for x in child.stdout.read().split()]


def _timed_naive(posts: Path, data: Path) -> dict:
    wall, (games, players) = _timed_script("pipelines.bench.naive_mahjong", posts, data / "rules" / "mahjong")
    return {"wall_seconds": wall, "games": games, "players": players}


def _timed_floor(posts: Path, data: Path, out: Path) -> dict:
    wall, (seats, pages) = _timed_script("pipelines.bench.floor_mahjong", posts, data / "rules" / "mahjong", out)
    page_bytes = sum(p.stat().st_size for p in (out / "players").iterdir())
    shutil.rmtree(out)
    return {"wall_seconds": wall, "seats": seats, "pages": pages, "page_mib": round(page_bytes / 2**20, 1)}


def _alternated_nights(states: dict[str, tuple[Path, Path]], data: Path, as_of: date) -> dict[str, dict]:
    """{name: the median of NIGHTS timed runs, with every run's seconds}: each run on a fresh copy
    of the state `states[name]` = (inbox, state) holds before tonight's post, the names taken in
    turn (two years, one month, two years, ...), so that a slow minute of the machine falls on
    both."""
    before = {name: state.with_name(state.name + "-before-the-night") for name, (_, state) in states.items()}
    for name, (_, state) in states.items():
        shutil.copytree(state, before[name])
    runs: dict[str, list[dict]] = {name: [] for name in states}
    for _ in range(NIGHTS):
        for name, (inbox, state) in states.items():
            shutil.rmtree(state)
            shutil.copytree(before[name], state)
            runs[name].append(_timed_run(inbox, state, data, as_of))
    for copy in before.values():
        shutil.rmtree(copy)
    return {name: {**sorted(timed, key=lambda r: r["wall_seconds"])[len(timed) // 2],
                   "runs_seconds": [r["wall_seconds"] for r in timed]}
            for name, timed in runs.items()}


def run(workdir: Path) -> dict:
    data = _data_dir(workdir)
    t0 = time.perf_counter()
    games = generate_games(PLAYERS, GAMES, START, DAYS, seed=7)
    last_day = pd.Timestamp(games["date"].max()).date()
    history = games[games["date"] < pd.Timestamp(last_day)]
    night = games[games["date"] == pd.Timestamp(last_day)]
    month = history[history["date"] >= pd.Timestamp(last_day - timedelta(days=30))]

    full_inbox = workdir / "full" / "inbox" / ORG
    write_text_posts(history, full_inbox)
    month_inbox = workdir / "month" / "inbox" / ORG
    write_text_posts(month, month_inbox)
    generated = round(time.perf_counter() - t0, 2)

    as_of = last_day + timedelta(days=1)
    full = _timed_run(full_inbox.parent, workdir / "full" / "var", data, as_of)
    naive = _timed_naive(full_inbox, data)
    floor = _timed_floor(full_inbox, data, workdir / "floor")
    _timed_run(month_inbox.parent, workdir / "month" / "var", data, as_of)
    write_text_posts(night, full_inbox)
    write_text_posts(night, month_inbox)
    nights = _alternated_nights({"two_years": (full_inbox.parent, workdir / "full" / "var"),
                                 "one_month": (month_inbox.parent, workdir / "month" / "var")}, data, as_of)
    night_two_years, night_one_month = nights["two_years"], nights["one_month"]

    history_games = history.groupby(["date", "game_no"]).ngroups
    return {
        "players": PLAYERS,
        "games_in_history": history_games,
        "games_in_night": night.groupby(["date", "game_no"]).ngroups,
        "generate_and_write_seconds": generated,
        "full_wall_seconds": full["wall_seconds"],
        "full_games_per_second": round(history_games / full["wall_seconds"]),
        "full_peak_memory_mib": full["peak_memory_mib"],
        "full_stages": full["stages"],
        "naive_wall_seconds": naive["wall_seconds"],
        "naive_games": naive["games"],
        "full_vs_naive_ratio": round(full["wall_seconds"] / naive["wall_seconds"], 2),
        "floor_wall_seconds": floor["wall_seconds"],
        "floor_pages": floor["pages"],
        "floor_page_mib": floor["page_mib"],
        "floor_vs_naive_ratio": round(floor["wall_seconds"] / naive["wall_seconds"], 2),
        "full_vs_floor_ratio": round(full["wall_seconds"] / floor["wall_seconds"], 2),
        "night_on_two_years_wall_seconds": night_two_years["wall_seconds"],
        "night_on_two_years_peak_memory_mib": night_two_years["peak_memory_mib"],
        "night_on_two_years_stages": night_two_years["stages"],
        "night_on_two_years_runs_seconds": night_two_years["runs_seconds"],
        "night_on_one_month_wall_seconds": night_one_month["wall_seconds"],
        "night_on_one_month_stages": night_one_month["stages"],
        "night_on_one_month_runs_seconds": night_one_month["runs_seconds"],
        "night_ratio_two_years_vs_one_month": round(night_two_years["wall_seconds"] / night_one_month["wall_seconds"], 2),
    }

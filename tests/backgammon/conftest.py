"""Shared helpers for the backgammon tests.

Expected values in these tests come from the printed document (seed 001) or from hand
computations written next to them, never from the program's own output.
"""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest

from pipelines.backgammon import compute_awards, load_rules, parse_results

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "data" / "samples" / "inbox" / "ukbgclub"
FILES = Path(__file__).resolve().parent / "files"


@pytest.fixture(scope="session")
def rules():
    return load_rules()


def results_bytes(settings: dict[str, object], rows: list[tuple], header: str = "player,place,matches_won") -> bytes:
    """A results file: '# key: value' settings, a header line, one CSV line per player."""
    lines = [f"# {k}: {v}" for k, v in settings.items()]
    lines.append(header)
    for row in rows:
        lines.append(",".join("" if c is None else (f'"{c}"' if "," in str(c) else str(c)) for c in row))
    return ("\n".join(lines) + "\n").encode()


BASE_SETTINGS = {
    "club": "testclub",
    "date": "2025-05-06",
    "event": "Test Night",
    "level": "Intermediate",
    "method": "players",
    "multiplier": "1",
    "rounds": "4",
}


def settings(**changes) -> dict[str, object]:
    out = dict(BASE_SETTINGS)
    for key, value in changes.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = value
    return out


def filler(n: int, start: int = 1) -> list[tuple]:
    """n players without a place and without a win (they make up the field size)."""
    return [(f"Filler {i:03d}", None, 0) for i in range(start, start + n)]


def points_by_player(tables: dict[str, pd.DataFrame], rules) -> dict[str, Decimal]:
    awards = compute_awards(tables["events"], tables["players"], rules)
    return dict(zip(awards["player_id"], awards["points"]))


def award_lines(data: bytes, rules, parser=parse_results, source_file: str = "test.csv"):
    tables, quarantine = parser(source_file, data, rules=rules)
    return compute_awards(tables["events"], tables["players"], rules), quarantine


def expand_lines(location: str) -> set[int]:
    """'line 7' / 'lines 9, 14' / 'lines 10–12, 15' → {7} / {9, 14} / {10, 11, 12, 15}."""
    out: set[int] = set()
    if not location.startswith("line"):
        return out
    for part in location.split(" ", 1)[1].split(","):
        part = part.strip()
        if "–" in part:
            a, b = part.split("–")
            out.update(range(int(a), int(b) + 1))
        elif re.fullmatch(r"\d+", part):
            out.add(int(part))
    return out


@pytest.fixture(scope="session")
def bg():
    """The helpers above, as one namespace (test modules do not import conftest)."""
    return SimpleNamespace(
        ROOT=ROOT,
        SAMPLES=SAMPLES,
        FILES=FILES,
        results_bytes=results_bytes,
        settings=settings,
        filler=filler,
        points_by_player=points_by_player,
        award_lines=award_lines,
        expand_lines=expand_lines,
    )

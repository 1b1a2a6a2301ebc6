"""Series bonus by final place (seed 002, B2 bonus table, B3 divisions at 100/50/25 %, double series
counted twice, Swiss by rounds, at least 1/3 of the halves; beyond 12 teams RULES.md §3's pattern)."""
from __future__ import annotations

from fractions import Fraction

import pandas as pd
import pytest

from pipelines.sweden import series as SR
from pipelines.sweden.rules import load_rules


@pytest.fixture(scope="module")
def rules():
    return SR.load_series_rules()


@pytest.fixture(scope="module")
def b2():
    return load_rules().printed["B2bonus"]


def test_printed_and_extended_bonus_rows(rules, b2):
    assert [SR.bonus_points(b2, rules, 8, p) for p in (1, 2, 3, 4)] == [70, 40, 10, 0]
    assert [SR.bonus_points(b2, rules, 12, p) for p in (1, 2, 3, 4, 5)] == [110, 80, 50, 20, 0]
    # 14 teams: 10 × 13 − 30 × (place − 1) while positive
    assert [SR.bonus_points(b2, rules, 14, p) for p in range(1, 7)] == [130, 100, 70, 40, 10, 0]


def _lines(team_matches: int, halves: dict[str, int], team="Lag Ek"):
    """Member lines of one team: each player's halves spread over the team's matches."""
    rows = []
    for p, h in halves.items():
        for i in range(team_matches):
            n = 2 if h >= 2 * (i + 1) else 1 if h == 2 * i + 1 else 0
            if n:
                rows.append({"series_id": "s", "team": team, "player": p, "match_id": f"m{i}", "halves": n,
                             "denomination": "bp", "share": Fraction(0)})
    return pd.DataFrame(rows)


def _standings(n):
    return pd.DataFrame({"series_id": "s", "team": ["Lag Ek"] + [f"Lag {i}" for i in range(2, n + 1)],
                         "place": range(1, n + 1)})


def test_b2_winner_and_the_third_of_halves(rules, b2):
    # 9 matches = 18 halves; a third is 6: 6 halves qualify, 5 do not
    lines = _lines(9, {"A": 18, "B": 6, "C": 5})
    out = SR.series_bonus(_standings(10), lines, rules, b2, table="B2").set_index("player")
    assert out["share"].to_dict() == {"A": 90, "B": 90}  # 10 teams, 1st: 90 bp


def test_double_series_counts_twice(rules, b2):
    st = _standings(8).assign(place=[2, 1, 3, 4, 5, 6, 7, 8])
    out = SR.series_bonus(st, _lines(14, {"A": 28}), rules, b2, table="B2", double=True)
    assert list(out["share"]) == [80]  # 8 teams, 2nd: 40 × 2


def test_b3_division_percentages(rules, b2):
    lines = _lines(7, {"A": 14})
    got = {d: list(SR.series_bonus(_standings(8), lines, rules, b2, table="B3", divisions=3, division=d)["share"])
           for d in (1, 2, 3)}
    assert got == {1: [70], 2: [35], 3: [Fraction(35, 2)]}  # 100 %, 50 %, 25 % of 70
    assert SR.series_bonus(_standings(8), lines, rules, b2, table="B3", divisions=4, division=4).empty


def test_swiss_by_rounds_and_no_bonus_in_b4_or_silver(rules, b2):
    lines = _lines(7, {"A": 14})
    out = SR.series_bonus(_standings(30), lines, rules, b2, table="B2", swiss_rounds=7)
    assert list(out["share"]) == [70]  # 7 rounds: the 8-team row
    assert SR.series_bonus(_standings(8), lines, rules, b2, table="B4").empty
    assert SR.series_bonus(_standings(8), lines, rules, b2, table="E2").empty

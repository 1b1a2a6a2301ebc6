"""Per-match awards of a Swedish team series, the seed's examples (002, tables B2 and E2):
won / drawn / lost by own VP after penalties, shares by halves played, rounding at the end."""
from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

from pipelines.sweden import series as SR
from pipelines.sweden.series_parse import matches_frame, parse_match

FIX = Path(__file__).parent / "fixtures" / "series"


@pytest.fixture(scope="module")
def rules():
    return SR.load_series_rules()


def run(rules, *names):
    rows, apps = [], []
    for n in names:
        row, a, problems = parse_match(n, (FIX / n).read_bytes())
        assert problems == [], problems
        rows.append(row)
        apps.append(a)
    teams = SR.team_points(matches_frame(rows), rules)
    lines = SR.member_lines(teams, pd.concat(apps, ignore_index=True))
    return teams, lines


def by_team(teams):
    return {r.team: (r.result, r.points) for r in teams.itertuples()}


def test_seed_halves_example(rules):
    # E2: won match, 20 sp; A-B whole match, C first half with D and second with E:
    # "A, B och C erhåller 5 poäng var, D och E 2½ poäng"
    teams, lines = run(rules, "round4_ek_gran.match.txt")
    assert by_team(teams) == {"Lag Ek": ("won", Fraction(20)), "Lag Gran": ("lost", Fraction(0))}
    ek = lines[lines["team"] == "Lag Ek"].set_index("player")["share"].to_dict()
    assert ek == {"A": 5, "B": 5, "C": 5, "D": Fraction(5, 2), "E": Fraction(5, 2)}
    assert set(lines[lines["team"] == "Lag Gran"]["share"]) == {0}
    assert "round 4, Lag Ek – Lag Gran 18-12 won" in lines.iloc[0]["basis"]


def test_18_12_with_a_1_vp_penalty_is_a_draw_for_the_winner(rules):
    teams, lines = run(rules, "penalty_winner.match.txt")  # 18-12, home -1 VP: 17-12
    assert by_team(teams) == {"Lag Ek": ("drawn", Fraction(32)), "Lag Gran": ("lost", Fraction(0))}
    assert set(lines[lines["team"] == "Lag Ek"]["share"]) == {Fraction(32, 8) * 2}  # 4 players, both halves: 8 each


def test_17_13_penalised_to_17_12_gives_the_12_team_nothing(rules):
    teams, _ = run(rules, "penalty_loser.match.txt")
    assert by_team(teams) == {"Lag Ek": ("drawn", Fraction(32)), "Lag Gran": ("lost", Fraction(0))}


def test_walkover_gives_no_points(rules):
    teams, lines = run(rules, "walkover.match.txt")
    assert set(teams["points"]) == {0}
    assert "walkover" in teams.iloc[0]["basis"]
    assert lines.empty


def _match(**kw):
    base = dict(match_id="m", source_file="m", series_id="s", round=1, date="2026-10-01", table="B2", divisions=1,
                division=1, boards=24, boards_played=None, scale_total=30, home="H", away="A", home_vp=Fraction(18),
                away_vp=Fraction(12), home_penalty=Fraction(0), away_penalty=Fraction(0), walkover=False)
    return {**base, **kw}


def test_tables_divisions_and_boards(rules):
    rows = [_match(match_id="b3", table="B3", divisions=3, division=3),
            _match(match_id="b4", table="B4", boards=16),
            _match(match_id="e4q", table="E4", boards=8, home_vp=Fraction(15), away_vp=Fraction(15)),
            _match(match_id="g1", table="G1", boards=20, scale_total=20, home_vp=Fraction(14), away_vp=Fraction(6)),
            _match(match_id="int", table="B2", boards_played=12),
            _match(match_id="int2", table="B2", boards_played=11),
            _match(match_id="short", table="B2", boards=20)]
    t = SR.team_points(matches_frame(rows), rules)
    home = t[t["side"] == "home"].set_index("match_id")
    assert home.loc["b3", "points"] == 52          # 3 divisions, division 3 won: 52 bp
    assert home.loc["b4", "points"] == 32          # B4 won
    assert home.loc["e4q", "points"] == Fraction(5, 2)  # 6-11 boards quarter scale, drawn: 5/2
    assert (home.loc["g1", "points"], home.loc["g1", "denomination"]) == (12, "gp")
    # interrupted: the half scale is table E3's (seed p. 14; tests/sweden/test_series_conceded.py):
    # a B2 match interrupted after half of its boards gives no points
    assert home.loc["int", "points"] == 0
    assert home.loc["int2", "points"] == 0         # less than half played
    assert home.loc["short", "points"] is None and "no award for 20 boards" in home.loc["short", "problem"]


def test_series_totals_round_up_once_at_the_end(rules):
    # 7 halves in the team; D plays one half of each match: 64 × 1/7 twice = 128/7 = 18.28...,
    # rounded up once: 19 (rounding each match would give 10 + 10 = 20); A: 64 × 2/7 twice = 256/7 -> 37
    rows = [_match(match_id=f"m{i}", round=i) for i in (1, 2)]
    apps = pd.DataFrame([{"match_id": f"m{i}", "side": "home", "player": p, "half": h}
                         for i in (1, 2) for p, h in [("A", 1), ("A", 2), ("B", 1), ("B", 2), ("C", 1), ("C", 2), ("D", 1)]]
                        + [{"match_id": f"m{i}", "side": "away", "player": "X", "half": 1} for i in (1, 2)])
    lines = SR.member_lines(SR.team_points(matches_frame(rows), rules), apps)
    tot = SR.series_totals(lines).set_index("player")
    assert tot.loc["D", "exact"] == Fraction(128, 7) and tot.loc["D", "points"] == 19
    assert tot.loc["A", "exact"] == Fraction(256, 7) and tot.loc["A", "points"] == 37


@settings(max_examples=50, deadline=None)
@given(a=st.integers(0, 30), pen_a=st.integers(0, 3), pen_b=st.integers(0, 3))
def test_30_scale_against_the_margin_wording(rules, a, pen_a, pen_b):
    # independent reading: on 30 a team with 18+ own VP won, 13-17 drew, 12 or less lost
    own_a, own_b = max(a - pen_a, 0), max(30 - a - pen_b, 0)
    t = SR.team_points(matches_frame([_match(home_vp=Fraction(own_a), away_vp=Fraction(own_b))]), rules)
    expect = {own: ("won", 64) if own >= 18 else ("drawn", 32) if own >= 13 else ("lost", 0) for own in (own_a, own_b)}
    got = {r.own_vp: (r.result, r.points) for r in t.itertuples()}
    assert got == expect


def test_bad_match_file_is_quarantined_with_messages():
    row, apps, problems = parse_match("bad.match.txt", (FIX / "bad.match.txt").read_bytes())
    assert row is None and apps.empty
    text = " | ".join(f"{loc}: {reason}" for _, loc, reason in problems)
    for expected in ("round: expected a whole number (at most 4 digits), found 'fyra'", "date: expected a date YYYY-MM-DD",
                     "table: expected one of B2", "away_vp: expected VP", "unknown setting 'colour'",
                     "missing setting 'away_second_half'"):
        assert expected in text, text
    assert all(f == "bad.match.txt" for f, _, _ in problems)


def test_binary_file_never_crashes():
    row, _, problems = parse_match("binary.match.txt", (FIX / "binary.match.txt").read_bytes())
    assert row is None and problems

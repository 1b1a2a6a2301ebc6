"""A conceded (given-up) match and an interrupted match of a team series (seed 002, section 5 "WO
eller avbruten tävling", p. 5: "Inga mp utdelas för wo-seger. ... Vid uppgiven cupmatch erhåller
vinnande lag sina mp."; Tabell E3, p. 14: "I avbrutna matcher får sp delas ut efter halv skala om
minst halva matchen är spelad"). Expected values are the seed's table values (B2: won 64 bp; E3 two
divisions, division I: won 20 sp) and hand arithmetic.
"""
from __future__ import annotations

from datetime import date
from decimal import Decimal
from fractions import Fraction

import pytest

from office import Office
from pipelines.sweden import series as SR
from pipelines.sweden.series_parse import matches_frame, parse_match
from se_helpers import MEMBERS, ORG, register
from test_series_run import halves, match

CLUB = f"{ORG}/malmo-bk"
E, G = MEMBERS[0:4], MEMBERS[10:14]


@pytest.fixture(scope="module")
def rules():
    return SR.load_series_rules()


def cup_match(extra="", vp=(30, 0)):
    return ("series: cupen\nround: 1\ndate: 2026-10-01\ntable: B2\nboards: 24\nscale: 30\nboards_played: 10\n"
            f"home: Lag Ek\naway: Lag Gran\nhome_vp: {vp[0]}\naway_vp: {vp[1]}\n"
            "home_first_half: A, B, C, D\nhome_second_half: A, B, C, D\n"
            "away_first_half: P, Q, R, S\naway_second_half: P, Q, R, S\n" + extra).encode()


def points(rules, data):
    row, apps, problems = parse_match("cupen/r1.match.txt", data)
    assert problems == [], problems
    teams = SR.team_points(matches_frame([row]), rules)
    return teams, SR.member_lines(teams, apps)


def test_conceded_cup_match_gives_the_winner_its_mp(rules):
    # B2 won = 64 bp to the team; 4 players × 2 halves = 8 halves: 64 × 2/8 = 16 each; the side
    # that gave up gets nothing, though only 10 of 24 boards were played
    teams, lines = points(rules, cup_match("uppgiven: borta\n"))
    got = {r.team: (r.result, r.points) for r in teams.itertuples()}
    assert got == {"Lag Ek": ("won", Fraction(64)), "Lag Gran": ("lost", Fraction(0))}
    assert set(lines[lines["team"] == "Lag Ek"]["share"]) == {Fraction(16)}
    assert "gave up" in teams.iloc[0]["basis"]


def test_the_side_that_gave_up_decides_the_winner(rules):
    # home gave up; the file's VP (a typing slip 15-15) do not make it a draw
    teams, _ = points(rules, cup_match("uppgiven: hemma\n", vp=(15, 15)))
    got = {r.team: (r.result, r.points) for r in teams.itertuples()}
    assert got == {"Lag Ek": ("lost", Fraction(0)), "Lag Gran": ("won", Fraction(64))}


def test_uppgiven_is_checked():
    for extra, expected in (("uppgiven: ja\n", "uppgiven: expected hemma or borta"),
                            ("uppgiven: borta\nwalkover: ja\n", "a walkover is not a conceded match")):
        row, _, problems = parse_match("cupen/r1.match.txt", cup_match(extra))
        assert row is None and any(expected in reason for _, _, reason in problems), problems


def _match(**kw):
    base = dict(match_id="m", source_file="m", series_id="s", round=1, date="2026-10-01", table="B2", divisions=1,
                division=1, boards=24, boards_played=None, scale_total=30, home="H", away="A", home_vp=Fraction(18),
                away_vp=Fraction(12), home_penalty=Fraction(0), away_penalty=Fraction(0), walkover=False, conceded="")
    return {**base, **kw}


def test_half_scale_for_an_interrupted_match_is_table_e3s(rules):
    rows = [_match(match_id="e3", table="E3", divisions=2, division=1, boards_played=12),   # 20 × 1/2 = 10 sp
            _match(match_id="e3short", table="E3", divisions=2, division=1, boards_played=11),  # less than half: 0
            _match(match_id="b2", table="B2", boards_played=12),      # not E3: the seed gives no mp
            _match(match_id="e2", table="E2", boards_played=20)]      # silver, not E3: none either
    t = SR.team_points(matches_frame(rows), rules)
    home = t[t["side"] == "home"].set_index("match_id")
    assert home.loc["e3", "points"] == 10
    assert home.loc["e3short", "points"] == 0
    assert home.loc["b2", "points"] == 0 and "interrupted" in home.loc["b2", "basis"]
    assert home.loc["e2", "points"] == 0


def test_walkover_still_gives_nothing(rules):
    t = SR.team_points(matches_frame([_match(walkover=True, home_vp=Fraction(18), away_vp=Fraction(0))]), rules)
    assert set(t["points"]) == {0}


def test_conceded_cup_match_in_the_nightly_run(tmp_path):
    office = Office(tmp_path)
    register(office)
    office.post(f"{CLUB}/cupen.series.txt", "table: B2\nboards: 24\nscale: 30\n")
    office.post(f"{CLUB}/cupen/r1.match.txt", match(1, "2026-10-01", "Lag Ek", "Lag Gran", 30, 0, halves(E, E, G, G),
                                                    series="cupen", extra="boards_played: 10\nuppgiven: borta\n"))
    assert office.run(date(2026, 10, 2)).exit_code == 0
    m = office.query("select result, away_result, home_points, away_points from se_series_matches")
    assert (m["result"][0], m["away_result"][0], Decimal(m["home_points"][0]), Decimal(m["away_points"][0])) == \
        ("won", "lost", Decimal(64), Decimal(0))
    h = office.query("select member, bp from se_holdings")
    assert {r.member: Decimal(r.bp) for r in h.itertuples() if Decimal(r.bp)} == {e: Decimal(16) for e in E}

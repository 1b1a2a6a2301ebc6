"""G1 per-player bonus with its eligibility, G3's 20 % for the division I winner, E7's conversion
of division III's first two places to gold (seed 002, tables G1, G3, E7)."""
from __future__ import annotations

from fractions import Fraction

import pandas as pd
import pytest

from pipelines.sweden import series as SR


@pytest.fixture(scope="module")
def rules():
    return SR.load_series_rules()


def _setup(boards, halves_by_player, denomination="gp", share=Fraction(3)):
    matches = pd.DataFrame({"match_id": [f"m{i}" for i in range(len(boards))], "boards": boards})
    rows = [{"series_id": "s", "team": "Ek", "player": p, "match_id": f"m{i}", "halves": h,
             "denomination": denomination, "share": share}
            for p, hs in halves_by_player.items() for i, h in enumerate(hs) if h]
    return matches, pd.DataFrame(rows)


def test_g1_bonus_needs_two_20_board_matches_or_three_24_board_halves(rules):
    st = pd.DataFrame({"series_id": ["s"], "team": ["Ek"], "place": [2]})
    matches, lines = _setup([20, 20, 24, 24], {"A": [2, 2, 0, 0], "B": [2, 0, 0, 0], "C": [0, 0, 2, 1], "D": [0, 0, 1, 1]})
    out = SR.place_bonus(st, lines, matches, rules, table="G1").set_index("player")["share"].to_dict()
    assert out == {"A": 20, "C": 20}  # 2nd place: 20 gp; B one 20-board match, D two halves


def test_g3_winner_gets_20_percent_of_own_points(rules):
    st = pd.DataFrame({"series_id": ["s"], "team": ["Ek"], "place": [1]})
    matches, lines = _setup([24, 24], {"A": [2, 2], "B": [1, 0]}, share=Fraction(3, 2))
    out = SR.place_bonus(st, lines, matches, rules, table="G3", division=1).set_index("player")["share"].to_dict()
    assert out == {"A": Fraction(3, 5), "B": Fraction(3, 10)}  # 20 % of 3 and of 1.5
    assert SR.place_bonus(st, lines, matches, rules, table="G3", division=2).empty  # no bonus in div II


def test_e7_first_two_of_division_three_convert_to_gold(rules):
    st = pd.DataFrame({"series_id": ["s"], "team": ["Ek"], "place": [2]})
    matches, lines = _setup([24, 24, 24], {"A": [2, 2, 2]}, denomination="sp", share=Fraction(8))
    out = SR.place_bonus(st, lines, matches, rules, table="E7", division=3)
    got = {(r.denomination, r.share) for r in out.itertuples()}
    assert got == {("gp", Fraction(24, 10)), ("sp", Fraction(-24))}  # 24 sp become 2.4 gp (3 after rounding up)
    assert SR.place_bonus(st.assign(place=3), lines, matches, rules, table="E7", division=3).empty

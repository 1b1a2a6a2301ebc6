"""Series rule tables (data/rules/sweden/series_*.csv) against the seed, transcribed here by hand
from 002_b38bcd2d61619209.txt, tables B2, B3, B4, E2-E7, G1, G3 and the won/drawn definition."""
from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pandas as pd
import pytest

from pipelines.sweden.rules import SwedenRulesError, _read
from pipelines.sweden.series import load_series_rules
from schemas import sweden_series as S

SEED = Path("/work/shared/seeds/002_b38bcd2d61619209.txt")
# "Vunnen 18-12 14-6 6-2 5-1 3-1 2-0 Eller större marginal"
WON = ["18-12", "14-6", "6-2", "5-1", "3-1", "2-0"]
# "Oavgjord 17-13 16-14 15-15 13-7 12-8 11-9 10-10 5-3 4-4 4-2 3-3 2-2 1-1"
DRAWN = ["17-13", "16-14", "15-15", "13-7", "12-8", "11-9", "10-10", "5-3", "4-4", "4-2", "3-3", "2-2", "1-1"]

# (table, divisions, division) -> (won, drawn) per match, as the seed words it
MATCH = {
    ("B2", 1, 1): (64, 32),  # "För vunnen match erhåller laget 64 poäng. Vid oavgjord ... 32"
    ("B3", 2, 1): (72, 36), ("B3", 2, 2): (56, 28),
    ("B3", 3, 1): (76, 38), ("B3", 3, 2): (60, 30), ("B3", 3, 3): (52, 26),
    ("B3", 4, 1): (80, 40), ("B3", 4, 2): (64, 32), ("B3", 4, 3): (56, 28), ("B3", 4, 4): (48, 24),
    ("B3", 5, 1): (80, 40), ("B3", 5, 2): (64, 32), ("B3", 5, 3): (56, 28), ("B3", 5, 4): (52, 26),
    ("B3", 5, 5): (48, 24),
    ("B3", 6, 1): (80, 40), ("B3", 6, 2): (64, 32), ("B3", 6, 3): (60, 30), ("B3", 6, 4): (56, 28),
    ("B3", 6, 5): (52, 26), ("B3", 6, 6): (48, 24),
    ("B4", 1, 1): (32, 16),  # "32 poäng ... 16 poäng", 12-23 boards
    ("E2", 1, 1): (20, 10),  # "20 per vunnen match (10 till vardera laget vid oavgjort)"
    ("E3", 2, 1): (20, 10), ("E3", 2, 2): (16, 8),
    ("E3", 3, 1): (24, 12), ("E3", 3, 2): (20, 10), ("E3", 3, 3): (16, 8),
    **{("E3", n, d): (p, p // 2) for n in (4, 5, 6) for d, p in zip(range(1, n + 1), (28, 24, 20, 16, 12, 8))},
    ("E5", 1, 1): (40, 20), ("E6", 1, 1): (20, 10),
    ("E7", 4, 3): (32, 16), ("E7", 4, 4): (20, 10),
    ("G3", 4, 1): (12, 6), ("G3", 4, 2): (6, 3),
}


@pytest.fixture(scope="module")
def rules():
    return load_series_rules()


def test_margin_table_has_every_printed_margin(rules):
    m = rules["series_margins"]
    assert sorted(m["won_example"]) == sorted(WON)
    assert sorted(sum((s.split() for s in m["drawn_examples"]), [])) == sorted(DRAWN)


@pytest.mark.parametrize("pair", WON + DRAWN)
def test_every_printed_margin_classifies_as_the_seed_says(rules, pair):
    a, b = map(int, pair.split("-"))
    row = rules["series_margins"].set_index("scale_total").loc[a + b]
    expected = "won" if pair in WON else "drawn"
    high = "won" if a >= row["won_own_vp"] else "drawn" if a >= row["drawn_own_vp"] else "lost"
    low = "won" if b >= row["won_own_vp"] else "drawn" if b >= row["drawn_own_vp"] else "lost"
    assert high == expected
    assert low == ("lost" if expected == "won" else "drawn")


def test_greater_margin_wins_and_one_below_the_draw_band_loses(rules):
    m = rules["series_margins"].set_index("scale_total")
    assert m.loc[30, "won_own_vp"] == 18 and m.loc[30, "drawn_own_vp"] == 13  # 19-11 won, 12-18 lost
    assert m.loc[20, "won_own_vp"] == 14 and m.loc[20, "drawn_own_vp"] == 7   # 13-7: the 7-team draws


def test_every_match_award(rules):
    p = rules["series_match_points"]
    got = {(r.table, r.divisions, r.division): (Fraction(r.won_points), Fraction(r.drawn_points))
           for r in p.itertuples() if r.table not in ("E4", "G1")}
    assert got == {k: (Fraction(w), Fraction(d)) for k, (w, d) in MATCH.items()}


def test_boards_dependent_awards(rules):
    p = rules["series_match_points"]
    e4 = p[p["table"] == "E4"].set_index("min_boards")
    # "I varje match spelas om 10 poäng. Minsta antalet brickor: 12 ... 6-11 brickor med 1/4 skala ... 5 poäng"
    assert (e4.loc[12, "won_points"], e4.loc[6, "won_points"], e4.loc[6, "max_boards"]) == ("10", "5", "11")
    assert Fraction(e4.loc[6, "drawn_points"]) == Fraction(5, 2)
    g1 = p[p["table"] == "G1"].set_index("min_boards")
    # "20 brickor ... 12 gp och vid oavgjort 6 gp. Vid 24 brickor ... 16 gp och vid oavgjort 8 gp"
    assert (g1.loc[20, "won_points"], g1.loc[20, "drawn_points"], g1.loc[24, "won_points"], g1.loc[24, "drawn_points"]) \
        == ("12", "6", "16", "8")
    b4 = p[p["table"] == "B4"].iloc[0]
    assert (b4["min_boards"], b4["max_boards"]) == (12, "23")  # "Antalet brickor: 12-23"
    assert set(p[p["table"].isin(["B2", "B3", "E3", "E7"])]["min_boards"]) == {24}


def test_denominations(rules):
    p = rules["series_match_points"].groupby("table")["denomination"].unique().map(list).to_dict()
    assert {t: d for t, d in p.items()} == {**{t: ["bp"] for t in ("B2", "B3", "B4")},
                                            **{t: ["sp"] for t in ("E2", "E3", "E4", "E5", "E6", "E7")},
                                            "G1": ["gp"], "G3": ["gp"]}


def test_b2_bonus_table_as_printed():
    # "Plac u 1 2 3 4 Lag q 4 30 5 40 10 6 50 20 7 60 30 8 70 40 10 9 80 50 20 10 90 60 30 11 100 70 40 10 12 110 80 50 20"
    printed = {4: [30], 5: [40, 10], 6: [50, 20], 7: [60, 30], 8: [70, 40, 10], 9: [80, 50, 20], 10: [90, 60, 30],
               11: [100, 70, 40, 10], 12: [110, 80, 50, 20]}
    b = pd.read_csv(Path(__file__).parents[2] / "data/rules/sweden/table_b2_bonus.csv")
    assert {s: list(g.sort_values("place")["points"]) for s, g in b.groupby("size")} == printed


def test_seed_wording_present():
    if not SEED.exists():
        pytest.skip("shared seed not mounted")
    text = " ".join(SEED.read_text(encoding="utf-8").split())
    assert "Vunnen " + " ".join(WON) + " Eller större marginal Oavgjord " + " ".join(DRAWN) in text


def test_a_broken_margin_table_is_refused(tmp_path):
    bad = tmp_path / "series_margins.csv"
    bad.write_text("rule_version,scale_total,won_own_vp,drawn_own_vp,won_example,drawn_examples\n"
                   "se-2009,30,13,18,18-12,17-13\n", encoding="utf-8")
    with pytest.raises(SwedenRulesError):
        _read(bad, S.SeriesMargins)

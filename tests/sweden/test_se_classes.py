"""Master classes (seed page 2): every threshold of the table, the worked example, the exchanges.

Expected values are the seed's table, transcribed here by hand (not read from master_classes.csv),
and hand computations shown in the comments (1 mp = 1 gp = 10 sp = 100 bp; 20 bp = 1 sp and
20 sp = 1 gp where the table's stars allow; exchanged points count at their new value).
"""
from __future__ import annotations

import shutil

import pandas as pd
import pytest

from pipelines.sweden.classes import level_of, levels, meets, next_level, rates
from pipelines.sweden.rules import SwedenRulesError, load_rules
from conftest import ROOT


@pytest.fixture(scope="module")
def table():
    return levels(load_rules())


@pytest.fixture(scope="module")
def r():
    return rates(load_rules())


def _row(table, level):
    return table[table["level"] == level].iloc[0]


# The seed's table, page 2 (class, min mp, "varav sp/gp", the stars' exchange marks)
SEED_TABLE = [
    # level, min mp, min sp, min gp, bp->sp ("*" and "**"), sp->gp ("**")
    ("klöver", "2", "", "", "nej", "nej"),
    ("ruter", "15", "50", "2", "ja", "nej"),
    ("hjärter", "50", "200", "10", "ja", "ja"),
    ("hjärter-1", "100", "200", "10", "ja", "ja"),
    ("hjärter-2", "150", "200", "10", "ja", "ja"),
    ("hjärter-3", "200", "200", "10", "ja", "ja"),
    ("spader", "150", "", "75", "ja", "ja"),
    ("spader-1", "275", "", "75", "ja", "ja"),
    ("spader-2", "350", "", "75", "ja", "ja"),
    ("stormästare", "300", "", "150", "ja", "ja"),
    ("stormästare-1", "600", "", "150", "nej", "nej"),  # "*** Bp/sp får inte växlas till gp"
    ("stormästare-2", "1000", "", "300", "nej", "nej"),
    ("stormästare-3", "1500", "", "600", "nej", "nej"),
]
KLOVER_STARS = [("klöver-1", "500"), ("klöver-2", "1000"), ("klöver-3", "1500"), ("klöver-4", "2500"), ("klöver-5", "10000")]


def test_the_table_is_the_seeds(table):
    ladder = table[table["track"] == "klass"].sort_values("rank")
    got = list(ladder[["level", "min_mp", "min_sp", "min_gp", "bp_to_sp", "sp_to_gp"]].itertuples(index=False, name=None))
    assert got == SEED_TABLE
    stars = table[table["track"] == "klöverstjärna"].sort_values("rank")
    assert list(zip(stars["level"], stars["min_bp"])) == KLOVER_STARS
    assert (stars["min_mp"] == "").all()


# (level, holdings met exactly at the threshold, holdings 1 bp below); the comment is the hand sum
THRESHOLDS = [
    ("klöver", (200, 0, 0), (199, 0, 0)),  # 2 mp
    ("ruter", (100, 50, 9), (99, 50, 9)),  # 1 + 5 + 9 = 15 mp, 50 sp held
    ("ruter", (1300, 0, 2), (1299, 0, 2)),  # 13 + 2 = 15 mp, 2 gp held
    ("hjärter", (100, 200, 29), (99, 200, 29)),  # 1 + 20 + 29 = 50
    ("hjärter", (100, 0, 49), (99, 0, 49)),  # 1 + 49 = 50, 10 gp held
    ("hjärter-1", (100, 200, 79), (99, 200, 79)),  # 100
    ("hjärter-2", (100, 200, 129), (99, 200, 129)),  # 150
    ("hjärter-3", (100, 200, 179), (99, 200, 179)),  # 200
    ("spader", (100, 0, 149), (99, 0, 149)),  # 150, 75 gp held
    ("spader-1", (100, 0, 274), (99, 0, 274)),  # 275
    ("spader-2", (100, 0, 349), (99, 0, 349)),  # 350
    ("stormästare", (100, 0, 299), (99, 0, 299)),  # 300, 150 gp held
    ("stormästare-1", (100, 4490, 150), (99, 4490, 150)),  # 1 + 449 + 150 = 600
    ("stormästare-2", (100, 6990, 300), (99, 6990, 300)),  # 1 + 699 + 300 = 1000
    ("stormästare-3", (100, 8990, 600), (99, 8990, 600)),  # 1 + 899 + 600 = 1500
    ("klöver-1", (500, 0, 0), (499, 0, 0)),
    ("klöver-2", (1000, 0, 0), (999, 0, 0)),
    ("klöver-3", (1500, 0, 0), (1499, 0, 0)),
    ("klöver-4", (2500, 0, 0), (2499, 0, 0)),
    ("klöver-5", (10000, 0, 0), (9999, 0, 0)),
]


@pytest.mark.parametrize("level,at,below", THRESHOLDS, ids=[f"{t[0]}-{i}" for i, t in enumerate(THRESHOLDS)])
def test_every_threshold_at_and_just_below(table, r, level, at, below):
    row = _row(table, level)
    assert meets(*at, row, r)
    assert not meets(*below, row, r)


def test_minimum_in_gold_at_and_just_below(table, r):
    # plenty of mp, gold just below the minimum, nothing to exchange for the *** stars
    assert meets(0, 0, 600, _row(table, "stormästare-1"), r)  # 600 gp: 600 mp, 150 gp
    assert not meets(0, 20000, 149, _row(table, "stormästare-1"), r)  # 2,149 mp but 149 gp; sp may not become gp
    assert not meets(100000, 0, 299, _row(table, "stormästare-2"), r)  # 1,299 mp but 299 gp; bp may not become gp
    assert not meets(0, 20000, 599, _row(table, "stormästare-3"), r)
    assert meets(0, 9000, 600, _row(table, "stormästare-3"), r)  # 900 + 600 = 1500


def test_worked_example_bronze_only_reaches_ruter_at_2000_bp(table, r):
    # "Med enbart bp blir man rutermästare med 20 mp (2 000 bp, varav 1 000 räknas som 50 sp)":
    # 1,000 bp become 50 sp (5 mp), 1,000 bp stay (10 mp): 15 mp. With 1,999 bp: 9.99 + 5 = 14.99.
    assert level_of(2000, 0, 0, table, r)["klass"] == "ruter"
    assert level_of(1999, 0, 0, table, r)["klass"] == "klöver"
    assert level_of(1500, 0, 0, table, r)["klass"] == "klöver"  # 15 mp, but 50 sp would cost 5 of them
    assert level_of(199, 0, 0, table, r)["klass"] is None


def test_exchanges_by_hand(table, r):
    # Ruter "*": gold does not count as silver, and silver not as gold. 1 gp + bronze: 50 sp from
    # 1,000 bp costs 5 mp, so 1,900 bp + 1 gp = 20 mp -> 15 after; 1,899 bp -> 14.99.
    assert meets(1900, 0, 1, _row(table, "ruter"), r) and not meets(1899, 0, 1, _row(table, "ruter"), r)
    # Hjärter "**", bronze only: 200 sp from 4,000 bp cost 20 mp: 7,000 bp = 70 - 20 = 50 mp.
    # (The gold way, 10 gp from 200 sp from 4,000 bp, would cost 10 + 20 = 30 mp.)
    assert meets(7000, 0, 0, _row(table, "hjärter"), r) and not meets(6999, 0, 0, _row(table, "hjärter"), r)
    # Hjärter with 199 sp and 9 gp: one sp from 20 bp costs 0.1 mp: 2,120 bp -> 21.2 + 19.9 + 9 - 0.1 = 50.
    assert meets(2120, 199, 9, _row(table, "hjärter"), r) and not meets(2119, 199, 9, _row(table, "hjärter"), r)
    # Spader "**", silver only: 75 gp from 1,500 sp cost 75 mp: 2,250 sp = 225 - 75 = 150.
    assert meets(0, 2250, 0, _row(table, "spader"), r) and not meets(0, 2249, 0, _row(table, "spader"), r)
    # Spader with 74 gp: 1 gp from 20 sp costs 1 mp: 74 + 77 - 1 = 150 with 770 sp; 769 -> 149.9.
    assert meets(0, 770, 74, _row(table, "spader"), r) and not meets(0, 769, 74, _row(table, "spader"), r)
    # Spader, bronze only, through silver: 75 gp = 1,500 sp = 30,000 bp, costing 75 + 150 = 225 mp: 37,500 bp.
    assert meets(37500, 0, 0, _row(table, "spader"), r) and not meets(37499, 0, 0, _row(table, "spader"), r)
    # Stormästare itself is "**": 149 gp + 1,520 sp = 301 mp, 1 gp from 20 sp -> 300.
    assert meets(0, 1520, 149, _row(table, "stormästare"), r) and not meets(0, 1519, 149, _row(table, "stormästare"), r)
    # not enough bronze to exchange: 19 bp never make a silver point
    assert not meets(19, 49, 0, _row(table, "ruter"), r)


def test_level_is_the_highest_met_and_stars_are_their_own_track(table, r):
    # 37,499 bp: Spader missed (above) but Hjärter 3-star met: 374.99 - 20 = 354.99 >= 200
    assert level_of(37499, 0, 0, table, r) == {"klass": "hjärter-3", "klöverstjärna": "klöver-5"}
    # 150 mp with 75 gp is Spader, above Hjärter 2-star (also met)
    assert level_of(0, 750, 75, table, r)["klass"] == "spader"
    assert level_of(2500, 0, 0, table, r) == {"klass": "ruter", "klöverstjärna": "klöver-4"}
    assert level_of(0, 0, 0, table, r) == {"klass": None, "klöverstjärna": None}
    assert next_level(0, 0, 0, table, r) == "klöver"
    assert next_level(2000, 0, 0, table, r) == "hjärter"
    assert next_level(100, 0, 1499, table, r) is None


def test_a_broken_class_table_is_refused(tmp_path):
    d = tmp_path / "sweden"
    shutil.copytree(ROOT / "data" / "rules" / "sweden", d)
    df = pd.read_csv(d / "master_classes.csv", dtype=str, keep_default_na=False)
    df.loc[df["level"] == "ruter", "rank"] = "1"  # two levels of rank 1
    df.to_csv(d / "master_classes.csv", index=False)
    with pytest.raises(SwedenRulesError, match="master_classes.csv"):
        load_rules(d)

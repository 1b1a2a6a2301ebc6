"""Every printed value of every table of the seed (002_b38bcd2d61619209.txt) is in data/rules/sweden,
and the rows the seed does not print follow its principle (RULES.md §3).

The fixture seed_tables.json holds the seed's flattened table text verbatim (each table between its
header and its footer); the seed itself is compared with it when the shared copy is present.
"""
from __future__ import annotations

import json
import math
import shutil
from fractions import Fraction
from pathlib import Path

import pandas as pd
import pytest

from pipelines.sweden import scales as S
from pipelines.sweden.rules import SwedenRulesError, load_rules

HERE = Path(__file__).parent
ROOT = HERE.parents[1]
SEED = Path("/work/shared/seeds/002_b38bcd2d61619209.txt")
SEGMENTS = json.loads((HERE / "fixtures" / "seed_tables.json").read_text(encoding="utf-8"))
FILES = {"A1": "table_a1", "A2": "table_a2", "B1": "table_b1", "B2bonus": "table_b2_bonus", "C": "table_c",
         "D": "table_d", "E1": "table_e1", "F": "table_f"}


@pytest.fixture(scope="module")
def rules():
    return load_rules()


def test_fixture_is_the_seed_text():
    if not SEED.exists():
        pytest.skip("shared seed not mounted")
    text = " ".join(SEED.read_text(encoding="utf-8").split())
    for name, segment in SEGMENTS.items():
        assert " ".join(segment.split()) in text, name


@pytest.mark.parametrize("table", list(FILES))
def test_every_printed_number_is_in_the_data_in_order(table):
    """Row by row, 'size p1 p2 ...' written out again gives exactly the seed's token stream: no
    value missing, added or changed; only the row breaks are our reading."""
    df = pd.read_csv(ROOT / "data" / "rules" / "sweden" / f"{FILES[table]}.csv")
    tokens = []
    for size, row in df.sort_values(["size", "place"]).groupby("size", sort=True):
        tokens += [int(size)] + row["points"].astype(int).tolist()
    assert tokens == [int(t) for t in SEGMENTS[table].split()]


def test_silver_tables_mark_the_red_numbers_after_the_silver(rules):
    d = rules.printed_rows("D")
    assert d[12] == [("sp", 12), ("sp", 8), ("sp", 6), ("bp", 16)]
    assert [v for den, v in d[100] if den == "bp"] == [40, 36, 32, 30, 28, 26, 22, 16, 12] + [8] * 9
    f = rules.printed_rows("F")
    assert f[24] == [("sp", 18), ("sp", 12), ("sp", 8), ("sp", 6), ("sp", 4), ("sp", 3), ("bp", 8), ("bp", 8)]


# --------------------------------------------------------------------------- principle, by hand


def test_a1_rows_follow_the_chain(rules):
    # 25 pairs: 50, 2/3 → 34 (33.3), 23 (22.7), 16 (15.3), 11 (10.7), 8 (7.3), 6 (5.3), 4 (4), 4 (min)
    assert S.bronze_row(rules, "A", 25) == [50, 34, 23, 16, 11, 8, 6, 4, 4]
    for n in range(4, 33):
        assert S.bronze_row(rules, "A", n)[0] == 2 * n
        assert len(S.bronze_row(rules, "A", n)) == math.ceil(n / 3)


def test_a2_row_50_by_the_half_size_row(rules):
    # half row A1 25: 50 34 23 16 11 8 6 4 4 → odd places; even places the mean, rounded up
    # p16 = ⌈(6+4)/2⌉ = 5 but the seed prints 4 (an irregularity; the printed value stands)
    principle, _ = S.bronze_principle(rules, "A", 50)
    assert principle == [100, 67, 50, 42, 34, 29, 23, 20, 16, 14, 11, 10, 8, 7, 6, 5, 4]
    assert S.bronze_row(rules, "A", 50) == [100, 67, 50, 42, 34, 29, 23, 20, 16, 14, 11, 10, 8, 7, 6, 4, 4]


def test_odd_sizes_take_the_mean_of_their_neighbours(rules):
    a32, a34 = S.bronze_row(rules, "A", 32), S.bronze_row(rules, "A", 34)
    row = S.bronze_row(rules, "A", 33)
    assert row[:2] == [66, 44]  # winner 2 × 33, 2nd ⌈2/3 × 66⌉
    assert row[2:] == [max(4, math.ceil(Fraction(a + b, 2))) for a, b in zip(a32[2:11], a34[2:11])]
    assert len(row) == 11


def test_above_100_pairs_by_the_a2_principle(rules):
    row = S.bronze_row(rules, "A", 200)
    assert row[0] == 400  # "Vid 200 par får ettan 400 bp"
    assert row[2] == 200 and row[4] == 134  # 3rd = winner of 100, 5th = 2nd of 100
    assert len(row) == 67 and min(row) >= 4


def test_b1_chain_and_above_32(rules):
    assert S.bronze_row(rules, "B1", 25) == [75, 50, 34, 23, 16, 11, 8, 6, 4]
    assert S.bronze_row(rules, "B1", 40) == [math.ceil(Fraction(3, 2) * v) for v in S.bronze_row(rules, "A", 40)]


def test_c_unprinted_small_sizes_by_the_chain(rules):
    assert S.bronze_row(rules, "C", 11) == [17, 12, 8, 6]
    assert S.bronze_row(rules, "C", 14) == [21, 14, 10, 7, 5]


def test_d_small_rows_red_is_twice_a1(rules):
    for n in range(12, 33):
        row = S.silver_entry(rules, "D", n)
        s = min(16, math.ceil(n / 4))
        assert len(row.silver) == s and row.silver[0] == n
        assert list(row.bronze) == [2 * v for v in S.bronze_row(rules, "A", n)[s:math.ceil(n / 3)]]


def test_d13_counting_rule_wins(rules):
    # printed 13 9 6 | 16: only 3 silver places, 4 places in all; the rules: ⌈13/4⌉ = 4 silver,
    # ⌈13/3⌉ = 5 places. Completed by the chain (⌈2/3 × 6⌉ = 4) and 2 × A1 13's 5th place (6) = 12.
    row = S.silver_entry(rules, "D", 13)
    assert row.silver == (13, 9, 6, 4) and row.bronze == (12,)


def test_d_gap_interpolated(rules):
    # 95 pairs between the printed rows 90 and 100: place 3 = ⌈45 + (50 − 45) × 5/10⌉ = 48
    row = S.silver_entry(rules, "D", 95)
    assert row.silver[:3] == (95, 64, 48) and len(row.silver) == 16


def test_e1_row_60_breaks_the_winner_formula(rules):
    # printed winner 72 for 60 teams; the formula says ⌈1.5 × 60⌉ = 90: the row is the principle's
    row = S.silver_entry(rules, "E1", 60)
    assert row.silver[0] == 90 and len(row.silver) == 15


def test_f_gap_for_the_individual_example(rules):
    # not printed: 22 players; winner ⌈3/4 × 22⌉ = 17, ⌈22/4⌉ = 6 silver places
    row = S.silver_entry(rules, "F", 22)
    assert row.silver[0] == 17 and len(row.silver) == 6


@pytest.mark.parametrize("scale", ["A", "B1", "C"])
def test_counting_rules_hold_for_every_size(rules, scale):
    for n in range(4, 241):
        row = S.bronze_row(rules, scale, n)
        assert len(row) == math.ceil(n / 3), (scale, n)
        assert min(row) >= 4, (scale, n)


@pytest.mark.parametrize("scale", ["D", "E1", "F"])
def test_silver_counting_rules_hold_for_every_size(rules, scale):
    factor = {"D": Fraction(1), "E1": Fraction(3, 2), "F": Fraction(3, 4)}[scale]
    for n in range(8, 121):
        row = S.silver_entry(rules, scale, n)
        assert row.silver[0] == math.ceil(factor * n), (scale, n)
        assert len(row.silver) == min(16, math.ceil(n / 4)), (scale, n)
        assert len(row.silver) + len(row.bronze) == max(math.ceil(n / 3), len(row.silver)), (scale, n)


def test_irregularities_are_listed_in_the_docs(rules):
    docs = (ROOT / "docs" / "sweden.md").read_text(encoding="utf-8")
    start = docs.index(S.IRREGULARITIES_BEGIN) + len(S.IRREGULARITIES_BEGIN)
    end = docs.index(S.IRREGULARITIES_END)
    assert docs[start:end].strip() == S.irregularities_markdown(rules)


def test_known_irregularities_are_among_them(rules):
    found = {(i.table, i.size, i.place) for i in S.irregularities(rules)}
    assert ("A2", 50, 16) in found  # printed 4, principle 5
    assert ("D", 82, 3) in found  # printed 46, principle 41 (the winner of 41)
    assert ("D", 13, 4) in found
    assert ("E1", 60, 1) in found
    assert ("A1", 25, 9) not in found  # A1 follows its chain


def test_a_broken_table_is_refused(tmp_path):
    d = tmp_path / "sweden"
    shutil.copytree(ROOT / "data" / "rules" / "sweden", d)
    df = pd.read_csv(d / "table_a1.csv")
    df = df[~((df["size"] == 10) & (df["place"] == 2))]
    df.to_csv(d / "table_a1.csv", index=False)
    with pytest.raises(SwedenRulesError, match="table_a1.csv"):
        load_rules(d)


def test_rule_version(rules):
    assert rules.for_date("2009-04-01") == "se-2009"
    with pytest.raises(SwedenRulesError):
        rules.for_date("2009-03-31")

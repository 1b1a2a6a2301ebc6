"""Law 77 contract scores: the seed's examples, hand computations, and a full corpus against endplay."""

import itertools

import numpy as np
import pandas as pd
import pytest

from pipelines.bridge.scoring import (
    board_rotation,
    contract_score,
    parse_contracts,
    parse_tricks,
    score_ns,
)


def one(level, strain, doubled, vul, tricks):
    return int(contract_score([level], [strain], [doubled], [vul], [tricks])[0])


# Every contract example the seed (004) prints, declarer's point of view.
SEED_EXAMPLES = [
    # (level, strain, doubled, declarer vulnerable, tricks, seed value, where in the seed)
    (3, "N", 0, False, 9, 400, "table §1: 3NT= non-vul 100+300"),
    (4, "H", 0, True, 11, 650, "table §1: 4H+1 vul 120+500+30"),
    (2, "S", 1, False, 8, 470, "table §1: 2SX= non-vul 120+300+50"),
    (2, "S", 2, True, 9, 1240, "table §1: 2SXX+1 vul 240+500+100+400"),
    (2, "S", 0, False, 10, 170, "§1 text: 2S with 10 tricks non-vul 60+60+50"),
    (4, "S", 0, False, 10, 420, "§1 text: 4S game non-vul = 420"),
    (4, "H", 1, False, 8, -300, "§2: 4HX non-vul 8 tricks, down 2"),
    (4, "H", 1, True, 8, -500, "§2: same, vulnerable"),
    (4, "H", 2, True, 8, -1000, "§2: vulnerable redoubled down 2"),
    (4, "H", 0, True, 10, 620, "§3: vul 4H made"),
    (2, "H", 0, True, 10, 170, "§3: vul 2H with 10 tricks"),
    (3, "N", 0, False, 10, 430, "§3/§4: 3NT+1 non-vul"),
    (4, "S", 0, False, 9, -50, "§4: 4S-1 non-vul"),
]


@pytest.mark.parametrize("level,strain,dbl,vul,tricks,expected,where", SEED_EXAMPLES)
def test_seed_contract_examples(level, strain, dbl, vul, tricks, expected, where):
    assert one(level, strain, dbl, vul, tricks) == expected, where


@pytest.mark.parametrize("down,nv,v", [(1, 100, 200), (2, 300, 500), (3, 500, 800), (4, 800, 1100)])
def test_seed_doubled_undertrick_table(down, nv, v):
    # Seed §2 table of cumulative doubled penalties; redoubled is twice the table.
    assert one(4, "S", 1, False, 10 - down) == -nv
    assert one(4, "S", 1, True, 10 - down) == -v
    assert one(4, "S", 2, False, 10 - down) == -2 * nv
    assert one(4, "S", 2, True, 10 - down) == -2 * v


def test_seed_undoubled_undertricks_and_second_example():
    # §2: undoubled 50 per trick non-vul, 100 vul; §3 board 乙: non-vul down 2 = -100, down 1 = -50
    assert one(4, "S", 0, False, 8) == -100
    assert one(4, "S", 0, False, 9) == -50
    assert one(4, "S", 0, True, 7) == -300


def test_hand_computed_slams_and_passout():
    # 6NT vul made: 190 + 500 + 750 = 1440 ; 7C non-vul +0: 140 + 300 + 1000 = 1440
    assert one(6, "N", 0, True, 12) == 1440
    assert one(7, "C", 0, False, 13) == 1440
    # 7NTXX vul: (220*4=880) + 500 + 1500 + 100 = 2980
    assert one(7, "N", 2, True, 13) == 2980
    # 1NTXX non-vul made 7 (40*4=160 -> game) + 300 + 100 = 560 ; +1 trick XX non-vul 200 -> 760
    assert one(1, "N", 2, False, 7) == 560
    assert one(1, "N", 2, False, 8) == 760
    # 7NTXX vul down 13 (0 tricks): 2*(200 + 300*12) = 7600
    assert one(7, "N", 2, True, 0) == -7600
    assert one(0, "", 0, False, 0) == 0


def test_score_ns_sign_follows_declarer():
    s = score_ns([4, 4, 3], ["H", "H", "N"], [0, 0, 0], ["N", "E", "S"], ["NS", "NS", "EW"], [10, 10, 9])
    # N declares 4H vul (NS vul) = +620 ; E declares 4H, EW not vul = -420 for NS; S 3NT non-vul = 400
    assert s.tolist() == [620, -420, 400]


def _endplay_score(level, strain, dbl, declarer, vul_str, tricks):
    from endplay.types import Contract, Denom, Penalty, Player, Vul

    denom = {"C": Denom.clubs, "D": Denom.diamonds, "H": Denom.hearts, "S": Denom.spades, "N": Denom.nt}[strain]
    pen = {0: Penalty.passed, 1: Penalty.doubled, 2: Penalty.redoubled}[dbl]
    player = {"N": Player.north, "E": Player.east, "S": Player.south, "W": Player.west}[declarer]
    vul = {"None": Vul.none, "NS": Vul.ns, "EW": Vul.ew, "All": Vul.both}[vul_str]
    c = Contract(level=level, denom=denom, declarer=player, penalty=pen, result=tricks - level - 6)
    s = c.score(vul)
    return s if declarer in "NS" else -s


def test_full_corpus_against_endplay():
    """Every level x strain x double x declarer x vulnerability x tricks (7*5*3*4*4*14 = 23,520 lines)."""
    rows = list(itertools.product(range(1, 8), "CDHSN", (0, 1, 2), "NESW", ("None", "NS", "EW", "All"), range(14)))
    df = pd.DataFrame(rows, columns=["level", "strain", "doubled", "declarer", "vul", "tricks"])
    ours = score_ns(df.level, df.strain, df.doubled, df.declarer, df.vul, df.tricks)
    theirs = np.array([_endplay_score(*r) for r in rows])
    bad = df[ours != theirs]
    assert bad.empty, bad.head()


def test_parse_contract_spellings():
    s = pd.Series(["4S", "4 S", "4SX", "3NT", "3 NT XX", "PASS", "4♥x", "3N", "2s*", "8S", "4Z", "", "P"])
    p = parse_contracts(s)
    assert p.contract.tolist()[:10] == ["4S", "4S", "4SX", "3NTXX"[:3], "3NTXX", "PASS", "4HX", "3NT", "2SX", "8S"]
    assert p.level.tolist() == [4, 4, 4, 3, 3, 0, 4, 3, 2, -1, -1, -1, 0]
    assert p.strain.tolist()[:9] == ["S", "S", "S", "N", "N", "", "H", "N", "S"]
    assert p.doubled.tolist()[:9] == [0, 0, 1, 0, 2, 0, 1, 0, 1]
    assert p.contract_ok.tolist() == [True] * 9 + [False, False, False, True]


def test_parse_tricks_count_and_relative():
    res = pd.Series(["10", "=", "+2", "-1", "x", "13", "-3"])
    lvl = pd.Series([4, 4, 2, 3, 4, 7, 1])
    t = parse_tricks(res, lvl)
    assert t.tolist()[:4] == [10, 10, 10, 8]
    assert t.isna().tolist() == [False, False, False, False, True, False, False]
    assert t.tolist()[5:] == [13, 4]


def test_board_rotation_standard_16():
    # Values also printed in endplay's tests/pbn/example1.pbn (boards 1-14) and the usual board labels.
    r = board_rotation(pd.Series([1, 2, 3, 4, 5, 8, 12, 13, 16, 17, 32]))
    assert r.vulnerable.tolist() == ["None", "NS", "EW", "All", "NS", "None", "NS", "All", "EW", "None", "EW"]
    assert r.dealer.tolist() == ["N", "E", "S", "W", "N", "W", "W", "N", "W", "N", "W"]

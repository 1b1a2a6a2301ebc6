"""IMPs (Law 78B), the seed's team example, cross-IMPs, Butler and VP, checked by hand."""

import math
from decimal import ROUND_HALF_UP, Decimal

import pandas as pd
import pytest

from pipelines.bridge.imps import (
    adjusted_imps,
    butler_boards,
    cross_imp_boards,
    imps,
    team_boards,
    team_matches,
    vp_for_margin,
    wbf_continuous_vp,
)

# Seed §3 excerpt of the Law 78B table (both ends of every band it prints)
SEED_BANDS = [(0, 10, 0), (20, 40, 1), (50, 80, 2), (90, 120, 3), (130, 160, 4), (170, 210, 5),
              (220, 260, 6), (270, 310, 7), (320, 360, 8), (370, 420, 9), (430, 490, 10), (500, 590, 11)]
# The rest of Law 78B (WBF Laws 2017), not printed in the seed
LAW_BANDS = [(600, 740, 12), (750, 890, 13), (900, 1090, 14), (1100, 1290, 15), (1300, 1490, 16),
             (1500, 1740, 17), (1750, 1990, 18), (2000, 2240, 19), (2250, 2490, 20), (2500, 2990, 21),
             (3000, 3490, 22), (3500, 3990, 23), (4000, 7600, 24)]


@pytest.mark.parametrize("lo,hi,expected", SEED_BANDS + LAW_BANDS)
def test_imp_table_bands(lo, hi, expected):
    assert imps([lo, hi, -lo, -hi]).tolist() == [expected, expected, -expected, -expected]


def test_seed_imp_examples():
    # "+450 -> +10", "-100 -> -3", "+10 -> 0", "+20 -> 1", "-50 -> -2", "+30 -> +1", 430 vs 420: 0
    assert imps([450, -100, 10, 20, -50, 30, 430 - 420]).tolist() == [10, -3, 0, 1, -2, 1, 0]


def seed_team_lines():
    # Team A = "1", team B = "2". Table 1: A sits NS; table 2: B sits NS. Scores are NS scores.
    rows = [
        # board 甲: A NS +620 ; B NS +170 (so A's EW is -170)
        (1, "1", "2", 620), (1, "2", "1", 170),
        # board 乙: A NS -100 (non-vul down 2) ; B NS down 1 non-vul -50 (A's EW +50)
        (2, "1", "2", -100), (2, "2", "1", -50),
        # board 丙: A NS 3NT+1 +430 ; B NS 3NT= +400 (A's EW -400)
        (3, "1", "2", 430), (3, "2", "1", 400),
    ]
    return pd.DataFrame([{"event_id": "T", "session": 1, "round": 1, "board": b, "ns_pair": ns, "ew_pair": ew,
                          "score_ns": s} for b, ns, ew, s in rows]).astype({"score_ns": "Int64"})


def test_seed_team_example_per_board_then_summed():
    boards, problems = team_boards(seed_team_lines())
    assert problems.empty
    a_rows = boards[boards.ns_pair == "1"].sort_values("board")
    assert a_rows["imp_ns"].tolist() == [10, -2, 1]           # 甲 +10, 乙 -2, 丙 +1
    m = team_matches(boards)
    a = m[m.team == "1"].iloc[0]
    b = m[m.team == "2"].iloc[0]
    assert (a.imps_for, a.imps_against, a.imp_margin) == (11, 2, 9)   # 10 - 2 + 1 = +9
    assert (b.imps_for, b.imps_against, b.imp_margin) == (2, 11, -9)
    assert a.imp_margin != imps([450 - 50 + 30])[0]                   # converting the total (430 -> 10) is wrong
    assert a.vp + b.vp == Decimal("20.00") and a.vp > b.vp


def test_team_board_played_at_one_table_only_is_reported():
    lines = seed_team_lines().iloc[:5]
    boards, problems = team_boards(lines)
    assert len(problems) == 1 and "one room only" in problems.iloc[0]["reason"]
    assert team_matches(boards).query("team == '1'").iloc[0].imp_margin == 8  # boards 甲 and 乙 only


def pairs_board(scores, board_no=1, adj=None):
    n = len(scores)
    df = pd.DataFrame({"event_id": "E", "session": 1, "section": "A", "board": board_no,
                       "ns_pair": [str(i) for i in range(1, n + 1)], "ew_pair": [str(i) for i in range(1, n + 1)],
                       "score_ns": pd.array(scores, dtype="Int64"),
                       "adj_ns_pct": pd.array([None] * n, dtype="Int64"), "adj_ew_pct": pd.array([None] * n, dtype="Int64")})
    for i, (ns, ew) in (adj or {}).items():
        df.loc[i, ["score_ns", "adj_ns_pct", "adj_ew_pct"]] = [pd.NA, ns, ew]
    return df


def test_cross_imps_hand_computed():
    # 430: vs 420 0, vs 400 +1, vs -50 +10 = 11 ; 420: 0, +1, +10 = 11 ; 400: -1, -1, +10 = 8 ;
    # -50: -10 x 3 = -30. Averages over 3 comparisons: 11/3, 11/3, 8/3, -10.
    r = cross_imp_boards(pairs_board([430, 420, 400, -50]))
    assert r["ximp_ns_sum"].tolist() == [11, 11, 8, -30]
    assert r["comparisons"].tolist() == [3, 3, 3, 3]
    assert r["imp_den"].iloc[0] == 3 and r["imp_ns_x"].tolist() == [11, 11, 8, -30]
    assert r["imp_ew_x"].tolist() == [-11, -11, -8, 30]
    assert abs(r["imp_ns"].iloc[0] - 11 / 3) < 1e-12


def test_butler_hand_computed():
    # 5 results: drop 620 (top) and -50 (bottom); mean(430, 420, 400) = 416.67 -> datum 420.
    r = butler_boards(pairs_board([430, 420, 400, -50, 620]))
    assert r["butler_datum"].tolist() == [420] * 5
    assert r["imp_ns"].tolist() == [0, 0, -1, -10, 5]
    assert r["imp_ew"].tolist() == [0, 0, 1, 10, -5]
    # fewer than 5 results: plain mean; 415 rounds away from zero to 420, -415 to -420
    assert butler_boards(pairs_board([410, 420]))["butler_datum"].tolist() == [420, 420]
    assert butler_boards(pairs_board([-410, -420]))["butler_datum"].tolist() == [-420, -420]
    # 414 would go down: mean(400, 420, 422)?  scores are multiples of 10, so check 413.33 -> 410
    assert butler_boards(pairs_board([400, 420, 420]))["butler_datum"].tolist() == [410] * 3


def test_adjusted_imps_law_12c2():
    assert adjusted_imps([60, 50, 40]).tolist() == [3, 0, -3]
    # other percentages pro rata, 3 IMPs per 10 %, half away from zero to whole IMPs: 55 % is 1.5
    # → +2 and its 45 % −2 (equal and opposite; a floor gave +1 / −2), 65/35 % 4.5 → ±5, 70/30 % ±6
    assert adjusted_imps([55, 45, 65, 35, 70, 30]).tolist() == [2, -2, 5, -5, 6, -6]
    r = butler_boards(pairs_board([430, 420, 400, 0], adj={3: (60, 40)}))
    assert r["imp_ns"].tolist()[3] == 3 and r["imp_ew"].tolist()[3] == -3


def _vp_float(m, n):
    tau = (math.sqrt(5) - 1) / 2
    b = 15 * math.sqrt(n)
    v = 20.0 if m >= b else 10 + 10 * (1 - tau ** (3 * m / b)) / (1 - tau ** 3)
    return Decimal(repr(v)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def test_wbf_continuous_vp_against_float_formula_and_hand_values():
    for n in (8, 10, 12, 14, 16, 20, 24, 28, 32):
        for m in range(0, 100):
            assert wbf_continuous_vp(m, n) == _vp_float(m, n), (m, n)
    # hand: 0 IMPs -> 10.00 ; blitz at 15*sqrt(16) = 60 IMPs -> 20.00 ; 59 IMPs < 20
    assert wbf_continuous_vp(0, 16) == Decimal("10.00")
    assert wbf_continuous_vp(60, 16) == Decimal("20.00") and wbf_continuous_vp(59, 16) < Decimal("20.00")
    # 16 boards, 1 IMP: tau^(3/60) = 0.9762265 ; (1 - 0.9762265)/(1 - 0.2360680) = 0.0311198 -> 10.31
    assert wbf_continuous_vp(1, 16) == Decimal("10.31")
    w, l = vp_for_margin([9, 0], [16, 16])
    assert [a + b for a, b in zip(w, l)] == [Decimal("20.00")] * 2
    # monotone non-decreasing in the margin
    vals = [wbf_continuous_vp(m, 24) for m in range(0, 80)]
    assert all(a <= b for a, b in zip(vals, vals[1:]))


def test_unknown_vp_scale_is_an_error():
    with pytest.raises(KeyError):
        vp_for_margin([3], [16], "NO_SUCH_SCALE")

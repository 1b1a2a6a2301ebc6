"""Matchpoints, Neuberg, adjusted scores, percentages and ranks, checked against the seed and by hand."""

from decimal import Decimal

import pandas as pd

from pipelines.bridge.exact import round_half_up_ratio
from pipelines.bridge.matchpoints import matchpoint_boards, session_standings_mp


def board(scores, board_no=1, pairs=None, adj=None):
    """Lines of one board: NS pairs 1..n vs EW pairs 1..n (a Mitchell-like layout)."""
    n = len(scores)
    pairs = pairs or list(range(1, n + 1))
    df = pd.DataFrame({
        "event_id": "E", "session": 1, "section": "A", "board": board_no,
        "ns_pair": [str(p) for p in pairs], "ew_pair": [str(p) for p in pairs],
        "score_ns": pd.array(scores, dtype="Int64"),
        "adj_ns_pct": pd.array([None] * n, dtype="Int64"), "adj_ew_pct": pd.array([None] * n, dtype="Int64"),
    })
    for i, (ns, ew) in (adj or {}).items():
        df.loc[i, "score_ns"] = pd.NA
        df.loc[i, "adj_ns_pct"] = ns
        df.loc[i, "adj_ew_pct"] = ew
    return df


def test_seed_five_table_example():
    # Seed §4: A 3NT+1 +430, B 4S= +420, C 4S= +420, D 3NT= +400, E 4S-1 -50 -> 8, 5, 5, 2, 0 of 8.
    r = matchpoint_boards(board([430, 420, 420, 400, -50]))
    assert r["mp_ns"].tolist() == [8, 5, 5, 2, 0]
    assert r["mp_top"].tolist() == [8] * 5
    # "同桌東西MP在本例為8減南北MP, 例如B桌東西3 MP"
    assert r["mp_ew"].tolist() == [0, 3, 3, 6, 8]
    # ACBL 1/0.5/0: every number halved, same percentage
    h = matchpoint_boards(board([430, 420, 420, 400, -50]), acbl_scale=True)
    assert h["mp_ns"].tolist() == [4, 2.5, 2.5, 1, 0]
    assert h["mp_top"].tolist() == [4] * 5


def test_seed_percentages_one_board_and_two_boards():
    b1 = board([430, 420, 420, 400, -50], board_no=1)
    # Board 2: pair 2 scores +500, beating +100, +450 and +50 (3 x 2 = 6 MP)
    b2 = board([600, 500, 100, 450, 50], board_no=2)
    st1 = session_standings_mp(matchpoint_boards(b1))
    b_row = st1[(st1.direction == "NS") & (st1.entrant == "2")].iloc[0]
    assert b_row.percentage == Decimal("62.50")  # 5 / 8
    st = session_standings_mp(matchpoint_boards(pd.concat([b1, b2], ignore_index=True)))
    b_row = st[(st.direction == "NS") & (st.entrant == "2")].iloc[0]
    assert (b_row.score, b_row.max_score) == (Decimal("11.00"), Decimal("16.00"))  # 5 + 6 of 8 + 8


def test_seed_percentage_seven_of_sixteen():
    b1 = board([430, 420, 420, 400, -50], board_no=1)
    b2 = board([600, 100, 500, 450, 50], board_no=2)  # pair 2: +100 beats only +50 -> 2 MP
    st = session_standings_mp(matchpoint_boards(pd.concat([b1, b2], ignore_index=True)))
    b_row = st[(st.direction == "NS") & (st.entrant == "2")].iloc[0]
    assert (b_row.score, b_row.max_score, b_row.percentage) == (Decimal("7.00"), Decimal("16.00"), Decimal("43.75"))


def test_neuberg_hand_computed():
    # Most-played board has 5 results; this board only 4: raw (top 6) 6, 4, 2, 0.
    # Neuberg (mp+1)*5/4 - 1: 7.75, 5.25, 2.75, 0.25 ; EW: 0.25, 2.75, 5.25, 7.75 ; NS+EW = 8.
    full = board([430, 420, 420, 400, -50], board_no=1)
    short = board([430, 420, 400, -50], board_no=2)
    r = matchpoint_boards(pd.concat([full, short], ignore_index=True))
    s = r[r.board == 2]
    assert s["mp_ns"].tolist() == [7.75, 5.25, 2.75, 0.25]
    assert s["mp_ew"].tolist() == [0.25, 2.75, 5.25, 7.75]
    assert s["neuberg"].all() and not r[r.board == 1]["neuberg"].any()
    # Exact units: mp_den = lcm(5, 4, 100) = 100 ; 7.75 -> 775 units
    assert s["mp_den"].iloc[0] == 100 and s["mp_ns_x"].tolist() == [775, 525, 275, 25]


def test_neuberg_single_result_is_average_and_ties():
    full = board([100, 200, 300], board_no=1)
    one = board([50], board_no=2)
    r = matchpoint_boards(pd.concat([full, one], ignore_index=True))
    # n=1, N=3: raw 0 -> (0+1)*3/1 - 1 = 2 = half of the top 4
    assert r[r.board == 2]["mp_ns"].tolist() == [2]
    # Ties with Neuberg: N=3, n=2, both 100: raw 1 each -> (1+1)*3/2 - 1 = 2
    tie = board([100, 100], board_no=3)
    r = matchpoint_boards(pd.concat([full, tie], ignore_index=True))
    assert r[r.board == 3]["mp_ns"].tolist() == [2, 2]


def test_artificial_adjusted_scores():
    # 5 lines, one AVE+/AVE- (60/40): the 4 real ones are Neuberg-factored from 4 to 5 results.
    b = board([430, 420, 400, -50, 0], adj={4: (60, 40)})
    r = matchpoint_boards(b)
    assert r["mp_ns"].tolist() == [7.75, 5.25, 2.75, 0.25, 4.8]
    assert r["mp_ew"].tolist() == [0.25, 2.75, 5.25, 7.75, 3.2]
    # Both sides average plus (60/60), average (50/50)
    b = board([430, 420, 400, 0, 0], adj={3: (60, 60), 4: (50, 50)})
    r = matchpoint_boards(b)
    # 3 real results Neuberg to 5: raw 4,2,0 -> (mp+1)*5/3-1 = 22/3, 4, 2/3
    assert r["mp_ns"].iloc[1] == 4
    assert abs(r["mp_ns"].iloc[0] - 22 / 3) < 1e-12
    assert r["mp_ns"].tolist()[3:] == [4.8, 4.0] and r["mp_ew"].tolist()[3:] == [4.8, 4.0]


def test_round_half_up_exact():
    # 43.125 -> 43.13 (half up), 0.225 -> 0.23, 1.045 -> 1.05 ; negatives away from zero
    assert round_half_up_ratio([69 * 100], [160], 2).tolist() == [4313]
    assert round_half_up_ratio([225, 1045, -1045], [1000, 1000, 1000], 2).tolist() == [23, 105, -105]


def test_percentage_half_up_from_unrounded_totals():
    # 20 boards of top 8 (5 results) : a pair totalling 69 MP has 69/160 = 43.125 % -> 43.13
    frames = []
    ns_mp = [8] * 5 + [4] * 7 + [1] * 1 + [0] * 7  # 40 + 28 + 1 = 69
    assert sum(ns_mp) == 69
    for b, mp in enumerate(ns_mp, start=1):
        # Pair 1 scores so that it beats mp/2 results (mp even) or ties one (mp odd)
        others = [0, 10, 20, 30]
        if mp % 2 == 0:
            s = [-5 + 10 * (mp // 2)] if mp else [-100]
        else:
            s = [10 * (mp // 2)]  # ties others[mp//2]
        frames.append(board(s + others, board_no=b))
    st = session_standings_mp(matchpoint_boards(pd.concat(frames, ignore_index=True)))
    p1 = st[(st.direction == "NS") & (st.entrant == "1")].iloc[0]
    assert p1.score == Decimal("69.00") and p1.max_score == Decimal("160.00")
    assert p1.percentage == Decimal("43.13")


def test_ranks_with_ties_two_winner_and_one_winner():
    # One board, 4 tables: NS scores 100, 100, 50, -50 -> NS 5,5,2,0 ; EW 1,1,4,6
    b = board([100, 100, 50, -50])
    st = session_standings_mp(matchpoint_boards(b), winners=2)
    ns = st[st.direction == "NS"].set_index("entrant")
    assert ns.loc[["1", "2", "3", "4"], "rank_label"].tolist() == ["1=", "1=", "3", "4"]
    assert ns.loc[["1", "2", "3", "4"], "rank"].tolist() == [1, 1, 3, 4]
    ew = st[st.direction == "EW"].set_index("entrant")
    assert ew.loc[["4", "3", "1", "2"], "rank_label"].tolist() == ["1", "2", "3=", "3="]
    # One-winner (Howell numbering): 8 distinct pairs, ranked together
    h = board([100, 100, 50, -50])
    h["ew_pair"] = ["5", "6", "7", "8"]
    st = session_standings_mp(matchpoint_boards(h), winners=1, pair_numbering="unique").set_index("entrant")
    # scores: 1:5 2:5 3:2 4:0 5:1 6:1 7:4 8:6 -> 8 first, then 1= 2=, 7, 3, 5= 6=, 4
    assert st.loc["8", "rank_label"] == "1"
    assert st.loc["1", "rank_label"] == "2=" and st.loc["2", "rank_label"] == "2="
    assert st.loc["7", "rank_label"] == "4"
    assert st.loc["3", "rank_label"] == "5"
    assert st.loc["5", "rank_label"] == "6=" and st.loc["4", "rank"] == 8

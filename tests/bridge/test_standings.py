"""compute_standings end to end on hand-made travellers, the rule tables' schemas, and the
frames' pandera contracts."""

from decimal import Decimal

import pytest

from pipelines.bridge.parse_csv import parse_csv
from pipelines.bridge.rules import load_board_rotation, load_imp_table, load_vp_scales
from pipelines.bridge.standings import compute_standings
from schemas.bridge import BoardResults, BoardRotation, ImpTable, SessionStandings, VpScales

HEADER = "event_date,event_name,movement,scoring,board,ns_pair,ew_pair,contract,declarer,result,score_ns,adjusted,ns_ids,ew_ids\n"


def csv_session(rows: list[str], movement="mitchell", scoring="MP") -> bytes:
    body = "".join(f"2026-11-11,Demo,{movement},{scoring},{r}\n" for r in rows)
    return (HEADER + body).encode()


# The seed's five-table board (§4): A 3NT+1 +430, B 4S= +420, C 4S= +420, D 3NT= +400, E 4S-1 -50.
SEED_ROWS = [
    "1,1,1,3NT,N,10,430,,11;12,21;22",
    "1,2,2,4S,S,10,420,,13;14,23;24",
    "1,3,3,4S,N,10,420,,15;16,25;26",
    "1,4,4,3NT,S,9,400,,17;18,27;28",
    "1,5,5,4S,N,9,-50,,19;20,29;30",
]


def test_seed_session_end_to_end_from_csv():
    # board 2 (NS vulnerable): five results; pair 2 NS meets EW 3 and scores +110 (3 tricks better than -50 only)
    rows = SEED_ROWS + [
        "2,1,2,4H,N,10,620,,,",
        "2,2,3,2S,N,8,110,,,",
        "2,3,4,4H,N,11,650,,,",
        "2,4,5,3NT,N,10,630,,,",
        "2,5,1,3S,N,8,-100,,,",
    ]
    frames, q = parse_csv("club/demo.csv", csv_session(rows))
    assert q.empty, q
    r = compute_standings(frames["traveller_lines"], frames["events"], frames["entrants"])
    st = SessionStandings.validate(r["session_standings"]).set_index(["direction", "entrant"])
    BoardResults.validate(r["board_results"])
    # Pair 2 NS: board 1 = 5 MP (seed), board 2: +110 beats only -100 -> 2 MP ; 7 of 16 = 43.75 %
    assert st.loc[("NS", "2"), "score"] == Decimal("7.00")
    assert st.loc[("NS", "2"), "percentage"] == Decimal("43.75")
    assert st.loc[("NS", "2"), "player_ids"] == "13;14"
    # Board 2 NS: 650 -> 8, 630 -> 6, 620 -> 4, 110 -> 2, -100 -> 0 ; pair 3 NS: 5 + 8 = 13 -> 81.25 %
    assert st.loc[("NS", "3"), "percentage"] == Decimal("81.25") and st.loc[("NS", "3"), "rank_label"] == "1"
    # EW 2 played NS 2 on board 1 (3 MP) and NS 1 on board 2 (620 -> EW 8 - 4 = 4): 7/16
    assert st.loc[("EW", "2"), "percentage"] == Decimal("43.75")


def test_acbl_scale_same_percentages():
    frames, _ = parse_csv("club/demo.csv", csv_session(SEED_ROWS))
    a = compute_standings(frames["traveller_lines"], frames["events"], frames["entrants"])["session_standings"]
    b = compute_standings(frames["traveller_lines"], frames["events"], frames["entrants"], acbl_scale=True)["session_standings"]
    assert a["percentage"].tolist() == b["percentage"].tolist()
    assert b.set_index(["direction", "entrant"]).loc[("NS", "2"), "score"] == Decimal("2.50")


def test_butler_and_cross_imp_pairs_by_event_setting():
    rows = SEED_ROWS
    frames, _ = parse_csv("club/demo.csv", csv_session(rows, scoring="BUTLER"))
    r = compute_standings(frames["traveller_lines"], frames["events"], frames["entrants"])
    br = r["board_results"]
    # five results: drop 430 and -50, mean(420, 420, 400) = 413.3 -> datum 410 ;
    # 430-410 = 20 -> 1, 420-410 -> 0, 400-410 -> 0, -50-410 = -460 -> -10
    assert br["butler_datum"].unique().tolist() == [410]
    assert br.sort_values("ns_pair")["imp_ns"].tolist() == [1, 0, 0, 0, -10]
    st = r["session_standings"].set_index(["direction", "entrant"])
    assert st.loc[("EW", "5"), "score"] == Decimal("10.00") and st.loc[("EW", "5"), "rank"] == 1
    assert st["percentage"].isna().all()
    frames, _ = parse_csv("club/demo.csv", csv_session(rows, scoring="XIMP"))
    st = compute_standings(frames["traveller_lines"], frames["events"], frames["entrants"])["session_standings"]
    st = st.set_index(["direction", "entrant"])
    # cross-IMPs of 430: vs 420 (0), 420 (0), 400 (+1), -50 (+10) = 11 over 4 comparisons = 2.75
    assert st.loc[("NS", "1"), "score"] == Decimal("2.75")
    # -50: -10 x 4 = -40 / 4 = -10
    assert st.loc[("NS", "5"), "score"] == Decimal("-10.00") and st.loc[("NS", "5"), "rank_label"] == "5"


def test_howell_one_winner_from_csv():
    rows = ["1,1,2,3NT,N,9,400,,,", "1,3,4,4S,E,10,-420,,,", "2,4,1,2H,S,8,110,,,", "2,2,3,2H,S,8,110,,,"]
    frames, q = parse_csv("club/howell.csv", csv_session(rows, movement="howell"))
    assert q.empty
    st = compute_standings(frames["traveller_lines"], frames["events"], frames["entrants"])["session_standings"]
    # board 1: pair 1 (NS, +400) 2 MP, pair 2 (EW) 0, pair 3 (NS, -420) 0, pair 4 (EW) 2
    # board 2: both +110: NS 4 and 2 get 1 each, EW 1 and 3 get 1 each
    s = st.set_index("entrant")
    assert (st["direction"] == "").all()
    assert s.loc["1", "score"] == Decimal("3.00") and s.loc["4", "score"] == Decimal("3.00")
    assert s.loc["1", "rank_label"] == "1=" and s.loc["4", "rank_label"] == "1="
    assert s.loc["2", "rank_label"] == "3=" and s.loc["3", "rank_label"] == "3="


def test_rule_tables_match_their_schemas():
    imp = ImpTable.validate(load_imp_table())
    assert imp["imps"].max() == 24 and len(imp) == 25
    rot = BoardRotation.validate(load_board_rotation())
    assert len(rot) == 16
    VpScales.validate(load_vp_scales())


def test_broken_imp_table_is_rejected():
    bad = load_imp_table()
    bad.loc[3, "diff_min"] = 100  # a gap between bands
    with pytest.raises(Exception):
        ImpTable.validate(bad)

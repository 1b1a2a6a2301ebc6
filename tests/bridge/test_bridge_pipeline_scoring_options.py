"""Scoring options through the nightly run, checked by hand against the warehouse views.

Until now cross-IMPs, Butler, the ACBL 1/0.5/0 matchpoint scale and files holding two sessions
were tested only in the pure scoring functions. Here each is a small hand-made CSV session run
through `nightly.run` (the office fixture, a bridge-only data folder with a club settings file
carrying the option), and every `board_results` / `session_standings` value asserted below is
worked out in the comments (docs/bridge.md "Decisions"; Law 77 scores, Law 78B IMPs).

Every line states its `score_ns`, so the parser also checks the hand Law 77 scores: a wrong one
would be quarantined and the run would not exit 0.

Law 78B, the bands used below: 0-10 = 0, 20-40 = 1, 50-80 = 2, 90-120 = 3, 170-210 = 5,
220-260 = 6, 270-310 = 7, 370-420 = 9, 430-490 = 10, 600-740 = 12, 750-890 = 13.
"""
from __future__ import annotations

import shutil
from datetime import date
from decimal import Decimal
from pathlib import Path

import pandas as pd
import pytest

from pipelines.core import run as nightly

AS_OF = date(2026, 12, 2)
ROOT = Path(__file__).resolve().parents[2]
CLUB = "tokyo-bridge-club"
HEADER = "event_date,event_name,scoring,session,board,ns_pair,ew_pair,contract,declarer,result,score_ns,adjusted,ns_ids,ew_ids"


def settings(options: str) -> str:
    """The club's settings file with the given `[options]` body."""
    return (f'organisation = "{CLUB}"\ndisplay_name = "Tokyo Bridge Club"\nsystem = "bridge"\n'
            f"season_start_month = 1\n\n[options]\n{options}\n")


@pytest.fixture
def office(office, tmp_path):
    """The `office` of tests/conftest.py with a data folder of its own holding only this club's
    settings (written by `club_with`, default options until then) and the real data/rules."""
    data = tmp_path / "options-data"
    (data / "organisations").mkdir(parents=True)
    (data / "rules").symlink_to(ROOT / "data" / "rules")
    shutil.copy(ROOT / "data" / "organisations" / f"{CLUB}.toml", data / "organisations")

    def club_with(options: str) -> None:
        (data / "organisations" / f"{CLUB}.toml").write_text(settings(options), encoding="utf-8")

    office.club_with = club_with
    office.run = lambda as_of=AS_OF: nightly.run(office.inbox, office.state, as_of, data_dir=data)
    return office


def csv_file(rows: list[str]) -> str:
    return HEADER + "\n" + "\n".join(rows) + "\n"


def standings(office, event_like: str, session: int = 1) -> dict:
    """{(direction, entrant): (score, max_score, percentage, rank_label)} as text."""
    rows = office.query(
        "select direction, entrant, score, max_score, percentage, rank_label from session_standings "
        "where event_id like ? and session = ?", [event_like, session])
    def text(v):
        return None if v is None or v is pd.NA else str(v)
    return {(d, e): (text(s), text(m), text(p), r) for d, e, s, m, p, r in rows.itertuples(index=False)}


def board_column(office, event_like: str, board: int, column: str, session: int = 1) -> dict:
    """{ns_pair: value as text} of one board."""
    rows = office.query(f"select ns_pair, {column} from board_results where event_id like ? and session = ? "
                        "and board = ? order by ns_pair", [event_like, session, board])
    return {ns: (None if v is None or v is pd.NA else str(v)) for ns, v in rows.itertuples(index=False)}


# ---------------------------------------------------------------------------------------------
# (a1) Cross-IMPs: a 4-table Mitchell of 2 boards. Each result is IMPed against the 3 others and
# the board score is the average per comparison (sum / 3), exact in thirds (imp_den = 3).
#
# Board 1 (dealer N, none vul):   T1 NS1-EW1 4S= 420, T2 NS2-EW2 4S= 420, T3 NS3-EW3 2S+2 170,
#                                 T4 NS4-EW4 4S-1 -50
#   420: vs 420 0, vs 170 (250) +6, vs -50 (470) +10  = 16 -> 16/3 =  5.33 (both 420s)
#   170: vs 420 -6, vs 420 -6, vs -50 (220) +6        = -6 -> -2   = -2.00
#   -50: -10, -10, -6                                 = -26 -> -26/3 = -8.67   (sum 0)
# Board 2 (dealer E, NS vul):     T1 NS1-EW2 4H= 620, T2 NS2-EW3 4H-1 -100, T3 NS3-EW4 3H+1 170,
#                                 T4 NS4-EW1 4H+1 650
#   620: vs -100 (720) +12, vs 170 (450) +10, vs 650 (30) -1 = 21 -> 7.00
#  -100: -12, vs 170 (270) -7, vs 650 (750) -13             = -32 -> -32/3 = -10.67
#   170: vs 620 -10, vs -100 +7, vs 650 (480) -10           = -13 -> -13/3 = -4.33
#   650: +1, +13, +10                                       = 24 -> 8.00   (sum 0)
# Totals (EW get the negation of their NS opponents on each board):
#   NS1 16/3 + 7 = 37/3 = 12.33 (1)     EW1 -16/3 - 8     = -40/3 = -13.33 (4)
#   NS2 16/3 - 32/3 = -16/3 = -5.33 (3) EW2 -16/3 - 7     = -37/3 = -12.33 (3)
#   NS3 -2 - 13/3 = -19/3 = -6.33 (4)   EW3 2 + 32/3      =  38/3 =  12.67 (2)
#   NS4 -26/3 + 8 = -2/3 = -0.67 (2)    EW4 26/3 + 13/3   =  39/3 =  13.00 (1)
XIMP = csv_file([
    "2026-11-23,Cross Imps,XIMP,1,1,1,1,4S,N,10,420,,X1a;X1b,Y1a;Y1b",
    "2026-11-23,Cross Imps,XIMP,1,1,2,2,4S,N,10,420,,X2a;X2b,Y2a;Y2b",
    "2026-11-23,Cross Imps,XIMP,1,1,3,3,2S,N,10,170,,X3a;X3b,Y3a;Y3b",
    "2026-11-23,Cross Imps,XIMP,1,1,4,4,4S,N,9,-50,,X4a;X4b,Y4a;Y4b",
    "2026-11-23,Cross Imps,XIMP,1,2,1,2,4H,S,10,620,,,",
    "2026-11-23,Cross Imps,XIMP,1,2,2,3,4H,S,9,-100,,,",
    "2026-11-23,Cross Imps,XIMP,1,2,3,4,3H,S,10,170,,,",
    "2026-11-23,Cross Imps,XIMP,1,2,4,1,4H,S,11,650,,,",
])
XIMP_EXPECTED = {
    ("NS", "1"): ("12.33", None, None, "1"), ("NS", "4"): ("-0.67", None, None, "2"),
    ("NS", "2"): ("-5.33", None, None, "3"), ("NS", "3"): ("-6.33", None, None, "4"),
    ("EW", "4"): ("13.00", None, None, "1"), ("EW", "3"): ("12.67", None, None, "2"),
    ("EW", "2"): ("-12.33", None, None, "3"), ("EW", "1"): ("-13.33", None, None, "4"),
}


def test_cross_imp_session_through_the_run(office):
    office.post(f"{CLUB}/2026-11-23-cross-imps.csv", XIMP)
    assert office.run().exit_code == nightly.EXIT_OK
    assert standings(office, "%cross-imps") == XIMP_EXPECTED
    exact = office.query("select direction, entrant, score_x, score_den, scoring, boards from session_standings")
    assert set(exact["score_den"]) == {3} and set(exact["scoring"]) == {"XIMP"} and set(exact["boards"]) == {2}
    assert dict(zip(exact["direction"] + exact["entrant"], exact["score_x"])) == {
        "NS1": 37, "NS2": -16, "NS3": -19, "NS4": -2, "EW1": -40, "EW2": -37, "EW3": 38, "EW4": 39}
    assert board_column(office, "%cross-imps", 1, "imp_ns") == {"1": "5.33", "2": "5.33", "3": "-2.00", "4": "-8.67"}
    assert board_column(office, "%cross-imps", 1, "imp_ns_x") == {"1": "16", "2": "16", "3": "-6", "4": "-26"}
    assert board_column(office, "%cross-imps", 2, "imp_ns") == {"1": "7.00", "2": "-10.67", "3": "-4.33", "4": "8.00"}
    assert board_column(office, "%cross-imps", 2, "imp_ns_x") == {"1": "21", "2": "-32", "3": "-13", "4": "24"}
    lines = office.query("select imp_den, mp_ns, mp_ew, butler_datum from board_results")
    assert set(lines["imp_den"]) == {3}
    assert lines["mp_ns"].isna().all() and lines["mp_ew"].isna().all() and lines["butler_datum"].isna().all()
    ids = office.query("select player_ids from session_standings where direction = 'EW' and entrant = '3'")
    assert [list(p) for p in ids["player_ids"]] == [["Y3a", "Y3b"]]
    events = office.query("select kind from events")
    assert events["kind"].tolist() == ["bridge_imp_pairs_session"]
    session = office.query("select scoring, entrants, boards, traveller_lines from bridge_sessions")
    assert session.iloc[0].tolist() == ["XIMP", 8, 2, 8]


# ---------------------------------------------------------------------------------------------
# (a2) Butler: a 5-table Mitchell of 3 boards (board b at table t: NS t vs EW ((t + b - 2) mod 5) + 1);
# default butler_trim_min_results = 5. The datum is the mean NS score, leaving out the single
# highest and single lowest with 5 or more results, rounded to the nearest 10 (an exact 5 away from
# zero); each line gets IMPs(score - datum).
#
# Board 1 (dealer N, none vul): 420, 420, 450 (4S+1), 170 (2S+2), -50 (4S-1)
#   drop 450 and -50: (420 + 420 + 170) / 3 = 336.67 -> datum 340
#   IMPs: 420 (+80) 2, 420 2, 450 (+110) 3, 170 (-170) -5, -50 (-390) -9
# Board 2 (dealer E, NS vul, EW not): EW declare. NS scores
#   T1 4S= by E -420, T2 4S+1 -450, T3 4S-2 +100, T4 2S+1 -140, T5 4SX-1 +100 (non-vul doubled)
#   drop -450 and ONE of the two 100s: (-420 - 140 + 100) / 3 = -153.33 -> datum -150
#   IMPs: -420 (-270) -7, -450 (-300) -7, 100 (+250) 6, -140 (+10) 0, 100 6
# Board 3 (dealer S, EW vul, NS not): four results only (NS5-EW2 did not play it), so no trimming:
#   T1 2SX= by N 470, T2 3NT+1 430, T3 3NT= 400, T4 3NT= 400
#   (470 + 430 + 400 + 400) / 4 = 425 -> datum 430 (half away from zero; 420 if half-to-even
#   or truncated). IMPs: 470 (+40) 1, 430 0, 400 (-30) -1, 400 -1  (against 420 it would be 2, 0, -1, -1)
# Totals:  NS1 2 - 7 + 1 = -4 (3)   NS2 2 - 7 + 0 = -5 (4)   NS3 3 + 6 - 1 = 8 (1)
#          NS4 -5 + 0 - 1 = -6 (5)  NS5 -9 + 6 = -3 (2; two boards)
#   EW (negations): B1 EW1 -2, EW2 -2, EW3 -3, EW4 5, EW5 9; B2 EW2 7, EW3 7, EW4 -6, EW5 0, EW1 -6;
#                   B3 EW3 -1, EW4 0, EW5 1, EW1 1
#          EW1 -2 - 6 + 1 = -7 (5)  EW2 -2 + 7 = 5 (2; two boards)  EW3 -3 + 7 - 1 = 3 (3)
#          EW4 5 - 6 + 0 = -1 (4)   EW5 9 + 0 + 1 = 10 (1)
def butler_rows() -> list[str]:
    b = "2026-11-24,Butler Pairs,BUTLER,1"
    return [
        f"{b},1,1,1,4S,N,10,420,,,", f"{b},1,2,2,4S,N,10,420,,,", f"{b},1,3,3,4S,N,11,450,,,",
        f"{b},1,4,4,2S,N,10,170,,,", f"{b},1,5,5,4S,N,9,-50,,,",
        f"{b},2,1,2,4S,E,10,-420,,,", f"{b},2,2,3,4S,E,11,-450,,,", f"{b},2,3,4,4S,E,8,100,,,",
        f"{b},2,4,5,2S,E,9,-140,,,", f"{b},2,5,1,4SX,E,9,100,,,",
        f"{b},3,1,3,2SX,N,8,470,,,", f"{b},3,2,4,3NT,N,10,430,,,", f"{b},3,3,5,3NT,N,9,400,,,",
        f"{b},3,4,1,3NT,N,9,400,,,",
    ]


BUTLER_EXPECTED = {
    ("NS", "3"): ("8.00", None, None, "1"), ("NS", "5"): ("-3.00", None, None, "2"),
    ("NS", "1"): ("-4.00", None, None, "3"), ("NS", "2"): ("-5.00", None, None, "4"),
    ("NS", "4"): ("-6.00", None, None, "5"),
    ("EW", "5"): ("10.00", None, None, "1"), ("EW", "2"): ("5.00", None, None, "2"),
    ("EW", "3"): ("3.00", None, None, "3"), ("EW", "4"): ("-1.00", None, None, "4"),
    ("EW", "1"): ("-7.00", None, None, "5"),
}


def test_butler_session_through_the_run(office):
    office.post(f"{CLUB}/2026-11-24-butler.csv", csv_file(butler_rows()))
    assert office.run().exit_code == nightly.EXIT_OK
    assert standings(office, "%butler-pairs") == BUTLER_EXPECTED
    datum = office.query("select board, min(butler_datum) as lo, max(butler_datum) as hi from board_results "
                         "group by board order by board")
    assert datum["lo"].tolist() == datum["hi"].tolist() == [340, -150, 430]
    assert board_column(office, "%butler-pairs", 1, "imp_ns") == {"1": "2.00", "2": "2.00", "3": "3.00", "4": "-5.00", "5": "-9.00"}
    assert board_column(office, "%butler-pairs", 2, "imp_ns") == {"1": "-7.00", "2": "-7.00", "3": "6.00", "4": "0.00", "5": "6.00"}
    assert board_column(office, "%butler-pairs", 3, "imp_ns") == {"1": "1.00", "2": "0.00", "3": "-1.00", "4": "-1.00"}
    assert set(office.query("select imp_den from board_results")["imp_den"]) == {1}
    boards = office.query("select direction, entrant, boards from session_standings where boards <> 3")
    assert sorted(boards["direction"] + boards["entrant"]) == ["EW2", "NS5"]
    assert office.query("select scoring from bridge_sessions")["scoring"].tolist() == ["BUTLER"]


def test_butler_trim_threshold_is_the_clubs_option(office):
    # butler_trim_min_results = 6: board 1's five results are no longer trimmed:
    #   (420 + 420 + 450 + 170 - 50) / 5 = 282 -> datum 280; IMPs 420 (+140) 4, 420 4, 450 (+170) 5,
    #   170 (-110) -3, -50 (-330) -8
    office.club_with("butler_trim_min_results = 6")
    office.post(f"{CLUB}/2026-11-24-butler.csv", csv_file(butler_rows()))
    assert office.run().exit_code == nightly.EXIT_OK
    assert set(board_column(office, "%butler-pairs", 1, "butler_datum").values()) == {"280"}
    assert board_column(office, "%butler-pairs", 1, "imp_ns") == {"1": "4.00", "2": "4.00", "3": "5.00", "4": "-3.00", "5": "-8.00"}
    # board 2 untrimmed: (-420 - 450 + 100 - 140 + 100) / 5 = -162 -> -160
    assert set(board_column(office, "%butler-pairs", 2, "butler_datum").values()) == {"-160"}


# ---------------------------------------------------------------------------------------------
# (b) ACBL scale (`acbl_scale = true`): 1 per result beaten, 0.5 per tie. A 4-table Mitchell of 3
# boards; top 3 on every board (N = 4). Percentages as on the 2/1/0 scale.
#
# Board 1 (none vul): NS1-EW1 420, NS2-EW2 420, NS3-EW3 170, NS4-EW4 -50
#   NS 2.5, 2.5, 1, 0    EW 0.5, 0.5, 2, 3
# Board 2 (NS vul):   NS1-EW2 620, NS2-EW3 -100, NS3-EW4 170, NS4-EW1 650
#   NS 2, 0, 1, 3        EW 1, 3, 2, 0
# Board 3 (EW vul):   NS1-EW3 3NT= 400, NS2-EW4 3NT= 400, NS3-EW1 4S-1 -50, NS4-EW2 A60/40
#   n = 3 real results, N = 4. Raw 2/1/0 of top 4: NS 3, 3, 0; EW 1, 1, 4.
#   Neuberg (mp + 1) * 4/3 - 1 on the 2/1/0 scale: NS 13/3, 13/3, 1/3; EW 5/3, 5/3, 17/3;
#   halved (ACBL): NS 13/6 = 2.17, 2.17, 1/6 = 0.17; EW 5/6 = 0.83, 0.83, 17/6 = 2.83.
#   Adjusted: NS4 60 % of 3 = 1.80, EW2 40 % of 3 = 1.20.
# Totals of 9:
#   NS1 2.5 + 2 + 13/6 = 40/6 = 6.67 -> 40/54 = 74.07 % (1)
#   NS2 2.5 + 0 + 13/6 = 28/6 = 4.67 -> 28/54 = 51.85 % (3)
#   NS3 1 + 1 + 1/6    = 13/6 = 2.17 -> 13/54 = 24.07 % (4)
#   NS4 0 + 3 + 1.8    = 4.80        -> 4.8/9 = 53.33 % (2)
#   EW1 0.5 + 0 + 17/6 = 20/6 = 3.33 -> 20/54 = 37.04 % (3)
#   EW2 0.5 + 1 + 1.2  = 2.70        -> 2.7/9 = 30.00 % (4)
#   EW3 2 + 3 + 5/6    = 35/6 = 5.83 -> 35/54 = 64.81 % (1=)
#   EW4 3 + 2 + 5/6    = 35/6 = 5.83 -> 64.81 % (1=)
ACBL = csv_file([
    "2026-11-25,Acbl Pairs,MP,1,1,1,1,4S,N,10,420,,,",
    "2026-11-25,Acbl Pairs,MP,1,1,2,2,4S,N,10,420,,,",
    "2026-11-25,Acbl Pairs,MP,1,1,3,3,2S,N,10,170,,,",
    "2026-11-25,Acbl Pairs,MP,1,1,4,4,4S,N,9,-50,,,",
    "2026-11-25,Acbl Pairs,MP,1,2,1,2,4H,S,10,620,,,",
    "2026-11-25,Acbl Pairs,MP,1,2,2,3,4H,S,9,-100,,,",
    "2026-11-25,Acbl Pairs,MP,1,2,3,4,3H,S,10,170,,,",
    "2026-11-25,Acbl Pairs,MP,1,2,4,1,4H,S,11,650,,,",
    "2026-11-25,Acbl Pairs,MP,1,3,1,3,3NT,N,9,400,,,",
    "2026-11-25,Acbl Pairs,MP,1,3,2,4,3NT,N,9,400,,,",
    "2026-11-25,Acbl Pairs,MP,1,3,3,1,4S,N,9,-50,,,",
    "2026-11-25,Acbl Pairs,MP,1,3,4,2,,,,,A60/40,,",
])
ACBL_EXPECTED = {
    ("NS", "1"): ("6.67", "9.00", "74.07", "1"), ("NS", "4"): ("4.80", "9.00", "53.33", "2"),
    ("NS", "2"): ("4.67", "9.00", "51.85", "3"), ("NS", "3"): ("2.17", "9.00", "24.07", "4"),
    ("EW", "3"): ("5.83", "9.00", "64.81", "1="), ("EW", "4"): ("5.83", "9.00", "64.81", "1="),
    ("EW", "1"): ("3.33", "9.00", "37.04", "3"), ("EW", "2"): ("2.70", "9.00", "30.00", "4"),
}


def test_acbl_scale_club_through_the_run(office):
    office.club_with("acbl_scale = true")
    office.post(f"{CLUB}/2026-11-25-acbl.csv", ACBL)
    assert office.run().exit_code == nightly.EXIT_OK
    assert standings(office, "%acbl-pairs") == ACBL_EXPECTED
    assert board_column(office, "%acbl-pairs", 1, "mp_ns") == {"1": "2.50", "2": "2.50", "3": "1.00", "4": "0.00"}
    assert board_column(office, "%acbl-pairs", 1, "mp_ew") == {"1": "0.50", "2": "0.50", "3": "2.00", "4": "3.00"}
    assert board_column(office, "%acbl-pairs", 2, "mp_ns") == {"1": "2.00", "2": "0.00", "3": "1.00", "4": "3.00"}
    assert board_column(office, "%acbl-pairs", 3, "mp_ns") == {"1": "2.17", "2": "2.17", "3": "0.17", "4": "1.80"}
    assert board_column(office, "%acbl-pairs", 3, "mp_ew") == {"1": "0.83", "2": "0.83", "3": "2.83", "4": "1.20"}
    assert set(office.query("select mp_top from board_results")["mp_top"].astype(str)) == {"3.00"}
    # the exact units stay on the 2/1/0 scale (docs/bridge.md): mp_ns_x / mp_den = 2 x the ACBL value
    b1 = office.query("select ns_pair, mp_ns_x, mp_den, mp_top_x from board_results where board = 1 order by ns_pair")
    assert [Decimal(int(x)) / Decimal(int(d)) for x, d in zip(b1["mp_ns_x"], b1["mp_den"])] == [5, 5, 2, 0]
    assert {Decimal(int(t)) / Decimal(int(d)) for t, d in zip(b1["mp_top_x"], b1["mp_den"])} == {6}
    # the standings' exact units are on the club's scale: score_x / score_den = the ACBL score
    ns1 = office.query("select score_x, score_den, max_x from session_standings where direction = 'NS' and entrant = '1'").iloc[0]
    assert Decimal(int(ns1["score_x"])) * 6 == Decimal(int(ns1["score_den"])) * 40  # 40/6
    assert Decimal(int(ns1["max_x"])) == Decimal(int(ns1["score_den"])) * 9
    assert office.query("select mp_scale from bridge_sessions")["mp_scale"].tolist() == ["1/0.5/0"]


def test_the_same_session_on_the_wbf_scale_has_double_the_points_and_the_same_percentages(office):
    office.post(f"{CLUB}/2026-11-25-acbl.csv", ACBL)
    assert office.run().exit_code == nightly.EXIT_OK
    got = standings(office, "%acbl-pairs")
    for key, (score, top, pct, rank) in ACBL_EXPECTED.items():
        assert got[key][1:] == ("18.00", pct, rank)
    # exact doubles: 40/3 = 13.33, 28/3 = 9.33, 13/3 = 4.33, 9.6, 20/3 = 6.67, 5.4, 35/3 = 11.67
    assert {k: v[0] for k, v in got.items()} == {
        ("NS", "1"): "13.33", ("NS", "2"): "9.33", ("NS", "3"): "4.33", ("NS", "4"): "9.60",
        ("EW", "1"): "6.67", ("EW", "2"): "5.40", ("EW", "3"): "11.67", ("EW", "4"): "11.67"}
    assert office.query("select mp_scale from bridge_sessions")["mp_scale"].tolist() == ["2/1/0"]


# ---------------------------------------------------------------------------------------------
# (c) One file holding two sessions of one event (`session` 1 and 2, same event name). Boards are
# numbered 1-2 in both sessions but are different deals: each session's board is compared only
# within that session (a 3-table and a 4-table session; merged, board 1 would have 7 results).
#
# Players: pair NS 1 is P1a;P1b in session 1 and other players, R1a;R1b, in session 2; EW 2 is
# Q2a;Q2b in session 1 and unnamed in session 2 (so nobody there: not session 1's players).
#
# Session 1, 3 tables, top 4:
#   Board 1 (none vul): NS1-EW1 420, NS2-EW2 170, NS3-EW3 -50 -> NS 4, 2, 0; EW 0, 2, 4
#   Board 2 (NS vul):   NS1-EW2 620, NS2-EW3 620, NS3-EW1 -100 -> NS 3, 3, 0; EW 1, 1, 4
#   NS1 7/8 = 87.50 (1), NS2 5/8 = 62.50 (2), NS3 0/8 = 0.00 (3)
#   EW1 0 + 4 = 4/8 = 50.00 (2), EW2 2 + 1 = 3/8 = 37.50 (3), EW3 4 + 1 = 5/8 = 62.50 (1)
# Session 2, 4 tables, top 6:
#   Board 1 (none vul): NS1-EW1 4S-1 -50, NS2-EW2 -50, NS3-EW3 2H= 110, NS4-EW4 2H+1 140
#     NS 1, 1, 4, 6; EW 5, 5, 2, 0
#   Board 2 (NS vul, EW not): NS1-EW2 3NT+1 by E -430, NS2-EW3 3NT= -400, NS3-EW4 -430, NS4-EW1 3NT-1 +50
#     NS 1, 4, 1, 6; EW 5, 2, 5, 0
#   NS1 2/12 = 16.67 (4), NS2 5/12 = 41.67 (2=), NS3 5/12 = 41.67 (2=), NS4 12/12 = 100.00 (1)
#   EW1 5 + 0 = 41.67 (2=), EW2 5 + 5 = 83.33 (1), EW3 2 + 2 = 33.33 (4), EW4 0 + 5 = 41.67 (2=)
TWO_SESSIONS = csv_file([
    "2026-11-26,Two Session Cup,MP,1,1,1,1,4S,N,10,420,,P1a;P1b,",
    "2026-11-26,Two Session Cup,MP,1,1,2,2,2S,N,10,170,,,Q2a;Q2b",
    "2026-11-26,Two Session Cup,MP,1,1,3,3,4S,N,9,-50,,,",
    "2026-11-26,Two Session Cup,MP,1,2,1,2,4H,S,10,620,,,",
    "2026-11-26,Two Session Cup,MP,1,2,2,3,4H,S,10,620,,,",
    "2026-11-26,Two Session Cup,MP,1,2,3,1,4H,S,9,-100,,,",
    "2026-11-26,Two Session Cup,MP,2,1,1,1,4S,N,9,-50,,R1a;R1b,",
    "2026-11-26,Two Session Cup,MP,2,1,2,2,4S,N,9,-50,,,",
    "2026-11-26,Two Session Cup,MP,2,1,3,3,2H,S,8,110,,,",
    "2026-11-26,Two Session Cup,MP,2,1,4,4,2H,S,9,140,,,",
    "2026-11-26,Two Session Cup,MP,2,2,1,2,3NT,E,10,-430,,,",
    "2026-11-26,Two Session Cup,MP,2,2,2,3,3NT,E,9,-400,,,",
    "2026-11-26,Two Session Cup,MP,2,2,3,4,3NT,E,10,-430,,,",
    "2026-11-26,Two Session Cup,MP,2,2,4,1,3NT,E,8,50,,,",
])
SESSION_1 = {
    ("NS", "1"): ("7.00", "8.00", "87.50", "1"), ("NS", "2"): ("5.00", "8.00", "62.50", "2"),
    ("NS", "3"): ("0.00", "8.00", "0.00", "3"),
    ("EW", "3"): ("5.00", "8.00", "62.50", "1"), ("EW", "1"): ("4.00", "8.00", "50.00", "2"),
    ("EW", "2"): ("3.00", "8.00", "37.50", "3"),
}
SESSION_2 = {
    ("NS", "4"): ("12.00", "12.00", "100.00", "1"), ("NS", "2"): ("5.00", "12.00", "41.67", "2="),
    ("NS", "3"): ("5.00", "12.00", "41.67", "2="), ("NS", "1"): ("2.00", "12.00", "16.67", "4"),
    ("EW", "2"): ("10.00", "12.00", "83.33", "1"), ("EW", "1"): ("5.00", "12.00", "41.67", "2="),
    ("EW", "4"): ("5.00", "12.00", "41.67", "2="), ("EW", "3"): ("4.00", "12.00", "33.33", "4"),
}


def test_a_file_with_two_sessions_scores_each_session_apart(office):
    office.post(f"{CLUB}/2026-11-26-two-sessions.csv", TWO_SESSIONS)
    assert office.run().exit_code == nightly.EXIT_OK
    assert standings(office, "%two-session-cup", 1) == SESSION_1
    assert standings(office, "%two-session-cup", 2) == SESSION_2
    assert board_column(office, "%two-session-cup", 1, "mp_ns", session=1) == {"1": "4.00", "2": "2.00", "3": "0.00"}
    assert board_column(office, "%two-session-cup", 1, "mp_ns", session=2) == {"1": "1.00", "2": "1.00", "3": "4.00", "4": "6.00"}
    assert board_column(office, "%two-session-cup", 2, "mp_ew", session=2) == {"1": "5.00", "2": "2.00", "3": "5.00", "4": "0.00"}
    tops = office.query("select session, min(mp_top) as lo, max(mp_top) as hi, max(results_on_board) as n "
                        "from board_results group by session order by session")
    assert [str(v) for v in tops["lo"]] == [str(v) for v in tops["hi"]] == ["4.00", "6.00"]
    assert tops["n"].tolist() == [3, 4]
    assert not office.query("select bool_or(neuberg) as any_neuberg from board_results")["any_neuberg"].iloc[0]
    # one event id for the file; one core event and one bridge_sessions row per session
    event_ids = office.query("select distinct event_id from board_results")["event_id"].tolist()
    assert event_ids == [f"{CLUB}:2026-11-26:two-session-cup"]
    events = office.query("select event_id, kind, location from events order by event_id")
    assert events["event_id"].tolist() == [f"{CLUB}:2026-11-26:two-session-cup#session-1",
                                           f"{CLUB}:2026-11-26:two-session-cup#session-2"]
    assert set(events["kind"]) == {"bridge_pairs_session"}
    sessions = office.query("select session, session_event_id, entrants, boards, traveller_lines from bridge_sessions order by session")
    assert sessions["session"].tolist() == [1, 2]
    assert sessions["session_event_id"].tolist() == events["event_id"].tolist()
    assert sessions["entrants"].tolist() == [6, 8] and sessions["boards"].tolist() == [2, 2]
    assert sessions["traveller_lines"].tolist() == [6, 8]
    # each session's pair numbers name that session's players (docs/bridge.md: entrant lists of a
    # CSV file are per session; before the fix session 2 showed session 1's players)
    ids = office.query("select session, direction, entrant, player_ids from session_standings "
                       "where (direction = 'NS' and entrant = '1') or (direction = 'EW' and entrant = '2') "
                       "order by direction desc, session")
    # a list per pair; session 2's EW2 has no players named
    assert [[r.session, r.direction, r.entrant, list(r.player_ids)] for r in ids.itertuples()] == [
        [1, "NS", "1", ["P1a", "P1b"]], [2, "NS", "1", ["R1a", "R1b"]], [1, "EW", "2", ["Q2a", "Q2b"]], [2, "EW", "2", []]]
    # a notice board per session
    # (the site's own index and player pages beside them are not notice boards)
    folders = sorted(p.name for p in (office.state / "publications" / CLUB).iterdir() if p.name not in ("index.html", "players", "feed.atom", "assets", "corrections"))
    assert len(folders) == 2 and all("two-session-cup" in f for f in folders)

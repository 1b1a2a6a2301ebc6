"""Scoring across sections (a common top over the field) and per section, as an event setting;
average-plus per the EBU White Book as a setting. Every expected value is worked out by hand in
the comments (2 matchpoints per result beaten, 1 per tie; % = total / maximum, half-up)."""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from pipelines.bridge.parse_usebio import parse_usebio
from pipelines.bridge.standings import compute_standings
from pipelines.core import run as nightly
from pipelines.core.settings import SettingsError
from tests.bridge.test_bridge_pipeline_scoring_options import CLUB, office  # noqa: F401  (fixture)

FIX = Path(__file__).parent / "fixtures"
TWO = "usebio_two_sections_lettered_pairs.xml"


def _pct(st: pd.DataFrame) -> dict:
    return {(r.section, r.direction, r.entrant): str(r.percentage) for r in st.itertuples()}


# usebio_two_sections_lettered_pairs.xml (two-winner Mitchell, sections A and B, 2 NS + 2 EW each):
#   board 1: A 1v1 420, A 2v2 450, B 1v1 -50, B 2v2 170
#   board 2: A 1v2 -90, A 2v1 100, B 1v2 600, B 2v1 600
# Across sections every board has 4 results: top 2 x (4 - 1) = 6.
#   board 1 ascending -50, 170, 420, 450:  NS  B1 0, B2 2, A1 4, A2 6;  EW  B1 6, B2 4, A1 2, A2 0
#   board 2 ascending -90, 100, 600, 600:  NS  A1 0, A2 2, B1 5, B2 5;  EW (A2) 6, (A1) 4, (B2) 1, (B1) 1
# Totals of 12:  NS A1 4 = 33.33, A2 8 = 66.67, B1 5 = 41.67, B2 7 = 58.33
#                EW A1 2+4 = 6 = 50.00, A2 0+6 = 6 = 50.00, B1 6+1 = 7 = 58.33, B2 4+1 = 5 = 41.67
ACROSS = {("A", "NS", "1"): "33.33", ("A", "NS", "2"): "66.67", ("B", "NS", "1"): "41.67", ("B", "NS", "2"): "58.33",
          ("A", "EW", "1"): "50.00", ("A", "EW", "2"): "50.00", ("B", "EW", "1"): "58.33", ("B", "EW", "2"): "41.67"}
# Per section (tests/bridge/test_usebio_quirks.py works these out): top 2 a board
PER_SECTION = {("A", "NS", "1"): "0.00", ("A", "NS", "2"): "100.00", ("A", "EW", "1"): "50.00", ("A", "EW", "2"): "50.00",
               ("B", "NS", "1"): "25.00", ("B", "NS", "2"): "75.00", ("B", "EW", "1"): "75.00", ("B", "EW", "2"): "25.00"}


def test_across_sections_gives_a_common_top_and_ranks_across_the_field():
    frames, q = parse_usebio("club/two.xml", (FIX / TWO).read_bytes())
    assert q.empty
    events = frames["events"].assign(section_scoring="across_sections")
    out = compute_standings(frames["traveller_lines"], events, frames["entrants"])
    assert set(out["board_results"]["mp_top"]) == {6.0}
    st = out["session_standings"]
    assert _pct(st) == ACROSS
    # ranks across both sections, NS and EW apart (two winners): NS A2 > B2 > B1 > A1; EW B1 > A1 = A2 > B2
    ranks = {(r.section, r.direction, r.entrant): r.rank_label for r in st.itertuples()}
    assert ranks == {("A", "NS", "2"): "1", ("B", "NS", "2"): "2", ("B", "NS", "1"): "3", ("A", "NS", "1"): "4",
                     ("B", "EW", "1"): "1", ("A", "EW", "1"): "2=", ("A", "EW", "2"): "2=", ("B", "EW", "2"): "4"}


def test_per_section_is_the_default_and_the_explicit_setting():
    frames, _ = parse_usebio("club/two.xml", (FIX / TWO).read_bytes())
    for events in (frames["events"], frames["events"].assign(section_scoring="per_section")):
        out = compute_standings(frames["traveller_lines"], events, frames["entrants"])
        assert _pct(out["session_standings"]) == PER_SECTION and set(out["board_results"]["mp_top"]) == {2.0}


def test_a_mitchell_and_a_howell_section_scored_across_the_field():
    """Section C, a Howell (pairs without direction), beside Mitchell section A, across the field:
    board 1 results A 1v1 420, A 2v2 450, C 1v2 -50, C 3v4 170 (4 results, top 6):
      A NS1 4, A NS2 6, C pair 1 (NS) 0, C pair 3 (NS) 2; A EW1 2, A EW2 0, C pair 2 (EW) 6, C pair 4 (EW) 4.
    One board: % = MP / 6: 66.67, 100.00, 0.00, 33.33; 33.33, 0.00, 100.00, 66.67."""
    lines = pd.DataFrame({
        "event_id": "e", "session": 1, "section": ["A", "A", "C", "C"], "board": 1, "round": pd.array([pd.NA] * 4, "Int64"),
        "ns_pair": ["1", "2", "1", "3"], "ew_pair": ["1", "2", "2", "4"], "score_ns": pd.array([420, 450, -50, 170], "Int64"),
        "contract": "", "declarer": "", "tricks": pd.array([pd.NA] * 4, "Int64"), "adjusted": ""})
    entrants = pd.DataFrame({"event_id": "e", "section": ["A"] * 4 + ["C"] * 4, "direction": ["NS", "NS", "EW", "EW"] + [""] * 4,
                             "entrant": ["1", "2", "1", "2", "1", "2", "3", "4"], "entrant_name": "", "player_names": "",
                             "player_ids": ""})
    events = pd.DataFrame({"event_id": ["e"], "scoring": ["MP"], "winner_type": [2], "movement": ["mitchell"],
                           "section_scoring": ["across_sections"]})
    st = compute_standings(lines, events, entrants)["session_standings"]
    assert _pct(st) == {("A", "NS", "1"): "66.67", ("A", "NS", "2"): "100.00", ("A", "EW", "1"): "33.33",
                        ("A", "EW", "2"): "0.00", ("C", "", "1"): "0.00", ("C", "", "3"): "33.33",
                        ("C", "", "2"): "100.00", ("C", "", "4"): "66.67"}


def test_the_event_setting_through_the_nightly_run(office):
    """The club scores per section; its [[options.events]] table names this event across sections."""
    office.club_with('section_scoring = "per_section"\n\n[[options.events]]\nname = "Two Section Pairs"\n'
                     'section_scoring = "across_sections"\n')
    office.post(f"{CLUB}/2026-11-22-two.xml", (FIX / TWO).read_bytes())
    assert office.run().exit_code == nightly.EXIT_OK
    st = office.query("select section, direction, entrant, percentage, rank_label, ranked_entrants from session_standings")
    assert {(r.section, r.direction, r.entrant): str(r.percentage) for r in st.itertuples()} == ACROSS
    assert set(st["ranked_entrants"]) == {4}  # 4 NS (and 4 EW) across both sections
    assert set(office.query("select mp_top from board_results")["mp_top"].astype(str)) == {"6.00"}


@pytest.mark.parametrize("body,why", [
    ('[[options.events]]\nname = "two section pairs"\nsection_scoring = "by_field"\n', "section_scoring"),
    ('[[options.events]]\nsection_scoring = "across_sections"\n', "needs a name"),
    ('average_plus = "sometimes"\n', "average_plus"),
])
def test_wrong_event_settings_stop_the_run(office, body, why):
    office.post(f"{CLUB}/2026-11-22-two.xml", (FIX / TWO).read_bytes())
    office.club_with(body)
    # the run stops before it reads anything, with the settings file's reason; nothing posts
    with pytest.raises(SettingsError, match=why):
        office.run()
    assert not (office.state / "warehouse.duckdb").exists()


# usebio_handicap_pairs.xml: the passed-in fixture's results (scratch, worked out in
# tests/bridge/test_usebio_quirks.py: NS1 62.50, NS2 37.50, NS3 50.00; EW1 37.50, EW2 25.00, EW3 87.50)
# with HANDICAP NS1 -6.42, NS2 25.5, NS3 none (writers leave out 0), EW1 11.02, EW2 -0.01, EW3 4.
# Half the handicap added (the NZ Scorer's rule: its public handicap_pairs.xml prints
# PERCENTAGE = matchpoint % + HANDICAP / 2 for all 18 pairs, e.g. 57.39 - 6.42 / 2 = 54.18):
#   NS1 62.50 - 3.21 = 59.29   NS2 37.50 + 12.75 = 50.25   NS3 50.00 + 0 = 50.00
#   EW1 37.50 + 5.51 = 43.01   EW2 25.00 - 0.005 = 24.995 -> half-up 25.00   EW3 87.50 + 2 = 89.50
# Handicap ranks: NS1 1, NS2 2, NS3 3 (scratch: NS1 1, NS3 2, NS2 3); EW3 1, EW1 2, EW2 3.
# The full handicap: NS1 56.08, NS2 63.00, NS3 50.00; EW1 48.52, EW2 24.99, EW3 91.50.
HCP_HALF = {("NS", "1"): ("-6.42", "59.29", "1", "1"), ("NS", "2"): ("25.50", "50.25", "2", "3"),
            ("NS", "3"): ("0.00", "50.00", "3", "2"), ("EW", "1"): ("11.02", "43.01", "2", "2"),
            ("EW", "2"): ("-0.01", "25.00", "3", "3"), ("EW", "3"): ("4.00", "89.50", "1", "1")}
HCP_FULL = {("NS", "1"): "56.08", ("NS", "2"): "63.00", ("NS", "3"): "50.00",
            ("EW", "1"): "48.52", ("EW", "2"): "24.99", ("EW", "3"): "91.50"}


def _hcp(st: pd.DataFrame) -> dict:
    return {(r.direction, r.entrant): (str(r.handicap), str(r.handicap_percentage), str(r.handicap_rank), str(r.rank))
            for r in st.itertuples()}


def test_handicaps_as_the_file_states_them():
    frames, q = parse_usebio("club/hcp.xml", (FIX / "usebio_handicap_pairs.xml").read_bytes())
    assert q.empty
    st = compute_standings(frames["traveller_lines"], frames["events"], frames["entrants"])["session_standings"]
    assert _hcp(st) == HCP_HALF
    full = compute_standings(frames["traveller_lines"], frames["events"].assign(handicap_share="full"),
                             frames["entrants"])["session_standings"]
    assert {(r.direction, r.entrant): str(r.handicap_percentage) for r in full.itertuples()} == HCP_FULL


def test_an_event_without_handicaps_has_none_and_a_bad_handicap_is_reported():
    frames, _ = parse_usebio("club/two.xml", (FIX / TWO).read_bytes())
    st = compute_standings(frames["traveller_lines"], frames["events"], frames["entrants"])["session_standings"]
    assert st["handicap"].isna().all() and st["handicap_percentage"].isna().all() and st["handicap_rank"].isna().all()
    data = (FIX / "usebio_handicap_pairs.xml").read_bytes().replace(b"<HANDICAP>25.5</HANDICAP>", b"<HANDICAP>lots</HANDICAP>")
    frames, q = parse_usebio("club/hcp.xml", data)
    assert q["location"].tolist() == ["PARTICIPANTS, pair 2 NS"]
    assert "HANDICAP 'lots' is not a handicap" in q["reason"].iloc[0]
    st = compute_standings(frames["traveller_lines"], frames["events"], frames["entrants"])["session_standings"]
    assert str(st.set_index(["direction", "entrant"]).loc[("NS", "2"), "handicap_percentage"]) == "37.50"  # scored with 0


def test_handicaps_through_the_nightly_run_and_on_the_notice_board(office):
    office.post(f"{CLUB}/2026-11-24-hcp.xml", (FIX / "usebio_handicap_pairs.xml").read_bytes())
    assert office.run().exit_code == nightly.EXIT_OK
    st = office.query("select direction, entrant, handicap, handicap_percentage, handicap_rank, rank from session_standings")
    assert _hcp(st) == HCP_HALF
    html = next((office.state / "publications" / CLUB).glob("*handicap-pairs")).joinpath("index.html").read_text("utf-8")
    assert "Hcp %" in html and "59.29" in html and "89.50" in html


# Average-plus per the EBU White Book. A 3-table Mitchell (two winners), 4 boards, top 4 a board:
#   board 1 (none vul): NS1-EW1 4S= N 420, NS2-EW2 2S+2 N 170, NS3-EW3 4S-1 N -50
#            NS1 4, NS2 2, NS3 0;  EW1 0, EW2 2, EW3 4
#   board 2 (NS vul):   NS1-EW2 4H= S 620, NS2-EW3 3S= S 140, NS3-EW1 4S-1 N -100
#            NS1 4, NS2 2, NS3 0;  EW2 0, EW3 2, EW1 4
#   board 3 (EW vul):   NS1-EW3 A60/40 (AVE+ to NS1, AVE- to EW3), NS2-EW1 2S= N 110, NS3-EW2 3S= N 140
#            2 real results of N = 3: raw NS2 0, NS3 2 -> Neuberg (mp + 1) x 3/2 - 1: NS2 0.5, NS3 3.5;
#            EW1 3.5, EW2 0.5.  Fixed: NS1 60 % of 4 = 2.4, EW3 40 % = 1.6
#   board 4 (all vul):  NS1-EW1 2H= N 110, NS2-EW2 3NT= N 600, NS3-EW3 A40/60 (AVE- to NS3, AVE+ to EW3)
#            raw NS1 0, NS2 2 -> NS1 0.5, NS2 3.5; EW1 3.5, EW2 0.5.  Fixed: NS3 1.6, EW3 2.4
# Fixed 60/40 (top 16): NS1 4+4+2.4+0.5 = 10.9 = 68.125 -> 68.13; NS2 2+2+0.5+3.5 = 8 = 50.00;
#   NS3 0+0+3.5+1.6 = 5.1 = 31.875 -> 31.88; EW1 0+4+3.5+3.5 = 11 = 68.75; EW2 2+0+0.5+0.5 = 3 = 18.75;
#   EW3 4+2+1.6+2.4 = 10 = 62.50.
# Own session percentages on the boards not adjusted:
#   NS1 boards 1, 2, 4: 8.5 / 12 = 70.833 -> 70.83 (> 60: AVE+ becomes 70.83 % of 4 = 2.8332)
#   NS3 boards 1, 2, 3: 3.5 / 12 = 29.166 -> 29.17 (< 40: AVE- becomes 29.17 % of 4 = 1.1668)
#   EW3 boards 1, 2:    6 / 8 = 75.00 (AVE- on board 3 stays 40 % = 1.6; AVE+ on board 4 becomes 75 % = 3.0)
# White Book: NS1 4+4+2.8332+0.5 = 11.3332 / 16 = 70.8325 -> 70.83; NS3 3.5+1.1668 = 4.6668 / 16 = 29.1675
#   -> 29.17; EW3 4+2+1.6+3 = 10.6 / 16 = 66.25; the others as fixed.
AVERAGES = (
    "event_date,event_name,board,ns_pair,ew_pair,contract,declarer,result,score_ns,adjusted\n"
    "2026-11-25,Average Plus,1,1,1,4S,N,10,420,\n2026-11-25,Average Plus,1,2,2,2S,N,10,170,\n"
    "2026-11-25,Average Plus,1,3,3,4S,N,9,-50,\n"
    "2026-11-25,Average Plus,2,1,2,4H,S,10,620,\n2026-11-25,Average Plus,2,2,3,3S,S,9,140,\n"
    "2026-11-25,Average Plus,2,3,1,4S,N,9,-100,\n"
    "2026-11-25,Average Plus,3,1,3,,,,,A60/40\n2026-11-25,Average Plus,3,2,1,2S,N,8,110,\n"
    "2026-11-25,Average Plus,3,3,2,3S,N,9,140,\n"
    "2026-11-25,Average Plus,4,1,1,2H,N,8,110,\n2026-11-25,Average Plus,4,2,2,3NT,N,9,600,\n"
    "2026-11-25,Average Plus,4,3,3,,,,,A40/60\n"
)
FIXED = {("NS", "1"): "68.13", ("NS", "2"): "50.00", ("NS", "3"): "31.88",
         ("EW", "1"): "68.75", ("EW", "2"): "18.75", ("EW", "3"): "62.50"}
WHITE_BOOK = {**FIXED, ("NS", "1"): "70.83", ("NS", "3"): "29.17", ("EW", "3"): "66.25"}


def test_average_plus_fixed_and_per_the_white_book():
    from pipelines.bridge.parse_csv import parse_csv
    frames, q = parse_csv("club/ave.csv", AVERAGES.encode())
    assert q.empty, q.to_dict("records")
    for setting, expected in (("fixed", FIXED), ("white_book", WHITE_BOOK)):
        out = compute_standings(frames["traveller_lines"], frames["events"].assign(average_plus=setting), frames["entrants"])
        st = out["session_standings"]
        assert {(r.direction, r.entrant): str(r.percentage) for r in st.itertuples()} == expected, setting
    b = out["board_results"].set_index(["board", "ns_pair"])
    # exact units: 70.83 % of a top of 4 is 2.8332, 29.17 % is 1.1668, 75 % is 3 (EW3 on board 4)
    assert b.loc[(3, "1"), "mp_ns"] == pytest.approx(2.8332, abs=1e-12)
    assert b.loc[(4, "3"), "mp_ns"] == pytest.approx(1.1668, abs=1e-12) and b.loc[(4, "3"), "mp_ew"] == 3.0
    assert b.loc[(3, "1"), "mp_ns_x"] * 10000 == 28332 * b.loc[(3, "1"), "mp_den"]


def test_average_plus_setting_through_the_nightly_run(office):
    office.club_with('average_plus = "white_book"\n')
    office.post(f"{CLUB}/2026-11-25-ave.csv", AVERAGES.encode())
    assert office.run().exit_code == nightly.EXIT_OK
    st = office.query("select direction, entrant, percentage from session_standings")
    assert {(r.direction, r.entrant): str(r.percentage) for r in st.itertuples()} == WHITE_BOOK


def test_a_bridgemate_receiveddata_export_is_read_as_the_scorer_meant():
    """bridgemate_receiveddata.csv: Bridgemate's ReceivedData table exported as CSV, laid out as
    Bridgemate writes it (Declarer = the declaring pair's number, NS/EW = its seat, Contract '4 S' /
    '3 NT', Result '=' / '+2' / '-1', adjusted scores in Remarks as '60%-40%', DateLog, Erased).
    The same session as AVERAGES above (NS pair k at table k all session: a Mitchell), plus an
    erased first entry at table 3 board 1 (4S= replaced by 4S-1): the erased line is not a result.
    So the percentages are FIXED, worked out above."""
    from pipelines.bridge.parse_csv import parse_csv
    frames, q = parse_csv("club/2026-11-27-friday-pairs.csv", (FIX / "bridgemate_receiveddata.csv").read_bytes())
    assert q.empty, q.to_dict("records")
    ev = frames["events"].iloc[0]
    assert str(ev["event_date"]) == "2026-11-27" and ev["movement"] == "mitchell" and ev["name"] == "friday pairs"
    lines = frames["traveller_lines"].set_index(["board", "ns_pair"])
    assert len(lines) == 12 and lines.loc[(1, "3"), "score_ns"] == -50 and lines.loc[(1, "2"), "score_ns"] == 170
    assert lines.loc[(3, "1"), "adjusted"] != "" and lines.loc[(3, "1"), "adj_ns_pct"] == 60
    assert lines.loc[(1, "3"), "location"] == "line 5"  # the physical line of the file
    st = compute_standings(frames["traveller_lines"], frames["events"], frames["entrants"])["session_standings"]
    assert {(r.direction, r.entrant): str(r.percentage) for r in st.itertuples()} == FIXED


def test_a_bridgemate_export_without_a_date_says_how_to_name_it():
    from pipelines.bridge.parse_csv import parse_csv
    data = (FIX / "bridgemate_receiveddata.csv").read_text().replace(",2026-11-27,2026-11-27 ", ",,2026-11-27 ")
    frames, q = parse_csv("club/friday.csv", data.encode())
    assert len(q) == 12 and "name the file YYYY-MM-DD-<event>.csv" in q["reason"].iloc[0]
    frames, q = parse_csv("club/2026-11-27-friday.csv", data.encode())  # the file's name gives the date
    assert q.empty and str(frames["events"]["event_date"].iloc[0]) == "2026-11-27"


def test_a_bridgemate_export_posts_through_the_nightly_run(office):
    office.post(f"{CLUB}/2026-11-27-friday-pairs.csv", (FIX / "bridgemate_receiveddata.csv").read_bytes())
    assert office.run().exit_code == nightly.EXIT_OK
    st = office.query("select direction, entrant, percentage from session_standings")
    assert {(r.direction, r.entrant): str(r.percentage) for r in st.itertuples()} == FIXED


PLAYERS = (
    "Section,Table,Direction,Number,Name\n"
    "1,1,N,1001,Nora North\n1,1,S,1002,Sam South\n1,1,E,2001,Eve East\n1,1,W,2002,Will West\n"
    "1,2,N,1003,Nina\n1,2,S,1004,Sol\n1,2,E,2003,Ed\n1,2,W,2004,Wu\n"
    "1,3,N,1005,Ned\n1,3,S,1006,Sue\n1,3,E,2005,Ela\n1,3,W,2006,Wim\n"
    "1,9,N,1099,Nobody\n"
)


def test_bridgemate_players_from_its_playernumbers_table():
    """The PlayerNumbers table pasted under ReceivedData (its own header): the players at a table's
    North and South are the pair sitting NS there in the first round (no Round column), East and
    West the EW pair. Round 1 (board 1): table 1 NS1 v EW1, table 2 NS2 v EW2, table 3 NS3 v EW3.
    So NS1 = 1001;1002, EW1 = 2001;2002, ..., EW3 = 2005;2006. Table 9 played nothing: reported."""
    from pipelines.bridge.parse_csv import parse_csv
    data = (FIX / "bridgemate_receiveddata.csv").read_text() + PLAYERS
    frames, q = parse_csv("club/2026-11-27-friday-pairs.csv", data.encode())
    # ReceivedData: header + 13 rows (lines 1-14); PlayerNumbers header line 15, 12 players 16-27, table 9 line 28
    assert q["location"].tolist() == ["line 28"] and "table 9" in q["reason"].iloc[0]
    st = compute_standings(frames["traveller_lines"], frames["events"], frames["entrants"])["session_standings"]
    got = {(r.direction, r.entrant): (r.player_ids, r.player_names, str(r.percentage)) for r in st.itertuples()}
    assert got == {
        ("NS", "1"): ("1001;1002", "Nora North; Sam South", FIXED[("NS", "1")]),
        ("NS", "2"): ("1003;1004", "Nina; Sol", FIXED[("NS", "2")]),
        ("NS", "3"): ("1005;1006", "Ned; Sue", FIXED[("NS", "3")]),
        ("EW", "1"): ("2001;2002", "Eve East; Will West", FIXED[("EW", "1")]),
        ("EW", "2"): ("2003;2004", "Ed; Wu", FIXED[("EW", "2")]),
        ("EW", "3"): ("2005;2006", "Ela; Wim", FIXED[("EW", "3")]),
    }


def test_bridgemate_players_without_a_table_column_are_reported():
    from pipelines.bridge.parse_csv import parse_csv
    text = (FIX / "bridgemate_receiveddata.csv").read_text()
    lines = text.splitlines()
    # drop the Table column (the 2nd) of ReceivedData
    cut = "\n".join(",".join(v for j, v in enumerate(ln.split(",")) if j != 1) for ln in lines) + "\n"
    frames, q = parse_csv("club/2026-11-27-friday-pairs.csv", (cut + PLAYERS).encode())
    assert len(frames["traveller_lines"]) == 12
    assert len(q) == 13 and set(q["reason"]) == {"a PlayerNumbers row, but the ReceivedData rows have no Table column, "
                                                   "so no player can be seated: export ReceivedData with its Table column"}

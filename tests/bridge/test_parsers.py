"""Parsers: real-looking files in three formats, the same session in PBN and USEBIO, and malformed
or hostile files (which are quarantined, never raised)."""


import numpy as np
import pandas as pd
import pytest

from pipelines.bridge.parse_csv import parse_csv
from pipelines.bridge.parse_pbn import parse_pbn
from pipelines.bridge.parse_usebio import parse_usebio
from pipelines.bridge.samples import HOWELL, MONDAY, TEAMS, howell_session, mitchell_session, teams_event, teams_to_pbn, to_csv, to_pbn, to_usebio
from pipelines.bridge.standings import compute_standings
from schemas.bridge import BoardResults, SessionStandings, TeamMatches, TravellerLines

QCOLS = ["source_file", "location", "reason"]

USEBIO_HEAD = """<?xml version="1.0" encoding="UTF-8"?>
<USEBIO Version="1.2"><CLUB><CLUB_NAME>Test Club</CLUB_NAME></CLUB>
<EVENT EVENT_TYPE="PAIRS"><EVENT_DESCRIPTION>Tuesday Pairs</EVENT_DESCRIPTION><DATE>10/11/2026</DATE><WINNER_TYPE>2</WINNER_TYPE>
<PARTICIPANTS>
<PAIR><PAIR_NUMBER>1 NS</PAIR_NUMBER><DIRECTION>NS</DIRECTION><PLAYER><PLAYER_NAME>Ann Smith</PLAYER_NAME><NATIONAL_ID_NUMBER>101</NATIONAL_ID_NUMBER></PLAYER><PLAYER><PLAYER_NAME>Bo Lee</PLAYER_NAME><NATIONAL_ID_NUMBER>102</NATIONAL_ID_NUMBER></PLAYER></PAIR>
<PAIR><PAIR_NUMBER>2 NS</PAIR_NUMBER><DIRECTION>NS</DIRECTION><PLAYER><PLAYER_NAME>Cy Ng</PLAYER_NAME><NATIONAL_ID_NUMBER>103</NATIONAL_ID_NUMBER></PLAYER><PLAYER><PLAYER_NAME>Di Ott</PLAYER_NAME><NATIONAL_ID_NUMBER>104</NATIONAL_ID_NUMBER></PLAYER></PAIR>
<PAIR><PAIR_NUMBER>1 EW</PAIR_NUMBER><DIRECTION>EW</DIRECTION><PLAYER><PLAYER_NAME>Ed Fox</PLAYER_NAME><NATIONAL_ID_NUMBER>105</NATIONAL_ID_NUMBER></PLAYER><PLAYER><PLAYER_NAME>Flo Gu</PLAYER_NAME><NATIONAL_ID_NUMBER>106</NATIONAL_ID_NUMBER></PLAYER></PAIR>
<PAIR><PAIR_NUMBER>2 EW</PAIR_NUMBER><DIRECTION>EW</DIRECTION><PLAYER><PLAYER_NAME>Gil Ha</PLAYER_NAME><NATIONAL_ID_NUMBER>107</NATIONAL_ID_NUMBER></PLAYER><PLAYER><PLAYER_NAME>Hal Ives</PLAYER_NAME><NATIONAL_ID_NUMBER>108</NATIONAL_ID_NUMBER></PLAYER></PAIR>
</PARTICIPANTS>
"""


def usebio(boards: str, head: str = USEBIO_HEAD) -> bytes:
    return (head + boards + "</EVENT></USEBIO>").encode("utf-8")


def tl(ns, ew, contract, by, tricks, score):
    parts = f"<NS_PAIR_NUMBER>{ns}</NS_PAIR_NUMBER><EW_PAIR_NUMBER>{ew}</EW_PAIR_NUMBER>"
    if contract is not None:
        parts += f"<CONTRACT>{contract}</CONTRACT><PLAYED_BY>{by}</PLAYED_BY><TRICKS>{tricks}</TRICKS>"
    return f"<TRAVELLER_LINE>{parts}<SCORE>{score}</SCORE></TRAVELLER_LINE>"


def test_usebio_tricks_spellings_contract_spellings_and_pair_numbers():
    xml = usebio("<BOARD><BOARD_NUMBER>1</BOARD_NUMBER>"
                 + tl("1 NS", "1 EW", "3 NT", "N", "+1", 430)      # relative
                 + tl("2 NS", "2 EW", "4SX", "E", "8", 500)         # count; board 1 None: 4SX -2 = +300? see below
                 + "</BOARD><BOARD><BOARD_NUMBER>2</BOARD_NUMBER>"
                 + tl("1 NS", "2 EW", "3 NT XX", "S", "=", 1000)    # board 2 NS vul: 3NTXX= 400*... = 1000
                 + tl("2 NS", "1 EW", "PASS", "", "", 0)
                 + "</BOARD>")
    frames, q = parse_usebio("club/tue.xml", xml)
    lines = frames["traveller_lines"].set_index(["board", "ns_pair"])
    # board 1, 4SX by E down 2, EW not vulnerable: NS +300 by Law 77; a USEBIO file is a scorer's
    # record, so its stated 500 is what was matchpointed: scored as stated, Law 77's 300 kept beside it
    # (issue 16; a hand-typed CSV still quarantines such a line, tests/bridge/test_usebio_quirks.py)
    assert list(q.columns) == QCOLS and q.empty
    assert lines.loc[(1, "2"), "score_ns"] == 500 and lines.loc[(1, "2"), "law77_score_ns"] == 300
    assert lines.loc[(1, "1"), "tricks"] == 10 and lines.loc[(1, "1"), "score_ns"] == 430
    # 3NTXX vul made: 100*4 = 400 + 500 + 100 = 1000
    assert lines.loc[(2, "1"), "contract"] == "3NTXX" and lines.loc[(2, "1"), "score_ns"] == 1000
    assert lines.loc[(2, "2"), "contract"] == "PASS" and lines.loc[(2, "2"), "score_ns"] == 0
    assert set(frames["entrants"]["player_ids"]) == {"101;102", "103;104", "105;106", "107;108"}
    TravellerLines.validate(frames["traveller_lines"])


def test_usebio_unknown_pair_and_pair_playing_twice():
    xml = usebio("<BOARD><BOARD_NUMBER>1</BOARD_NUMBER>"
                 + tl("1 NS", "1 EW", "4S", "N", "10", 420)
                 + tl("1 NS", "2 EW", "4S", "N", "10", 420)
                 + tl("7 NS", "2 EW", "4S", "N", "10", 420) + "</BOARD>")
    frames, q = parse_usebio("club/tue.xml", xml)
    assert frames["traveller_lines"].empty
    reasons = dict(zip(q["location"], q["reason"]))
    assert "more than one result on board 1" in reasons["BOARD 1, TRAVELLER_LINE 1"]
    assert "TRAVELLER_LINE 2" in reasons["BOARD 1, TRAVELLER_LINE 1"]  # names the other line
    assert "unknown North-South pair number 7" in reasons["BOARD 1, TRAVELLER_LINE 3"]


def test_usebio_impossible_contracts_and_tricks():
    xml = usebio("<BOARD><BOARD_NUMBER>1</BOARD_NUMBER>"
                 + tl("1 NS", "1 EW", "8S", "N", "10", 0)
                 + tl("2 NS", "2 EW", "4S", "N", "+4", 0) + "</BOARD>")
    frames, q = parse_usebio("club/tue.xml", xml)
    r = q.set_index("location")["reason"]
    assert "'8S' is not a contract" in r["BOARD 1, TRAVELLER_LINE 1"]
    assert "14 tricks is impossible" in r["BOARD 1, TRAVELLER_LINE 2"]


def test_usebio_adjusted_scores_ebu_style():
    xml = usebio("<BOARD><BOARD_NUMBER>1</BOARD_NUMBER>"
                 + tl("1 NS", "1 EW", None, "", "", "A6040") + tl("2 NS", "2 EW", "4S", "N", "10", 420) + "</BOARD>")
    frames, q = parse_usebio("club/tue.xml", xml)
    assert q.empty
    adj = frames["traveller_lines"].set_index("ns_pair").loc["1"]
    assert (adj["adj_ns_pct"], adj["adj_ew_pct"], adj["adjusted"]) == (60, 40, "A60/40")


BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>
<USEBIO><EVENT><EVENT_DESCRIPTION>&lol3;</EVENT_DESCRIPTION></EVENT></USEBIO>"""
XXE = b"""<?xml version="1.0"?>
<!DOCTYPE u [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<USEBIO><EVENT><EVENT_DESCRIPTION>&xxe;</EVENT_DESCRIPTION><DATE>01/01/2026</DATE></EVENT></USEBIO>"""


@pytest.mark.parametrize("data,needle", [
    (BILLION_LAUGHS, "DTD"),
    (XXE, "DTD"),
    (b"<USEBIO><EVENT><DATE>01/01/2026</DATE>", "not well-formed XML"),
    (b"<RESULTS/>", "expected <USEBIO>"),
    (b"", "not well-formed XML"),
    (b"\x00\xff\xfe garbage", "not well-formed XML"),
])
def test_hostile_and_malformed_xml_is_quarantined(data, needle):
    frames, q = parse_usebio("club/bad.xml", data)
    assert list(q.columns) == QCOLS and len(q) == 1
    assert needle in q.iloc[0]["reason"]
    assert q.iloc[0]["source_file"] == "club/bad.xml"
    assert frames["traveller_lines"].empty


def test_entities_are_not_expanded_even_without_dtd_marker_position():
    # the DOCTYPE after a long comment is still refused by defusedxml itself
    data = b"<?xml version='1.0'?>\n<!--" + b"x" * 5000 + b"-->\n" + XXE.split(b"\n", 1)[1]
    frames, q = parse_usebio("club/bad.xml", data)
    assert len(q) == 1 and "DTD" in q.iloc[0]["reason"]


def test_usebio_iso_8859_1_declared_and_undeclared():
    head = USEBIO_HEAD.replace('encoding="UTF-8"', 'encoding="ISO-8859-1"').replace("Ann Smith", "Åsa Malmö")
    body = "<BOARD><BOARD_NUMBER>1</BOARD_NUMBER>" + tl("1 NS", "1 EW", "4 S", "N", "10", 420) + "</BOARD></EVENT></USEBIO>"
    data = (head + body).encode("iso-8859-1")
    frames, q = parse_usebio("club/latin1.xml", data)
    assert q.empty and "Åsa Malmö" in frames["entrants"]["player_names"].iloc[0]
    undeclared = data.replace(b' encoding="ISO-8859-1"', b"")
    frames, q = parse_usebio("club/latin1.xml", undeclared)
    assert q.empty and "Åsa Malmö" in frames["entrants"]["player_names"].iloc[0]


def _standings_of(frames):
    r = compute_standings(frames["traveller_lines"], frames["events"], frames["entrants"])
    return r


def test_same_session_in_pbn_and_usebio_gives_identical_results():
    s = mitchell_session(**MONDAY)
    fp, qp = parse_pbn("tokyo/mon.pbn", to_pbn(s))
    fu, qu = parse_usebio("tokyo/mon.xml", to_usebio(s))
    assert qp.empty and qu.empty
    rp, ru = _standings_of(fp), _standings_of(fu)
    pd.testing.assert_frame_equal(rp["session_standings"], ru["session_standings"])
    pd.testing.assert_frame_equal(rp["board_results"], ru["board_results"])
    st = SessionStandings.validate(rp["session_standings"])
    BoardResults.validate(rp["board_results"])
    assert len(st) == 24 and set(st["direction"]) == {"NS", "EW"}
    assert st["player_ids"].str.fullmatch(r"\d{8};\d{8}").all()
    # one line was not played (a 23-board pair) and one adjusted: the generator's human touches
    assert sorted(st["boards"].unique().tolist()) == [23, 24]
    assert rp["board_results"]["neuberg"].any() and (rp["board_results"]["adjusted"] == "A60/40").sum() == 1


def test_csv_same_session_as_pbn():
    s = howell_session(**HOWELL)
    fc, qc = parse_csv("tokyo/sat.csv", to_csv(s))
    fp, qp = parse_pbn("tokyo/sat.pbn", to_pbn(s))
    assert qc.empty and qp.empty
    a = _standings_of(fc)["session_standings"]
    b = _standings_of(fp)["session_standings"]
    pd.testing.assert_frame_equal(a, b)
    assert (a["direction"] == "").all() and len(a) == 8  # one-winner Howell


def test_pbn_teams_file():
    f, q = parse_pbn("tokyo/sun.pbn", teams_to_pbn(teams_event(**TEAMS)))
    assert q.empty and f["events"]["movement"].iloc[0] == "teams"
    r = _standings_of(f)
    tm = TeamMatches.validate(r["team_matches"])
    assert len(tm) == 12 and r["problems"].empty
    assert (tm.groupby(["round", "team"]).size() == 1).all()


PBN_BAD = """% PBN 2.1
[Event "Wednesday Pairs"]
[Movement "Mitchell"]
[Date "2026.11.11"]
[Board "1"]
[Vulnerable "None"]
[ScoreTable "PairId_NS\\2R;PairId_EW\\2R;Contract\\5L;Declarer\\1R;Result\\2R;Score_NS\\6R"]
 1  1 4S    N 10    420
 2  2 4S    N
 3  3 4S    N 10    450
 4  4 4S    Q 10    420
 5  5 7NT   S 14   2220
 6  6 AVE+  - -        -

[Event "#"]
[Date "#"]
[Board "2"]
[Vulnerable "Sideways"]
[ScoreTable "PairId_NS\\2R;PairId_EW\\2R;Contract\\5L;Declarer\\1R;Result\\2R;Score_NS\\6R"]
 1  2 3NT   N  9    400
"""


def test_pbn_malformed_rows_are_quarantined_with_locations():
    frames, q = parse_pbn("club/wed.pbn", PBN_BAD.encode())
    r = q.set_index("location")["reason"]
    assert "expected 6 values" in r["BOARD 1, SCORETABLE ROW 2 (line 9)"]
    assert "stated score 450" in r["BOARD 1, SCORETABLE ROW 3 (line 10)"]
    assert "declarer 'Q'" in r["BOARD 1, SCORETABLE ROW 4 (line 11)"]
    assert "14 tricks is impossible" in r["BOARD 1, SCORETABLE ROW 5 (line 12)"]
    assert "vulnerability 'Sideways'" in r["BOARD 2, SCORETABLE ROW 1 (line 20)"]
    assert len(q) == 5
    good = frames["traveller_lines"]
    assert sorted(good["ns_pair"]) == ["1", "6"] and good.set_index("ns_pair").loc["6", "adj_ns_pct"] == 60


@pytest.mark.parametrize("text,needle", [
    ("", "no PBN games"),
    ('[Event "x"]\n[Date "someday"]\n[Board "1"]\n', "is not a date"),
    ('[Event "x"]\n[Date "2026.11.11"]\n[Board "1"]\n', "no results"),
])
def test_pbn_unusable_files(text, needle):
    frames, q = parse_pbn("club/x.pbn", text.encode())
    assert len(q) == 1 and needle in q.iloc[0]["reason"]


def test_csv_bad_header_and_bad_rows():
    frames, q = parse_csv("club/x.csv", b"board,ns_pair\n1,2\n")
    assert len(q) == 1 and "lacks the column(s) event_date" in q.iloc[0]["reason"] and q.iloc[0]["location"] == "line 1"
    data = ("event_date,board,ns_pair,ew_pair,contract,declarer,result,score_ns\n"
            "2026-11-11,1,1,1,4S,N,10,420\n"
            "11/31/2026,1,2,2,4S,N,10,420\n"
            "2026-11-11,1,3,3,4S,N\n"
            "2026-11-11,x,4,4,4S,N,10,420\n").encode()
    frames, q = parse_csv("club/x.csv", data)
    r = q.set_index("location")["reason"]
    assert "is not a date" in r["line 3"] and "expected 8 comma-separated values" in r["line 4"]
    assert "board number 'x'" in r["line 5"]
    assert frames["traveller_lines"]["score_ns"].tolist() == [420]


@pytest.mark.parametrize("parser", [parse_pbn, parse_usebio, parse_csv])
def test_parsers_never_raise_on_garbage(parser):
    rng = np.random.default_rng(7)
    for n in (1, 10, 200, 3000):
        frames, q = parser("club/garbage", bytes(rng.integers(0, 256, n, dtype=np.uint8)))
        assert list(q.columns) == QCOLS and set(frames) >= {"events", "entrants", "traveller_lines"}

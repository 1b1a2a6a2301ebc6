"""Parsers of the documented files: good files give frames that compute_awards takes; bad
input never raises and every problem names the line, what was expected and what was found."""
from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pandas as pd
import pytest

from jcbl_helpers import rules
from pipelines.jcbl import (compute_awards, holdings_as_of, parse_event, parse_opening_balances,
                            parse_standings)

D = Decimal
SAMPLES = Path(__file__).resolve().parents[2] / "data" / "samples" / "inbox" / "jcbl-tokyo"

EVENT = """\
# 東京 STF ペア
name: 東京STFペア
date: ２０２４-06-02
kind: stf_pairs
day: weekend
sessions: 2
boards_per_session: 26
strats: A=open, B=△1000, C=500
"""

STANDINGS = """\
rank,entrant,players,session_1,session_2
1,N1,J1 J2,62.50,55%
2=,N2,J3 J4,５０,48
2=,N3,J5 J6,45,40
4,N4,J7 J8,40,41.5
"""


def test_event_file():
    frames, q = parse_event("jcbl-tokyo/2024/2024-06-02-stf.event.txt", EVENT.encode())
    assert q.empty
    ev = frames["event"].iloc[0]
    assert (ev["organisation"], ev["event_id"], ev["kind"], ev["weekday"], ev["boards_per_session"]) == \
        ("jcbl-tokyo", "2024-06-02-stf", "stf_pairs", False, 26)
    assert ev["event_date"] == pd.Timestamp("2024-06-02")
    assert list(frames["strats"]["strat_limit"].astype(object).where(frames["strats"]["strat_limit"].notna(), None)) == [None, 1000, 500]


def test_standings_file_and_awards():
    frames, q = parse_standings("jcbl-tokyo/2024/2024-06-02-stf.standings.csv", STANDINGS.encode())
    assert q.empty
    st = frames["standings"]
    assert list(st["rank"]) == [1, 2, 2, 4] and list(st["location"]) == ["line 2", "line 3", "line 4", "line 5"]
    assert st["session_1_pct"].iloc[1] == D(50) and st["session_2_pct"].iloc[0] == D(55)
    ev, _ = parse_event("jcbl-tokyo/2024/2024-06-02-stf.event.txt", EVENT.encode())
    hold = pd.DataFrame({"player_id": ["J1", "J2", "J3", "J4", "J5", "J6", "J7", "J8"],
                         "masterpoints": [D(5000)] * 4 + [D(100), D(200)] + [D(5000)] * 2})
    lines = compute_awards(ev, st, hold, rules())
    assert set(lines["location"]) <= {"line 2", "line 3", "line 4", "line 5"}
    # 4 pairs: top 2 paid in strat A; N2, N3 tie 2nd=: (0.08×24×0.7 + 0)/2 = 0.672 → 0.67
    rp = lines[lines["denomination"] == "RP"].set_index("player_id")["points"]
    assert rp["J1"] == D("1.92") and rp["J3"] == D("0.67")
    # N3 (100 and 200 MP) is alone in strats B and C: B 0.08×21×13/16 = 1.365 → 1.37 beats C 1.16 and A 0.67
    assert rp["J5"] == D("1.37")
    basis = lines[(lines["player_id"] == "J5") & (lines["denomination"] == "RP")]["basis"].iloc[0]
    assert "best of strats A: 0.67, B: 1.37, C: 1.16" in basis, basis


@pytest.mark.parametrize("text,where,fragment", [
    ("date: 2024-13-01\nkind: weekly_pairs\n", "line 1", "expected a date YYYY-MM-DD, found '2024-13-01'"),
    ("date: 2024-06-01\nkind: weekly_pair\n", "line 2", "unknown kind 'weekly_pair'"),
    ("date: 2024-06-01\nkind: weekly_pairs\nclas: 3\n", "line 3", "unknown setting 'clas'"),
    ("date: 2024-06-01\nkind: weekly_pairs\nclass: three\n", "line 3", "class: expected a whole number 1-9, found 'three'"),
    ("kind: weekly_pairs\n", "date", "missing setting 'date'"),
    ("date: 2024-06-01\nkind: stf_pairs\nstrats: A=1000, B=open\n", "line 3", "the first strat must be open"),
    # the fuzz campaign's finding (tests/jcbl/fixtures/fuzz-strat-limit-zero.event.txt is the file itself)
    ("date: 2024-06-01\nkind: stf_pairs\nstrats: A=open, B=1000, C=0\n", "line 3",
     "a limit is a number of masterpoints of at least 1 (B=1000 means under 1000 MP), found [1000, 0]"),
    ("date: 2024-06-01\ndate: 2024-06-02\nkind: weekly_pairs\n", "line 2", "given twice"),
    ("just some words\n", "line 1", "expected 'key: value'"),
    # binary data (a NUL byte): one reason for the whole file, from the shared key: value reader
    (b"\xff\xfe\x00garbage".decode("latin-1"), "whole file", "found binary data (NUL bytes)"),
])
def test_bad_event_files(text, where, fragment):
    frames, q = parse_event("jcbl-tokyo/x.event.txt", text.encode("utf-8"))
    assert frames["event"].empty
    assert list(q.columns) == ["source_file", "location", "reason"]
    hit = q[q["reason"].str.contains(fragment, regex=False)]
    assert len(hit) == 1 and hit["location"].iloc[0] == where, q.to_string()


@pytest.mark.parametrize("text,where,fragment", [
    ("rank,entrant,players\n1,N1,J1\n", "line 2", "expected 2 player ids (pair) or 4 to 6 (team), found 1"),
    ("rank,entrant,players\nfirst,N1,J1 J2\n", "line 2", "rank: expected a place such as 3 or 3=, found 'first'"),
    ("rank,entrant,players,session_1\n1,N1,J1 J2,105\n", "line 2", "session_1: expected a percentage 0-100"),
    ("rank,entrant,players\n1,N1,J1 J2\n3,N2,J3 J4\n", "line 3", "expected rank 2 here"),
    ("rank,entrant,players\n1,N1,J1 J2\n2,N2,J1 J4\n", "line 2, line 3", "player J1 is in more than one pair"),
    ("rank,entrant,players\n1,N1,J1 J2\n2,N1,J3 J4\n", "line 2, line 3", "pair N1 is listed more than once"),
    ("rank,players\n1,J1 J2\n", "line 1", "missing column(s) entrant"),
    ("rank,entrant,players,vp\n1,N1,J1 J2,3\n", "line 1", "unknown column(s) vp"),
    ("rank,entrant,players\n1,N1,J1 J2,extra\n", "line 2", "expected 3 comma-separated fields"),
    ("rank,entrant,players,match_vps\n1,T1,A B C D,12 x\n", "line 2", "match_vps: expected VPs separated by spaces"),
    ("", "file", "found an empty file"),
    # Excel's unformatted percentages: 63.40 % is stored as 0.634; read as 0.634 % it would pay no
    # session BP (a field cannot all score under 1 %), so the file is held, naming the top score
    ("rank,entrant,players,session_1\n1,N1,J1 J2,0.5\n2,N2,J3 J4,0.6340\n3,N3,J5 J6,0.40\n", "line 3",
     "session_1: expected percentages such as 63.40, found '0.6340' as the highest score of 3: these look like "
     "fractions (0.6340 = 63.4 %)"),
])
def test_bad_standings_files(text, where, fragment):
    frames, q = parse_standings("jcbl-tokyo/e.standings.csv", text.encode("utf-8"))
    assert frames["standings"].empty
    hit = q[q["reason"].str.contains(fragment, regex=False)]
    assert len(hit) >= 1 and hit["location"].iloc[0] == where, q.to_string()
    if where != "file" and where != "line 1":
        assert q["reason"].str.contains("standings held back").any()


def test_opening_balances_and_holdings():
    text = "player_id,as_of,rp,bp,note\nJ1,2024-04-01,120.50,300.25,joined from JCBL Osaka\nJ2,2024-04-01,x,0,\nJ3,2025-01-01,1000,0,later\n"
    frames, q = parse_opening_balances("jcbl-tokyo/opening_balances.csv", text.encode())
    ob = frames["opening_balances"]
    assert list(ob["player_id"]) == ["J1", "J3"] and list(q["location"]) == ["line 3"]
    ledger = pd.DataFrame({"player_id": ["J1", "J1", "J4"], "event_date": pd.to_datetime(["2024-05-01", "2024-06-02", "2024-05-01"]),
                           "points": [D("1.25"), D("9.00"), D("0.50")]})
    h = holdings_as_of(ledger, ob, "2024-06-02").set_index("player_id")["masterpoints"]
    assert h.to_dict() == {"J1": D("422.00"), "J4": D("0.50")}  # the 2024-06-02 line and J3 (2025) not yet


def test_samples_parse_and_score():
    """The bundled sample inbox: every event scores; the malformed file is quarantined."""
    if not SAMPLES.exists():
        pytest.skip("no samples")
    events = sorted(SAMPLES.glob("*.event.txt"))
    assert events
    for path in events:
        src = f"jcbl-tokyo/{path.name}"
        ev, q = parse_event(src, path.read_bytes())
        stp = path.with_name(path.name.replace(".event.txt", ".standings.csv"))
        st, q2 = parse_standings(f"jcbl-tokyo/{stp.name}", stp.read_bytes())
        if "malformed" in path.name:
            assert len(q) + len(q2) > 0
            continue
        assert q.empty and q2.empty, (q.to_string(), q2.to_string())
        lines = compute_awards(ev, st["standings"], None, rules())
        assert len(lines) > 0

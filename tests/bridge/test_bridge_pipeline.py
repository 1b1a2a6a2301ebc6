"""Bridge scoring plugged into the nightly run: inbox → lake → warehouse views → publications.

The views must give what the pure scoring functions give on the same files, and what a hand
computation gives on a small session; the PBN and USEBIO versions of one session must give the
same standings; hostile and malformed files are quarantined while the rest posts; a second run
posts nothing; a corrected file replaces the standings.
"""
from __future__ import annotations

import shutil
from datetime import date
from decimal import Decimal
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pipelines.bridge import samples
from pipelines.bridge.parse_csv import parse_csv
from pipelines.bridge.parse_pbn import parse_pbn
from pipelines.bridge.parse_usebio import parse_usebio
from pipelines.bridge.standings import compute_standings
from pipelines.core import run as nightly
from office import Office  # tests/office.py (on sys.path)

AS_OF = date(2026, 12, 2)

ROOT = Path(__file__).resolve().parents[2]
CLUB = "tokyo-bridge-club"
SAMPLES = ROOT / "data" / "samples" / "inbox" / CLUB
PARSERS = {".pbn": parse_pbn, ".xml": parse_usebio, ".csv": parse_csv}
STANDING_COLUMNS = ["event_id", "session", "section", "direction", "entrant", "player_ids", "score", "max_score",
                    "percentage", "rank", "rank_label"]


def post_samples(office) -> None:
    for path in sorted(SAMPLES.iterdir()):
        office.post(f"{CLUB}/{path.name}", path.read_bytes())


def pure(path: Path):
    """The pure scoring of one sample file, with the organisation prefix the run adds."""
    frames, q = PARSERS[path.suffix](f"{CLUB}/{path.name}", path.read_bytes())
    assert q.empty
    for name in frames:
        frames[name] = frames[name].assign(event_id=CLUB + ":" + frames[name]["event_id"].astype(str))
    return compute_standings(frames["traveller_lines"], frames["events"], frames["entrants"])


def as_rows(frame, columns) -> set[tuple]:
    def norm(v):
        if v is None or v is pd.NA or (isinstance(v, float) and v != v):
            return None
        if isinstance(v, Decimal):
            return str(v)
        if isinstance(v, np.ndarray):  # a list column (player_ids, player_names)
            return tuple(v.tolist())
        return int(v) if isinstance(v, (int, np.integer)) and not isinstance(v, bool) else v
    return {tuple(norm(v) for v in row) for row in frame[columns].astype(object).itertuples(index=False)}


def _bridge_only(office, root: Path):
    """The office with a data folder holding only this club's settings (the real
    data/organisations/tokyo-bridge-club.toml and data/rules): other organisations' systems,
    developed alongside, do not take part in these runs."""
    data = root / "bridge-data"
    (data / "organisations").mkdir(parents=True)
    shutil.copy(ROOT / "data" / "organisations" / f"{CLUB}.toml", data / "organisations")
    (data / "rules").symlink_to(ROOT / "data" / "rules")
    office.run = lambda as_of=AS_OF: nightly.run(office.inbox, office.state, as_of, data_dir=data)
    return office


@pytest.fixture
def office(office, tmp_path):
    """The `office` of tests/conftest.py, for this club alone."""
    return _bridge_only(office, tmp_path)


@pytest.fixture
def sampled(office):
    """The samples posted and run, for a test that goes on from there."""
    post_samples(office)
    result = office.run()
    return office, result


@pytest.fixture(scope="module")
def sampled_once(tmp_path_factory):
    """The samples posted and run once for the module: the tests that only read what it posted."""
    root = tmp_path_factory.mktemp("bridge-samples")
    office = _bridge_only(Office(root), root)
    post_samples(office)
    result = office.run()
    return office, result


TWIN = "2026-11-09-monday-pairs.usebio.xml"  # the Monday session again, as USEBIO


def test_samples_post_one_event_per_session_and_the_usebio_twin_once(sampled_once):
    office, result = sampled_once
    assert result.exit_code == nightly.EXIT_QUARANTINE  # only the twin: its session already stands
    assert result.report["files"]["posted"] == 4 and result.report["award_lines"]["posted"] == 0
    q = office.query("select source_file, reason from quarantine")
    assert q["source_file"].tolist() == [f"{CLUB}/{TWIN}"]
    assert f"{CLUB}/2026-11-09-monday-pairs.pbn" in q["reason"].iloc[0]
    events = office.query("select event_id, kind, system from events order by event_date")
    assert events["kind"].tolist() == ["bridge_pairs_session"] * 3 + ["bridge_teams"]
    assert (events["system"] == "bridge").all() and events["event_id"].str.startswith(CLUB + ":").all()
    assert office.query("select count(*) as n from awards")["n"].iloc[0] == 0
    sessions = office.query("select event_name, movement, boards, entrants, traveller_lines from bridge_sessions order by event_date")
    assert sessions["movement"].tolist() == ["mitchell", "mitchell", "howell", "teams"]
    assert sessions["boards"].tolist()[:2] == [24, 24] and sessions["entrants"].tolist()[:2] == [24, 24]
    # every traveller line of the files is a board result (nothing lost, nothing added)
    lines = sum(len(PARSERS[p.suffix](p.name, p.read_bytes())[0]["traveller_lines"]) for p in SAMPLES.iterdir() if p.name != TWIN)
    assert office.query("select count(*) as n from board_results")["n"].iloc[0] == lines == sessions["traveller_lines"].sum()


@pytest.mark.parametrize("name", [p.name for p in sorted(SAMPLES.iterdir())])
def test_views_equal_the_pure_functions(sampled_once, name):
    office, _ = sampled_once
    expected = pure(SAMPLES / name)
    event_id = expected["board_results"]["event_id"].iloc[0]
    got = office.query("select * from session_standings where event_id = ?", [event_id])
    # the pure functions keep the file's ';'-joined ids; the view gives them as a list
    pure_standings = expected["session_standings"].assign(
        player_ids=expected["session_standings"]["player_ids"].map(lambda ids: np.array([i for i in ids.split(";") if i])))
    assert as_rows(got, STANDING_COLUMNS) == as_rows(pure_standings, STANDING_COLUMNS)
    board_cols = ["event_id", "session", "section", "board", "ns_pair", "ew_pair", "contract", "declarer", "tricks",
                  "score_ns", "mp_ns_x", "mp_ew_x", "mp_den", "imp_ns_x", "imp_den"]
    got = office.query("select * from board_results where event_id = ?", [event_id])
    assert as_rows(got, board_cols) == as_rows(expected["board_results"], board_cols)
    match_cols = ["event_id", "round", "team", "opponent", "imps_for", "imps_against", "vp"]
    got = office.query("select * from team_matches where event_id = ?", [event_id])
    assert as_rows(got, match_cols) == as_rows(expected["team_matches"], match_cols)


def test_display_matchpoints_are_the_exact_values_rounded_half_up(sampled_once):
    office, _ = sampled_once
    rows = office.query("select mp_ns, mp_ns_x, mp_den from board_results where mp_ns is not null")
    for mp, x, den in rows.itertuples(index=False):
        assert mp == (Decimal(x) / Decimal(den)).quantize(Decimal("0.01"), rounding="ROUND_HALF_UP")


# A 4-table Mitchell of 2 boards, checked by hand (docs/bridge.md, Neuberg and adjusted scores).
# Board 1 (none vul): 420, 420, 170, -50 -> NS 5, 5, 2, 0 of 6; EW 1, 1, 4, 6.
# Board 2 (NS vul): 110, 140, -100 and an A60/40: n = 3 real results, N = 4 lines.
#   raw NS 2, 4, 0 of 4 -> Neuberg (mp + 1) * 4 / 3 - 1 = 3, 17/3, 1/3 of 6; EW 3, 1/3, 17/3;
#   the adjusted line: NS 60 % of 6 = 3.6, EW 40 % = 2.4.
HAND = """event_date,event_name,board,ns_pair,ew_pair,contract,declarer,result,score_ns,adjusted,ns_ids,ew_ids
2026-11-20,Hand Check,1,1,1,4S,N,10,420,,N1a;N1b,E1a;E1b
2026-11-20,Hand Check,1,2,2,4S,N,10,420,,N2a;N2b,E2a;E2b
2026-11-20,Hand Check,1,3,3,2S,N,10,170,,N3a;N3b,E3a;E3b
2026-11-20,Hand Check,1,4,4,4S,N,9,-50,,N4a;N4b,E4a;E4b
2026-11-20,Hand Check,2,1,2,2H,S,8,110,,,
2026-11-20,Hand Check,2,2,3,2H,S,9,140,,,
2026-11-20,Hand Check,2,3,4,2H,S,7,-100,,,
2026-11-20,Hand Check,2,4,1,,,,,A60/40,,
"""
HAND_EXPECTED = {
    # (direction, pair): (score, percentage, rank_label)
    ("NS", "1"): ("8.00", "66.67", "2"),      # 5 + 3 = 8 of 12
    ("NS", "2"): ("10.67", "88.89", "1"),     # 5 + 17/3 = 32/3 of 12
    ("NS", "3"): ("2.33", "19.44", "4"),      # 2 + 1/3 = 7/3
    ("NS", "4"): ("3.60", "30.00", "3"),      # 0 + 3.6
    ("EW", "1"): ("3.40", "28.33", "4"),      # 1 + 2.4
    ("EW", "2"): ("4.00", "33.33", "3"),      # 1 + 3
    ("EW", "3"): ("4.33", "36.11", "2"),      # 4 + 1/3 = 13/3
    ("EW", "4"): ("11.67", "97.22", "1"),     # 6 + 17/3 = 35/3
}


def standings_of(office, event_like: str) -> dict:
    rows = office.query("select direction, entrant, score, max_score, percentage, rank_label from session_standings "
                        "where event_id like ?", [event_like])
    return {(d, e): (str(s), str(p), r) for d, e, s, m, p, r in rows.itertuples(index=False)}


def test_hand_computed_session_through_the_run(office):
    office.post(f"{CLUB}/2026-11-20-hand.csv", HAND)
    assert office.run().exit_code == nightly.EXIT_OK
    assert standings_of(office, "%hand-check") == HAND_EXPECTED
    maxima = office.query("select distinct max_score from session_standings")["max_score"].tolist()
    assert maxima == [Decimal("12.00")]
    ids = office.query("select player_ids from session_standings where direction = 'NS' and entrant = '1'")
    assert list(ids["player_ids"].iloc[0]) == ["N1a", "N1b"]
    board2 = office.query("select ns_pair, mp_ns, mp_ew, neuberg, adjusted from board_results where board = 2 order by ns_pair")
    assert [str(v) for v in board2["mp_ns"]] == ["3.00", "5.67", "0.33", "3.60"]
    assert [str(v) for v in board2["mp_ew"]] == ["3.00", "0.33", "5.67", "2.40"]
    assert board2["neuberg"].tolist() == [True, True, True, False]


def _another_office(office, root: Path):
    root.mkdir(parents=True)
    other = type(office)(root)
    data = office.state.parent / "data"
    other.run = lambda as_of=AS_OF: nightly.run(other.inbox, other.state, as_of, data_dir=data)
    return other


def test_the_same_session_as_pbn_and_as_usebio_gives_identical_views(office, tmp_path):
    session = samples.mitchell_session(**samples.MONDAY)
    pbn_office, xml_office = office, _another_office(office, tmp_path / "second")
    pbn_office.post(f"{CLUB}/monday.pbn", samples.to_pbn(session))
    xml_office.post(f"{CLUB}/monday.xml", samples.to_usebio(session))
    assert pbn_office.run().exit_code == xml_office.run().exit_code == nightly.EXIT_OK
    cols = STANDING_COLUMNS + ["player_names", "boards", "score_x", "max_x", "score_den"]
    a = pbn_office.query("select * from session_standings")
    b = xml_office.query("select * from session_standings")
    assert len(a) == 24 and as_rows(a, cols) == as_rows(b, cols)
    board_cols = ["event_id", "board", "ns_pair", "ew_pair", "contract", "declarer", "tricks", "score_ns", "mp_ns", "mp_ew",
                  "adjusted", "neuberg"]
    assert as_rows(pbn_office.query("select * from board_results"), board_cols) == \
        as_rows(xml_office.query("select * from board_results"), board_cols)


def test_the_same_session_sent_twice_in_one_club_is_scored_once(office):
    session = samples.mitchell_session(**samples.MONDAY)
    office.post(f"{CLUB}/monday.pbn", samples.to_pbn(session))
    office.run()
    office.post(f"{CLUB}/monday-again.xml", samples.to_usebio(session))
    result = office.run()
    assert result.exit_code == nightly.EXIT_QUARANTINE
    q = office.query("select source_file, location, reason from quarantine")
    assert q["source_file"].tolist() == [f"{CLUB}/monday-again.xml"]
    assert "already posted from tokyo-bridge-club/monday.pbn" in q["reason"].iloc[0]
    assert office.query("select count(*) as n from session_standings")["n"].iloc[0] == 24
    assert office.query("select count(*) as n from events")["n"].iloc[0] == 1


BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>
<USEBIO Version="1.2"><EVENT><EVENT_DESCRIPTION>&lol3;</EVENT_DESCRIPTION></EVENT></USEBIO>"""
EXTERNAL_ENTITY = b"""<?xml version="1.0"?>
<!DOCTYPE USEBIO [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<USEBIO Version="1.2"><EVENT><EVENT_DESCRIPTION>&xxe;</EVENT_DESCRIPTION></EVENT></USEBIO>"""


def test_hostile_and_malformed_files_are_quarantined_and_the_rest_posts(office):
    office.post(f"{CLUB}/2026-11-20-hand.csv", HAND)
    office.post(f"{CLUB}/lol.xml", BILLION_LAUGHS)
    office.post(f"{CLUB}/xxe.xml", EXTERNAL_ENTITY)
    office.post(f"{CLUB}/truncated.xml", b"<?xml version='1.0'?><USEBIO><EVENT><DATE>20/11/2026")
    office.post(f"{CLUB}/notes.txt", "not a result file")
    bad_lines = HAND.replace("Hand Check", "Bad Lines").replace(",420,,N2a", ",400,,N2a").replace("2H,S,9,140", "8H,S,9,140")
    office.post(f"{CLUB}/2026-11-21-bad-lines.csv", bad_lines)
    result = office.run()
    assert result.exit_code == nightly.EXIT_QUARANTINE
    q = office.query("select source_file, location, reason from quarantine order by source_file, location")
    by_file = {f: list(zip(g["location"], g["reason"])) for f, g in q.groupby("source_file")}
    assert by_file[f"{CLUB}/lol.xml"][0][0] == "whole file" and "DTD" in by_file[f"{CLUB}/lol.xml"][0][1]
    assert "DTD" in by_file[f"{CLUB}/xxe.xml"][0][1]
    assert "not well-formed XML" in by_file[f"{CLUB}/truncated.xml"][0][1]
    assert "unsupported file type .txt" in by_file[f"{CLUB}/notes.txt"][0][1]
    bad = dict(by_file[f"{CLUB}/2026-11-21-bad-lines.csv"])
    assert set(bad) == {"line 3", "line 7"}
    assert "disagrees with Law 77" in bad["line 3"] and "400" in bad["line 3"]
    assert "8H" in bad["line 7"]
    sources = office.query("select source_file, status, records_posted, records_quarantined from sources").set_index("source_file")
    assert sources.loc[f"{CLUB}/2026-11-20-hand.csv", "status"] == "posted"
    assert sources.loc[f"{CLUB}/2026-11-21-bad-lines.csv"].tolist() == ["posted_with_quarantine", 6, 2]
    assert sources.loc[f"{CLUB}/lol.xml", "status"] == "quarantined"
    assert standings_of(office, "%hand-check") == HAND_EXPECTED
    # the good lines of the partly bad file are scored among themselves
    assert office.query("select count(*) as n from board_results where event_id like '%bad-lines'")["n"].iloc[0] == 6


def test_running_twice_posts_nothing_new(sampled):
    office, _ = sampled
    before = {v: office.query(f"select * from {v}") for v in ("session_standings", "board_results", "team_matches", "events")}
    second = office.run()
    assert second.exit_code == nightly.EXIT_OK  # the twin was reported once, not every night
    assert second.report["files"]["already_posted"] == 5 and second.report["files"]["new"] == 0
    assert second.report["records"]["posted"] == 0 and second.report["publications"] == []
    for view, frame in before.items():
        assert office.query(f"select * from {view}").equals(frame), view


def test_a_corrected_file_replaces_the_standings(office):
    office.post(f"{CLUB}/2026-11-20-hand.csv", HAND)
    office.run()
    folder = office.state / "publications" / CLUB / "2026-11-20-hand-check"
    assert "170" in (folder / "travellers.csv").read_text(encoding="utf-8")
    # the secretary fixes a line: NS 3 made 9 tricks in 2S, not 10 (+140, still beating -50 only)
    office.post(f"{CLUB}/2026-11-20-hand.csv", HAND.replace("2S,N,10,170", "2S,N,9,140"))
    result = office.run()
    assert result.exit_code == nightly.EXIT_OK and result.report["files"]["corrections"] == 1
    assert office.query("select count(*) as n from board_results")["n"].iloc[0] == 8
    assert office.query("select count(*) as n from events")["n"].iloc[0] == 1
    assert office.query("select score_ns from board_results where board = 1 and ns_pair = '3'")["score_ns"].tolist() == [140]
    assert standings_of(office, "%hand-check") == HAND_EXPECTED  # same matchpoints: 140 still beats only -50
    travellers = (folder / "travellers.csv").read_text(encoding="utf-8")
    assert "140" in travellers and ",170," not in travellers
    # a correction that renames the event: the old session and its notice board disappear
    office.post(f"{CLUB}/2026-11-20-hand.csv", HAND.replace("Hand Check", "Friday Pairs").replace("2S,N,10,170", "4S,N,10,420"))
    office.run()
    assert standings_of(office, "%hand-check") == {}
    renamed = standings_of(office, "%friday-pairs")
    assert renamed[("NS", "3")][0] == "4.33"  # 420 in a three-way tie: 1 + 1 + 2 = 4, then 1/3
    assert not folder.exists() and (office.state / "publications" / CLUB / "2026-11-20-friday-pairs" / "index.html").exists()


def test_notice_board_publication_is_escaped_and_spreadsheet_safe(office):
    hostile = HAND.replace(
        "event_date,event_name,board,ns_pair,ew_pair,contract,declarer,result,score_ns,adjusted,ns_ids,ew_ids",
        "event_date,event_name,board,ns_pair,ew_pair,contract,declarer,result,score_ns,adjusted,ns_ids,ew_ids,ns_names")
    def name(line: str) -> str:
        return '"<script>alert(1)</script>"' if ",1,1,4S" in line else '"=HYPERLINK(""http://x"")"' if ",2,2,4S" in line else ""
    hostile = "\n".join(line + "," + name(line) if i else line for i, line in enumerate(hostile.strip().splitlines())) + "\n"
    office.post(f"{CLUB}/2026-11-20-hand.csv", hostile)
    assert office.run().exit_code == nightly.EXIT_OK
    folder = office.state / "publications" / CLUB / "2026-11-20-hand-check"
    assert {p.name for p in folder.iterdir()} >= {"index.html", "standings.csv", "travellers.csv"}
    html = (folder / "index.html").read_text(encoding="utf-8")
    # the one script is the shared table enhancement; the hostile one stays text
    assert "<script>alert(1)" not in html and html.count("<script>") == 1 and "&lt;script&gt;" in html
    assert 'name="viewport"' in html and "Board 2" in html
    standings = (folder / "standings.csv").read_text(encoding="utf-8-sig")
    assert "'=HYPERLINK" in standings and "\n,NS,1,1,2," in standings  # rank, rank_label, pair


def test_teams_publication_ranks_by_victory_points(sampled_once):
    office, _ = sampled_once
    folder = next((office.state / "publications" / CLUB).glob("*sunday-teams"))
    rows = (folder / "standings.csv").read_text(encoding="utf-8-sig").splitlines()
    assert rows[0] == "rank,rank_label,team,team_name,players,matches,imps_for,imps_against,vp"
    vp = office.query("select team, sum(vp) as vp from team_matches group by team order by vp desc")
    assert [r.split(",")[2] for r in rows[1:]] == vp["team"].tolist()
    assert [r.split(",")[-1] for r in rows[1:]] == [str(v) for v in vp["vp"]]


def test_a_session_with_nothing_to_compare_is_quarantined_not_a_failed_run(office):
    office.post(f"{CLUB}/2026-11-20-hand.csv", HAND)
    office.post(f"{CLUB}/2026-11-22-one-table.csv",
                "event_date,event_name,board,ns_pair,ew_pair,contract,declarer,result\n"
                "2026-11-22,One Table,1,1,1,4S,N,10\n2026-11-22,One Table,2,1,1,3NT,S,9\n")
    result = office.run()
    assert result.exit_code == nightly.EXIT_QUARANTINE
    reasons = office.query("select location, reason from quarantine where source_file like '%one-table.csv'")
    assert len(reasons) == 2 and reasons["reason"].str.contains("nothing to compare").all()
    assert standings_of(office, "%hand-check") == HAND_EXPECTED
    assert office.query("select count(*) as n from events")["n"].iloc[0] == 1

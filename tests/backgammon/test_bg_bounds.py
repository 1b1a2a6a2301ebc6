"""Issue 14: bad backgammon input is quarantined with its own reason, never a crash of the run.

The files in files/ are the sample March championship (data/samples/inbox/ukbgclub/2025/
2025-03-04-march-championship.csv: settings on lines 1-10, the header on line 11, 12 players on
lines 12-23) or the sample match log with one change each; expected values are read off them.
"""
from __future__ import annotations

from datetime import date
from pathlib import Path

import shutil

import pandas as pd
import pytest

from pipelines.backgammon import parse_file
from pipelines.backgammon.reading import physical_lines
from pipelines.backgammon.system import SYSTEM
from pipelines.core.lake import Lake
from pipelines.core.settings import DATA_DIR, StatePaths
from pipelines.core.system import RunContext
from process_helpers import process, sources_in

FILES = Path(__file__).resolve().parent / "files"
ORG = "ukbgclub"


def parsed(name: str):
    return parse_file(name, (FILES / name).read_bytes(), organisation=ORG)


def test_full_width_digits_in_the_rounds_and_the_table():
    # '# rounds: ５' and 'Rosa Quinn,1st,５' (issue 14: ValueError: Unable to parse string '１')
    tables, q = parsed("fullwidth_rounds.csv")
    assert q.empty
    assert tables["events"]["rounds"].tolist() == [5]
    rosa = tables["players"].set_index("player_id").loc["Rosa Quinn"]
    assert rosa["matches_won"] == 5 and len(tables["players"]) == 12


def test_full_width_digits_in_a_match_log():
    # line 7 of the log: '２０２５-０３-１１,main,１,Alice Archer,...'
    tables, q = parsed("fullwidth_log.csv")
    assert q.empty
    assert sorted(tables["events"]["event_id"]) == ["ukbgclub/2025-03-11/tuesday-night-tournament/consolation",
                                                    "ukbgclub/2025-03-11/tuesday-night-tournament/main"]


def test_a_date_in_9999_is_a_problem_of_its_setting():
    tables, q = parsed("date_9999.csv")
    assert tables["events"].empty
    assert list(q["location"]) == ["line 3", "lines 12–23"]
    assert q["reason"].iloc[0] == "date '9999-03-04' has the year 9999, not a plausible tournament date; check the year"


def test_rounds_too_large_is_a_problem_of_its_setting():
    tables, q = parsed("huge_rounds.csv")
    assert tables["events"].empty
    assert q["reason"].iloc[0] == "rounds '99999999999999999999' is not a whole number from 1 to 99"
    assert q["location"].iloc[0] == "line 9"


def test_a_field_longer_than_the_csv_limit_is_a_problem_of_its_line():
    # line 13 is a 140,000-character name (the csv module stops at 131,072)
    tables, q = parsed("long_field.csv")
    assert list(q["location"]) == ["line 13"]
    assert q["reason"].iloc[0].startswith("the line is 140,003 characters long; a line is at most 4,000 characters")
    # the other 12 players post; the bad line still counts in the field (13 players)
    assert len(tables["players"]) == 12 and tables["events"]["players"].tolist() == [13]


def test_a_stray_quote_stays_on_its_line():
    # line 13 is '"Tariq Shah,2nd,4': one quoted field, never joined with lines 14-23
    tables, q = parsed("stray_quote.csv")
    assert list(q["location"]) == ["line 13"]
    assert "found 1" in q["reason"].iloc[0] and "is a quote stray?" in q["reason"].iloc[0]
    assert len(tables["players"]) == 11  # lines 12, 14-23


def test_a_file_without_a_table_is_quarantined_by_the_system(tmp_path):
    batch, _ = process(tmp_path, "backgammon", ORG, {"later.txt": (FILES / "no_table.txt").read_bytes()}, date(2026, 1, 1))
    assert list(batch.quarantine["location"]) == ["whole file"]
    assert "found no table" in batch.quarantine["reason"].iloc[0]


def test_a_future_date_is_quarantined_against_the_run_date(tmp_path):
    data = (FILES / "fullwidth_rounds.csv").read_bytes()
    batch, _ = process(tmp_path, "backgammon", ORG, {"a.csv": data}, date(2025, 3, 3))  # the day before
    assert batch.awards.empty
    assert any("is after the date of this run (2025-03-03)" in r for r in batch.quarantine["reason"])


@pytest.mark.parametrize("change,fragment", [
    (("# event: March Club Championship", "# event: " + "M" * 300), "setting 'event' is 300 characters long"),
    (("Rosa Quinn,1st,5", "Rosa Quinn,1st,99999999999999999999"), "matches won '99999999999999999999' is not a whole number"),
    (("Rosa Quinn,1st,5", "Rosa Quinn,1st,٥"), "matches won '٥' is not a whole number"),  # Arabic-Indic 5: not NFKC-ASCII
    (("Rosa Quinn,1st,5", "R" * 201 + ",1st,5"), "field player is 201 characters long"),
])
def test_bounds_each_with_its_reason(change, fragment):
    data = (FILES / "fullwidth_rounds.csv").read_text().replace("# rounds: ５", "# rounds: 5").replace(
        "Rosa Quinn,1st,５", "Rosa Quinn,1st,5").replace(*change).encode()
    _, q = parse_file("x.csv", data, organisation=ORG)
    assert any(fragment in r for r in q["reason"]), q.to_string()
    assert not any("missing setting" in r for r in q["reason"])


def test_physical_lines():
    assert physical_lines("a\r\nb\rc\nd\x0ce\u2028f\n") == ["a", "b", "c", "d\x0ce\u2028f"]


def test_expected_content():
    assert "player,place,matches_won" in SYSTEM.expected_content and "match log" in SYSTEM.expected_content


def test_isolation_groups_join_files_of_one_event(tmp_path):
    samples = Path(__file__).resolve().parents[2] / "data/samples/inbox/ukbgclub/2025"
    march = (samples / "2025-03-04-march-championship.csv").read_bytes()
    files = {
        "a.csv": march,
        "copy-of-a.csv": march.replace(b"Dina Fox,,0", b"Dina Fox,,1"),  # the same event id
        "log.csv": (samples / "2025-03-11-tuesday-match-log.csv").read_bytes(),
        "novice.csv": (samples / "2025-03-18-novice-night.csv").read_bytes(),
        "junk.txt": b"\xff\xfe not text",
    }
    sources = sources_in(tmp_path, ORG, files)
    groups = sorted(sorted(s.source_file.removeprefix(ORG + "/") for s in g) for g in SYSTEM.isolation_groups(sources))
    assert groups == [["a.csv", "copy-of-a.csv"], ["junk.txt"], ["log.csv"], ["novice.csv"]]


def test_isolation_groups_read_the_files_with_the_offices_rule_tables(tmp_path):
    # an office whose data directory adds the level alias 'expert': a results file and its copy
    # saying 'level: expert' hold one event under the office's tables (under the bundled ones
    # the level is unknown, nothing parses, and each file stood alone)
    data_dir = tmp_path / "data"
    shutil.copytree(DATA_DIR / "rules" / "backgammon", data_dir / "rules" / "backgammon")
    with (data_dir / "rules" / "backgammon" / "level_aliases.csv").open("a", encoding="utf-8") as f:
        f.write("expert,Advanced/Open\n")
    samples = Path(__file__).resolve().parents[2] / "data/samples/inbox/ukbgclub/2025"
    march = (samples / "2025-03-04-march-championship.csv").read_bytes().replace(
        b"# level: Advanced/Open", b"# level: expert")
    sources = sources_in(tmp_path / "inbox", ORG, {"a.csv": march, "copy-of-a.csv": march})
    ctx = RunContext(run_id="20260101T000000000000Z-test", as_of=date(2025, 3, 31),
                     lake=Lake.open(StatePaths(tmp_path / "var")), data_dir=data_dir)
    groups = [sorted(s.source_file.removeprefix(ORG + "/") for s in g) for g in SYSTEM.isolation_groups(sources, ctx)]
    assert groups == [["a.csv", "copy-of-a.csv"]]


def test_a_log_of_byes_with_a_bad_line_is_reported_not_raised():
    # found by the fuzz campaign: line 5 a lone bye, line 6 a match length of 20 digits
    tables, q = parsed("byes_only_log.csv")
    assert tables["events"].empty
    assert ("line 6", "match length '99999999999999999999' is not a number of points from 1 to 9999 such as 7 "
                      "(blank is allowed)") in set(zip(q["location"], q["reason"]))
    assert any(loc == "line 6" and "bracket 'main' of 2025-03-11 not posted (1 match line)" in r
               for loc, r in zip(q["location"], q["reason"]))
    assert any(loc == "line 5" and "bracket 'consolation'" in r for loc, r in zip(q["location"], q["reason"]))


def test_full_width_digits_in_a_match_line():
    # found by the fuzz campaign: '２０２５-０３-１１,consolation,１,...' is read as 2025-03-11, round 1
    _, q = parsed("fullwidth_bye_log.csv")
    assert not any("not a date" in r or "not a round number" in r for r in q["reason"])
    assert any("the last round (1) of bracket 'consolation'" in r for r in q["reason"])

"""A mistake in the office's own rule tables or settings stops the run before it reads anything.

It is not a club's file that is wrong: before this, every file of the organisation was held as
"an internal error ... a fault in pointledger" (backgammon, bridge options) or posted and then
failed while publishing (JCBL, Sweden, mahjong), exit 3 or 1. Now the run exits 5 with nothing
posted, and the message names the file, the line (the header is line 1), the column, what
belongs there and what was found. Each edit below is made by hand in a copy of data/; the
expected lines are read off the bundled files (`grep -n`), not taken from the program.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest

from office import pointledger  # tests/office.py
from pipelines.core.rule_tables import checked
from pipelines.core.settings import SettingsError
from pipelines.sweden.rules import SwedenRulesError, _read
from schemas import sweden as S

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "data" / "samples" / "inbox"


def _office(tmp_path: Path, table: str, old: str, new: str) -> tuple[Path, Path, Path]:
    data = tmp_path / "data"
    shutil.copytree(ROOT / "data", data, ignore=shutil.ignore_patterns("samples"))
    text = (data / table).read_text(encoding="utf-8")
    assert text.count(old) == 1, f"the edit {old!r} must match {table} once"
    (data / table).write_text(text.replace(old, new), encoding="utf-8")
    shutil.copytree(SAMPLES, tmp_path / "inbox")  # every organisation's samples: all of them wait
    return data, tmp_path / "inbox", tmp_path / "var"


@pytest.mark.parametrize("table,old,new,expected", [
    # placing_awards.csv line 114 is "ucmp-1,Novice,4th,3,0.22"
    ("rules/backgammon/placing_awards.csv", "ucmp-1,Novice,4th,3,0.22\n", "ucmp-1,Novice,4th,3,abc\n",
     "rules/backgammon/placing_awards.csv line 114 column points: expected a decimal number, found 'abc'"),
    # line 3: 2nd place of season-1 (only this cell is named, not the seven good cells of its column)
    ("rules/mahjong/placing_points.csv", "sofu-league,season-1,2,4\n", "sofu-league,season-1,2,four\n",
     "rules/mahjong/placing_points.csv line 3 column points: expected a decimal number, found 'four'"),
    ("rules/jcbl/place_ratios.csv", "jcbl-2018-12,2,0.7\n", "jcbl-2018-12,2,0.7x\n",
     "rules/jcbl/place_ratios.csv line 3 column ratio: expected a decimal number, found '0.7x'"),
    ("rules/sweden/table_a1.csv", "se-2009,4,1,bp,8\n", "se-2009,4,1,bp,åtta\n",
     "rules/sweden/table_a1.csv line 2 column points: expected a whole number, found 'åtta'"),
    # a team series' table (read by the series files, which the sample inbox has): line 2, 30-VP scale
    ("rules/sweden/series_margins.csv", "se-2009,30,18,13,", "se-2009,trettio,18,13,",
     "rules/sweden/series_margins.csv line 2 column scale_total: expected a whole number, found 'trettio'"),
    # imp_table.csv line 3 is "20,40,1"
    ("rules/bridge/imp_table.csv", "20,40,1\n", "20,40,one\n",
     "rules/bridge/imp_table.csv line 3 column imps: expected a whole number, found 'one'"),
    # the site's fixed texts: line 3 is all_organisations (every organisation's pages use them)
    ("site/messages.csv", "all_organisations,All organisations,すべての団体,", "all_organisations,All organisations,,",
     "site/messages.csv line 3 column ja: expected text of at least 1 character, found ''"),
    # a league's calendar: a key of the file, and a key of its first [[seasons]] table (the second
    # season's ends_on is left out on purpose, an open end: not a problem)
    ("calendars/sofu-mahjong.toml", "months_per_period = 2", 'months_per_period = "two"',
     "calendars/sofu-mahjong.toml key months_per_period: expected a whole number, found 'two'"),
    ("calendars/sofu-mahjong.toml", "ends_on = 2026-09-30", 'ends_on = "2026-09-31"',
     "calendars/sofu-mahjong.toml [[seasons]] number 1 key ends_on: expected a date (2026-04-01), found '2026-09-31'"),
    # a misspelt key of the calendar (a pydantic model of its keys): named with the nearest key,
    # also inside a [[seasons]] table, and a stray key beside the right one is not let through
    # (a misspelt key used to stop the run with a TypeError, or be ignored)
    ("calendars/sofu-mahjong.toml", "months_per_period = 2", "months_per_perod = 2",
     "calendars/sofu-mahjong.toml: unknown key 'months_per_perod' (did you mean 'months_per_period'?)"),
    ("calendars/sofu-mahjong.toml", "anchor = 2026-06-01", "anchr = 2026-06-01",
     "calendars/sofu-mahjong.toml: unknown key 'anchr' (did you mean 'anchor'?)"),
    ("calendars/sofu-mahjong.toml", "ends_on = 2026-09-30", "end_on = 2026-09-30",
     "calendars/sofu-mahjong.toml: unknown key 'seasons[1].end_on' (did you mean 'ends_on'?); "
     "expected one of: season, name, starts_on, ends_on"),
    ("calendars/sofu-mahjong.toml", "months_per_period = 2", "months_per_period = 2\nmonths_per_perod = 2",
     "calendars/sofu-mahjong.toml: unknown key 'months_per_perod' (did you mean 'months_per_period'?)"),
    # an office's own discrete VP table (the bundled file has its header only): line 2
    ("rules/bridge/vp_scale_tables.csv", "vp_winner,vp_loser\n", "vp_winner,vp_loser\nT20,1,99,0,,20,O\n",
     "rules/bridge/vp_scale_tables.csv line 2 column vp_loser: expected text of the form '^\\d+(\\.\\d+)?$', found 'O'"),
    # a calendar or an alias list named in the league's settings that has no file (a misspelt alias
    # list used to be skipped without a word, and every player written two ways counted twice)
    ("organisations/sofu-mahjong.toml", 'calendar = "sofu-mahjong"', 'calendar = "sofu-mahjng"',
     "sofu-mahjong.toml: calendar = 'sofu-mahjng' names calendars/sofu-mahjng.toml, which does not exist "
     "(did you mean 'sofu-mahjong'?)"),
    ("organisations/sofu-mahjong.toml", 'aliases = "sofu-mahjong"', 'aliases = "sofu-mahjng"',
     "sofu-mahjong.toml: aliases = 'sofu-mahjng' names aliases/sofu-mahjng.csv, which does not exist "
     "(did you mean 'sofu-mahjong'?)"),
    ("organisations/tokyo-bridge-club.toml", "acbl_scale = false", "acbl_scal = false",
     "tokyo-bridge-club.toml [options]: unknown bridge option(s) 'acbl_scal' (did you mean 'acbl_scale'?)"),
])
def test_a_broken_table_beside_the_whole_sample_inbox_stops_the_run_with_its_place(tmp_path, table, old, new, expected):
    data, inbox, state = _office(tmp_path, table, old, new)
    done = pointledger("run", "--inbox", inbox, "--state", state, "--data-dir", data, "--as-of", "2026-12-02")
    assert done.returncode == 5, done.stdout
    said = " ".join((done.stdout + done.stderr).split())
    assert "settings error, nothing was posted" in said
    assert expected in said
    assert said.count(" expected ") <= 1  # that problem alone: nothing that only follows from it
    # nothing read, nothing posted: no warehouse, no run report, no publication
    assert not (state / "warehouse.duckdb").exists()
    assert not list((state / "runs").glob("*.json")) if (state / "runs").exists() else True
    assert not (state / "publications").exists() or not any((state / "publications").iterdir())


def test_check_names_the_same_problem(tmp_path):
    data, inbox, _ = _office(tmp_path, "rules/mahjong/placing_points.csv", "sofu-league,season-1,2,4\n",
                             "sofu-league,season-1,2,four\n")
    done = pointledger("check", "--data-dir", data, "--as-of", "2026-12-02", inbox / "sofu-mahjong" / "2026-08-01.txt")
    assert done.returncode == 5
    assert "rules/mahjong/placing_points.csv line 3 column points: expected a decimal number, found 'four'" in done.stderr


def test_a_missing_column_is_named_with_the_nearest_one(tmp_path):
    path = tmp_path / "group_coefficients.csv"
    text = (ROOT / "data" / "rules" / "sweden" / "group_coefficients.csv").read_text(encoding="utf-8")
    path.write_text(text.replace("rule_version,groups,group,coefficient", "rule_version,grups,group,coefficient"), encoding="utf-8")
    with pytest.raises(SwedenRulesError) as raised:
        _read(path, S.GroupCoefficients)
    # the header problems alone: not the uniqueness of every line, which only follows from them
    assert str(raised.value).splitlines()[1:] == [
        "  rules/sweden/group_coefficients.csv: the column 'groups' is missing (the header line names the columns "
        "rule_version, groups, group, coefficient)",
        "  rules/sweden/group_coefficients.csv: unknown column 'grups' (did you mean 'groups'?); the columns are "
        "rule_version, groups, group, coefficient",
    ]


def test_a_repeated_line_and_a_cell_out_of_its_set(tmp_path):
    path = tmp_path / "group_coefficients.csv"
    lines = (ROOT / "data" / "rules" / "sweden" / "group_coefficients.csv").read_text(encoding="utf-8").splitlines()
    assert lines[1:3] == ["se-2009,2,A,1.1", "se-2009,2,B,0.9"]
    # line 3 repeats line 2's key; a line 4 with a group letter the table does not have
    path.write_text("\n".join([lines[0], lines[1], "se-2009,2,A,1.0", "se-2009,3,Z,1.0"]) + "\n", encoding="utf-8")
    with pytest.raises(SwedenRulesError) as raised:
        _read(path, S.GroupCoefficients)
    said = str(raised.value)
    assert ("rules/sweden/group_coefficients.csv line 3: expected a line no other line repeats (rule_version, groups, "
            "group), found a second line with rule_version 'se-2009', groups 2, group 'A'") in said
    assert "rules/sweden/group_coefficients.csv line 4 column group: expected text of the form '^[A-E]$', found 'Z'" in said


def test_many_problems_are_listed_up_to_a_dozen(tmp_path):
    frame = pd.DataFrame({"rule_version": [f"v{i}" for i in range(20)], "groups": [2] * 20, "group": ["Q"] * 20,
                          "coefficient": ["1"] * 20})
    with pytest.raises(SettingsError) as raised:
        checked(S.GroupCoefficients, frame, "t.csv")
    said = str(raised.value).splitlines()
    assert said[0] == "t.csv is invalid:"
    assert said[1] == "  t.csv line 2 column group: expected text of the form '^[A-E]$', found 'Q'"
    assert len(said) == 1 + 12 + 1 and said[-1] == "  ... and 8 more"

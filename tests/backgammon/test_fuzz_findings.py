"""Inputs the fuzz campaign (seed 14, 2026-12-03) found, minimised, kept as fixtures (gzip: each is
one line of ~100,000–200,000 spaces). Both timed out (over 30 s of CPU) in the settings regex, which
backtracked quadratically on a '#' line of spaces; now they are read at once and quarantined with
the reasons a club secretary can act on. Expected reasons are worked out from the files by hand."""
from __future__ import annotations

import gzip
from pathlib import Path

from pipelines.backgammon import parse_file

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def problems(name: str) -> list[tuple[str, str]]:
    tables, q = parse_file(f"ukbgclub/{name}", gzip.decompress((FIXTURES / name).read_bytes()), organisation="ukbgclub")
    assert all(t.empty for t in tables.values())
    return list(zip(q["location"], q["reason"]))


def test_results_file_whose_rounds_line_is_broken_by_spaces():
    # line 1 is '# ro' + 204,801 spaces + 'unds: 4' (not the setting 'rounds'); line 2 the header alone
    got = problems("fuzz_comment_of_spaces.results.csv.gz")
    missing = [reason.split("'")[1] for location, reason in got if reason.startswith("missing setting")]
    assert missing == ["date", "event", "level", "method", "rounds"]
    assert ("line 1", "unknown setting 'ro_unds' (did you mean 'rounds'?); the settings are: bracket, club, date, "
                      "event, level, method, multiplier, rounds; the event is held back until the line is corrected, "
                      "as the setting it stands for would keep its default") in got


def test_match_log_whose_multiplier_is_spaces():
    # line 1 is '# multiplier: 1.' + 102,400 spaces + '5': a value of 102,403 characters
    got = problems("fuzz_setting_of_spaces.match-log.csv.gz")
    assert ("line 1", "setting 'multiplier' is 102,403 characters long; a setting is at most 200 characters") in got
    assert [reason.split("'")[1] for _, reason in got if reason.startswith("missing setting")] == ["event", "level", "method"]

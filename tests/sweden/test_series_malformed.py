"""Series files the mutation campaign broke (issue 14): each a problem with its line, never a crash.
Fixtures are real files (tests/sweden/fixtures/series)."""
from __future__ import annotations

from pathlib import Path

from pipelines.core.inbox import InboxFile
from pipelines.sweden.series_batch import parse_final
from pipelines.sweden.series_parse import parse_match

FIX = Path(__file__).parent / "fixtures" / "series"
TEAMS = {"Lag Ek", "Lag Gran", "Lag Tall", "Lag Björk"}


def _final(name: str):
    return parse_final(InboxFile(f"svensk-bridge/malmo-bk/{name}", FIX / name, "0" * 64, (FIX / name).read_bytes(), True), TEAMS)


def test_a_final_with_old_mac_line_ends_reads_line_by_line():
    # CR alone ends a line (as an editor shows it): four teams in places 1-4, no problem
    table, problems = _final("cr-only.final.csv")
    assert problems == []
    assert list(table.sort_values("place")["team"]) == ["Lag Ek", "Lag Gran", "Lag Tall", "Lag Björk"]


def test_a_stray_quote_in_a_final_is_its_own_line_not_the_rest_of_the_file():
    # read line by line, the quote before Lag Gran cannot swallow lines 4 and 5 (as one CSV read
    # of the whole file would): every team keeps its own line number
    table, problems = _final("stray-quote.final.csv")
    assert problems == []
    assert list(zip(table["place"], table["team"], table["line"])) == [
        (1, "Lag Ek", 2), (2, "Lag Gran", 3), (3, "Lag Tall", 4), (4, "Lag Björk", 5)]


def test_an_impossible_match_date_is_quarantined_at_its_line():
    row, _, problems = parse_match("svensk-bridge/malmo-bk/x.match.txt", (FIX / "impossible-date.match.txt").read_bytes())
    reasons = {loc: reason for _, loc, reason in problems}
    date_line = next(loc for loc, reason in reasons.items() if reason.startswith("date:"))
    assert reasons[date_line] == "date: expected a real date YYYY-MM-DD, found '2024-00-30'"


def _match_problems(name: str) -> dict[str, str]:
    row, _, problems = parse_match(f"svensk-bridge/malmo-bk/{name}", (FIX / name).read_bytes())
    assert row is None
    return {reason.split(":")[0]: reason for _, _, reason in problems}


def test_a_twenty_digit_round_is_a_problem_not_an_overflow():
    # fuzz campaign seed 14, file 1230 (minimised): 'round: 99999999999999999999' was read as a
    # Python int and overflowed the int64 column when the night posted its matches
    assert _match_problems("huge-round.match.txt")["round"] == \
        "round: expected a whole number (at most 4 digits), found '99999999999999999999'"


def test_a_series_id_that_cannot_name_a_file_is_a_problem_not_an_os_error():
    # fuzz campaign seed 14, file 1226 (minimised): 'series: hostserien' followed by 1,000 commas was
    # looked up as the file hostserien,,,….series.txt: "File name too long" stopped the night
    reason = _match_problems("series-id-of-commas.match.txt")["series"]
    assert reason.startswith("series: expected a series id: the name of its file <series>.series.txt, of letters, "
                             "digits, '-' and '_' (at most 100), found 'hostserien,,,,")
    assert reason.endswith("(1,010 characters)'")


def test_a_series_id_that_leaves_the_club_folder_is_refused():
    data = (FIX / "huge-round.match.txt").read_bytes().replace(b"series: hostserien", b"series: ../../other-club/hostserien")
    row, _, problems = parse_match("svensk-bridge/malmo-bk/x.match.txt", data)
    assert row is None
    assert any(reason.startswith("series: expected a series id") and "'../../other-club/hostserien'" in reason
               for _, _, reason in problems)


def test_a_place_of_zero_in_a_final_is_a_problem_of_its_line_not_an_invalid_output():
    # fuzz campaign seed 14, file 2307 (mutation negative_or_zero, on the code of c33cfab): place 0
    # passed the reader and failed the se_series_finals check (place >= 1) when the night posted
    table, problems = _final("place-zero.final.csv")
    assert table is None
    assert problems == [("svensk-bridge/malmo-bk/place-zero.final.csv", "line 5", "plac: expected a place from 1 up, found '0'")]

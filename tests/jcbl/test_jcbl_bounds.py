"""Issue 14: bad JCBL input is quarantined with its own reason, never a crash of the run.

Each case is a real malformed file in fixtures/ (made from the sample Even Chance event,
data/samples/inbox/jcbl-tokyo/2024-06-09-even-chance.*). The expected locations and reasons are
written from the file's content: which physical line was changed and how.
"""
from __future__ import annotations

from datetime import date
from decimal import Decimal
from pathlib import Path

import pandas as pd
import pytest

from pipelines.jcbl.parse import parse_event, parse_opening_balances, parse_standings, physical_lines
from pipelines.jcbl.system import SYSTEM
from process_helpers import process

FIX = Path(__file__).resolve().parent / "fixtures"
ORG = "jcbl-tokyo"
AS_OF = date(2024, 7, 1)


def fixture(name: str) -> bytes:
    return (FIX / name).read_bytes()


def reasons(q: pd.DataFrame, location: str) -> list[str]:
    return list(q.loc[q["location"] == location, "reason"])


# --------------------------------------------------------------------------- the crashes of issue 14


def test_a_field_longer_than_the_csv_limit_is_a_problem_of_its_line():
    # line 3 carries an entrant of 140,000+ characters (the csv module stops at 131,072)
    frames, q = parse_standings(f"{ORG}/e.standings.csv", fixture("long-field.standings.csv"))
    assert frames["standings"].empty
    [reason] = reasons(q, "line 3")
    assert "the line is 140," in reason and "at most 4,000 characters" in reason and "is a line break missing?" in reason
    assert len(reason) < 400  # the reason quotes the start of the line, not all of it
    assert "1 problem line(s) among 10" in reasons(q, "file")[0]


def test_a_vp_too_large_for_the_lake_is_a_problem_of_its_line():
    # line 3: the first match VP is 99999999999999999999 (decimal(12, 4) holds less than 10^8)
    frames, q = parse_standings(f"{ORG}/e.standings.csv", fixture("big-vp.standings.csv"))
    assert frames["standings"].empty
    assert reasons(q, "line 3") == [
        "match_vps: a match gives at most 1000 VP (the largest VP scale), found '99999999999999999999'"]


def test_a_vp_above_the_events_scale_holds_the_event(tmp_path):
    # line 4: 25.00 VP in one match of a 20-VP event
    batch, _ = process(tmp_path, "jcbl", ORG, {"e.event.txt": fixture("even-chance.event.txt"),
                                                "e.standings.csv": fixture("vp-over-scale.standings.csv")}, AS_OF)
    q = batch.quarantine
    assert reasons(q[q["source_file"] == f"{ORG}/e.standings.csv"], "line 4") == [
        "match_vps: 25.00 VP in one match is more than the event's VP scale (20): check the VPs or the event file's vp_scale"]
    assert batch.awards.empty and batch.tables["jcbl_standings"].empty


@pytest.mark.parametrize("name,fragment", [
    ("date-9999.event.txt", "date 9999-06-09 is after the date of this run (2024-07-01)"),
    ("date-1970.event.txt", "date 1970-06-09 is before the first JCBL rule version (2018-12-01)"),
])
def test_an_event_date_outside_the_window_is_a_problem_of_the_date_line(name, fragment):
    frames, q = parse_event(f"{ORG}/e.event.txt", fixture(name), ORG, as_of=AS_OF)
    assert frames["event"].empty
    [reason] = reasons(q, "line 3")  # line 3 of the event file is 'date: ...'
    assert fragment in reason


def test_a_strat_limit_of_zero_is_a_problem_of_the_strats_line():
    # the fuzz campaign's minimised finding (it crashed the schema check): CR-only line endings, a
    # stray quote in the name, and 'strats: A=open, B=1000, C=0' on line 8
    frames, q = parse_event(f"{ORG}/e.event.txt", fixture("fuzz-strat-limit-zero.event.txt"), ORG, as_of=AS_OF)
    assert frames["event"].empty
    assert reasons(q, "line 8") == [
        "strats: a limit is a number of masterpoints of at least 1 (B=1000 means under 1000 MP), found [1000, 0]"]


def test_an_event_dated_9999_never_fails_the_batch(tmp_path):
    batch, _ = process(tmp_path, "jcbl", ORG, {"e.event.txt": fixture("date-9999.event.txt"),
                                                "e.standings.csv": fixture("even-chance.standings.csv")}, AS_OF)
    q = batch.quarantine
    assert any("after the date of this run" in r for r in reasons(q, "line 3"))
    # the standings wait for a corrected event file, saying why
    held = q[(q["source_file"] == f"{ORG}/e.standings.csv") & (q["location"] == "whole file")]
    assert len(held) == 1 and "held back until the event settings file" in held["reason"].iloc[0]
    assert batch.awards.empty


def test_full_width_digits_are_digits():
    # 'date: ２０２４-０６-０９' and 'boards_per_match: ６' (NFKC)
    frames, q = parse_event(f"{ORG}/e.event.txt", fixture("fullwidth.event.txt"), ORG, as_of=AS_OF)
    assert q.empty
    ev = frames["event"].iloc[0]
    assert ev["event_date"] == pd.Timestamp("2024-06-09") and ev["boards_per_match"] == 6


def test_a_rank_beyond_int64_is_a_problem_of_its_line():
    # line 5: a rank of 30 nines
    frames, q = parse_standings(f"{ORG}/e.standings.csv", fixture("huge-rank.standings.csv"))
    [reason] = reasons(q, "line 5")
    assert reason.startswith("rank: expected a place such as 3 or 3=, found '999999") and reason.endswith("(a place is 1 to 100,000)")


def test_a_stray_quote_stays_on_its_physical_line():
    # line 4 opens a quote that is never closed: a whole-file CSV reader would swallow lines 4-11;
    # here line 4 alone is reported and every later line keeps its number
    frames, q = parse_standings(f"{ORG}/e.standings.csv", fixture("stray-quote.standings.csv"))
    assert list(q["location"]) == ["line 4", "file"]
    assert "found 2" in q["reason"].iloc[0] and "is a quote stray?" in q["reason"].iloc[0]


def test_opening_balances_bounds_and_physical_lines():
    # line 2 opens a quote in its last field (kept on its line), line 4 has 100000000000.00 RP,
    # line 5 is dated 2099; lines 2, 3 and 6 are fine
    frames, q = parse_opening_balances(f"{ORG}/bad.opening_balances.csv", fixture("bad.opening_balances.csv"), ORG, as_of=AS_OF)
    ob = frames["opening_balances"]
    assert list(ob["player_id"]) == ["JT0901", "JT0902", "JT0905"]
    assert list(ob["location"]) == ["line 2", "line 3", "line 6"]
    assert list(ob["rp"]) == [Decimal("1.00"), Decimal("3.00"), Decimal("5.50")]
    assert reasons(q, "line 4") == ["rp: expected at most 99999999.99 points, found '100000000000.00'"]
    assert reasons(q, "line 5") == ["as_of: expected a date from 1900-01-01 to the date of this run (2024-07-01), "
                                    "found 2099-04-01: check the year"]


def test_physical_lines_are_the_editors_lines():
    assert physical_lines("a\r\nb\rc\nd\x0ce\u2028f\n") == ["a", "b", "c", "d\x0ce\u2028f"]
    assert physical_lines("") == []
    assert physical_lines("a\n\n") == ["a", ""]


@pytest.mark.parametrize("setting,fragment", [
    ("boards_per_match: 99999999999999999999", "boards_per_match: expected a whole number 1-200"),
    ("boards_per_match: 500", "boards_per_match: expected a whole number 1-200"),
    ("vp_scale: 1000000", "vp_scale: expected a number of VPs from 1 to 1000"),
    ("name: " + "名" * 300, "name: expected at most 200 characters"),
])
def test_event_settings_bounds(setting, fragment):
    text = fixture("even-chance.event.txt").decode().replace("vp_scale: 20", "vp_scale: 20\n# bounds\n") + setting + "\n"
    text = text.replace("boards_per_match: 6\n", "") if setting.startswith("boards") else text
    text = text.replace("vp_scale: 20\n", "") if setting.startswith("vp_scale") else text
    text = text.replace("name: 東京イーブンチャンス\n", "") if setting.startswith("name") else text
    frames, q = parse_event(f"{ORG}/e.event.txt", text.encode(), ORG, as_of=AS_OF)
    assert frames["event"].empty
    assert any(fragment in r for r in q["reason"]), q.to_string()


# --------------------------------------------------------------------------- the core's hooks


def test_expected_content_names_the_files():
    assert "event.txt" in SYSTEM.expected_content and "standings.csv" in SYSTEM.expected_content


def test_isolation_groups_keep_an_event_with_its_results(tmp_path):
    from process_helpers import sources_in

    files = {"a.event.txt": b"x", "sub/b.event.txt": b"x", "A.standings.csv": b"x", "a.pbn": b"x",
             "sub/b.travellers.csv": b"x", "opening_balances.csv": b"x", "x.opening_balances.csv": b"x",
             "notes.txt": b"x"}
    sources = sources_in(tmp_path, ORG, files)
    groups = [[s.source_file.removeprefix(ORG + "/") for s in g] for g in SYSTEM.isolation_groups(sources)]
    assert sorted(map(sorted, groups)) == sorted([
        ["A.standings.csv", "a.event.txt", "a.pbn"],  # one event (the partner is found case-insensitively)
        ["sub/b.event.txt", "sub/b.travellers.csv"],
        ["opening_balances.csv"], ["x.opening_balances.csv"], ["notes.txt"],
    ])
    assert sum(len(g) for g in groups) == len(files)


def test_an_event_scored_as_its_group_alone_posts_once(tmp_path):
    """The retry the core makes: each group processed alone gives the same awards as the batch."""
    samples = Path(__file__).resolve().parents[2] / "data/samples/inbox/jcbl-tokyo"
    files = {p.name: p.read_bytes() for p in samples.iterdir() if "malformed" not in p.name}
    whole, sources = process(tmp_path / "whole", "jcbl", ORG, files, AS_OF)

    parts = []
    for group in SYSTEM.isolation_groups(sources):
        names = {s.source_file.removeprefix(ORG + "/") for s in group}
        batch, _ = process(tmp_path / ("g" + str(len(parts))), "jcbl", ORG,
                           {n: d for n, d in files.items() if n in names}, AS_OF)
        parts.append(batch.awards)
    separately = pd.concat(parts, ignore_index=True)
    key = ["source_file", "player_id", "denomination"]
    a = whole.awards.sort_values(key).reset_index(drop=True)[key + ["points"]]
    b = separately.sort_values(key).reset_index(drop=True)[key + ["points"]]
    assert len(a) > 0 and a.astype(str).equals(b.astype(str))


def test_a_linked_partner_outside_the_inbox_is_not_read(tmp_path):
    # the event file arrives; its "standings" in the inbox is a link to a file outside it
    outside = tmp_path / "outside.csv"
    outside.write_bytes(fixture("even-chance.standings.csv"))
    inbox = tmp_path / "run"
    (inbox / "inbox" / ORG).mkdir(parents=True)
    (inbox / "inbox" / ORG / "e.standings.csv").symlink_to(outside)
    batch, _ = process(inbox, "jcbl", ORG, {"e.event.txt": fixture("even-chance.event.txt")}, AS_OF)
    assert batch.awards.empty
    [reason] = list(batch.quarantine["reason"])
    assert reason.startswith("waiting for the standings file jcbl-tokyo/e.standings.csv")

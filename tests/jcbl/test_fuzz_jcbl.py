"""Property-based tests (Hypothesis) of the JCBL readers and of ``SYSTEM.process`` (issue 14).

Inputs are the sample files with random mutations (characters replaced, inserted or deleted,
lines duplicated, dropped or swapped, stray quotes, full-width digits, very long fields, huge
numbers, odd line breaks) and random text. Properties: nothing raises; every physical line is
accounted for (blank, a comment, the header, a posted record, or a problem naming its line);
the whole-file rules hold (a standings file posts all its lines or none); every file of a batch
either posts records or is quarantined with a reason. Kept small (max_examples=50); long
campaigns are for ``make fuzz``.
"""
from __future__ import annotations

import re
import unicodedata
from datetime import date
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipelines.jcbl.parse import parse_event, parse_members, parse_opening_balances, parse_standings, physical_lines
from process_helpers import process

SAMPLES = Path(__file__).resolve().parents[2] / "data" / "samples" / "inbox" / "jcbl-tokyo"
ORG = "jcbl-tokyo"
AS_OF = date(2024, 7, 1)
EVENTS = sorted(p.name for p in SAMPLES.glob("*.event.txt"))
STANDINGS = sorted(p.name for p in SAMPLES.glob("*.standings.csv"))
OPENING = ("player_id,as_of,rp,bp,note\nJT0201,2024-04-01,12.50,3.25,joined\nJT0202,2024-04-01,0.00,1.00,\n"
           "JT0203,2023-10-01,100.00,50.00,transfer from osaka\n").encode()
FUZZ = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
# scoring an event validates many frames (about a second each on a busy machine): fewer examples
FUZZ_PROCESS = settings(FUZZ, max_examples=20)

NASTY = ["\"", "\"\"", ",", ",,,,", "#", "\r", "\n", "\r\n", "\x0c", "\u2028", "\x00", "１２", "９９９９", "=", ":",
         "9" * 25, "-1", "1e9999", "NaN", "x" * 5000, "、", "△", "％", " ", "\t", "\ufeff", "é", "\udcff"[0:0]]


@st.composite
def mutated(draw, base: bytes) -> bytes:
    text = base.decode("utf-8")
    for _ in range(draw(st.integers(1, 4))):
        lines = text.split("\n")
        op = draw(st.sampled_from(["replace", "insert", "delete", "dup_line", "drop_line", "swap", "nasty_line"]))
        i = draw(st.integers(0, max(len(text) - 1, 0)))
        piece = draw(st.one_of(st.sampled_from(NASTY), st.text(max_size=8)))
        if op == "replace" and text:
            text = text[:i] + piece + text[i + 1:]
        elif op == "insert":
            text = text[:i] + piece + text[i:]
        elif op == "delete" and text:
            text = text[:i] + text[i + draw(st.integers(1, 20)):]
        elif op in ("dup_line", "drop_line", "swap", "nasty_line") and lines:
            j = draw(st.integers(0, len(lines) - 1))
            k = draw(st.integers(0, len(lines) - 1))
            if op == "dup_line":
                lines.insert(k, lines[j])
            elif op == "drop_line":
                del lines[j]
            elif op == "swap":
                lines[j], lines[k] = lines[k], lines[j]
            else:
                lines.insert(j, piece)
            text = "\n".join(lines)
    data = text.encode("utf-8", errors="surrogatepass")
    if draw(st.booleans()) and draw(st.booleans()):
        data = data.replace(b"\n", b"\r\n")
    return data


def files(pool: list[str]):
    return st.sampled_from(pool).flatmap(lambda name: mutated((SAMPLES / name).read_bytes()).map(lambda d: (name, d)))


def data_lines(data: bytes) -> list[tuple[int, str]]:
    """(line number, text) of the non-blank, non-comment lines, numbered as an editor does."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return []  # the readers then fall back to Shift_JIS or replacement characters
    text = unicodedata.normalize("NFKC", text)
    return [(no, ln) for no, ln in enumerate(re.split(r"\r\n|\r|\n", text), start=1)
            if ln.strip() and not ln.lstrip().startswith("#")]


def named_lines(q) -> set[int]:
    out = set()
    for loc in q["location"]:
        out |= {int(n) for n in re.findall(r"line (\d+)", loc)}
    return out


@FUZZ
@given(files(STANDINGS) | st.binary(max_size=300).map(lambda b: ("junk.standings.csv", b)))
def test_standings_parser_accounts_for_every_line(file):
    name, data = file
    frames, q = parse_standings(f"{ORG}/{name}", data)
    st_ = frames["standings"]
    assert set(q.columns) >= {"source_file", "location", "reason"}
    assert q["reason"].str.len().gt(0).all()
    if len(st_):
        # posted: every entrant line of the file is a row, nothing quarantined
        assert q.empty
        rows = data_lines(data)
        assert sorted(int(l.split()[1]) for l in st_["location"]) == [no for no, _ in rows[1:]]
    else:
        assert len(q) >= 1  # nothing posted is never silent


@FUZZ
@given(files(EVENTS) | st.binary(max_size=300).map(lambda b: ("junk.event.txt", b)))
def test_event_parser_accepts_or_says_why(file):
    name, data = file
    frames, q = parse_event(f"{ORG}/{name}", data, ORG, as_of=AS_OF)
    assert len(frames["event"]) == (0 if len(q) else 1)
    if len(frames["event"]):
        assert frames["event"]["event_date"].iloc[0] <= __import__("pandas").Timestamp(AS_OF)
    if "whole file" in set(q["location"]):
        return  # one problem of the whole file (binary data, NUL bytes) speaks for every line
    # a line that is not 'key: value' (after its comment) is a problem of that line
    bad = {no for no, ln in data_lines(data) if ln.split("#", 1)[0].strip()
           and not re.fullmatch(r"([A-Za-z_ ]+?)\s*[:=]\s*(.*)", ln.split("#", 1)[0].strip())}
    assert bad <= named_lines(q)


@FUZZ
@given(mutated(OPENING))
def test_opening_balances_account_for_every_line(data):
    frames, q = parse_opening_balances(f"{ORG}/opening_balances.csv", data, ORG, as_of=AS_OF)
    ob = frames["opening_balances"]
    posted = {int(l.split()[1]) for l in ob["location"]}
    assert not posted & named_lines(q)  # a line is posted or quarantined, not both
    rows = data_lines(data)
    if rows and not any(loc == "line %d" % rows[0][0] or loc == "file" for loc in q["location"]):
        for no, ln in rows[1:]:
            empty_cells = not ln.replace(",", "").replace('"', "").strip()
            assert no in posted or no in named_lines(q) or empty_cells, (no, ln)


@FUZZ
@given(mutated((SAMPLES / "members.csv").read_bytes()) | st.binary(max_size=300))
def test_the_member_register_accounts_for_every_line(data):
    """members.csv (issue 15): a line is a member or a problem naming it, never both, never lost."""
    frames, q = parse_members(f"{ORG}/members.csv", data, ORG)
    members = frames["members"]
    posted = {int(l.split()[1]) for l in members["location"]}
    assert not posted & named_lines(q)
    assert members["member_id"].is_unique
    rows = data_lines(data)
    if rows and not any(loc in ("line %d" % rows[0][0], "whole file") for loc in q["location"]):
        for no, ln in rows[1:]:
            empty_cells = not ln.replace(",", "").replace('"', "").strip()
            assert no in posted or no in named_lines(q) or empty_cells, (no, ln)


@FUZZ_PROCESS
@given(st.lists(files(EVENTS + STANDINGS), min_size=1, max_size=3, unique_by=lambda f: f[0]),
       st.sampled_from([AS_OF, date(2024, 6, 10), date(2030, 1, 1)]))
def test_process_never_raises_and_accounts_for_every_file(tmp_path_factory, batch_files, as_of):
    tmp = tmp_path_factory.mktemp("jcbl")
    batch, sources = process(tmp, "jcbl", ORG, dict(batch_files), as_of)
    assert sorted(batch.records["source_file"]) == sorted(s.source_file for s in sources)
    quarantined = set(batch.quarantine["source_file"])
    for row in batch.records.itertuples():
        # records in = posted + quarantined: a file that posts nothing says why
        assert row.records_posted > 0 or row.source_file in quarantined, row
    # a standings file posts all its entrant lines or none
    standings = batch.tables["jcbl_standings"]
    for name, data in batch_files:
        if name.endswith(".standings.csv") and f"{ORG}/{name}" in set(standings["source_file"]):
            n = (standings["source_file"] == f"{ORG}/{name}").sum()
            assert n == len(data_lines(data)) - 1
    assert (batch.awards["points"].map(lambda p: abs(p) < 10 ** 10)).all()

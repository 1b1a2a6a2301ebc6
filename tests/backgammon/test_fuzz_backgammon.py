"""Property-based tests (Hypothesis) of the backgammon readers and of ``SYSTEM.process`` (issue 14).

Inputs are the sample results files and match log with random mutations (characters replaced,
inserted or deleted, lines duplicated, dropped or swapped, stray quotes, full-width digits, very
long fields, huge numbers, odd line breaks) and random bytes. Properties: nothing raises; every
physical line is accounted for (blank, a '#' setting or comment, the header, a posted record, or
a problem naming its line, or a whole-file problem when nothing posts); every file of a batch
posts records or is quarantined with a reason. Kept small (max_examples=50); long campaigns are
for ``make fuzz``.
"""
from __future__ import annotations

import re
import unicodedata
from datetime import date
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipelines.backgammon import load_rules, parse_file
from pipelines.backgammon.system import SYSTEM
from process_helpers import process

SAMPLES = Path(__file__).resolve().parents[2] / "data" / "samples" / "inbox" / "ukbgclub" / "2025"
ORG = "ukbgclub"
NAMES = sorted(p.name for p in SAMPLES.glob("*.csv"))
RULES = load_rules()
FUZZ = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
FUZZ_PROCESS = settings(FUZZ, max_examples=25)

NASTY = ["\"", "\"\"", ",", ";", ",,,,", "#", "# ", "\r", "\n", "\r\n", "\x0c", "\u2028", "\x00", "１", "５", "٣",
         "9" * 25, "-1", "1e9999", "NaN", "x" * 5000, "bye", "forfeit", "9999-01-01", "1999-12-31", "\t", "\ufeff", "é"]


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
        elif lines:
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


FILES = st.sampled_from(NAMES).flatmap(lambda n: mutated((SAMPLES / n).read_bytes()).map(lambda d: (n, d))) \
    | st.binary(max_size=300).map(lambda b: ("junk.csv", b))


def table_lines(data: bytes) -> list[int]:
    """Numbers of the lines below the header that hold cells (not blank, not '#', not only
    delimiters), numbered as an editor does; [] when the file is not UTF-8."""
    try:
        text = unicodedata.normalize("NFKC", data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        return []
    rows = [(no, ln) for no, ln in enumerate(re.split(r"\r\n|\r|\n", text), start=1)
            if ln.strip() and not ln.strip().startswith("#")]
    return [no for no, ln in rows[1:] if ln.replace(",", "").replace(";", "").replace('"', "").strip()]


def named(locations) -> set[int]:
    out: set[int] = set()
    for loc in locations:
        for a, b in re.findall(r"(\d+)(?:\s*[–-]\s*(\d+))?", loc if loc.startswith("line") else ""):
            out |= set(range(int(a), int(b or a) + 1))
    return out


@FUZZ
@given(FILES)
def test_parser_accounts_for_every_line(file):
    name, data = file
    tables, q = parse_file(f"{ORG}/{name}", data, rules=RULES, organisation=ORG)
    assert list(q.columns) == ["source_file", "location", "reason"]
    assert q["reason"].str.len().gt(0).all()
    posted = named(tables["players"]["location"]) | named(tables.get("matches", tables["players"].iloc[:0])["location"])
    problems = named(q["location"])
    lines = table_lines(data)
    if tables["events"].empty:
        assert len(q) >= 1  # nothing posted is never silent
        if "file" in set(q["location"]):
            return  # a whole-file problem covers every line
    missing = [n for n in lines if n not in posted and n not in problems]
    assert not missing, (missing, q.to_string())
    # the field size counts every player line, posted or not (results files)
    if "matches" not in tables and len(tables["events"]):
        assert int(tables["events"]["players"].iloc[0]) >= len(tables["players"])


@FUZZ_PROCESS
@given(st.lists(FILES, min_size=1, max_size=4, unique_by=lambda f: f[0]),
       st.sampled_from([date(2025, 3, 31), date(2025, 3, 10), date(2030, 1, 1)]))
def test_process_never_raises_and_accounts_for_every_file(tmp_path_factory, batch_files, as_of):
    tmp = tmp_path_factory.mktemp("bg")
    batch, sources = process(tmp, "backgammon", ORG, dict(batch_files), as_of)
    assert sorted(batch.records["source_file"]) == sorted(s.source_file for s in sources)
    quarantined = set(batch.quarantine["source_file"])
    for row in batch.records.itertuples():
        assert row.records_posted > 0 or row.source_file in quarantined, row
    # records posted = the player rows of the lake table of that file
    results = batch.tables["backgammon_results"].groupby("source_file").size()
    for row in batch.records.itertuples():
        assert row.records_posted == int(results.get(row.source_file, 0))
    assert all(d <= as_of for d in batch.awards["event_date"])
    groups = SYSTEM.isolation_groups(sources)
    assert sorted(s.source_file for g in groups for s in g) == sorted(s.source_file for s in sources)

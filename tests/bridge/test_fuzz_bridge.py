"""Property-based tests (Hypothesis) of the bridge readers and of `SYSTEM.process` (issue 14).

The inputs are the bundled sample files mutated the way real files go wrong (lines lost, doubled
or moved, tags dropped, blank lines missing, stray quotes, hostile cell values, full-width digits,
numbers too large for any integer) and generated USEBIO documents. The properties:

- nothing raises, and the readers' last line of defence ("the file could not be read (<error>)")
  is never what answers: every problem has its own reason;
- every record is accounted for: a CSV line that is neither blank, a comment nor the header is
  posted or quarantined at its own physical line number, exactly once; a PBN score-table row is
  posted or quarantined at its line; a USEBIO TRAVELLER_LINE is posted or quarantined;
- `process` on a batch of such files: records in (the readers' traveller lines and row problems)
  = records posted + records quarantined per file, and every output passes its pandera model
  (the core's EventRecord too: a session without a location once failed a whole run).

The counts are computed here from the mutated text (line numbers, the seed's score rows), not
from the program. Kept short for the normal suite (max_examples ≤ 50); `make fuzz` runs long
campaigns.
"""
from __future__ import annotations

import hashlib
import os
import re
import tempfile
from datetime import date
from pathlib import Path
from xml.sax.saxutils import escape

import pandas as pd
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

from pipelines.bridge.parse_csv import parse_csv
from pipelines.bridge.parse_pbn import parse_pbn
from pipelines.bridge.parse_usebio import parse_usebio
from pipelines.bridge.system import SYSTEM
from pipelines.core.lake import Lake
from pipelines.core.settings import StatePaths, load_organisations
from pipelines.core.system import RunContext, SourceFile
from schemas.bridge import TravellerLines
from schemas.ledger import EventRecord, QuarantineDraft

ROOT = Path(__file__).resolve().parents[2]
CLUB = "tokyo-bridge-club"
SAMPLES = ROOT / "data" / "samples" / "inbox" / CLUB
PBN_SEEDS = ["2026-11-09-monday-pairs.pbn", "2026-11-15-sunday-teams.pbn"]
CSV_SEED = "2026-11-14-saturday-howell.csv"
INTERNAL = "the file could not be read ("
# BRIDGE_FUZZ_EXAMPLES=500 pytest tests/bridge/test_fuzz_bridge.py for a longer local campaign
EXAMPLES = int(os.environ.get("BRIDGE_FUZZ_EXAMPLES", "30"))
FAST = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# values a club's file may hold where a number or a code is expected
HOSTILE = st.sampled_from([
    "", "-", "?", "0", "1000", "99999999999999999999", "-99999999999999999999", "1.5", "1e5", "１０", "４S", "３ＮＴ",
    "８NT", "A60", "AVE+", "60%", "x", "NS", "EW 420", "9999", "7600", "-7601", "\u2028", "\x0c", '"', '""', "N", "Z",
    "１２３４５６７８９０１２３４５６７８９０", "x" * 300,
])
LINE_TEXT = st.text(alphabet=st.sampled_from(list('0123456789１２３ ,"-+=ANSWEHCDTX#%[]{};?\u2028\x0c\tあ')), max_size=40)
LINE_NO = re.compile(r"\bline (\d+)\b")


def referenced(frame: pd.DataFrame) -> list[int]:
    """Line numbers named by the locations of a frame ("line 12", "(line 12)")."""
    return [int(m.group(1)) for loc in frame["location"].astype(str) for m in [LINE_NO.search(loc)] if m]


def whole_file(q: pd.DataFrame) -> bool:
    return bool((q["location"].astype(str).isin(["whole file"])).any())


def no_internal_error(q: pd.DataFrame) -> None:
    assert list(q.columns) == ["source_file", "location", "reason"]
    assert not q["reason"].astype(str).str.contains(INTERNAL, regex=False).any(), q["reason"].tolist()
    assert (q["reason"].astype(str).str.len() > 0).all()


# -- CSV ---------------------------------------------------------------------------------------------
CSV_OPS = st.lists(st.tuples(st.sampled_from(["delete", "duplicate", "swap", "insert", "cell", "quote"]),
                             st.floats(0, 1, exclude_max=True), st.floats(0, 1, exclude_max=True),
                             st.one_of(HOSTILE, LINE_TEXT)), max_size=8)


def mutate_csv(ops) -> list[str]:
    lines = (SAMPLES / CSV_SEED).read_text(encoding="utf-8").split("\n")[:-1]
    for op, a, b, text in ops:
        i = 1 + int(a * (len(lines) - 1)) if len(lines) > 1 else 0  # the header stays line 1
        j = 1 + int(b * (len(lines) - 1)) if len(lines) > 1 else 0
        if op == "delete" and len(lines) > 1:
            del lines[i]
        elif op == "duplicate":
            lines.insert(i, lines[i])
        elif op == "swap":
            lines[i], lines[j] = lines[j], lines[i]
        elif op == "insert":
            lines.insert(i, text)
        elif op == "cell":
            cells = lines[i].split(",")
            cells[int(b * len(cells))] = text
            lines[i] = ",".join(cells)
        elif op == "quote":
            k = int(b * (len(lines[i]) + 1))
            lines[i] = lines[i][:k] + '"' + lines[i][k:]
    return lines


@FAST
@given(CSV_OPS)
def test_csv_every_physical_line_is_posted_or_quarantined_at_its_number(ops):
    lines = mutate_csv(ops)
    frames, q = parse_csv(f"{CLUB}/fuzz.csv", ("\n".join(lines) + "\n").encode("utf-8"))
    no_internal_error(q)
    TravellerLines.validate(frames["traveller_lines"])
    if whole_file(q) or (len(q) == 1 and q["location"].iloc[0] == "line 1"):
        return  # the header cannot be read: the file is rejected as a whole, at its line
    header = lines[0]
    expected = [n for n, ln in enumerate(lines, start=1)
                if n > 1 and ln.strip() and not ln.lstrip().startswith("#") and ln != header]
    got = referenced(frames["traveller_lines"]) + referenced(q)
    assert sorted(got) == expected  # each record exactly once, at its physical line


# -- PBN ---------------------------------------------------------------------------------------------
PBN_OPS = st.lists(st.tuples(st.sampled_from(["del_blank", "del_tag", "del_board", "dup_row", "cell", "insert"]),
                             st.floats(0, 1, exclude_max=True), st.one_of(HOSTILE, LINE_TEXT)), max_size=8)


def pbn_seed(name: str) -> list[tuple[str, str]]:
    """The seed's lines with their kind: score (a ScoreTable row), entrant (a TotalScoreTable row),
    contract (the [Contract] tag of a team file's game), tag, blank, comment."""
    out, section = [], None
    for ln in (SAMPLES / name).read_text(encoding="utf-8").split("\n"):
        s = ln.strip()
        if not s:
            kind, section = "blank", None
        elif s.startswith("%"):
            kind = "comment"
        elif s.startswith("["):
            section = s[1:].split()[0]
            kind = "contract" if section == "Contract" else "tag"
        else:
            kind = "score" if section == "ScoreTable" else "entrant"
        out.append((kind, ln))
    return out


def mutate_pbn(seed: str, ops) -> list[tuple[str, str]]:
    lines = pbn_seed(seed)
    for op, a, text in ops:
        idx = {k: [i for i, (kind, ln) in enumerate(lines) if kind == k or (k == "board" and ln.startswith("[Board"))]
               for k in ("blank", "tag", "score", "board")}
        pick = lambda kind: idx[kind][int(a * len(idx[kind]))] if idx[kind] else None  # noqa: E731
        if op == "del_blank" and (i := pick("blank")) is not None:
            del lines[i]
        elif op in ("del_tag", "del_board") and (i := pick("tag" if op == "del_tag" else "board")) is not None:
            del lines[i]
        elif op == "dup_row" and (i := pick("score")) is not None:
            lines.insert(i, lines[i])
        elif op == "cell" and (i := pick("score")) is not None:
            cells = lines[i][1].split()
            cells[int(a * 7) % len(cells)] = text.replace(" ", "") or "-"
            # a row that now starts with ';' or '%' (a comment), '[' (a tag) or '{' (a comment
            # block) is no longer a score row in PBN: as for inserted lines, that edit is not made.
            # The reader strips a line's whitespace first, a form feed too ('\x0c%' is a comment)
            row = " ".join(cells)
            if row.strip()[:1] not in ("[", "%", ";", "{"):
                lines[i] = ("score", row)
        elif op == "insert" and (i := pick("score")) is not None:
            s = text.strip()
            if s and s[0] not in "[%;{" and "{" not in s:
                lines.insert(i, ("inserted", text))
    return lines


@FAST
@given(st.sampled_from(PBN_SEEDS), PBN_OPS)
@example("2026-11-09-monday-pairs.pbn", [("cell", 0.0, ";")])  # found 2026-12-04: a score row made a comment
@example("2026-11-09-monday-pairs.pbn", [("cell", 0.0, "\x0c%")])  # found 2026-12-07: the same, after a form feed
def test_pbn_every_result_line_is_posted_or_quarantined_at_its_number(seed, ops):
    lines = mutate_pbn(seed, ops)
    frames, q = parse_pbn(f"{CLUB}/fuzz.pbn", ("\n".join(ln for _, ln in lines) + "\n").encode("utf-8"))
    no_internal_error(q)
    TravellerLines.validate(frames["traveller_lines"])
    if whole_file(q):
        return
    named = set(referenced(frames["traveller_lines"])) | set(referenced(q))
    assert max(named, default=0) <= len(lines)
    # a score row or an inserted line (placed among score rows) is a record or a problem, at its line
    for n, (kind, _) in enumerate(lines, start=1):
        if kind in ("score", "inserted"):
            assert n in named, (n, lines[n - 1])
    # a team file: a [Contract] tag repeated within a game starts another game, so each game with a
    # [Contract] is one record (posted) or one problem (quarantined at the game's line)
    contracts = sum(kind == "contract" for kind, _ in lines)
    assert len(frames["traveller_lines"]) + len(q) >= contracts


# -- USEBIO ------------------------------------------------------------------------------------------
def _el(name: str, value: str) -> str:
    return f"<{name}>{escape(value)}</{name}>"


TRAVELLER = st.fixed_dictionaries({
    "NS_PAIR_NUMBER": st.one_of(st.sampled_from(["1", "2", "3", "1 NS"]), HOSTILE),
    "EW_PAIR_NUMBER": st.one_of(st.sampled_from(["1", "2", "3"]), HOSTILE),
    "CONTRACT": st.one_of(st.sampled_from(["3NT", "4 S", "2HX", "PASS"]), HOSTILE),
    "PLAYED_BY": st.one_of(st.sampled_from(["N", "E", "S", "W"]), HOSTILE),
    "TRICKS": st.one_of(st.sampled_from(["9", "=", "+1", "-2"]), HOSTILE),
    "SCORE": st.one_of(st.sampled_from(["400", "-50", "420", "0"]), HOSTILE),
})
BOARD = st.tuples(st.one_of(st.sampled_from(["1", "2", "3"]), HOSTILE), st.lists(TRAVELLER, max_size=4))
USEBIO = st.tuples(st.sampled_from(["20/11/2026", "31/12/9999", "01/01/1970", "2026", "２０/１１/２０２６"]),
                   st.lists(BOARD, max_size=4), st.lists(TRAVELLER, max_size=2))


def usebio_text(date_text, boards, loose) -> str:
    body = "".join("<BOARD>" + _el("BOARD_NUMBER", b) + "".join(
        "<TRAVELLER_LINE>" + "".join(_el(k, v) for k, v in tl.items()) + "</TRAVELLER_LINE>" for tl in lines) + "</BOARD>"
        for b, lines in boards)
    body += "".join("<TRAVELLER_LINE>" + "".join(_el(k, v) for k, v in tl.items()) + "</TRAVELLER_LINE>" for tl in loose)
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<USEBIO Version="1.2"><EVENT EVENT_TYPE="PAIRS">'
            "<EVENT_DESCRIPTION>Fuzz Pairs</EVENT_DESCRIPTION>" + _el("DATE", date_text) + "<WINNER_TYPE>2</WINNER_TYPE>"
            + body + "</EVENT></USEBIO>")


@FAST
@given(USEBIO)
def test_usebio_every_traveller_line_is_posted_or_quarantined(doc):
    date_text, boards, loose = doc
    frames, q = parse_usebio(f"{CLUB}/fuzz.xml", usebio_text(*doc).encode("utf-8"))
    no_internal_error(q)
    TravellerLines.validate(frames["traveller_lines"])
    elements = sum(len(lines) for _, lines in boards) + len(loose)
    if whole_file(q) or q["location"].astype(str).str.endswith("DATE").any():
        assert len(frames["traveller_lines"]) == 0
        return
    per_line = q["location"].astype(str).str.contains("TRAVELLER_LINE")
    assert len(frames["traveller_lines"]) + int(per_line.sum()) == elements
    assert int(per_line.sum()) == len(q)


# -- SYSTEM.process ----------------------------------------------------------------------------------
READERS = {".pbn": parse_pbn, ".csv": parse_csv, ".xml": parse_usebio}
FILE = st.one_of(
    st.tuples(st.just(".csv"), CSV_OPS.map(lambda ops: "\n".join(mutate_csv(ops)) + "\n")),
    st.tuples(st.just(".pbn"), st.tuples(st.sampled_from(PBN_SEEDS), PBN_OPS).map(
        lambda a: "\n".join(ln for _, ln in mutate_pbn(*a)) + "\n")),
    st.tuples(st.just(".xml"), USEBIO.map(lambda d: usebio_text(*d))),
)


# process reads whole sample files (up to 1,500 lines each): fewer examples, and no shrinking in
# the normal suite (a failure prints the generated files; `make fuzz` campaigns go further)
@settings(max_examples=max(10, EXAMPLES // 3), deadline=None, suppress_health_check=[HealthCheck.too_slow],
          phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(st.lists(FILE, min_size=1, max_size=3))
def test_process_never_raises_and_records_in_equal_posted_plus_quarantined(files):
    org = load_organisations(ROOT / "data").loc[CLUB]
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        sources = []
        for i, (suffix, text) in enumerate(files):
            path = tmp / f"f{i}{suffix}"
            path.write_text(text, encoding="utf-8")
            sources.append(SourceFile(CLUB, f"{CLUB}/f{i}{suffix}", path, hashlib.sha256(path.read_bytes()).hexdigest()))
        ctx = RunContext(run_id="fuzz", as_of=date(2026, 12, 2), lake=Lake.open(StatePaths(tmp / "state")), data_dir=ROOT / "data")
        batch = SYSTEM.process(ctx, org, sources, pd.DataFrame(columns=["source_file", "source_sha256"]), set())
    QuarantineDraft.validate(batch.quarantine)
    EventRecord.validate(batch.events.assign(run_id="fuzz"))
    for name, model in SYSTEM.lake_tables.items():
        model.validate(batch.tables[name])
    records = batch.records.set_index("source_file")
    assert list(records.index) == [s.source_file for s in sources]
    assert not batch.quarantine["reason"].astype(str).str.contains(INTERNAL, regex=False).any()
    for (suffix, text), source in zip(files, sources):
        frames, q = READERS[suffix](source.source_file, text.encode("utf-8"))
        records_in = len(frames["traveller_lines"]) + int((~q["location"].astype(str).isin(["whole file"])).sum())
        row = records.loc[source.source_file]
        posted = int((batch.tables["bridge_board_results"]["source_file"].astype(str) == source.source_file).sum())
        assert row["records_posted"] == posted
        assert row["records_posted"] + row["records_quarantined"] == records_in, (source.source_file, row.to_dict(), records_in)

"""Property-based tests (Hypothesis) of the mahjong reader and `SYSTEM.process` (issue 14).

Generated and mutated text posts and CSVs: nothing raises, every physical line is accounted
for, a line that looks like a result line is never chatter, and

    records in = posted + quarantined

where *records in* are the games the parser identified (runs of result lines; CSV rows of one
date and game number) plus the lines it reported on their own (unreadable CSV lines, yakuman
lines with no game above), or 1 for a file that yields none of these (quarantined whole,
"no results found"). Besides that count, an independent oracle (plain `re` on NFKC text) checks
that each result-like line lies inside a game that was posted or quarantined.

Kept fast for the normal suite (few examples, no deadline); long campaigns belong to `make fuzz`.
"""
from __future__ import annotations

import hashlib

import re
import tempfile
import unicodedata
from datetime import date
from pathlib import Path

import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipelines.core.lake import Lake
from pipelines.core.settings import DATA_DIR, StatePaths, load_organisations
from pipelines.core.system import RunContext, SourceFile
from pipelines.mahjong.parse import classify_csv, classify_text, decode, parse_csv, parse_text
from pipelines.mahjong.system import SYSTEM

AS_OF = date(2026, 12, 2)
FIXTURES = Path(__file__).with_name("fixtures")
PARSER = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
PROCESS = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# -- oracles (independent of pipelines/mahjong/parse.py) -------------------------------------------


def physical_lines(text: str) -> list[str]:
    """What an editor shows as lines: \\r\\n, \\r and \\n end a line."""
    if not text:
        return []
    lines = re.split(r"\r\n|\r|\n", text)
    return lines[:-1] if text.endswith(("\n", "\r")) else lines


_RESULT_LIKE = re.compile(r"^(?:[^0-9\s]?[ \t]*[0-9]+[ \t]*[位着]|[・･*][ \t]*[0-9])")
# a bullet before a date ("・2026/10/27(火)", "・11/5"): a date line, unless a score ends it
_BULLET_DATE = re.compile(r"^[・･*][ \t]*(?:[0-9]{4}[ \t]*[-/.年][ \t]*[0-9]{1,2}[ \t]*[-/.月]|[0-9]{1,2}[ \t]*[/月])"
                          r"[ \t]*[0-9]{1,2}(?![0-9])")
_ENDS_IN_SCORE = re.compile(r"(?:^|[^0-9,])-?[0-9][0-9,]{2,}\s*点?$")


def result_like(line: str) -> bool:
    """A line that starts with a rank ("1位", "・２位", "1着", "第3位") or a bullet and a digit (but a
    date after the bullet, with no score at the end)."""
    text = unicodedata.normalize("NFKC", line).strip()
    if _BULLET_DATE.match(text) and not _ENDS_IN_SCORE.search(text):
        return False
    return bool(_RESULT_LIKE.match(text))


# -- generators ----------------------------------------------------------------------------------

FULL = str.maketrans("0123456789-", "０１２３４５６７８９－")
names = st.one_of(
    st.sampled_from(["らつみ", "りつみ", "るつみ", "れつみ", "Ken", "Ｋｅｎ", "田中　一郎", "ぽん太"]),
    st.text(min_size=1, max_size=80),
)
scores = st.one_of(
    st.integers(-50_000, 120_000).map(str),
    st.integers(-50_000, 120_000).map(lambda n: f"{n:,}"),
    st.integers(-50_000, 120_000).map(lambda n: str(n).translate(FULL)),
    st.builds(lambda sign, n: f"{sign}{n}", st.sampled_from(["−", "▲", "△", "－", "–"]), st.integers(0, 50_000)),
    st.integers(-(10 ** 30), 10 ** 30).map(str),
    st.text(alphabet="0123456789,-OoＯ点 ", min_size=1, max_size=25),
)
years = st.one_of(st.sampled_from([2026, 2025, 1970, 1999, 2000, 9999, 2027, 1, 1677, 2262]), st.integers(0, 9999))
date_lines = st.one_of(
    st.builds(lambda y, m, d: f"{y:04d}-{m:02d}-{d:02d}", years, st.integers(0, 13), st.integers(0, 32)),
    st.builds(lambda y, m, d: f"{y}年{m}月{d}日(火)".translate(FULL), years, st.integers(1, 12), st.integers(1, 31)),
    st.builds(lambda m, d: f"{m}月{d}日", st.integers(1, 12), st.integers(1, 31)),
    st.builds(lambda d, rest: f"2026/11/{d} {rest}", st.integers(1, 30), st.text(max_size=10)),
    # a date anywhere in its line, decorated; an era year (令和 read, others reported)
    st.builds(lambda pre, y, m, d, post: f"{pre}{y}年{m}月{d}日{post}", st.sampled_from(["【", "■", "・", "日付：", "今日は", "第12回 "]),
              years, st.integers(0, 13), st.integers(0, 32), st.sampled_from(["】", "", "です", "(火)", " 55000"])),
    st.builds(lambda era, n, m, d: f"{era}{n}年{m}月{d}日", st.sampled_from(["令和", "平成", "R", "㋿"]),
              st.sampled_from(["元", "1", "8", "0", "99"]), st.integers(1, 12), st.integers(1, 31)),
)
ranked_lines = st.builds(
    lambda bullet, rank, word, name, gap, score: f"{bullet}{rank}{word}{name}{gap}{score}",
    st.sampled_from(["・", "", "･", "*", "• ", "第", "1. "]),
    st.one_of(st.integers(1, 4).map(str), st.integers(0, 10 ** 25).map(str), st.integers(1, 4).map(lambda r: str(r).translate(FULL))),
    st.sampled_from(["位", "着", "位 ", "着：", " ", ". "]),
    names,
    st.sampled_from([" ", "", "　", "  "]),
    scores,
)
yakuman_lines = st.builds(
    lambda form, n, y: form.format(n=n, y=y),
    st.sampled_from(["{n}さんが役満、{y}を和了しました。", "{n}さんが{y}（役満）を和了しました。", "役満：{n}（{y}）", "【役満】{n} {y}",
                     "{n}さん役満おめでとう！", "役満聴牌までいったのに…"]),
    names, st.sampled_from(["四暗刻", "国士無双", ""]))
chatter = st.one_of(
    st.sampled_from(["こんばんは", "・次回は土曜日です。", "参加費 1000", "今日は２位ばっかりでした。", "", "   ", "# end"]),
    st.text(max_size=60),
)
line = st.one_of(date_lines, ranked_lines, ranked_lines, ranked_lines, yakuman_lines, chatter)
separators = st.sampled_from(["\n", "\r\n", "\r"])


@st.composite
def text_posts(draw) -> str:
    lines = draw(st.lists(line, max_size=30))
    sep = draw(separators)
    text = sep.join(lines) + (sep if draw(st.booleans()) else "")
    return draw(mutated(text))


@st.composite
def mutated(draw, text: str) -> str:
    """Up to three byte-level accidents: a character dropped, doubled or replaced, a line break or
    quote inserted, a huge number pasted in."""
    for _ in range(draw(st.integers(0, 3))):
        if not text:
            break
        i = draw(st.integers(0, len(text) - 1))
        kind = draw(st.sampled_from(["drop", "double", "insert"]))
        if kind == "drop":
            text = text[:i] + text[i + 1:]
        elif kind == "double":
            text = text[:i] + text[i] + text[i:]
        else:
            piece = draw(st.sampled_from(['"', ",", "\n", "\r", "位", "着", "1", "１", "99999999999999999999", "\x00", "\ufeff",
                                          "\u2028", ",,,,,,,,,,,,,,,,,,,,"]))
            text = text[:i] + piece + text[i:]
    return text


csv_fields = st.one_of(
    st.sampled_from(["2026-11-03", "2026/11/3", "9999-01-01", "1970-01-01", "", "1", "2", "3", "4", "5", "A", "らつみ", "0", "x"]),
    scores,
    st.text(max_size=20),
    st.text(max_size=20).map(lambda s: '"' + s.replace('"', '""') + '"'),
)


@st.composite
def csv_files(draw) -> str:
    header = draw(st.one_of(st.just("date,game,rank,player,score,yakuman"), st.just("Date, Game, Rank, Player, Score, Yakuman"),
                            st.just("date,game,player,score"), st.just("yakuman,score,player,rank,game,date,note"),
                            st.text(max_size=40)))
    width = draw(st.integers(1, 8))
    good = st.builds(lambda g, r, n, s: f"2026-11-03,{g},{r},{n},{s},", st.integers(1, 3), st.integers(1, 4),
                     st.sampled_from(["A", "B", "C", "D"]), st.integers(-5000, 60000))
    rows = draw(st.lists(st.one_of(good, good, st.lists(csv_fields, min_size=width, max_size=width).map(",".join)), max_size=20))
    sep = draw(separators)
    text = sep.join([header, *rows]) + (sep if draw(st.booleans()) else "")
    return draw(mutated(text))


def sample_posts() -> list[str]:
    inbox = DATA_DIR / "samples" / "inbox" / "sofu-mahjong"
    return sorted(p.read_text(encoding="utf-8") for p in inbox.glob("*.txt"))[:6] + [
        (FIXTURES / "malformed_post.txt").read_text(encoding="utf-8")]


# -- parser properties ----------------------------------------------------------------------------


def _text_accounting(text: str) -> None:
    lines = physical_lines(text)
    kinds = classify_text(text)
    assert kinds.index.tolist() == list(range(1, len(lines) + 1))
    assert kinds.isin(["blank", "date", "result", "yakuman", "orphan_yakuman", "chatter"]).all()
    results, yakuman, orphans = parse_text("x.txt", text)
    assert sorted(results["line_no"]) == kinds.index[kinds == "result"].tolist()
    assert sorted(yakuman["line_no"]) == kinds.index[kinds == "yakuman"].tolist()
    assert sorted(orphans["line_no"]) == kinds.index[kinds == "orphan_yakuman"].tolist()
    for number, raw in enumerate(lines, 1):
        if result_like(raw):
            assert kinds[number] == "result", (number, raw)
        if not raw.strip():
            assert kinds[number] == "blank"


@PARSER
@given(text_posts())
def test_text_parser_accounts_for_every_line(text):
    _text_accounting(text)


@PARSER
@given(st.sampled_from(sample_posts()).flatmap(mutated))
def test_mutated_sample_posts(text):
    _text_accounting(text)


@PARSER
@given(csv_files())
def test_csv_parser_accounts_for_every_line(text):
    lines = physical_lines(text)
    kinds = classify_csv(text)
    assert kinds.index.tolist() == list(range(1, len(lines) + 1))
    results, _, orphans = parse_csv("x.csv", text)
    records = set(results["line_no"])
    problems = set(orphans["line_no"])
    assert not records & problems
    assert len(records) == len(results)  # one record per physical line, never two
    content = [n for n, raw in enumerate(lines, 1) if re.sub(r'[,"\s]', "", raw)]
    if records:
        # every line after the header (the first line with content) is a record, a problem or the header again
        for n in content[1:]:
            assert n in records or n in problems or kinds[n] == "header", (n, lines[n - 1])
    assert (kinds[sorted(records)] == "record").all() and (kinds[sorted(problems)] == "problem").all()
    assert all(1 <= n <= len(lines) for n in records | problems)


# -- SYSTEM.process properties --------------------------------------------------------------------

_STATE = tempfile.TemporaryDirectory()
_CTX = RunContext(run_id="fuzz", as_of=AS_OF, lake=Lake.open(StatePaths(Path(_STATE.name))), data_dir=DATA_DIR)
_ORG = load_organisations(DATA_DIR).loc["sofu-mahjong"]
_NO_HISTORY = pd.DataFrame(columns=["source_file", "source_sha256"])


def _span(location: str) -> tuple[int, int]:
    numbers = [int(n) for n in re.findall(r"\d+", location)]
    return (numbers[0], numbers[-1]) if numbers else (0, 10 ** 9)


def _records_in(name: str, data: bytes) -> int:
    text, _ = decode(data)
    if text is None:
        return 1
    results, _, orphans = (parse_csv if name.endswith(".csv") else parse_text)(name, text)
    return (results["game_key"].nunique() + len(orphans)) or 1


def _batch(files: list[tuple[str, bytes]]):
    with tempfile.TemporaryDirectory() as folder:
        sources = []
        for i, (name, data) in enumerate(files):
            path = Path(folder) / f"{i}-{Path(name).name}"
            path.write_bytes(data)
            # the digest the scan would take (a read checks the bytes against it)
            sources.append(SourceFile("sofu-mahjong", name, path, hashlib.sha256(data).hexdigest()))
        return SYSTEM.process(_CTX, _ORG, sources, _NO_HISTORY, set())


def _process(name: str, data: bytes) -> None:
    batch = _batch([(name, data)])
    text, _ = decode(data)
    records_in = _records_in(name, data)
    posted = int(batch.records["records_posted"].sum())
    quarantined = int(batch.records["records_quarantined"].sum())
    assert posted + quarantined == records_in
    assert len(batch.quarantine) == quarantined and batch.events["event_id"].nunique() == posted
    assert (batch.awards.groupby("event_id").size() == 4).all() and batch.awards["points"].notna().all()
    assert batch.quarantine["reason"].str.len().gt(0).all()
    if text is not None and not name.endswith(".csv"):
        spans = [_span(loc) for loc in list(batch.quarantine["location"]) + list(batch.awards["location"])]
        for number, raw in enumerate(physical_lines(text), 1):
            if result_like(raw):
                assert any(a <= number <= b for a, b in spans), (number, raw)


@PROCESS
@given(text_posts())
def test_process_text_posts_nothing_escapes_nothing_lost(text):
    _process("sofu-mahjong/fuzz.txt", text.encode("utf-8", errors="surrogatepass"))


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])  # a dozen games each
@given(st.sampled_from(sample_posts()).flatmap(mutated))
def test_process_mutated_sample_posts(text):
    _process("sofu-mahjong/fuzz.txt", text.encode("utf-8", errors="surrogatepass"))


@PROCESS
@given(csv_files())
def test_process_csv_nothing_escapes_nothing_lost(text):
    _process("sofu-mahjong/fuzz.csv", text.encode("utf-8", errors="surrogatepass"))


@PROCESS
@given(st.binary(max_size=200))
def test_process_any_bytes(data):
    _process("sofu-mahjong/fuzz.txt", data)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(text_posts().map(lambda t: ("txt", t)), csv_files().map(lambda t: ("csv", t))), min_size=1, max_size=4))
def test_process_a_batch_of_files_counts_every_file(files):
    named = [(f"sofu-mahjong/f{i}.{kind}", text.encode("utf-8", errors="surrogatepass")) for i, (kind, text) in enumerate(files)]
    batch = _batch(named)
    counts = batch.records.set_index("source_file")
    for name, data in named:  # a game repeated in another file of the batch is quarantined there
        assert counts.loc[name, "records_posted"] + counts.loc[name, "records_quarantined"] == _records_in(name, data)

"""Read league result posts into one row per player per game.

Two formats (docs in README, "Mahjong input formats"):

* text posts, as players write them on the league's board::

      2026年11月3日(火)
      ・１位らつみ 55000
      ・２位りつみ 28000
      ・３位るつみ 22000
      ・４位れつみ -5000
      らつみさんが役満、四暗刻を和了しました。

  (``1着 らつみ 55000`` is read too: ``着`` for ``位``, the bullet optional).

* CSV, one row per player per game: ``date,game,rank,player,score,yakuman``; one record is one
  physical line (a quoted field may not continue on the next line).

Every physical line of a file is accounted for (`classify_text` says how): a date line, a result
line (it belongs to a game, and every game is posted or quarantined), a yakuman line, blank, or
chatter. A line that *looks like* a result line but cannot be read is not chatter: it is a
problem of the game it stands in, with its line number. So is a line of 役満 below a game that no
yakuman form reads (but 役満 of a hand not won, "役満聴牌"), and a date line that cannot be read
holds every game below it (no game takes the date of an earlier line). In a CSV a line is the header (again),
a record, blank, or a problem with its line number.

Bounds are validation: a score of more than `MAX_SCORE_DIGITS` digits, a name longer than
`MAX_NAME_CHARS`, a yakuman count above `MAX_YAKUMAN`, a CSV field longer than
`MAX_FIELD_CHARS`, a line longer than `MAX_LINE_CHARS` each quarantine with their own reason;
nothing is cast that could overflow. Dates are checked against the league's window (first rule
version, run date) in `validate.py`, on `date_text` (ISO text, any four-digit year).

Parsing is vectorised over the lines of a file in Arrow (RE2 regexes, linear in the input); the
per-line arrays are integers and booleans, and only the result and yakuman lines become pandas
rows. Nothing here decides whether a game is valid: that is `validate.py`.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from pipelines.core.parallel import serves_workers
from pipelines.core.text import rewrite_where_found, split_line, unicode_marked

serves_workers(__name__)  # parse_texts, a backlog's chunks (pipelines/mahjong/system.py)

RESULT_COLUMNS = [
    "game_key", "source_file", "game_seq", "line_no", "event_date", "date_text", "date_problem", "date_line",
    "rank", "rank_given", "player_raw", "score", "raw", "problem",
]
YAKUMAN_COLUMNS = ["game_key", "source_file", "game_seq", "line_no", "player_raw", "yakuman_name", "raw", "problem"]
ORPHAN_COLUMNS = ["source_file", "line_no", "raw", "problem"]

# Bounds (README, "Bounds"). Scores are integers far below these; the bounds keep every sum and
# cast exact (int64) and every text a club can act on.
MAX_SCORE_DIGITS = 9  # |score| <= 999,999,999
MAX_NAME_CHARS = 64  # a player's name
MAX_YAKUMAN = 9  # yakuman of one player in one game (CSV `yakuman` column)
MAX_FIELD_CHARS = 100  # any other CSV field
MAX_CSV_COLUMNS = 50  # columns of a CSV header
MAX_LINE_CHARS = 1000  # a longer line is never a result, date or yakuman line
QUOTE_CHARS = 200  # how much of a line a quarantine record quotes
# Dates the pipeline can hold as timestamps; a date outside is still a date (`date_text`) and is
# quarantined by the date window (before the first rule version, after the run date).
_TIMESTAMP_YEARS = (1700, 2200)


def empty_results() -> pd.DataFrame:
    """A typed empty result frame (a file with no games must flow through like any other)."""
    return pd.DataFrame(
        {
            "game_key": pd.Series(dtype="int64"),
            "source_file": pd.Series(dtype="string"), "game_seq": pd.Series(dtype="float64"),
            "line_no": pd.Series(dtype="int64"), "event_date": pd.Series(dtype="datetime64[ns]"),
            "date_text": pd.Series(dtype="string"),
            "date_problem": pd.Series(dtype="string"), "date_line": pd.Series(dtype="Float64"),
            "rank": pd.Series(dtype="Int64"), "rank_given": pd.Series(dtype="bool"),
            "player_raw": pd.Series(dtype="string"), "score": pd.Series(dtype="Int64"),
            "raw": pd.Series(dtype="string"), "problem": pd.Series(dtype="string"),
        }
    )


def empty_yakuman() -> pd.DataFrame:
    return pd.DataFrame(
        {"game_key": pd.Series(dtype="int64"),
         "source_file": pd.Series(dtype="string"), "game_seq": pd.Series(dtype="float64"),
         "line_no": pd.Series(dtype="int64"), "player_raw": pd.Series(dtype="string"),
         "yakuman_name": pd.Series(dtype="string"), "raw": pd.Series(dtype="string"),
         "problem": pd.Series(dtype="string")}
    )


def empty_orphans() -> pd.DataFrame:
    return pd.DataFrame({"source_file": pd.Series(dtype="string"), "line_no": pd.Series(dtype="int64"),
                         "raw": pd.Series(dtype="string"), "problem": pd.Series(dtype="string")})


# After NFKC: full-width digits/letters are ASCII and "－" is "-". These minus signs are not.
# ▲ and △ are the minus signs of Japanese accounts and score sheets (△5000 is −5000)
_MINUS_SIGNS = {"\u2212": "-", "▲": "-", "△": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2015": "-"}
_MINUS_CLASS = "[" + "".join(_MINUS_SIGNS) + "]"
# Control characters, line/paragraph separators, a BOM inside the text (two files pasted
# together), zero-width spaces: read as a space, so "\ufeff2026-11-03" is still a date line.
_INVISIBLE = r"[\x00-\x08\x0b-\x1f\x7f\x{85}\x{1680}\x{200b}\x{2028}\x{2029}\x{feff}]"

_BULLET = r"[・･\*•●○◆◇■□]"
# A CSV date field: the date first, a weekday or a note after it.
_DATE = (r"^(?P<y>\d{4})\s*[-/.年]\s*(?P<m>\d{1,2})\s*[-/.月]\s*(?P<d>\d{1,2})\s*日?"
         r"(?:\s*[\(（][^\)）]*[\)）])?(?:\s+\S.*|[^\d\s].*)?$")
# A date line of a text post holds a Gregorian y/m/d anywhere ("【2026年12月1日】", "日付：2026/10/26",
# "今日は2026/10/29です"); `_DATE_LAST` finds the last one, so a line of two dates is reported.
_YMD = r"(?P<y>\d{4})\s*[-/.年]\s*(?P<m>\d{1,2})\s*[-/.月]\s*(?P<d>\d{1,2})(?:\D|$)"
_DATE_IN_LINE = r"(?:^|\D)" + _YMD
_DATE_LAST = r"^.*(?:^|\D)" + _YMD
# What a line must hold for `_DATE_IN_LINE` to match it (the groups are taken there only)
_DATE_LITERAL = r"\d{4}\s*[-/.年]\s*\d"
# Only decoration (no letter, no digit) before the date: "■2026年10月27日(火)" is a date line
# although a bullet and a digit start it.
_DATE_LEADS = r"^[^\p{L}\p{N}]*\d{4}\s*[-/.年]"
# A year of a Japanese era ("令和8年10月23日", "R8.10.25", "平成30年…"): 令和 written out is read
# (令和n年 = 2018 + n, 元年 = 1); any other era, or an era letter, is a date that cannot be read.
_ERA_DATE = (r"(?:^|[^A-Za-z])(?P<era>令和|平成|昭和|[RHS])\s*(?P<ey>\d{1,2}|元)\s*[-/.年]\s*"
             r"(?P<em>\d{1,2})\s*[-/.月]\s*(?P<ed>\d{1,2})(?:\D|$)")
_ERA_LITERAL = r"(?:令和|平成|昭和|[RHS])\s*(?:\d|元)"
READ_ERA, READ_ERA_OFFSET, READ_ERA_FROM = "令和", 2018, "2019-05-01"
_DATE_NO_YEAR = (r"^[^\p{L}\p{N}]*\d{1,2}\s*[/月]\s*\d{1,2}\s*日?(?:\s*[\(（][^\)）]*[\)）])?"
                 r"(?:\s+\S.*|[^\d\s].*)?$")
_SCORE = r"(?P<score>-?\d{1,3}(?:,\d{3})+|-?\d+)"
_RANK = rf"^{_BULLET}?\s*(?P<rank>[1-4])\s*[位着]\s*[:.]?\s*(?P<name>\S.*?)\s*{_SCORE}\s*点?$"
# Looks like a result line (so a typo in it is reported, not ignored): a bullet then a digit;
# "N位" or "N着" (after at most one other character: "第1位", "◎1着"); a number, a name and a
# score ("1. らつみ 55000"). A bullet line of chatter
# ("・次回は土曜日です") is not a result line.
_RANK_LIKE = (rf"^(?:{_BULLET}\s*\d|[^\d\s]?\s*\d+\s*[位着]"
              rf"|{_BULLET}?\s*\d{{1,2}}\s*[.):、]?\s*[^\d\s].*[^\d,]-?\d[\d,]{{2,}}\s*点?$)")
# Ends with a score-like number (3+ digits): a result line if it stands next to another one
# ("らつみ 55000" in a game written without ranks), chatter if alone ("参加費 1000").
_ENDS_WITH_SCORE = r"(?:^|[^\d,])-?\d[\d,]{2,}\s*点?$"
_LEAD_NUMBER = rf"^{_BULLET}?\s*(?P<digit>\d+)"
# Yakuman lines (after NFKC: "（" is "(", "：" is ":"), each naming its winner; the first that
# matches reads the line:
#   らつみさんが役満、四暗刻を和了しました。 (the seed's)  らつみが役満を和了
#   らつみさんが四暗刻（役満）を和了しました。           らつみさんが役満(四暗刻)をあがりました
#   役満：らつみ（国士無双）   【役満】らつみ 国士無双   役満 らつみさん
_WIN = r"(?:和了|あがり|アガリ|上がり)"
# a label before the name: "役満：", "役満 ", "【役満】", "役満和了者："
_YAKUMAN_LABEL = r"^(?:[【\[「]\s*役満(?:和了者?)?\s*[】\]」]\s*:?|役満(?:和了者?)?\s*:|役満(?:和了者?)?\s)\s*"
_YAKUMAN_FORMS = (
    r"^\s*(?P<name>.+?)(?:さん)?\s*が\s*役満[、,]?\s*(?P<yaku>[^を]*?)\s*を?\s*和了",
    rf"^\s*(?P<name>.+?)(?:さん)?\s*が\s*(?P<yaku>[^を()]*?)\s*\(\s*役満\s*\)\s*を?\s*{_WIN}",
    rf"^\s*(?P<name>.+?)(?:さん)?\s*が\s*役満\s*\(\s*(?P<yaku>[^()]*?)\s*\)\s*を?\s*{_WIN}",
    _YAKUMAN_LABEL + r"(?P<name>[^():]+?)\s*(?:さん)?\s*\(\s*(?P<yaku>[^()]*?)\s*\)\s*[。.!]*$",
    _YAKUMAN_LABEL + r"(?P<name>[^\s():]+?)\s*(?:さん)?(?:\s+(?P<yaku>[^\s():]+?))?\s*[。.!]*$",
)
_YAKUMAN = _YAKUMAN_FORMS[0]
# 役満 said of a hand that was not won ("役満聴牌までいったのに…") is chatter
_YAKUMAN_NOT_WON = r"役満\s*(?:聴牌|テンパイ|てんぱい)"
# What a line must hold for `_DATE_IN_LINE` and the yakuman forms to match it (the groups are taken there only)
_YAKUMAN_WORD = "役満"
EXPECTED_YAKUMAN_LINE = "「らつみさんが役満、四暗刻を和了しました。」 or 「役満：らつみ（四暗刻）」 (a player of this game)"

EXPECTED_RESULT_LINE = "「・1位 名前 55000」 or 「1着 名前 55000」 (rank 1-4, name, final score)"
EXPECTED_DATE = "2026-11-03, 2026/11/03 or 2026年11月3日"
EXPECTED_CONTENT = (
    "a date line (2026-11-03) followed by result lines such as '・1位 name 55000' or '1着 name 55000', "
    "or a CSV with the header date,game,rank,player,score,yakuman"
)
LINE_KINDS = ["blank", "date", "result", "yakuman", "orphan_yakuman", "chatter"]


def decode(data: bytes) -> tuple[str | None, str | None]:
    """UTF-8 (with or without BOM), else Shift_JIS as Japanese Windows saves it; UTF-16 with its
    byte order mark (Windows' "Unicode") as the mark says."""
    marked = unicode_marked(data)
    if marked is not None:
        return marked[0], None
    for encoding in ("utf-8-sig", "cp932"):
        try:
            return data.decode(encoding), None
        except UnicodeDecodeError:
            continue
    bad = data.decode("utf-8", errors="replace").find("\ufffd")
    return None, f"the file is not UTF-8 or Shift_JIS text (unreadable byte near character {bad}); save it as UTF-8"


# -- lines ----------------------------------------------------------------------------------------

def physical_lines(text: str) -> pa.Array:
    """The lines an editor shows: split at \\r\\n, \\r or \\n only (a final newline ends the last line)."""
    if not text:
        return pa.array([], type=pa.string())
    whole = pa.array([text], type=pa.string())
    if "\r" in text:  # (a copy of the text only when there is a \r to replace)
        whole = pc.replace_substring(pc.replace_substring(whole, "\r\n", "\n"), "\r", "\n")
    lines = pc.list_flatten(pc.split_pattern(whole, "\n"))
    if text.endswith(("\n", "\r")):
        lines = lines.slice(0, len(lines) - 1)
    return lines


def _normalise(raw: pa.Array) -> pa.Array:
    """NFKC (full-width digits and letters, "－" → "-"), other minus signs, trimmed.

    Only the first `MAX_LINE_CHARS` characters are normalised: a longer line is never a result,
    date or yakuman line, and NFKC of a long line could grow it many times over.
    """
    head = pc.utf8_slice_codeunits(raw, 0, MAX_LINE_CHARS)
    norm = pc.utf8_normalize(head, form="NFKC")
    norm = _replace_where_found(norm, _MINUS_CLASS, "-")
    norm = _replace_where_found(norm, _INVISIBLE, " ")
    return pc.utf8_trim_whitespace(norm)


def _replace_where_found(texts: pa.Array, pattern: str, replacement: str) -> pa.Array:
    """`replace_substring_regex` on the lines the pattern is found in only (few lines hold a minus
    sign or an invisible character)."""
    return rewrite_where_found(texts, pattern, lambda found: pc.replace_substring_regex(found, pattern=pattern, replacement=replacement))


def _quote(raw: pa.Array) -> pa.Array:
    """What a quarantine record quotes of a line: stripped, at most `QUOTE_CHARS` characters."""
    stripped = pc.utf8_trim_whitespace(raw)
    long = pc.greater(pc.utf8_length(stripped), QUOTE_CHARS)
    head = pc.binary_join_element_wise(pc.utf8_slice_codeunits(stripped, 0, QUOTE_CHARS), "…", "")
    return pc.if_else(long, head, stripped)


def _np(array, dtype=bool) -> np.ndarray:
    """An Arrow boolean/integer array as numpy (nulls → False / 0)."""
    if pa.types.is_boolean(array.type):
        return array.fill_null(False).to_numpy(zero_copy_only=False).astype(bool)
    return array.fill_null(0).to_numpy(zero_copy_only=False).astype(dtype)


def _matches(texts: pa.Array, pattern: str, only: np.ndarray | None = None) -> np.ndarray:
    """Where a regex matches; with `only`, searched on those lines alone (the others: False), as
    `_extract` does: a league's 800,000 result lines need not be searched for a date or an era."""
    if only is None:
        return _np(pc.match_substring_regex(texts, pattern))
    rows = np.flatnonzero(only)
    mask = np.zeros(len(texts), dtype=bool)
    if len(rows):
        mask[rows] = _np(pc.match_substring_regex(texts.take(pa.array(rows, type=pa.int64())), pattern))
    return mask


def _extract(texts: pa.Array, pattern: str, only: np.ndarray | None = None) -> tuple[np.ndarray, dict[str, pa.Array]]:
    """(matched mask, named groups) of a regex, in Arrow's RE2 (linear in the text).

    `only`: the lines the pattern can match at all (they hold a literal it needs; found by a plain
    search, several times cheaper than extracting groups): the groups are taken on those lines,
    and every other line is a non-match, as it would be."""
    if only is not None:
        rows = np.flatnonzero(only)
        matched, groups = _extract(texts.take(pa.array(rows, type=pa.int64())), pattern)
        mask = np.zeros(len(texts), dtype=bool)
        mask[rows] = matched
        where = pa.array(only)
        return mask, {name: pc.replace_with_mask(pa.nulls(len(texts), pa.string()), where, group) for name, group in groups.items()}
    found = pc.extract_regex(texts, pattern)
    valid = found.is_valid()
    null = pa.scalar(None, type=pa.string())
    return _np(valid), {f.name: pc.if_else(valid, found.field(f.name), null) for f in found.type}


def _pd(array: pa.Array, index=None) -> pd.Series:
    values = array.to_pandas(types_mapper={pa.string(): pd.StringDtype()}.get)
    return pd.Series(values.array, index=index, dtype="string")


def _bounded_integers(text: pd.Series, max_digits: int) -> tuple[pd.Series, pd.Series]:
    """(Int64 values, too-long mask) of integer text the regexes already checked ("-1,000" ok).

    Text with more than `max_digits` digits is not cast (it could overflow int64): NA, flagged.
    """
    digits = text.astype("string").str.replace(",", "", regex=False)
    integer = digits.str.fullmatch(r"-?\d+").fillna(False).astype(bool)
    too_long = (integer & (digits.str.lstrip("-").str.len() > max_digits)).fillna(False).astype(bool)
    safe = digits.where(integer & ~too_long)
    values = pc.cast(pa.array(safe, type=pa.string(), from_pandas=True), pa.int64())
    return pd.Series(pd.array(values, dtype="Int64"), index=text.index), too_long


def _calendar_dates(y: pd.Series, m: pd.Series, d: pd.Series) -> tuple[pd.Series, pd.Series]:
    """(ISO text, timestamp) of each date given by its parts; NA where the parts make no date.

    The calendar repeats every 400 years, so a date of any four-digit year is checked on the
    equivalent year 2000-2399; timestamps only for years the pipeline holds (`_TIMESTAMP_YEARS`).
    """
    text = pd.Series(pd.NA, index=y.index, dtype="string")
    stamp = pd.Series(pd.NaT, index=y.index, dtype="datetime64[ns]")
    present = y.notna() & m.notna() & d.notna()
    if not present.any():
        return text, stamp
    year = y[present].astype(int)
    mm, dd = m[present].str.zfill(2), d[present].str.zfill(2)
    same_weekdays = (year % 400 + 2000).astype("string")
    real = pd.to_datetime(same_weekdays + "-" + mm + "-" + dd, format="%Y-%m-%d", errors="coerce").notna()
    iso = year.astype("string").str.zfill(4) + "-" + mm + "-" + dd
    text[present] = iso.where(real)
    holdable = real & (year >= _TIMESTAMP_YEARS[0]) & (year <= _TIMESTAMP_YEARS[1])
    if holdable.any():
        stamp[holdable[holdable].index] = pd.to_datetime(iso[holdable], format="%Y-%m-%d").astype("datetime64[ns]")
    return text, stamp


def _message(mask: pd.Series, *parts) -> pd.Series:
    """The concatenated parts (texts or Series) where `mask` holds, NA elsewhere: messages are
    built for the rows that have the problem only (a clean file builds none)."""
    mask = pd.Series(mask).fillna(False).astype(bool)
    out = pd.Series(pd.NA, index=mask.index, dtype="string")
    if mask.any():
        text = pd.Series("", index=mask.index[mask], dtype="string")
        for part in parts:
            text = text + (part[mask].astype("string") if isinstance(part, pd.Series) else str(part))
        out[mask] = text
    return out


def _first_message(parts: list[pd.Series]) -> pd.Series:
    out = parts[0]
    for part in parts[1:]:
        out = out.fillna(part)
    return out


def _join_problems(parts: list[pd.Series]) -> pd.Series:
    """'; '-joined non-NA messages per row (vectorised; NA where there is none)."""
    out = pd.Series(pd.NA, index=parts[0].index, dtype="string")
    for part in parts:
        part = part.astype("string")
        out = out.where(part.isna(), out.where(out.isna(), out + "; ").fillna("") + part)
    return out


def _yakuman_forms(texts: pa.Array, where: np.ndarray) -> tuple[np.ndarray, dict[str, pa.Array]]:
    """(read mask, name and yaku groups) of the yakuman forms on the lines `where` (those holding
    役満, a few of a league's lines): the first form that matches a line reads it."""
    rows = np.flatnonzero(where)
    sub = texts.take(pa.array(rows, type=pa.int64()))
    read = np.zeros(len(rows), dtype=bool)
    found = {"name": pa.nulls(len(rows), pa.string()), "yaku": pa.nulls(len(rows), pa.string())}
    for form in _YAKUMAN_FORMS:  # a handful of patterns, each over those lines at once
        matched, groups = _extract(sub, form)
        new = pa.array(matched & ~read)
        found = {k: pc.if_else(new, groups[k], v) for k, v in found.items()}
        read |= matched
    mask = np.zeros(len(texts), dtype=bool)
    mask[rows] = read
    return mask, {k: pc.replace_with_mask(pa.nulls(len(texts), pa.string()), pa.array(where), v) for k, v in found.items()}


def _date_lines(text: pa.Array, rows: np.ndarray, numbers: np.ndarray, quoted: pd.Series, gregorian: np.ndarray,
                era: np.ndarray, groups: dict[str, pa.Array]) -> tuple[pd.Series, pd.Series, pd.Series]:
    """(ISO text, timestamp, problem) of the date lines `rows` (their normalised `text`, line
    `numbers`, `quoted` raw text, and the groups of `_DATE_IN_LINE` and `_ERA_DATE`).

    A Gregorian date is read where it stands; a line of two different dates is not read. A 令和
    year is read (令和n年 = 2018 + n); another era, an era letter ("R8.10.25") or a date without a
    year is reported. Every problem holds the games below the line."""
    def part(name: str, where: np.ndarray) -> pd.Series:
        return _pd(groups[name], index=rows).where(where)

    reiwa = era & _np(pc.equal(groups["era"], READ_ERA))
    era_year = part("ey", reiwa).replace("元", "1")
    era_year = (pd.to_numeric(era_year, errors="coerce") + READ_ERA_OFFSET).astype("Int64").astype("string")
    y = part("y", gregorian).fillna(era_year)
    m = part("m", gregorian).fillna(part("em", reiwa))
    d = part("d", gregorian).fillna(part("ed", reiwa))
    iso, stamp = _calendar_dates(y, m, d)

    # the last date of a line, where it is another date than the first
    _, last = _extract(text, _DATE_LAST, only=gregorian)

    def ymd(y, m, d):
        return y + "-" + m.str.zfill(2) + "-" + d.str.zfill(2)

    first_text = ymd(part("y", gregorian), part("m", gregorian), part("d", gregorian))
    last_text = ymd(*(_pd(last[k], index=rows) for k in ("y", "m", "d")))
    two_dates = pd.Series(gregorian, index=rows) & (first_text != last_text).fillna(False)

    at = "line " + pd.Series(numbers, index=rows).astype("string") + ": the date line " + quoted
    problem = _first_message([
        _message(two_dates, at, " holds two dates (", first_text, " and ", last_text, f"); expected one date, such as {EXPECTED_DATE}"),
        _message(pd.Series(gregorian | reiwa, index=rows) & iso.isna(), at, " is not a real calendar date"),
        _message(pd.Series(era & ~reiwa, index=rows), at, " gives the year of an era that is not read (only ", READ_ERA,
                 " written out is: ", READ_ERA, "8年 = 2026); expected ", EXPECTED_DATE),
        _message(pd.Series(reiwa, index=rows) & (iso < READ_ERA_FROM).fillna(False), at, " is not a date of the ", READ_ERA,
                 " era (it began on ", READ_ERA_FROM, "); expected ", EXPECTED_DATE),
        _message(pd.Series(~gregorian & ~era, index=rows), at, f" has no year; expected {EXPECTED_DATE}"),
    ])
    return iso.where(problem.isna()), stamp.where(problem.isna()), problem


# -- text posts -----------------------------------------------------------------------------------

def parse_text(source_file: str, text: str) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """One text post → (result rows, yakuman rows, orphan problems not attached to any game)."""
    return parse_texts([(source_file, text)])


def classify_text(text: str) -> pd.Series:
    """What each physical line of a text post is (`LINE_KINDS`), indexed by line number."""
    codes = _parse_text_lines([("x", text)])[3]
    labels = pd.Categorical.from_codes(codes, categories=LINE_KINDS) if len(codes) else pd.Categorical([], categories=LINE_KINDS)
    return pd.Series(labels, index=pd.RangeIndex(1, len(codes) + 1, name="line_no")).astype("string")


def parse_texts(files: list[tuple[str, str]]) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Many text posts at once → (result rows, yakuman rows, orphan problems).

    Everything is vectorised over the lines of all files together; nothing carries over from one
    file to the next (dates, games, yakuman lines all stay inside their file).
    """
    results, yakuman, orphans, _ = _parse_text_lines(files)
    return results, yakuman, orphans


def _parse_text_lines(files: list[tuple[str, str]]):
    per_file = [physical_lines(text) for _, text in files]
    counts = np.array([len(a) for a in per_file], dtype=np.int64)
    n = int(counts.sum())
    if n == 0:
        return empty_results(), empty_yakuman(), empty_orphans(), np.array([], dtype=np.int8)
    raw = pa.concat_arrays(per_file)
    del per_file
    names = np.array([name for name, _ in files], dtype=object)
    file_idx = np.repeat(np.arange(len(files)), counts)
    starts = np.r_[0, np.cumsum(counts)[:-1]]
    file_start = starts[file_idx]
    position = np.arange(n)
    line_no = position - file_start + 1
    first_of_file = line_no == 1
    last_of_file = np.r_[first_of_file[1:], True]

    t = _normalise(raw)
    raw_length = _np(pc.utf8_length(raw), np.int64)
    blank = _np(pc.equal(t, ""))
    is_rank, rank_groups = _extract(t, _RANK)
    # (a result line is never a date line: dates are looked for on the other lines only)
    date_found, date_groups = _extract(t, _DATE_IN_LINE, only=_matches(t, _DATE_LITERAL, only=~is_rank))
    mentions_yakuman = _np(pc.match_substring(t, _YAKUMAN_WORD))
    yakuman_read, yakuman_groups = _yakuman_forms(t, mentions_yakuman)
    # every line of 役満 is a yakuman line (read, or reported where it would count), but one of a
    # hand that was not won ("役満聴牌までいったのに…"), which is chatter
    is_yakuman_text = yakuman_read | (mentions_yakuman & ~_matches(t, _YAKUMAN_NOT_WON, only=mentions_yakuman))
    rank_like = _matches(t, _RANK_LIKE) | is_rank
    ends_with_score = _matches(t, _ENDS_WITH_SCORE)
    # A line holding a date is a date line, wherever the date sits ("【2026年12月1日】", "今日は
    # 2026/10/29です"); a line that looks like a result line only if the date leads it after
    # decoration and no score ends it ("■2026年10月27日(火)").
    date_leads = _matches(t, _DATE_LEADS, only=date_found)
    is_date = date_found & ~is_rank & (~rank_like | (date_leads & ~ends_with_score))
    era_found, era_groups = _extract(t, _ERA_DATE, only=_matches(t, _ERA_LITERAL, only=~rank_like & ~date_found))
    is_era = era_found & ~rank_like
    is_date_no_year = _matches(t, _DATE_NO_YEAR, only=~is_rank) & ~(rank_like & ends_with_score) & ~is_date & ~is_era
    is_any_date = is_date | is_era | is_date_no_year
    # A line ending in a score is a result line next to another such line (a game written
    # without ranks) or between two result lines (inside a game); alone, or just after a game,
    # it is chatter ("参加費 1000").
    candidate = ends_with_score & ~rank_like & ~is_any_date & ~is_yakuman_text

    def before(mask):  # the line above is in the same file and `mask`
        return np.r_[False, mask[:-1]] & ~first_of_file

    def after(mask):
        return np.r_[mask[1:], False] & ~last_of_file

    result_like = rank_like | (candidate & (before(candidate) | after(candidate) | (before(rank_like) & after(rank_like))))
    result_like &= ~is_any_date  # a date line with a score-like tail is still a date line
    is_yakuman = is_yakuman_text & ~result_like & ~is_any_date

    # The date in force on each line: the last date line above it in its file (even a bad one,
    # whose problem then holds every game below it).
    date_at = np.maximum.accumulate(np.where(is_any_date, position, -1))
    date_at = np.where(date_at >= file_start, date_at, -1)
    date_rows = np.flatnonzero(is_any_date)
    d_text, d_stamp, d_problem = _date_lines(t.take(pa.array(date_rows, type=pa.int64())), date_rows, line_no[date_rows],
                                             _pd(_quote(raw.take(pa.array(date_rows, type=pa.int64()))), index=date_rows),
                                             is_date[date_rows], is_era[date_rows],
                                             {k: v.take(pa.array(date_rows, type=pa.int64())) for k, v in {**date_groups, **era_groups}.items()})

    # Games: a run of up to four consecutive result lines is one game, whatever its ranks (so a
    # game with a wrong rank is reported as that game). A longer run (a blank line forgotten
    # between two games) is split before each line numbered 1.
    _, lead = _extract(t, _LEAD_NUMBER)
    lead_is_one = _np(pc.equal(lead["digit"], "1"))
    continues_run = np.r_[False, result_like[:-1]] & ~first_of_file
    run_start = result_like & ~continues_run
    run_id = np.cumsum(run_start)
    run_length = np.bincount(run_id[result_like], minlength=int(run_id[-1]) + 1)[run_id]
    new_game = run_start | (result_like & lead_is_one & (run_length > 4))
    counter = np.cumsum(new_game)  # one integer per game of the batch: the key every step joins on
    before_file = counter[file_start] - new_game[file_start]
    games_so_far = counter - before_file  # games of this file up to this line

    # A yakuman line belongs to the game just above it, and not across a date line.
    game_pos = np.maximum.accumulate(np.where(new_game, position, -1))
    has_game = game_pos >= file_start
    game_date_at = np.where(has_game, date_at[np.maximum(game_pos, 0)], -2)
    attached = is_yakuman & has_game & (game_date_at == date_at)
    orphan = is_yakuman & yakuman_read & ~attached  # a 役満 line not read, with no game to count for, is chatter

    kinds = np.full(n, LINE_KINDS.index("chatter"), dtype=np.int8)
    kinds[blank] = LINE_KINDS.index("blank")
    kinds[is_any_date] = LINE_KINDS.index("date")
    kinds[attached] = LINE_KINDS.index("yakuman")
    kinds[orphan] = LINE_KINDS.index("orphan_yakuman")
    kinds[result_like] = LINE_KINDS.index("result")

    # result rows
    rows = np.flatnonzero(result_like)
    take = pa.array(rows, type=pa.int64())
    line_text = pd.Series(line_no[rows], index=rows)
    found = _pd(_quote(raw.take(take)), index=rows)
    name = _pd(rank_groups["name"].take(take), index=rows)
    score_text = _pd(rank_groups["score"].take(take), index=rows)
    score, score_too_long = _bounded_integers(score_text, MAX_SCORE_DIGITS)
    name_length = name.str.len().fillna(0).astype(int)
    accepted = pd.Series(is_rank[rows], index=rows)
    length = pd.Series(raw_length[rows], index=rows)
    problem = _first_message([  # one problem per line, the most basic first
        _message(length > MAX_LINE_CHARS, "line ", line_text, ": the line has ", length,
                 f" characters; a result line has at most {MAX_LINE_CHARS} (found ", found, ")"),
        _message(~accepted, "line ", line_text, ": expected a result line ", EXPECTED_RESULT_LINE, ", found ", found),
        _message(accepted & score_too_long, "line ", line_text, ": score ", score_text,
                 f" is out of range; a final score has at most {MAX_SCORE_DIGITS} digits"),
        _message(accepted & (name_length > MAX_NAME_CHARS), "line ", line_text, ": the player name has ", name_length,
                 f" characters; at most {MAX_NAME_CHARS} are allowed"),
    ])
    at = date_at[rows]
    has_date = at >= 0
    date_text = pd.Series(pd.NA, index=rows, dtype="string")
    date_problem = _message(pd.Series(~has_date, index=rows),
                            f"no date line above this game; expected a line like {EXPECTED_DATE} before the games of a day")
    event_date = pd.Series(pd.NaT, index=rows, dtype="datetime64[ns]")
    if has_date.any():
        dated_rows = rows[has_date]
        date_text[dated_rows] = d_text.loc[at[has_date]].to_numpy()
        date_problem[dated_rows] = d_problem.loc[at[has_date]].to_numpy()
        event_date[dated_rows] = d_stamp.loc[at[has_date]].to_numpy()
    date_line = pd.Series(np.where(has_date, line_no[np.maximum(at, 0)], np.nan), index=rows, dtype="Float64")
    results = pd.DataFrame(
        {
            "game_key": counter[rows],
            "source_file": pd.Series(names[file_idx[rows]], index=rows, dtype="string"),
            "game_seq": games_so_far[rows].astype("float64"),
            "line_no": line_no[rows],
            "event_date": event_date,
            "date_text": date_text,
            "date_problem": date_problem,
            "date_line": date_line,
            "rank": _bounded_integers(_pd(rank_groups["rank"].take(take), index=rows), 1)[0],
            "rank_given": True,
            "player_raw": name.where(accepted),
            "score": score,
            "raw": found,
            "problem": problem,
        },
        index=rows,
    ).reset_index(drop=True)

    ya_rows = np.flatnonzero(attached)
    ya_take = pa.array(ya_rows, type=pa.int64())
    yakuman = pd.DataFrame(
        {
            "game_key": counter[ya_rows],
            "source_file": pd.Series(names[file_idx[ya_rows]], index=ya_rows, dtype="string"),
            "game_seq": games_so_far[ya_rows].astype("float64"),
            "line_no": line_no[ya_rows],
            "player_raw": _pd(yakuman_groups["name"].take(ya_take), index=ya_rows),
            "yakuman_name": _pd(yakuman_groups["yaku"].take(ya_take), index=ya_rows).fillna(""),
            "raw": _pd(_quote(raw.take(ya_take)), index=ya_rows),
            "problem": _message(pd.Series(~yakuman_read[ya_rows], index=ya_rows), "line ", pd.Series(line_no[ya_rows], index=ya_rows),
                                f": a line under this game mentions 役満 but names its winner in no form that can be read; "
                                f"expected {EXPECTED_YAKUMAN_LINE}, found ", _pd(_quote(raw.take(ya_take)), index=ya_rows)),
        },
        index=ya_rows,
    ).reset_index(drop=True)
    or_rows = np.flatnonzero(orphan)
    orphans = pd.DataFrame(
        {
            "source_file": pd.Series(names[file_idx[or_rows]], dtype="string"),
            "line_no": line_no[or_rows],
            "raw": _pd(_quote(raw.take(pa.array(or_rows, type=pa.int64())))),
            "problem": "line " + pd.Series(line_no[or_rows]).astype("string")
            + ": a yakuman line must come right after the game it was won in; no game above it",
        }
    )
    return results[RESULT_COLUMNS], yakuman[YAKUMAN_COLUMNS], orphans[ORPHAN_COLUMNS].astype({"problem": "string"}), kinds


# -- CSV ------------------------------------------------------------------------------------------

CSV_COLUMNS = ["date", "game", "rank", "player", "score", "yakuman"]
_QUOTED = r'\s*"(?P<q{i}>(?:[^"]|"")*)"\s*'
_PLAIN = r'(?P<u{i}>[^,"]*)'
_QUOTED_ANON = r'\s*"(?:[^"]|"")*"\s*'
_PLAIN_ANON = r'[^,"]*'


def _row_pattern(columns: list[str]) -> str:
    """One CSV record on one line with exactly these columns (trailing empty fields allowed)."""
    fields = []
    for i, column in enumerate(columns):
        if column in CSV_COLUMNS:
            fields.append(f"(?:{_QUOTED.format(i=i)}|{_PLAIN.format(i=i)})")
        else:
            fields.append(f"(?:{_QUOTED_ANON}|{_PLAIN_ANON})")
    return "^" + ",".join(fields) + r'(?:,\s*(?:""\s*)?)*$'


def _csv_orphans(source_file: str, line_no, raw, problem) -> pd.DataFrame:
    return pd.DataFrame({"source_file": source_file, "line_no": line_no, "raw": raw, "problem": problem}).astype(
        {"source_file": "string", "line_no": "int64", "raw": "string", "problem": "string"})


def parse_csv(source_file: str, text: str) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """CSV rows → the same three frames as `parse_text`. One record per physical line."""
    raw = physical_lines(text)
    nonblank = np.flatnonzero(~_np(pc.equal(pc.utf8_trim_whitespace(raw), "")))
    if not len(nonblank):
        return empty_results(), empty_yakuman(), empty_orphans()
    expected_header = ",".join(CSV_COLUMNS)
    h = int(nonblank[0])
    header_line = raw[h].as_py()
    header_quote = _pd(_quote(raw.take(pa.array([h])))).iloc[0]
    if header_line.count(",") + 1 > MAX_CSV_COLUMNS:
        return empty_results(), empty_yakuman(), _csv_orphans(source_file, [h + 1], [header_quote], [
            f"line {h + 1}: the header has {header_line.count(',') + 1} columns; expected {expected_header}"])
    cells = split_line(header_line, ",")
    if isinstance(cells, str):  # too long, or quotes the CSV reader refuses
        return empty_results(), empty_yakuman(), _csv_orphans(source_file, [h + 1], [header_quote], [
            f"line {h + 1}: the header cannot be read ({cells}); the header should be {expected_header}"])
    header = [pd.Series([c]).str.normalize("NFKC").str.strip().str.lower().iloc[0] for c in cells]
    missing = [c for c in CSV_COLUMNS if c not in header]
    twice = sorted({c for c in CSV_COLUMNS if header.count(c) > 1})
    if missing or twice:
        problem = (f"line {h + 1}: the header lacks column(s) {', '.join(missing)}; expected {expected_header}" if missing
                   else f"line {h + 1}: the header names column(s) {', '.join(twice)} more than once; expected {expected_header}")
        return empty_results(), empty_yakuman(), _csv_orphans(source_file, [h + 1], [",".join(header)], [problem])

    body = nonblank[nonblank > h]
    lines = raw.take(pa.array(body, type=pa.int64()))
    line_no = body + 1
    matched, groups = _extract(lines, _row_pattern(header))
    quoted_lines = _quote(lines)

    fields = {}
    for column in CSV_COLUMNS:
        i = header.index(column)
        quoted = pc.replace_substring(groups[f"q{i}"], '""', '"')
        fields[column] = pc.binary_join_element_wise(quoted, groups[f"u{i}"], "")
    lengths = {c: _np(pc.utf8_length(fields[c]), np.int64) for c in CSV_COLUMNS}
    norm = {c: _normalise(fields[c]) for c in CSV_COLUMNS}
    all_empty = np.logical_and.reduce([_np(pc.equal(norm[c], "")) for c in CSV_COLUMNS]) & matched
    repeated_header = np.logical_and.reduce([_np(pc.equal(pc.utf8_lower(norm[c]), c)) for c in CSV_COLUMNS]) & matched

    # lines that are not one record of the header's columns: problems of their own line
    unreadable = np.flatnonzero(~matched)
    if len(unreadable):
        bad = lines.take(pa.array(unreadable, type=pa.int64()))
        quotes = _np(pc.count_substring(bad, '"'), np.int64)
        commas = _np(pc.count_substring(bad, ","), np.int64)
        at = pd.Series(line_no[unreadable]).astype("string")
        found = _pd(quoted_lines.take(pa.array(unreadable, type=pa.int64())))
        message = pd.Series(
            np.where(
                quotes % 2 == 1,
                ': a quote (") is not closed on this line (a field cannot continue on the next line); found ',
                np.where(quotes == 0, "", ': a quote (") must enclose a whole field (write "" for a quote inside it); found '),
            ), dtype="string")
        counted = ": " + pd.Series(commas + 1).astype("string") + f" fields; expected {len(header)} as in the header " \
            f"({','.join(header) if len(header) <= 12 else expected_header}); found "
        message = message.mask(message == "", counted)
        orphans = _csv_orphans(source_file, line_no[unreadable], found.to_numpy(), ("line " + at + message + found).to_numpy())
    else:
        orphans = empty_orphans()

    keep = np.flatnonzero(matched & ~all_empty & ~repeated_header)
    take = pa.array(keep, type=pa.int64())
    idx = pd.RangeIndex(len(keep))
    f = {c: _pd(norm[c].take(take), index=idx) for c in CSV_COLUMNS}
    length = {c: pd.Series(lengths[c][keep], index=idx) for c in CSV_COLUMNS}
    rows_line = pd.Series(line_no[keep], index=idx)
    at = rows_line.astype("string")

    date_ok, date_groups = _extract(norm["date"].take(take), _DATE)
    y, m, d = (_pd(date_groups[k], index=idx).where(date_ok) for k in ("y", "m", "d"))
    date_text, event_date = _calendar_dates(y, m, d)
    rank_ok = f["rank"].str.fullmatch(r"[1-4]").fillna(False).astype(bool)
    score_form = f["score"].str.fullmatch(r"-?(?:\d{1,3}(?:,\d{3})+|\d+)").fillna(False).astype(bool)
    score, score_too_long = _bounded_integers(f["score"].where(score_form), MAX_SCORE_DIGITS)
    yakuman_form = f["yakuman"].str.fullmatch(r"\d*").fillna(False).astype(bool)
    yakuman_count, yakuman_too_long = _bounded_integers(f["yakuman"].where(yakuman_form & (f["yakuman"] != "")), 3)
    yakuman_count = yakuman_count.where(f["yakuman"] != "", 0)

    def bad(mask: pd.Series, *what) -> pd.Series:  # what: texts and Series, concatenated
        return _message(mask, "line ", at, ": ", *what)

    def field_length(column: str, limit: int) -> pd.Series:
        return bad(length[column] > limit, f"the {column} field has ", length[column], f" characters; at most {limit} are allowed")

    problems = _join_problems(
        [
            field_length("game", MAX_FIELD_CHARS),
            field_length("player", MAX_NAME_CHARS),
            *(field_length(c, MAX_FIELD_CHARS) for c in ("date", "rank", "score", "yakuman")),
            bad(f["game"] == "", "the game column is empty; expected the game number of that evening"),
            bad((f["rank"] != "") & ~rank_ok, "rank ", f["rank"], " is not 1, 2, 3 or 4"),
            bad(f["score"] == "", "the score column is empty"),
            bad(~score_form & (f["score"] != ""), "score ", f["score"], " is not a whole number"),
            bad(score_form & score_too_long, "score ", f["score"], f" is out of range; a final score has at most {MAX_SCORE_DIGITS} digits"),
            bad(f["player"] == "", "the player column is empty"),
            bad(~yakuman_form, "yakuman ", f["yakuman"], " is not a count (0, 1, 2...)"),
            bad(yakuman_form & (yakuman_too_long | (yakuman_count > MAX_YAKUMAN)).fillna(False).astype(bool),
                "yakuman ", f["yakuman"], f" is more than one player can win in a game (at most {MAX_YAKUMAN})"),
        ]
    )
    date_problem = bad(date_text.isna(), "date ", f["date"], f" is not a date; expected {EXPECTED_DATE}")

    game_key = f["date"] + "#" + f["game"]
    game_seq = pd.Series(pd.factorize(game_key)[0] + 1, index=idx)
    results = pd.DataFrame(
        {
            "game_key": game_seq.astype("int64"),
            "source_file": pd.Series(source_file, index=idx, dtype="string"),
            "game_seq": game_seq.astype("float64"),
            "line_no": rows_line.astype("int64"),
            "event_date": event_date,
            "date_text": date_text,
            "date_problem": date_problem,
            "date_line": rows_line.astype("Float64"),
            "rank": _bounded_integers(f["rank"].where(rank_ok), 1)[0],
            "rank_given": (f["rank"] != "").fillna(False).astype(bool),
            "player_raw": f["player"].where(length["player"] <= MAX_NAME_CHARS),
            "score": score,
            "raw": _pd(quoted_lines.take(take), index=idx),
            "problem": problems,
        }
    )
    # The whole game takes the first row's date; rows of one game must agree (checked later).
    counts = yakuman_count.where(problems.isna(), 0).fillna(0).clip(0, MAX_YAKUMAN).astype(int)
    yak = results.loc[counts > 0, ["game_key", "source_file", "game_seq", "line_no", "player_raw", "raw"]]
    yak = yak.loc[yak.index.repeat(counts[yak.index])].assign(yakuman_name="", problem=pd.Series(pd.NA, dtype="string"))
    return results[RESULT_COLUMNS], yak[YAKUMAN_COLUMNS].reset_index(drop=True), orphans[ORPHAN_COLUMNS]


def classify_csv(text: str) -> pd.Series:
    """What each physical line of a CSV is: blank, header, record or problem (by line number)."""
    raw = physical_lines(text)
    kinds = pd.Series("blank", index=pd.RangeIndex(1, len(raw) + 1, name="line_no"), dtype="string")
    results, _, orphans = parse_csv("x.csv", text)
    nonblank = np.flatnonzero(~_np(pc.equal(pc.replace_substring_regex(raw, r'[,"\s]', ""), ""))) + 1
    kinds[nonblank] = "header"  # the first non-blank line, and repeated headers (",,,," stays blank)
    kinds[results["line_no"].to_numpy()] = "record"
    kinds[orphans["line_no"].to_numpy()] = "problem"
    return kinds

"""Read league result posts into one row per player per game.

Two formats (docs in README, "Mahjong input formats"):

* text posts, as players write them on the league's board::

      2026年11月3日(火)
      ・１位らつみ 55000
      ・２位りつみ 28000
      ・３位るつみ 22000
      ・４位れつみ -5000
      らつみさんが役満、四暗刻を和了しました。

* CSV, one row per player per game: ``date,game,rank,player,score,yakuman``.

Parsing is vectorised over the lines of a file (pandas string methods); nothing here decides
whether a game is valid: that is `validate.py`. Unreadable lines are reported as problems
attached to the game they belong to, so the game is quarantined and its neighbours still post.
"""
from __future__ import annotations

import io

import pyarrow as pa
import pyarrow.compute as pc

import pandas as pd

RESULT_COLUMNS = [
    "game_key", "source_file", "game_seq", "line_no", "event_date", "date_problem", "date_line",
    "rank", "rank_given", "player_raw", "score", "raw", "problem",
]
YAKUMAN_COLUMNS = ["game_key", "source_file", "game_seq", "line_no", "player_raw", "yakuman_name", "raw"]
ORPHAN_COLUMNS = ["source_file", "line_no", "raw", "problem"]


def empty_results() -> pd.DataFrame:
    """A typed empty result frame (a file with no games must flow through like any other)."""
    return pd.DataFrame(
        {
            "game_key": pd.Series(dtype="int64"),
            "source_file": pd.Series(dtype="string"), "game_seq": pd.Series(dtype="float64"),
            "line_no": pd.Series(dtype="int64"), "event_date": pd.Series(dtype="datetime64[ns]"),
            "date_problem": pd.Series(dtype="string"), "date_line": pd.Series(dtype="Float64"),
            "rank": pd.Series(dtype="float64"), "rank_given": pd.Series(dtype="bool"),
            "player_raw": pd.Series(dtype="string"), "score": pd.Series(dtype="float64"),
            "raw": pd.Series(dtype="string"), "problem": pd.Series(dtype="string"),
        }
    )


def empty_yakuman() -> pd.DataFrame:
    return pd.DataFrame(
        {"game_key": pd.Series(dtype="int64"),
         "source_file": pd.Series(dtype="string"), "game_seq": pd.Series(dtype="float64"),
         "line_no": pd.Series(dtype="int64"), "player_raw": pd.Series(dtype="string"),
         "yakuman_name": pd.Series(dtype="string"), "raw": pd.Series(dtype="string")}
    )

# After NFKC: full-width digits/letters are ASCII and "－" is "-". These minus signs are not.
_MINUS_SIGNS = {"\u2212": "-", "▲": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2015": "-"}

_DATE = r"^\s*(?P<y>\d{4})\s*[-/.年]\s*(?P<m>\d{1,2})\s*[-/.月]\s*(?P<d>\d{1,2})\s*日?(?:\s*[\(（].*[\)）])?\s*$"
_DATE_NO_YEAR = r"^\s*\d{1,2}\s*[/月]\s*\d{1,2}\s*日?(?:\s*[\(（].*[\)）])?\s*$"
_RANK = r"^[・･\*]?\s*(?P<rank>[1-4])\s*位\s*(?P<name>\S.*?)\s*(?P<score>-?\d{1,3}(?:,\d{3})+|-?\d+)\s*点?\s*$"
# Looks like a result line (so a typo in it is reported, not ignored): a bullet then a digit, or
# "N位". A bullet line of chatter ("・次回は土曜日です") is not a result line.
_RANK_LIKE = r"^(?:[・･\*]\s*\d|\s*\d+\s*位)"
_RANK_DIGIT = r"^[・･\*]?\s*(?P<digit>\d+)\s*位"
_YAKUMAN = r"^\s*(?P<name>.+?)(?:さん)?\s*が\s*役満[、,]?\s*(?P<yaku>[^を]*?)\s*を?\s*和了"

EXPECTED_RESULT_LINE = "「・1位 名前 55000」 (rank 1-4, name, final score)"
EXPECTED_DATE = "2026-11-03, 2026/11/03 or 2026年11月3日"


def decode(data: bytes) -> tuple[str | None, str | None]:
    """UTF-8 (with or without BOM), else Shift_JIS as Japanese Windows saves it."""
    for encoding in ("utf-8-sig", "cp932"):
        try:
            return data.decode(encoding), None
        except UnicodeDecodeError:
            continue
    bad = data.decode("utf-8", errors="replace").find("\ufffd")
    return None, f"the file is not UTF-8 or Shift_JIS text (unreadable byte near character {bad}); save it as UTF-8"


def _normalise_lines(files: list[tuple[str, str]]) -> pd.DataFrame:
    """All lines of all files in one frame (one vectorised pass for a whole night, or two years)."""
    names, numbers, raws = [], [], []
    for source_file, text in files:
        split = text.splitlines()
        names.append(pd.Series(source_file, index=range(len(split)), dtype="string"))
        numbers.append(pd.Series(range(1, len(split) + 1)))
        raws.extend(split)
    if not raws:
        return pd.DataFrame({"source_file": pd.Series(dtype="string"), "line_no": pd.Series(dtype="int64"),
                             "raw": pd.Series(dtype="string"), "text": pd.Series(dtype="string")})
    raw_arrow = pa.array(raws, type=pa.string())
    norm = pc.utf8_normalize(raw_arrow, form="NFKC")  # full-width digits and letters, "－" → "-"
    norm = pc.replace_substring_regex(norm, pattern="[" + "".join(_MINUS_SIGNS) + "]", replacement="-")
    raw = pd.Series(raw_arrow, dtype="string")
    norm = pd.Series(pc.utf8_trim_whitespace(norm), dtype="string")
    return pd.DataFrame(
        {
            "source_file": pd.concat(names, ignore_index=True),
            "line_no": pd.concat(numbers, ignore_index=True),
            "raw": raw,
            "text": norm,
        }
    )


def _extract(texts: pd.Series, pattern: str) -> pd.DataFrame:
    """Named groups of a regex, vectorised in Arrow's RE2 (rows that do not match are NA)."""
    matched = pc.extract_regex(pa.array(texts, type=pa.string(), from_pandas=True), pattern)
    return pd.DataFrame(
        {name: pd.Series(matched.field(name), dtype="string").where(pd.Series(matched.is_valid()))
         for name in [f.name for f in matched.type]},
        index=texts.index,
    )


def _integers(digits: pd.Series) -> pd.Series:
    """Integers from text the regexes already checked to be digits (NA stays NA), cast in Arrow."""
    values = pc.cast(pa.array(digits, type=pa.string(), from_pandas=True), pa.int64())
    return pd.Series(pd.array(values, dtype="Int64"), index=digits.index)


def _matches(texts: pd.Series, pattern: str) -> pd.Series:
    found = pc.match_substring_regex(pa.array(texts, type=pa.string(), from_pandas=True), pattern)
    return pd.Series(found.fill_null(False).to_numpy(zero_copy_only=False), index=texts.index, dtype=bool)


def _parse_dates(year: pd.Series, month: pd.Series, day: pd.Series) -> pd.Series:
    """Dates from their parts (NaT where there are none, or where they make no calendar date)."""
    out = pd.Series(pd.NaT, index=year.index, dtype="datetime64[ns]")
    present = year.notna()
    if present.any():
        text = year[present] + "-" + month[present].str.zfill(2) + "-" + day[present].str.zfill(2)
        out[present] = pd.to_datetime(text, format="%Y-%m-%d", errors="coerce")
    return out


def parse_text(source_file: str, text: str) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """One text post → (result rows, yakuman rows, orphan problems not attached to any game)."""
    return parse_texts([(source_file, text)])


def parse_texts(files: list[tuple[str, str]]) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Many text posts at once → (result rows, yakuman rows, orphan problems).

    Everything is vectorised over the lines of all files together; nothing carries over from one
    file to the next (dates, games, yakuman lines all stay inside their file).
    """
    lines = _normalise_lines(files)
    if lines.empty:
        return empty_results(), empty_yakuman(), pd.DataFrame(columns=ORPHAN_COLUMNS)
    t = lines["text"]
    file_key = pd.Series(pd.factorize(lines["source_file"])[0])
    first_of_file = lines["line_no"] == 1

    def per_file_ffill(series: pd.Series) -> pd.Series:
        return series.groupby(file_key).ffill()

    date_parts = _extract(t, _DATE)
    rank_parts = _extract(t, _RANK)
    yakuman_parts = _extract(t, _YAKUMAN)

    is_date = date_parts["y"].notna()
    is_date_no_year = _matches(t, _DATE_NO_YEAR)
    is_any_date = is_date | is_date_no_year
    is_rank = rank_parts["rank"].notna()
    is_rank_like = _matches(t, _RANK_LIKE) | is_rank
    is_yakuman = yakuman_parts["name"].notna() & ~is_rank_like

    # The date in force on each line: the last date line above it in its file (even a bad one).
    parsed_date = _parse_dates(date_parts["y"], date_parts["m"], date_parts["d"])
    position = pd.Series(range(len(lines)), dtype="Float64")
    date_at = per_file_ffill(position.where(is_any_date))
    date_index = date_at.fillna(-1).astype(int).to_numpy()
    date_value = pd.Series(parsed_date.to_numpy()[date_index], dtype="datetime64[ns]").where(date_at.notna())
    date_line = lines["line_no"].astype("Float64").to_numpy()[date_index]
    date_line = pd.Series(date_line, dtype="Float64").where(date_at.notna())
    date_problem = pd.Series(pd.NA, index=lines.index, dtype="string")
    date_problem = date_problem.mask(is_date & parsed_date.isna(), "the date line " + lines["raw"].str.strip() + " is not a real calendar date")
    date_problem = date_problem.mask(is_date_no_year, "the date line " + lines["raw"].str.strip() + f" has no year; expected {EXPECTED_DATE}")
    # a good date line clears the problem of an earlier bad one ("" until after the ffill)
    date_problem = date_problem.mask(is_any_date & date_problem.isna(), "")
    date_problem = per_file_ffill(date_problem.where(is_any_date)).replace("", pd.NA)
    date_problem = date_problem.mask(date_at.isna(), f"no date line above this game; expected a line like {EXPECTED_DATE} before the games of a day")

    # Games: a run of up to four consecutive result lines is one game, whatever its ranks (so a
    # game with a wrong rank is reported as that game). A longer run (a blank line forgotten
    # between two games) is split before each 1位 line.
    rank_digit = _integers(_extract(t, _RANK_DIGIT)["digit"])
    continues_run = is_rank_like.shift(1, fill_value=False) & ~first_of_file
    run_start = is_rank_like & ~continues_run
    run_id = run_start.cumsum().where(is_rank_like)
    run_length = run_id.map(run_id.value_counts())
    new_game = run_start | (is_rank_like & (rank_digit == 1) & (run_length > 4))
    counter = new_game.cumsum()
    before_file = (counter - new_game.astype(int)).groupby(file_key).transform("first")
    games_so_far = counter - before_file  # games of this file up to this line
    game_seq = games_so_far.where(is_rank_like)

    problem = pd.Series(pd.NA, index=lines.index, dtype="string").mask(
        is_rank_like & ~is_rank,
        "line " + lines["line_no"].astype("string") + ": expected a result line " + EXPECTED_RESULT_LINE + ", found " + lines["raw"].str.strip(),
    )
    results = pd.DataFrame(
        {
            "game_key": counter,  # one integer per game of the batch: the key every step joins on
            "source_file": lines["source_file"],
            "game_seq": game_seq,
            "line_no": lines["line_no"],
            "event_date": date_value,
            "date_problem": date_problem,
            "date_line": date_line,
            "rank": _integers(rank_parts["rank"]),
            "rank_given": True,
            "player_raw": rank_parts["name"],
            "score": _integers(rank_parts["score"].str.replace(",", "", regex=False)),
            "raw": lines["raw"],
            "problem": problem,
        }
    )[is_rank_like].reset_index(drop=True)

    # A yakuman line belongs to the game just above it, and not across a date line.
    last_game = games_so_far.where(games_so_far > 0)
    last_game_date_at = per_file_ffill(date_at.where(new_game))
    attached = is_yakuman & last_game.notna() & (last_game_date_at.fillna(-1) == date_at.fillna(-1))
    yakuman = pd.DataFrame(
        {
            "game_key": counter,
            "source_file": lines["source_file"],
            "game_seq": last_game,
            "line_no": lines["line_no"],
            "player_raw": yakuman_parts["name"],
            "yakuman_name": yakuman_parts["yaku"].fillna(""),
            "raw": lines["raw"],
        }
    )[attached].reset_index(drop=True)
    orphans = pd.DataFrame(
        {
            "source_file": lines["source_file"],
            "line_no": lines["line_no"],
            "raw": lines["raw"],
            "problem": "line " + lines["line_no"].astype("string") + ": a yakuman line must come right after the game it was won in; no game above it",
        }
    )[is_yakuman & ~attached].reset_index(drop=True)
    return results[RESULT_COLUMNS], yakuman[YAKUMAN_COLUMNS], orphans[ORPHAN_COLUMNS]


CSV_COLUMNS = ["date", "game", "rank", "player", "score", "yakuman"]


def parse_csv(source_file: str, text: str) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """CSV rows → the same three frames as `parse_text`."""
    try:
        rows = pd.read_csv(io.StringIO(text), dtype="string", keep_default_na=False, skipinitialspace=True)
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as error:
        orphan = pd.DataFrame(
            {"source_file": [source_file], "line_no": [1], "raw": [text[:200]],
             "problem": [f"not readable as CSV ({error}); expected a header {','.join(CSV_COLUMNS)}"]}
        )
        return empty_results(), empty_yakuman(), orphan
    rows.columns = [str(c).strip().lower() for c in rows.columns]
    missing = [c for c in CSV_COLUMNS if c not in rows.columns]
    if missing:
        orphan = pd.DataFrame(
            {"source_file": [source_file], "line_no": [1], "raw": [",".join(rows.columns)],
             "problem": [f"line 1: the header lacks column(s) {', '.join(missing)}; expected {','.join(CSV_COLUMNS)}"]}
        )
        return empty_results(), empty_yakuman(), orphan

    rows = rows.assign(line_no=range(2, len(rows) + 2))
    norm = rows[CSV_COLUMNS].apply(lambda col: col.str.normalize("NFKC").str.strip())
    for sign, ascii_minus in _MINUS_SIGNS.items():
        norm["score"] = norm["score"].str.replace(sign, ascii_minus, regex=False)
    date_parts = norm["date"].str.extract(_DATE)
    event_date = _parse_dates(date_parts["y"], date_parts["m"], date_parts["d"])
    rank = pd.to_numeric(norm["rank"], errors="coerce")
    score = pd.to_numeric(norm["score"].str.replace(",", "", regex=False), errors="coerce")
    yakuman_count = pd.to_numeric(norm["yakuman"].replace("", "0"), errors="coerce")
    raw = rows[CSV_COLUMNS].fillna("").agg(",".join, axis=1)

    def bad(mask: pd.Series, what) -> pd.Series:  # what: a message, or a Series of them
        message = "line " + rows["line_no"].astype("string") + ": " + what
        return pd.Series(message, index=rows.index, dtype="string").where(mask)

    problems = pd.concat(
        [
            bad(event_date.isna(), "date " + norm["date"] + f" is not a date; expected {EXPECTED_DATE}"),
            bad(norm["game"] == "", "the game column is empty; expected the game number of that evening"),
            bad((norm["rank"] != "") & ~rank.isin([1, 2, 3, 4]), "rank " + norm["rank"] + " is not 1, 2, 3 or 4"),
            bad(score.isna(), "score " + norm["score"] + " is not a whole number"),
            bad(norm["player"] == "", "the player column is empty"),
            bad(yakuman_count.isna() | (yakuman_count < 0), "yakuman " + norm["yakuman"] + " is not a count (0, 1, 2...)"),
        ],
        axis=1,
    ).apply(lambda r: "; ".join(r.dropna()) or pd.NA, axis=1).astype("string")

    game_key = norm["date"] + "#" + norm["game"]
    game_seq = pd.Series(pd.factorize(game_key)[0] + 1, index=rows.index)
    results = pd.DataFrame(
        {
            "game_key": game_seq,
            "source_file": source_file,
            "game_seq": game_seq,
            "line_no": rows["line_no"],
            "event_date": event_date,
            "date_problem": pd.Series(pd.NA, index=rows.index, dtype="string"),
            "date_line": rows["line_no"].astype("Float64"),
            "rank": rank,
            "rank_given": norm["rank"] != "",
            "player_raw": norm["player"],
            "score": score,
            "raw": raw,
            "problem": problems,
        }
    )
    # The whole game takes the first row's date; rows of one game must agree (checked later).
    yak = results.loc[yakuman_count.fillna(0) > 0, ["game_key", "source_file", "game_seq", "line_no", "player_raw", "raw"]]
    yak = yak.loc[yak.index.repeat(yakuman_count[yak.index].astype(int))].assign(yakuman_name="")
    return results[RESULT_COLUMNS], yak[YAKUMAN_COLUMNS].reset_index(drop=True), pd.DataFrame(columns=ORPHAN_COLUMNS)

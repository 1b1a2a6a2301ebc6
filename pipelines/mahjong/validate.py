"""Decide which parsed games are valid; quarantine the others with a reason a player can act on.

Each game is checked as one row of a wide frame by the pandera model `GameChecks` (lazy, so
every problem of a game is reported at once). A failing check's message is built from that
game's own data by `_MESSAGES`.
"""
from __future__ import annotations

from datetime import date

import numpy as np
import pandas as pd
import pandera.pandas as pa
import pyarrow as pa_arrow
import pyarrow.compute as pc
from pandera.typing import Series

from pipelines.core.dates import iso_days
from pipelines.core.validation import failure_cases
from pipelines.core.names import apply_aliases, normalise_names

GAME_KEY = ["game_key"]  # an integer per game of the batch (pipelines/mahjong/parse.py)
ORDINAL = {1: "1位", 2: "2位", 3: "3位", 4: "4位"}


class GameChecks(pa.DataFrameModel):
    """One row per parsed game (wide). Every check is one rule of a valid game."""

    class Config:
        strict = False
        coerce = False

    @pa.dataframe_check(error="readable_lines")
    def readable_lines(cls, g: pd.DataFrame) -> Series[bool]:
        return g["bad_lines"] == 0

    @pa.dataframe_check(error="dated")
    def dated(cls, g: pd.DataFrame) -> Series[bool]:
        return g["date_problem"].isna() & g["date_text"].notna() & (g["n_dates"] <= 1)

    # The date window, on ISO text (any four-digit year compares correctly, none overflows).
    @pa.dataframe_check(error="not_future")
    def not_future(cls, g: pd.DataFrame) -> Series[bool]:
        return (g["date_text"].isna() | (g["date_text"] <= g["as_of_text"])).fillna(True).astype(bool)

    @pa.dataframe_check(error="after_first_rule_version")
    def after_first_rule_version(cls, g: pd.DataFrame) -> Series[bool]:
        return (g["date_text"].isna() | (g["date_text"] >= g["first_rule_from"])).fillna(True).astype(bool)

    @pa.dataframe_check(error="four_lines")
    def four_lines(cls, g: pd.DataFrame) -> Series[bool]:
        return g["n_lines"] == 4

    # The checks below judge what could be read; a game with an unreadable line is already
    # rejected by `readable_lines`, and more messages about it would only be noise.
    @pa.dataframe_check(error="ranks_once_each")
    def ranks_once_each(cls, g: pd.DataFrame) -> Series[bool]:
        return (g["bad_lines"] > 0) | (g["n_lines"] != 4) | g["ranks_ok"] | (g["ranks_given"] == 0)

    @pa.dataframe_check(error="ranks_all_or_none")
    def ranks_all_or_none(cls, g: pd.DataFrame) -> Series[bool]:
        return (g["ranks_given"] == 0) | (g["ranks_given"] == g["n_lines"])

    @pa.dataframe_check(error="distinct_players")
    def distinct_players(cls, g: pd.DataFrame) -> Series[bool]:
        return g["repeated_players_n"] == 0

    @pa.dataframe_check(error="scores_follow_ranks")
    def scores_follow_ranks(cls, g: pd.DataFrame) -> Series[bool]:
        return (g["bad_lines"] > 0) | (g["order_breaks"] == 0)

    @pa.dataframe_check(error="scores_sum")
    def scores_sum(cls, g: pd.DataFrame) -> Series[bool]:
        return (g["bad_lines"] > 0) | (g["n_lines"] != 4) | (g["score_sum"] == g["game_total"])

    @pa.dataframe_check(error="readable_yakuman_lines")
    def readable_yakuman_lines(cls, g: pd.DataFrame) -> Series[bool]:
        return g["bad_yakuman_n"] == 0

    @pa.dataframe_check(error="yakuman_at_table")
    def yakuman_at_table(cls, g: pd.DataFrame) -> Series[bool]:
        return g["strangers_n"] == 0

    @pa.dataframe_check(error="holdable_date")
    def holdable_date(cls, g: pd.DataFrame) -> Series[bool]:
        outside_window = (g["date_text"] > g["as_of_text"]) | (g["date_text"] < g["first_rule_from"])
        return (g["date_text"].isna() | g["event_date"].notna() | outside_window).fillna(True).astype(bool)

    @pa.dataframe_check(error="known_season")
    def known_season(cls, g: pd.DataFrame) -> Series[bool]:
        return g["event_date"].isna() | g["season"].notna()


def _lines_text(g: pd.DataFrame) -> pd.Series:
    return "lines " + g["first_line"].astype("string") + "–" + g["last_line"].astype("string")


_MESSAGES = {
    "readable_lines": lambda g: g["line_problems"],
    "dated": lambda g: g["date_problem"].fillna("the rows of this game carry different dates; a game is played on one date"),
    "not_future": lambda g: "the game is dated " + g["date_text"] + ", after the run date "
    + g["as_of_text"] + "; check the date line",
    "after_first_rule_version": lambda g: "the game is dated " + g["date_text"] + ", before the league's first rule version ("
    + g["first_rule_version"] + ", in force from " + g["first_rule_from"] + "); check the date line",
    "four_lines": lambda g: "the game at " + _lines_text(g) + " has " + g["n_lines"].astype("string")
    + " result lines; expected 4 (ranks 1 to 4)",
    "ranks_once_each": lambda g: "ranks " + g["ranks"] + " found; expected 1,2,3,4 once each",
    "ranks_all_or_none": lambda g: pd.Series("give a rank for all four players or for none (then scores decide)", index=g.index),
    "distinct_players": lambda g: "player " + g["repeated_players"] + " is listed more than once; a game has four different players",
    "scores_follow_ranks": lambda g: "scores must not increase with rank: " + g["score_order_break"],
    "scores_sum": lambda g: "the four scores add up to " + g["score_sum"].astype("string") + "; expected "
    + g["game_total"].astype("string") + " (check each player's score)",
    "readable_yakuman_lines": lambda g: g["yakuman_problems"],
    "yakuman_at_table": lambda g: "the yakuman winner " + g["yakuman_strangers"] + " is not one of this game's players ("
    + g["players"] + ")",
    "holdable_date": lambda g: "the game is dated " + g["date_text"] + ", outside the years the ledger holds "
    "(1700 to 2200); check the date line",
    "known_season": lambda g: "no season of the league calendar covers " + g["event_date"].dt.strftime("%Y-%m-%d"),
}


def _joined(rows: pd.DataFrame, column: str, sep: str) -> pd.Series:
    """Per game, the column's non-NA values joined in row order (vectorised in Arrow: a file
    with thousands of failing games must not run a Python function per game)."""
    values = rows[column].astype("string")
    present = values.notna().to_numpy()
    table = pa_arrow.table({
        "key": pa_arrow.array(rows[GAME_KEY[0]].to_numpy()[present]),
        "value": pa_arrow.array(values[present], type=pa_arrow.string(), from_pandas=True),
    })
    grouped = table.group_by("key", use_threads=False).aggregate([("value", "list")])
    joined = pc.binary_join(grouped["value_list"], sep)
    index = pd.Index(grouped["key"].to_numpy(), name=GAME_KEY[0])
    return pd.Series(joined.to_pylist(), index=index, dtype="string").sort_index()


def _game_frame(results: pd.DataFrame, yakuman: pd.DataFrame) -> pd.DataFrame:
    """Aggregate the long rows into one wide row per game, with what the checks need.

    Everything the checks test is a vectorised aggregate. The texts that messages quote
    (players, ranks, problems) are joined afterwards for the failing games only.
    """
    # Posted ranks in rank order; a game without ranks in the order of its scores, which decide
    # its places (the rows of a CSV may come in any order)
    unranked = ~results["rank_given"].to_numpy(dtype=bool)
    if unranked.any():  # (text posts always give ranks: the usual batch sorts as before)
        score = results["score"].to_numpy(dtype="float64", na_value=np.nan)
        r = results.assign(unranked_order=np.where(unranked, -score, 0.0))
        r = r.sort_values(GAME_KEY + ["rank", "unranked_order", "line_no"]).drop(columns="unranked_order")
    else:
        r = results.sort_values(GAME_KEY + ["rank", "line_no"])
    grouped = r.groupby(GAME_KEY, sort=False)
    score_step = grouped["score"].diff()
    r = r.assign(
        order_break=score_step > 0,
        repeated=r.duplicated(GAME_KEY + ["player_id"], keep="first") & r["player_id"].notna(),
    )
    grouped = r.groupby(GAME_KEY, sort=False)
    games = grouped.agg(
        source_file=("source_file", "first"),
        game_seq=("game_seq", "first"),
        first_line=("line_no", "min"),
        last_line=("line_no", "max"),
        n_lines=("line_no", "size"),
        bad_lines=("problem", "count"),
        event_date=("event_date", "first"),
        date_text=("date_text", "first"),
        n_dates=("date_text", "nunique"),
        date_problem=("date_problem", "first"),
        rank_min=("rank", "min"),
        rank_max=("rank", "max"),
        rank_distinct=("rank", "nunique"),
        ranks_given=("rank_given", "sum"),
        score_sum=("score", "sum"),
        order_breaks=("order_break", "sum"),
        repeated_players_n=("repeated", "sum"),
    )
    games["ranks_ok"] = (games["rank_min"] == 1) & (games["rank_max"] == 4) & (games["rank_distinct"] == 4)

    # the players at the tables of the games that have a yakuman line (a few of a league's games)
    known = r.loc[r["player_id"].notna() & r["game_key"].isin(yakuman["game_key"]), GAME_KEY + ["player_id"]].assign(at_table=True)
    read = yakuman[yakuman["problem"].isna()]
    stranger_rows = read.merge(known, on=GAME_KEY + ["player_id"], how="left").loc[lambda y: y["at_table"].isna()]
    games = games.join(stranger_rows.groupby(GAME_KEY).size().rename("strangers_n"))
    games = games.join(yakuman.groupby(GAME_KEY)["line_no"].max().rename("last_yakuman_line"))
    games = games.join(yakuman[yakuman["problem"].notna()].groupby(GAME_KEY).size().rename("bad_yakuman_n"))
    games["strangers_n"] = games["strangers_n"].fillna(0).astype(int)
    games["bad_yakuman_n"] = games["bad_yakuman_n"].fillna(0).astype(int)
    games["last_line"] = games[["last_line", "last_yakuman_line"]].max(axis=1).astype(int)

    # Texts for the messages, for suspicious games only (cheap when, as usual, few fail).
    suspicious = games.index[
        (games["bad_lines"] > 0) | (games["n_lines"] != 4) | ~games["ranks_ok"] | (games["order_breaks"] > 0)
        | (games["repeated_players_n"] > 0) | (games["strangers_n"] > 0) | (games["bad_yakuman_n"] > 0)
    ]
    if not len(suspicious):  # the usual night: no text to join (each join costs a few Arrow calls)
        return games.assign(**{c: pd.Series("", index=games.index, dtype="string") for c in _MESSAGE_TEXTS})
    rows = r.set_index(GAME_KEY).loc[suspicious].reset_index()
    breaks = _order_break_texts(rows)
    texts = pd.DataFrame(
        {
            "line_problems": _joined(rows, "problem", "; "),
            "ranks": _joined(rows.assign(rank=rows["rank"].astype("Int64")), "rank", ","),
            "players": _joined(rows, "player_id", ", "),
            "score_order_break": breaks,
            "repeated_players": _joined(rows[rows["repeated"]], "player_id", ", "),
            "yakuman_strangers": _joined(stranger_rows, "player_id", ", "),
            "yakuman_problems": _joined(yakuman, "problem", "; "),
        }
    )
    games = games.join(texts.astype("string"))
    return games.fillna({c: "" for c in _MESSAGE_TEXTS})


# the texts of a game that its quarantine messages quote (empty where a game has none)
_MESSAGE_TEXTS = ["line_problems", "ranks", "players", "score_order_break", "repeated_players", "yakuman_strangers",
                  "yakuman_problems"]


def _order_break_texts(rows: pd.DataFrame) -> pd.Series:
    """'3位 has 27000 but the rank above has 20000' for each place scoring above the one before."""
    above = rows.groupby(GAME_KEY)["score"].shift()
    text = (ORDINAL_SERIES(rows["rank"]) + " has " + rows["score"].astype("Int64").astype("string")
            + " but the rank above has " + above.astype("Int64").astype("string"))
    return _joined(rows.assign(text=text.where(rows["order_break"])), "text", "; ")


def ORDINAL_SERIES(ranks: pd.Series) -> pd.Series:  # noqa: N802 - reads as a label maker
    return ranks.map(ORDINAL).astype("string").fillna("?位")


def _fingerprint(results: pd.DataFrame) -> pd.Series:
    """Same date, same players with the same scores: the same game, whoever posted it.

    The canonical text itself ("2026-11-03|A=40000|B=30000|C=20000|D=10000"), indexed by game key:
    each game's cells sorted by player and joined in Arrow (one sort for the batch, then each game's
    slice joined; a pandas pivot of a two-year league's 800,000 rows took 0.5-1 s).
    """
    cells = pa_arrow.table({
        "game": pa_arrow.array(results[GAME_KEY[0]].to_numpy()),
        "player_id": pa_arrow.array(results["player_id"].astype("string"), type=pa_arrow.string(), from_pandas=True),
        "score": pa_arrow.array(results["score"].astype("Int64").astype("string"), type=pa_arrow.string(), from_pandas=True),
        "day": pa_arrow.array(iso_days(results["event_date"]), type=pa_arrow.string(), from_pandas=True),
    })
    cells = cells.take(pc.sort_indices(cells, [("game", "ascending"), ("player_id", "ascending")]))
    games = cells["game"].to_numpy()
    # the rows are in game order: each game's cells are a slice, read as one list (no hash grouping)
    starts = np.flatnonzero(np.r_[True, games[1:] != games[:-1]]) if len(games) else np.array([], dtype=np.int64)
    offsets = pa_arrow.array(np.r_[starts, len(games)].astype(np.int32))
    cell = pc.binary_join_element_wise(cells["player_id"], cells["score"], "=").combine_chunks()
    joined = pc.binary_join(pa_arrow.ListArray.from_arrays(offsets, cell), "|")
    # every row of a game carries its date (a valid game is dated once): the first row's stands for it
    text = pc.binary_join_element_wise(cells["day"].take(pa_arrow.array(starts)), joined, "|")
    return pd.Series(pd.arrays.ArrowStringArray(text), index=pd.Index(games[starts], name=GAME_KEY[0]))


def validate_games(
    results: pd.DataFrame,
    yakuman: pd.DataFrame,
    *,
    aliases: pd.DataFrame,
    seasons_of,
    game_total: int,
    as_of: date,
    history: pd.DataFrame,
    first_rule: tuple[str, str] = ("", "0000-01-01"),
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """→ (valid result rows with game metadata, valid yakuman rows, quarantined games).

    `history` holds fingerprints of games already posted (columns fingerprint, source_file,
    location) so that a game posted again in another file is posted once. `first_rule` is
    (rule version, ISO date) of the league's first rule version: no game is scored before it.
    """
    if results.empty:
        nothing = {"player_id": pd.Series(dtype="string"), "first_line": pd.Series(dtype="int64"),
                   "last_line": pd.Series(dtype="int64"), "season": pd.Series(dtype="string"),
                   "fingerprint": pd.Series(dtype="string")}
        return (results.assign(**nothing), yakuman.assign(player_id=pd.Series(dtype="string")),
                pd.DataFrame(columns=["source_file", "location", "reason", "record"]))
    results = results.assign(player_id=apply_aliases(normalise_names(results["player_raw"]), aliases))
    yakuman = yakuman.assign(player_id=apply_aliases(normalise_names(yakuman["player_raw"]), aliases))
    games = _game_frame(results, yakuman)
    games = games.assign(
        as_of=pd.Timestamp(as_of), as_of_text=as_of.isoformat(), game_total=game_total,
        first_rule_version=first_rule[0], first_rule_from=first_rule[1],
        season=seasons_of(games["event_date"]).to_numpy(),
    )
    _, cases = failure_cases(GameChecks, games.reset_index(drop=True))
    cases = cases.drop_duplicates(["index", "check"])
    flat = games.reset_index()
    reasons = []
    for check, builder in (_MESSAGES.items() if len(cases) else ()):
        failing = cases.loc[cases["check"] == check, "index"].astype(int).unique()
        if len(failing):
            part = flat.loc[failing]
            reasons.append(pd.DataFrame({"row": failing, "check": check, "reason": builder(part).to_numpy()}))
    reasons = pd.concat(reasons) if reasons else pd.DataFrame(columns=["row", "check", "reason"])
    bad_rows = reasons.groupby("row")["reason"].agg("; ".join)

    flat = flat.assign(reason=bad_rows.reindex(flat.index).astype("string"))
    valid_keys = flat.loc[flat["reason"].isna(), GAME_KEY + ["first_line", "last_line", "season"]]
    # valid rows carry what scoring needs; the raw text stays with `results` for quarantine records
    valid = results.drop(columns=["raw", "problem", "date_problem", "date_line", "date_text"]).merge(valid_keys, on=GAME_KEY)
    valid = valid.merge(_fingerprint(valid).rename("fingerprint").reset_index(), on=GAME_KEY)

    # A game posted twice (same date, players, scores): the first posting stands.
    first_of = valid.drop_duplicates(GAME_KEY)[GAME_KEY + ["source_file", "game_seq", "fingerprint", "first_line", "last_line"]]
    first_of = first_of.assign(
        location="lines " + first_of["first_line"].astype("string") + "–" + first_of["last_line"].astype("string")
    )
    earlier = pd.concat(
        [history[["fingerprint", "source_file", "location"]].assign(order=0, game_key=-1, game_seq=-1), first_of.assign(order=1)],
        ignore_index=True,
    ).sort_values(["order", "source_file", "game_seq"])
    # Each game's first posting in that order: the fingerprints numbered once (one hash of the
    # texts; a join of the league's 200,000 fingerprint texts cost 0.27 s), the first row of each
    # number by position. The later postings, in the batch's order (earlier's index: the history's
    # rows, then first_of's), are the dupes.
    number = earlier["fingerprint"].factorize(use_na_sentinel=False)[0]
    first_row = np.unique(number, return_index=True)[1]  # numbers run 0.. in order of appearance
    orig_row = first_row[number]
    posted_later = (earlier["order"].to_numpy() == 1) & (orig_row != np.arange(len(earlier)))
    labels = earlier.index.to_numpy()[posted_later]
    in_batch_order = np.argsort(labels, kind="stable")
    original = earlier.iloc[orig_row[posted_later][in_batch_order]]
    dupes = first_of.iloc[labels[in_batch_order] - len(history)].assign(
        orig_file=original["source_file"].array, orig_location=original["location"].array)
    dupes = dupes.assign(
        reason="the same game (same date, players and scores) was already posted in " + dupes["orig_file"] + " "
        + dupes["orig_location"] + "; it is counted once"
    )
    dupe_keys = dupes[GAME_KEY].assign(dupe=True)
    valid = valid.merge(dupe_keys, on=GAME_KEY, how="left").loc[lambda v: v["dupe"].isna()].drop(columns="dupe")

    quarantined = pd.concat(
        [
            flat.loc[flat["reason"].notna(), GAME_KEY + ["source_file", "first_line", "last_line", "reason"]],
            dupes[GAME_KEY + ["source_file", "first_line", "last_line", "reason"]],
        ],
        ignore_index=True,
    )
    # each line once: a CSV row is both a result and (its yakuman column) a yakuman row
    lines = pd.concat([results[GAME_KEY + ["line_no", "raw"]], yakuman[GAME_KEY + ["line_no", "raw"]]])
    lines = lines.merge(quarantined[GAME_KEY].drop_duplicates(), on=GAME_KEY)  # quarantined games only
    lines = lines.drop_duplicates(GAME_KEY + ["line_no"])  # a CSV row is a result and (its yakuman column) a yakuman row
    raw_by_game = lines.sort_values(GAME_KEY + ["line_no"]).assign(raw=lambda f: f["raw"].str.strip())
    raw_by_game = _joined(raw_by_game, "raw", " / ")
    quarantined = quarantined.merge(raw_by_game.rename("record").reset_index(), on=GAME_KEY, how="left").assign(
        location="lines " + quarantined["first_line"].astype("string") + "–" + quarantined["last_line"].astype("string")
    )
    valid_yakuman = yakuman[yakuman["problem"].isna()].merge(valid[GAME_KEY].drop_duplicates(), on=GAME_KEY)
    return valid, valid_yakuman, quarantined[["source_file", "location", "reason", "record"]]

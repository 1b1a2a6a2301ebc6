"""Staging and checking of player rows (place label and matches won), for both input formats.

Pure steps, DataFrame → DataFrame. ``stage`` adds the helper columns that the checks of
``schemas.backgammon.ResultRowChecks`` look at; ``check`` turns failures into quarantine rows.
"""

from __future__ import annotations

import re

import pandas as pd

from schemas import backgammon as sch

from . import quarantine as q
from .rules import BackgammonRules

_WHOLE = re.compile(r"^[0-9]{1,6}$")  # matches won: ASCII digits (after NFKC), at most 6


def norm_place(labels: pd.Series) -> pd.Series:
    """Compare place labels loosely: case, dashes, spaces around / , and -."""
    return (
        labels.astype("str")
        .str.casefold()
        .str.replace(r"[\u2010-\u2015\u2212]", "-", regex=True)
        .str.replace(r"\s*([/,-])\s*", r"\1", regex=True)
        .str.replace(r"\s+", " ", regex=True)
        .str.strip()
    )


def place_labels(rules: BackgammonRules) -> pd.DataFrame:
    """Every accepted spelling of a place row (its name and the printed label), per version."""
    rows = rules.place_rows
    both = pd.concat(
        [rows.assign(label=rows["place_row"]), rows.assign(label=rows["printed_label"])], ignore_index=True
    )
    return (
        both.assign(label_key=norm_place(both["label"]))
        .drop_duplicates(["rule_version", "label_key"])[
            ["rule_version", "label_key", "place_row", "first_place", "last_place", "capacity"]
        ]
    )


def expected_places(rules: BackgammonRules, version: str) -> str:
    rows = rules.place_rows[rules.place_rows["rule_version"] == version].sort_values("row_order")
    return ", ".join(rows["place_row"])


REASON_MAX_RUNS = 10  # a reason repeated on each row of a group names at most this many runs of lines


def _joined_lines(lines: pd.Series) -> str:
    return q.lines_label(lines, max_runs=REASON_MAX_RUNS)


def stage(rows: pd.DataFrame, events: pd.DataFrame, rules: BackgammonRules) -> pd.DataFrame:
    """Add the helper columns of ResultRowChecks.

    rows: event_key, line, location, player_raw, place_raw, won_raw (text, blank = missing)
    events: event_key, rounds, rule_version[, extra_players]

    The field size counts one player per line: distinct names, lines with a blank name, and
    ``extra_players`` (lines that could not be read at all), so a rejected line still counts.
    """
    if "extra_players" not in events:
        events = events.assign(extra_players=0)
    base = rows.merge(events[["event_key", "rounds", "rule_version", "extra_players"]], on="event_key", how="left")
    player_id = base["player_raw"]
    player_key = player_id.str.casefold()
    whole = base["won_raw"].str.fullmatch(_WHOLE.pattern).fillna(False).astype(bool)
    matches_won = pd.to_numeric(base["won_raw"].where(whole)).astype("Int64")
    labelled = base.assign(
        player_id=player_id,
        _player_key=player_key,
        matches_won=matches_won,
        _label_key=norm_place(base["place_raw"]).where(base["place_raw"].notna()),
    ).merge(
        place_labels(rules).rename(columns={"label_key": "_label_key"}),
        on=["rule_version", "_label_key"],
        how="left",
    )
    by_event = labelled.groupby("event_key")
    dup_groups = labelled.groupby(["event_key", "_player_key"], dropna=False)
    row_groups = labelled.groupby(["event_key", "place_row"], dropna=False)
    dup_size = dup_groups["line"].transform("size")
    row_size = row_groups["line"].transform("size")
    staged = labelled.assign(
        place_known=labelled["place_raw"].isna() | labelled["place_row"].notna(),
        players=(
            by_event["_player_key"].transform("nunique")
            + labelled["_player_key"].isna().groupby(labelled["event_key"]).transform("sum")
            + labelled["extra_players"]
        ).astype("int64"),
        duplicates=dup_groups["line"].transform("size").where(labelled["_player_key"].notna(), 1).astype("int64"),
        duplicate_lines=_group_lines(labelled, ["event_key", "_player_key"], dup_size > 1).astype("str"),
        row_count=row_size.where(labelled["place_row"].notna(), 0).astype("int64"),
        row_lines=_group_lines(labelled, ["event_key", "place_row"], row_size > 1).astype("str").where(labelled["place_row"].notna()),
    ).pipe(_overlaps)
    return staged[list(sch.ResultRowChecks.to_schema().columns)].astype(
        {"capacity": "Int64", "first_place": "Int64", "rounds": "int64"}
    )


def _group_lines(frame: pd.DataFrame, keys: list[str], needed: pd.Series) -> pd.Series:
    """The lines label of each row's group (``keys``), built once per group and only for the
    rows that need it (groups of several rows); a row alone gets 'line N'. A label per group in
    Python for every group would cost a call per player."""
    single = "line " + frame["line"].astype("str")
    several = frame[needed.to_numpy()]
    if several.empty:
        return single
    labels = several.groupby(keys, dropna=False)["line"].agg(_joined_lines).rename("_label").reset_index()
    merged = several[keys].merge(labels, on=keys, how="left")["_label"].to_numpy()
    out = single.copy()
    out.loc[several.index] = merged
    return out


def _overlaps(staged: pd.DataFrame) -> pd.DataFrame:
    """For each placed row: the other place rows of its event that claim one of its places."""
    used = staged.dropna(subset=["place_row"])[["event_key", "place_row", "first_place", "last_place"]].drop_duplicates()
    pairs = used.merge(used, on="event_key", suffixes=("", "_other"))
    pairs = pairs[
        (pairs["place_row"] != pairs["place_row_other"])
        & (pairs["first_place"] <= pairs["last_place_other"])
        & (pairs["first_place_other"] <= pairs["last_place"])
    ]
    overlapping = (
        pairs.groupby(["event_key", "place_row"])["place_row_other"]
        .agg(lambda s: "', '".join(sorted(s)))
        .rename("overlaps_with")
        .reset_index()
    )
    return staged.merge(overlapping, on=["event_key", "place_row"], how="left")


def check(source_file: str, staged: pd.DataFrame, rules: BackgammonRules) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Run ResultRowChecks; return (failures (index, code), quarantine rows)."""
    found = q.failures(sch.ResultRowChecks, staged)
    versions = staged["rule_version"].dropna()
    places = expected_places(rules, versions.iloc[0]) if len(versions) else ""
    named = staged.assign(player_raw=staged["player_raw"].fillna("(no name)"))
    return found, q.from_failures(source_file, found, named, expected_places=places)

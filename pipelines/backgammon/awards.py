"""Award lines: max(placing award, per-match award × matches won) × MP bonus multiplier.

Pure, set-based steps over whole batches: merges with the rule tables (data), elementwise
``Decimal`` arithmetic (exact), one rounding at the end with the mode of the rule version
(``rule_versions.csv``: ``rounding``, ``quantum``; ucmp-1 rounds half-up to 0.01).
"""

from __future__ import annotations

from decimal import Decimal

import pandas as pd

from pipelines.core.validation import validate_frame
from schemas import backgammon as sch

from .rules import BackgammonRules, version_in_force

AWARD_COLUMNS = list(sch.Awards.to_schema().columns)
_NO_LIMIT = 2**62
_ROUNDING_WORDS = {"ROUND_HALF_UP": "half-up", "ROUND_HALF_EVEN": "half-even", "ROUND_DOWN": "down", "ROUND_UP": "up"}


def compute_awards(events: pd.DataFrame, players: pd.DataFrame, rules: BackgammonRules) -> pd.DataFrame:
    """One award line per player per event (denomination ``club_mp``), with its basis.

    ``events`` and ``players`` are the parsed frames (extra columns are ignored). The rule version
    is the one in force on the event date, so a recomputation after a rule change uses the new one.
    """
    events = events[list(sch.Events.to_schema().columns)].assign(
        # a multiplier read back from Parquet/DuckDB may be a float or text: its decimal text is exact
        multiplier=events["multiplier"].map(lambda m: m if isinstance(m, Decimal) else Decimal(str(m))).astype(object)
    )
    events = validate_frame(sch.Events, events)
    players = validate_frame(sch.Players, players[list(sch.Players.to_schema().columns)])
    return (
        players.merge(
            events.drop(columns=["source_file", "location"]), on="event_id", how="inner", validate="many_to_one"
        )
        .pipe(_check_all_players_have_events, players)
        .pipe(with_rule_version, rules)
        .pipe(with_column, rules)
        .pipe(with_placing, rules)
        .pipe(with_per_match, rules)
        .pipe(with_points)
        .pipe(with_basis)
        .assign(denomination=sch.DENOMINATION)[AWARD_COLUMNS]
        .sort_values(["event_date", "event_id", "player_id"], ignore_index=True)
        .pipe(sch.Awards.validate)
    )


def _check_all_players_have_events(frame: pd.DataFrame, players: pd.DataFrame) -> pd.DataFrame:
    if len(frame) != len(players):
        orphans = sorted(set(players["event_id"]) - set(frame["event_id"]))
        raise ValueError(f"player lines of unknown events: {orphans[:5]}")
    return frame


def with_rule_version(frame: pd.DataFrame, rules: BackgammonRules) -> pd.DataFrame:
    """The version in force on the event date, and its rounding terms."""
    version = version_in_force(frame["event_date"], rules.versions)
    if version.isna().any():
        first = rules.versions["effective_from"].min()
        raise ValueError(f"events dated before the first rule version ({first:%Y-%m-%d}): "
                         f"{sorted(frame.loc[version.isna(), 'event_id'].unique())[:5]}")
    return frame.assign(rule_version=version).merge(
        rules.versions[["rule_version", "rounding", "quantum"]], on="rule_version", how="left"
    )


def _column_by(frame: pd.DataFrame, columns: pd.DataFrame, what: str) -> pd.DataFrame:
    """The table column whose ``what`` range (players or rounds) holds the event's count."""
    # an open-ended last column ("over 64", "7+ rounds") reaches the largest count there is
    lo, hi = columns[f"{what}_min"], columns[f"{what}_max"].astype("Int64").fillna(_NO_LIMIT).astype("int64")
    ranges = columns.assign(_lo=lo, _hi=hi)[["rule_version", "column", "_lo", "_hi", f"{what}_label"]]
    keyed = frame[["event_id", "rule_version", what]].drop_duplicates()
    hit = keyed.merge(ranges, on="rule_version")
    hit = hit[(hit[what] >= hit["_lo"]) & (hit[what] <= hit["_hi"])]
    return hit.rename(columns={"column": f"{what}_column"})[["event_id", f"{what}_column", f"{what}_label"]]


def with_column(frame: pd.DataFrame, rules: BackgammonRules) -> pd.DataFrame:
    """Column by players, by rounds, or the higher of the two (the event's method)."""
    out = frame.merge(_column_by(frame, rules.columns, "players"), on="event_id", how="left").merge(
        _column_by(frame, rules.columns, "rounds"), on="event_id", how="left"
    )
    by_max = out[["players_column", "rounds_column"]].max(axis=1)
    column = out["players_column"].where(out["method"] == "players", out["rounds_column"])
    column = column.where(out["method"] != "max", by_max)
    players_wins = out["players_column"] >= out["rounds_column"]
    chosen_label = out["players_label"].where(players_wins, out["rounds_label"])
    return out.assign(column=column.astype("int64"), column_label=chosen_label)


def with_placing(frame: pd.DataFrame, rules: BackgammonRules) -> pd.DataFrame:
    """The printed placing award of the player's place row (none below the 5-8 tie)."""
    out = frame.merge(
        rules.placing.rename(columns={"points": "placing"}),
        on=["rule_version", "level", "place_row", "column"],
        how="left",
    )
    missing = out["place_row"].notna() & out["placing"].isna()
    if missing.any():
        raise ValueError(f"no table cell for {out.loc[missing, ['level', 'place_row', 'column']].drop_duplicates().values.tolist()}")
    return out


def with_per_match(frame: pd.DataFrame, rules: BackgammonRules) -> pd.DataFrame:
    out = frame.merge(rules.per_match, on=["rule_version", "level"], how="left", validate="many_to_one")
    return out.assign(match_total=out["per_match"] * out["matches_won"])


def with_points(frame: pd.DataFrame) -> pd.DataFrame:
    """max(placing, per-match total) × multiplier, rounded once with the version's mode."""
    zero = frame["match_total"] * 0
    placing = frame["placing"].where(frame["placing"].notna(), zero).astype(object)
    by_place = frame["placing"].notna() & (placing >= frame["match_total"])
    chosen = placing.where(by_place, frame["match_total"])
    raw = (chosen * frame["multiplier"]).astype(object)
    points = pd.Series(index=frame.index, dtype=object)
    for (quantum, mode), idx in frame.groupby(["quantum", "rounding"]).groups.items():
        points.loc[idx] = raw.loc[idx].map(lambda d, q=quantum, m=mode: d.quantize(q, rounding=m))
    return frame.assign(by_place=by_place, chosen=chosen, raw=raw, points=points)


def _printed(values: pd.Series) -> pd.Series:
    """Per-match awards as the document prints them: .08, .04, .02."""
    text = values.astype("str")
    return text.where(~text.str.startswith("0."), text.str.slice(1))


def with_basis(frame: pd.DataFrame) -> pd.DataFrame:
    """'Intermediate, 24 players → column 24–32, 2nd 1.00 vs 5 wins × .04 = 0.20 → 1.00 × 1.5 = 1.50'."""
    s = lambda c: frame[c].astype("str")  # noqa: E731
    by_players = s("players") + " players → column " + s("players_label")
    by_rounds = s("rounds") + " rounds → column " + s("rounds_label")
    column_part = by_players.where(frame["method"] == "players", by_rounds)
    column_part = column_part.where(
        frame["method"] != "max", "max(" + by_players + ", " + by_rounds + ") = column " + s("column_label")
    )
    place_part = (s("place_row") + " " + s("placing")).where(frame["place_row"].notna(), "no place")
    wins_word = pd.Series("wins", index=frame.index).where(frame["matches_won"] != 1, "win")
    wins_part = s("matches_won") + " " + wins_word + " × " + _printed(frame["per_match"]) + " = " + s("match_total")
    product = s("chosen") + " × " + s("multiplier") + " = "
    rounded = frame["raw"] != frame["points"]
    mode = frame["rounding"].map(_ROUNDING_WORDS).fillna(frame["rounding"]).astype("str")
    result = (product + s("points")).where(~rounded, product + s("raw") + ", rounded " + mode + " to " + s("points"))
    basis = s("level") + ", " + column_part + ", " + place_part + " vs " + wins_part + " → " + result
    return frame.assign(basis=basis)

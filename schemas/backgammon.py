"""Pandera contracts of the backgammon rule system (Universal Club Master Points).

Three groups of models:

* the rule tables under ``data/rules/backgammon/`` (reviewed like code; a failure raises);
* the parsed inputs (``Events``, ``Players``, ``Matches``) and the ``Quarantine`` frame that the
  parsers return, the ``Awards`` lines and the ``Standings`` of the points race;
* the input checks (``ResultRowChecks``, ``MatchRowChecks``): run lazily over a staged frame of raw
  rows, their failure cases become quarantine rows. Each check's ``error`` is a reason code that
  ``pipelines.backgammon.quarantine`` turns into a sentence a club secretary can act on.

Decimal columns (award values, multipliers) hold ``decimal.Decimal`` objects (dtype object).
The lake table of the nightly run (``BackgammonResult``) uses Arrow dtypes (``schemas.common``).
"""

from __future__ import annotations

import decimal
from decimal import Decimal

import pandas as pd
import pandera.pandas as pa
import pyarrow as pa_arrow
from pandera.typing import Series

from schemas.common import DATE, INT, POINTS, TEXT

ROUNDING_MODES = sorted(name for name in dir(decimal) if name.startswith("ROUND_"))
METHODS = ["players", "rounds", "max"]
MATCH_RESULTS = ["played", "bye", "forfeit"]
DENOMINATION = "club_mp"


# --------------------------------------------------------------------------- helpers
def _is_decimal(values: pd.Series) -> pd.Series:
    return values.map(lambda v: isinstance(v, Decimal) and v.is_finite()).astype(bool)


def _decimal_ge(values: pd.Series, bound: Decimal) -> pd.Series:
    return values.map(lambda v: isinstance(v, Decimal) and v.is_finite() and v >= bound).astype(bool)


def _decimal_gt(values: pd.Series, bound: Decimal) -> pd.Series:
    return values.map(lambda v: isinstance(v, Decimal) and v.is_finite() and v > bound).astype(bool)


def _has_cents(values: pd.Series) -> pd.Series:
    """Exactly two decimals, as the document prints them (1.75, 0.20, 3.00)."""
    return values.map(
        lambda v: isinstance(v, Decimal) and v.is_finite() and v.as_tuple().exponent == -2
    ).astype(bool)


# --------------------------------------------------------------------------- rule tables
class RuleVersions(pa.DataFrameModel):
    """rule_versions.csv: one line per version, in force from ``effective_from``."""

    rule_version: Series[str] = pa.Field(unique=True, str_matches=r"^\S+$")
    effective_from: Series[pa.DateTime] = pa.Field(unique=True)
    rounding: Series[str] = pa.Field(isin=ROUNDING_MODES)
    quantum: Series[object]
    source: Series[str]
    note: Series[str] = pa.Field(nullable=True)

    class Config:
        strict = True
        coerce = True

    @pa.check("quantum", error="quantum must be a positive decimal such as 0.01")
    def _quantum(cls, s: pd.Series) -> pd.Series:
        return _decimal_gt(s, Decimal(0))


class PlacingAwards(pa.DataFrameModel):
    """placing_awards.csv: the printed table, level × place row × column, exactly as printed."""

    rule_version: Series[str]
    level: Series[str]
    place_row: Series[str]
    column: Series[int] = pa.Field(ge=1)
    points: Series[object]

    class Config:
        strict = True
        coerce = True
        unique = ["rule_version", "level", "place_row", "column"]

    @pa.check("points", error="points must be a decimal ≥ 0 printed with two decimals")
    def _points(cls, s: pd.Series) -> pd.Series:
        return _decimal_ge(s, Decimal(0)) & _has_cents(s)

    @pa.dataframe_check(error="a place row must not pay less in a higher column (the max method needs it)")
    def _monotone_in_column(cls, df: pd.DataFrame) -> pd.Series:
        ordered = df.sort_values(["rule_version", "level", "place_row", "column"])
        previous = ordered.groupby(["rule_version", "level", "place_row"])["points"].shift()
        ok = previous.isna() | (ordered["points"].astype(object) >= previous.astype(object))
        return ok.astype(bool).reindex(df.index)


class MatchAwards(pa.DataFrameModel):
    """match_awards.csv: the per-match award of each level ("or .08 for each match won")."""

    rule_version: Series[str]
    level: Series[str]
    per_match: Series[object]

    class Config:
        strict = True
        coerce = True
        unique = ["rule_version", "level"]

    @pa.check("per_match", error="per_match must be a positive decimal")
    def _per_match(cls, s: pd.Series) -> pd.Series:
        return _decimal_gt(s, Decimal(0))


class Columns(pa.DataFrameModel):
    """columns.csv: which players range and which rounds range select each table column."""

    rule_version: Series[str]
    column: Series[int] = pa.Field(ge=1)
    players_min: Series[int] = pa.Field(ge=1)
    players_max: Series[pd.Int64Dtype] = pa.Field(nullable=True)
    rounds_min: Series[int] = pa.Field(ge=1)
    rounds_max: Series[pd.Int64Dtype] = pa.Field(nullable=True)
    players_label: Series[str]
    rounds_label: Series[str]

    class Config:
        strict = True
        coerce = True
        unique = ["rule_version", "column"]

    @pa.dataframe_check(error="ranges must be contiguous per version, only the last column open-ended")
    def _contiguous(cls, df: pd.DataFrame) -> pd.Series:
        ordered = df.sort_values(["rule_version", "column"])
        by = ordered.groupby("rule_version")
        ok = pd.Series(True, index=ordered.index)
        for lo, hi in (("players_min", "players_max"), ("rounds_min", "rounds_max")):
            prev_hi = by[hi].shift()
            first = by.cumcount() == 0
            last = by.cumcount(ascending=False) == 0
            ok &= first | (ordered[lo] == prev_hi + 1).fillna(False).astype(bool)
            ok &= last | ordered[hi].notna()
            ok &= (ordered[hi].isna() | (ordered[hi] >= ordered[lo])).fillna(True).astype(bool)
        return ok.reindex(df.index)


class PlaceRows(pa.DataFrameModel):
    """place_rows.csv: each place row, the places it covers and how many players may share it."""

    rule_version: Series[str]
    place_row: Series[str]
    row_order: Series[int] = pa.Field(ge=1)
    first_place: Series[int] = pa.Field(ge=1)
    last_place: Series[int] = pa.Field(ge=1)
    capacity: Series[int] = pa.Field(ge=1)
    printed_label: Series[str]

    class Config:
        strict = True
        coerce = True
        unique = ["rule_version", "place_row"]

    @pa.dataframe_check(error="capacity must equal the number of places the row covers")
    def _capacity(cls, df: pd.DataFrame) -> pd.Series:
        return df["capacity"] == df["last_place"] - df["first_place"] + 1


class EliminationPlaces(pa.DataFrameModel):
    """elimination_places.csv: places derived from the last rounds of a single-elimination bracket."""

    rule_version: Series[str]
    rounds_before_final: Series[int] = pa.Field(ge=0)
    outcome: Series[str] = pa.Field(isin=["won", "lost"])
    place_row: Series[str]

    class Config:
        strict = True
        coerce = True
        unique = ["rule_version", "rounds_before_final", "outcome"]


class LevelAliases(pa.DataFrameModel):
    """level_aliases.csv: the spellings a results file may use for each level (lower case)."""

    alias: Series[str] = pa.Field(unique=True, str_matches=r"^[^A-Z]+$")
    level: Series[str]

    class Config:
        strict = True
        coerce = True


# --------------------------------------------------------------------------- parsed inputs
class Events(pa.DataFrameModel):
    """One line per event (a bracket of a tournament): its settings, as parsed."""

    event_id: Series[str] = pa.Field(unique=True)
    organisation: Series[str] = pa.Field(str_matches=r"^[a-z0-9][a-z0-9-]*$")
    event_date: Series[pa.DateTime]
    event_name: Series[str] = pa.Field(str_length={"min_value": 1})
    bracket: Series[str] = pa.Field(str_matches=r"^[a-z0-9][a-z0-9 _-]*$")
    level: Series[str]
    method: Series[str] = pa.Field(isin=METHODS)
    multiplier: Series[object]
    rounds: Series[int] = pa.Field(ge=1)
    players: Series[int] = pa.Field(ge=1)
    source_file: Series[str]
    location: Series[str]

    class Config:
        strict = True
        coerce = True

    @pa.check("multiplier", error="multiplier must be a positive decimal")
    def _multiplier(cls, s: pd.Series) -> pd.Series:
        return _decimal_gt(s, Decimal(0))

    @pa.dataframe_check(error="event_id must be organisation/date/event/bracket of the same line")
    def _event_id(cls, df: pd.DataFrame) -> pd.Series:
        parts = df["event_id"].str.split("/", n=2, expand=True, regex=False).reindex(columns=[0, 1, 2])
        return (
            (parts[0] == df["organisation"])
            & (parts[1] == df["event_date"].dt.strftime("%Y-%m-%d"))
            & df["event_id"].str.fullmatch(r"[a-z0-9-]+/\d{4}-\d{2}-\d{2}/[a-z0-9-]+/[a-z0-9-]+")
        ).fillna(False).astype(bool)


class Players(pa.DataFrameModel):
    """One line per player per event: place row (or none) and matches won."""

    event_id: Series[str]
    player_id: Series[str] = pa.Field(str_length={"min_value": 1})
    place_row: Series[str] = pa.Field(nullable=True)
    matches_won: Series[int] = pa.Field(ge=0)
    source_file: Series[str]
    location: Series[str]

    class Config:
        strict = True
        coerce = True
        unique = ["event_id", "player_id"]


class Matches(pa.DataFrameModel):
    """One line per match-log row that was accepted (played matches, byes and forfeits)."""

    event_id: Series[str]
    round: Series[int] = pa.Field(ge=1)
    winner: Series[str]
    loser: Series[str] = pa.Field(nullable=True)
    match_length: Series[pd.Int64Dtype] = pa.Field(nullable=True, ge=1)
    result: Series[str] = pa.Field(isin=MATCH_RESULTS)
    source_file: Series[str]
    location: Series[str]

    class Config:
        strict = True
        coerce = True
        unique = ["event_id", "round", "winner"]

    @pa.dataframe_check(error="a bye has no loser; a played or forfeited match has one, not the winner")
    def _loser(cls, df: pd.DataFrame) -> pd.Series:
        bye = df["result"] == "bye"
        return ((bye & df["loser"].isna()) | (~bye & df["loser"].notna() & (df["loser"] != df["winner"]))).astype(bool)


class Quarantine(pa.DataFrameModel):
    """Rejected input: where it is and why, in words a club secretary can act on."""

    source_file: Series[str]
    location: Series[str]
    reason: Series[str] = pa.Field(str_length={"min_value": 1})

    class Config:
        strict = True
        coerce = True


# --------------------------------------------------------------------------- outputs
class Awards(pa.DataFrameModel):
    """Award lines, one per player per event (denomination club_mp)."""

    organisation: Series[str]
    event_id: Series[str]
    event_date: Series[pa.DateTime]
    player_id: Series[str]
    denomination: Series[str] = pa.Field(isin=[DENOMINATION])
    points: Series[object]
    rule_version: Series[str]
    basis: Series[str]
    source_file: Series[str]
    location: Series[str]
    matches_won: Series[int] = pa.Field(ge=0)
    place_row: Series[str] = pa.Field(nullable=True)
    event_name: Series[str]
    bracket: Series[str]

    class Config:
        strict = True
        coerce = True
        unique = ["event_id", "player_id"]

    @pa.check("points", error="points must be a Decimal ≥ 0 quantized to 0.01")
    def _points(cls, s: pd.Series) -> pd.Series:
        return _decimal_ge(s, Decimal(0)) & _has_cents(s)

    @pa.dataframe_check(error="the basis must end with the awarded points")
    def _basis_ends_with_points(cls, df: pd.DataFrame) -> pd.Series:
        return pd.Series(
            [b.endswith(str(p)) for b, p in zip(df["basis"], df["points"])], index=df.index, dtype=bool
        )


class Standings(pa.DataFrameModel):
    """The points race: per club and season (calendar year), as of a date."""

    club: Series[str]
    season: Series[int]
    as_of: Series[pa.DateTime]
    rank: Series[int] = pa.Field(ge=1)
    rank_label: Series[str]
    player: Series[str]
    events: Series[int] = pa.Field(ge=1)
    matches_won: Series[int] = pa.Field(ge=0)
    points: Series[object]

    class Config:
        strict = True
        coerce = True
        unique = ["club", "season", "player"]

    @pa.check("points", error="points must be a Decimal quantized to 0.01")
    def _points(cls, s: pd.Series) -> pd.Series:
        return _has_cents(s)

    @pa.dataframe_check(error="rank must follow points (ties share the better rank)")
    def _rank(cls, df: pd.DataFrame) -> pd.Series:
        cents = df["points"].map(lambda d: int(d * 100))
        expected = cents.groupby([df["club"], df["season"]]).rank(method="min", ascending=False)
        return df["rank"] == expected.astype(int)


# --------------------------------------------------------------------------- input checks
# Staged frames carry helper columns computed by pure steps; every check below is a reason code.


class ResultRowChecks(pa.DataFrameModel):
    """Checks over staged player rows: a results file's lines, or the players derived from a match log."""

    event_key: Series[str]
    rule_version: Series[str] = pa.Field(nullable=True)
    line: Series[int]
    location: Series[str]
    player_raw: Series[str] = pa.Field(nullable=True)
    place_raw: Series[str] = pa.Field(nullable=True)
    won_raw: Series[str] = pa.Field(nullable=True)
    player_id: Series[str] = pa.Field(nullable=True)
    place_row: Series[str] = pa.Field(nullable=True)
    place_known: Series[bool]
    matches_won: Series[pd.Int64Dtype] = pa.Field(nullable=True)
    rounds: Series[int]
    players: Series[int]
    duplicates: Series[int]
    duplicate_lines: Series[str]
    row_count: Series[int]
    row_lines: Series[str] = pa.Field(nullable=True)
    capacity: Series[pd.Int64Dtype] = pa.Field(nullable=True)
    first_place: Series[pd.Int64Dtype] = pa.Field(nullable=True)
    overlaps_with: Series[str] = pa.Field(nullable=True)

    class Config:
        strict = True
        coerce = True

    @pa.dataframe_check(error="player_missing")
    def _player_missing(cls, df: pd.DataFrame) -> pd.Series:
        return df["player_id"].notna()

    @pa.dataframe_check(error="place_unknown")
    def _place_unknown(cls, df: pd.DataFrame) -> pd.Series:
        return df["place_known"]

    @pa.dataframe_check(error="wins_unreadable")
    def _wins_unreadable(cls, df: pd.DataFrame) -> pd.Series:
        return df["matches_won"].notna()

    @pa.dataframe_check(error="wins_above_rounds")
    def _wins_above_rounds(cls, df: pd.DataFrame) -> pd.Series:
        return (df["matches_won"].isna() | (df["matches_won"] <= df["rounds"])).fillna(True).astype(bool)

    @pa.dataframe_check(error="player_twice")
    def _player_twice(cls, df: pd.DataFrame) -> pd.Series:
        return df["duplicates"] <= 1

    @pa.dataframe_check(error="tie_over_capacity")
    def _tie_over_capacity(cls, df: pd.DataFrame) -> pd.Series:
        return (df["capacity"].isna() | (df["row_count"] <= df["capacity"])).fillna(True).astype(bool)

    @pa.dataframe_check(error="places_overlap")
    def _places_overlap(cls, df: pd.DataFrame) -> pd.Series:
        return df["overlaps_with"].isna()

    @pa.dataframe_check(error="place_beyond_field")
    def _place_beyond_field(cls, df: pd.DataFrame) -> pd.Series:
        return (df["first_place"].isna() | (df["first_place"] <= df["players"])).fillna(True).astype(bool)


class MatchRowChecks(pa.DataFrameModel):
    """Checks over the staged rows of a match log (one row per CSV line)."""

    line: Series[int]
    location: Series[str]
    date_raw: Series[str] = pa.Field(nullable=True)
    bracket_raw: Series[str] = pa.Field(nullable=True)
    round_raw: Series[str] = pa.Field(nullable=True)
    winner_raw: Series[str] = pa.Field(nullable=True)
    loser_raw: Series[str] = pa.Field(nullable=True)
    length_raw: Series[str] = pa.Field(nullable=True)
    result_raw: Series[str] = pa.Field(nullable=True)
    date_plausible: Series[bool]
    event_date: Series[pa.DateTime] = pa.Field(nullable=True)
    bracket: Series[str] = pa.Field(nullable=True)
    round: Series[pd.Int64Dtype] = pa.Field(nullable=True)
    winner: Series[str] = pa.Field(nullable=True)
    loser: Series[str] = pa.Field(nullable=True)
    match_length: Series[pd.Int64Dtype] = pa.Field(nullable=True)
    length_ok: Series[bool]
    result: Series[str] = pa.Field(nullable=True)

    class Config:
        strict = True
        coerce = True

    @pa.dataframe_check(error="date_unreadable")
    def _date(cls, df: pd.DataFrame) -> pd.Series:
        return df["event_date"].notna() | ~df["date_plausible"]

    @pa.dataframe_check(error="date_implausible")
    def _date_plausible(cls, df: pd.DataFrame) -> pd.Series:
        return df["date_plausible"]

    @pa.dataframe_check(error="bracket_missing")
    def _bracket(cls, df: pd.DataFrame) -> pd.Series:
        return df["bracket"].notna()

    @pa.dataframe_check(error="round_unreadable")
    def _round(cls, df: pd.DataFrame) -> pd.Series:
        return df["round"].notna()

    @pa.dataframe_check(error="winner_missing")
    def _winner(cls, df: pd.DataFrame) -> pd.Series:
        return df["winner"].notna()

    @pa.dataframe_check(error="length_unreadable")
    def _length(cls, df: pd.DataFrame) -> pd.Series:
        return df["length_ok"]

    @pa.dataframe_check(error="result_unknown")
    def _result(cls, df: pd.DataFrame) -> pd.Series:
        return df["result"].notna()

    @pa.dataframe_check(error="loser_missing")
    def _loser_missing(cls, df: pd.DataFrame) -> pd.Series:
        return ~((df["result"] == "forfeit") | (df["result"] == "played")).fillna(False).astype(bool) | df["loser"].notna()

    @pa.dataframe_check(error="bye_with_loser")
    def _bye_with_loser(cls, df: pd.DataFrame) -> pd.Series:
        return ~(df["result"] == "bye").fillna(False).astype(bool) | df["loser"].isna()

    @pa.dataframe_check(error="winner_is_loser")
    def _winner_is_loser(cls, df: pd.DataFrame) -> pd.Series:
        same = (df["winner"].str.casefold() == df["loser"].str.casefold()).fillna(False).astype(bool)
        return ~same


class BracketChecks(pa.DataFrameModel):
    """Checks over the appearances (player, round) of the accepted match-log rows, per bracket."""

    event_key: Series[str]
    bracket: Series[str]
    line: Series[int]
    location: Series[str]
    player: Series[str]
    round: Series[int]
    rounds: Series[int]
    previous_round: Series[int]
    next_round: Series[int]
    derive_places: Series[bool]
    times_in_round: Series[int]
    round_gap: Series[pd.Int64Dtype] = pa.Field(nullable=True)
    lost_earlier_in: Series[pd.Int64Dtype] = pa.Field(nullable=True)
    came_through: Series[bool]
    went_on: Series[bool]
    final_rows: Series[int]
    final_note: Series[str]
    final_ok: Series[bool]

    class Config:
        strict = True
        coerce = True

    @pa.dataframe_check(error="twice_in_round")
    def _twice(cls, df: pd.DataFrame) -> pd.Series:
        return df["times_in_round"] <= 1

    @pa.dataframe_check(error="round_missing")
    def _gap(cls, df: pd.DataFrame) -> pd.Series:
        return df["round_gap"].isna()

    @pa.dataframe_check(error="played_after_losing")
    def _after_losing(cls, df: pd.DataFrame) -> pd.Series:
        return ~df["derive_places"] | df["lost_earlier_in"].isna()

    @pa.dataframe_check(error="came_from_nowhere")
    def _from_nowhere(cls, df: pd.DataFrame) -> pd.Series:
        return ~df["derive_places"] | df["came_through"]

    @pa.dataframe_check(error="winner_vanished")
    def _vanished(cls, df: pd.DataFrame) -> pd.Series:
        return ~df["derive_places"] | df["went_on"]

    @pa.dataframe_check(error="final_not_single")
    def _final(cls, df: pd.DataFrame) -> pd.Series:
        return ~df["derive_places"] | (df["round"] < df["rounds"]) | df["final_ok"]


# --------------------------------------------------------------------------- lake table
# What the nightly run stores (var/lake/backgammon_results/org=<club>/month=<YYYY-MM>/): Arrow
# dtypes (exact decimals, date32), one source of truth for the Parquet schema (schemas.common).
MULTIPLIER = pd.ArrowDtype(pa_arrow.decimal128(12, 6))
MULTIPLIER_DECIMALS = 6
INPUT_FORMATS = ["results", "match_log"]


class BackgammonResult(pa.DataFrameModel):
    """One posted player result of one event (a bracket of a tournament), as the lake stores it.

    Exactly the results behind award lines: a row per award line posted from this file version,
    with what the award was computed from (the event's settings, the player's place and wins).
    """

    organisation: TEXT = pa.Field()
    event_id: TEXT = pa.Field()
    event_date: DATE = pa.Field()
    season: TEXT = pa.Field()
    event_name: TEXT = pa.Field(str_length={"min_value": 1})
    bracket: TEXT = pa.Field()
    level: TEXT = pa.Field()
    method: TEXT = pa.Field(isin=METHODS)
    multiplier: MULTIPLIER = pa.Field(gt=0)
    rounds: INT = pa.Field(ge=1)
    players: INT = pa.Field(ge=1)
    player_id: TEXT = pa.Field(str_length={"min_value": 1})
    place_row: TEXT = pa.Field(nullable=True)
    matches_won: INT = pa.Field(ge=0)
    points: POINTS = pa.Field(ge=0)
    rule_version: TEXT = pa.Field()
    input_format: TEXT = pa.Field(isin=INPUT_FORMATS)
    source_file: TEXT = pa.Field()
    source_sha256: TEXT = pa.Field(str_length={"min_value": 64, "max_value": 64})
    location: TEXT = pa.Field()
    run_id: TEXT = pa.Field()

    class Config:
        strict = True
        coerce = True
        unique = ["event_id", "player_id"]

    @pa.dataframe_check(error="matches won cannot exceed the rounds of the event")
    def _wins_within_rounds(cls, df: pd.DataFrame) -> Series[bool]:
        return df["matches_won"] <= df["rounds"]

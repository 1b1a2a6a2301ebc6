"""Contracts of the mahjong league: its rule and calendar tables, and its lake table."""
from __future__ import annotations

import pandas as pd
import pandera.pandas as pa
from pandera.typing import Series

from schemas.common import BOOL, DATE, INT, POINTS, TEXT


class RuleVersion(pa.DataFrameModel):
    """data/rules/mahjong/rule_versions.csv: one row per rule version, in force from a date."""

    ruleset: TEXT = pa.Field()
    rule_version: TEXT = pa.Field()
    effective_from: DATE = pa.Field()
    bust_below: INT = pa.Field()
    bust_points: POINTS = pa.Field(le=0)
    bust_applies_to: TEXT = pa.Field(isin=["fourth", "all"])
    sankoro_second_below: INT = pa.Field()
    sankoro_top_points: POINTS = pa.Field(ge=0)
    sankoro_second_points: POINTS = pa.Field(le=0)
    yakuman_points: POINTS = pa.Field(ge=0)
    min_games: INT = pa.Field(ge=1)
    bonus_games_step: INT = pa.Field(ge=0)
    bonus_points_per_step: POINTS = pa.Field(ge=0)
    average_decimals: INT = pa.Field(ge=0, le=3)
    description: TEXT = pa.Field()

    class Config:
        strict = True
        coerce = True
        unique = ["ruleset", "rule_version"]

    @pa.dataframe_check(error="two rule versions of one ruleset take effect on the same date")
    def one_version_per_date(cls, df: pd.DataFrame) -> Series[bool]:
        return ~df.duplicated(["ruleset", "effective_from"], keep=False)

    @pa.dataframe_check(error="a games bonus needs a step (bonus_games_step > 0) and vice versa")
    def bonus_step_consistent(cls, df: pd.DataFrame) -> Series[bool]:
        return (df["bonus_games_step"] > 0) == (df["bonus_points_per_step"] > 0)


class PlacingPoints(pa.DataFrameModel):
    """data/rules/mahjong/placing_points.csv: league points for each final place."""

    ruleset: TEXT = pa.Field()
    rule_version: TEXT = pa.Field()
    place: INT = pa.Field(isin=[1, 2, 3, 4])
    points: POINTS = pa.Field()

    class Config:
        strict = True
        coerce = True
        unique = ["ruleset", "rule_version", "place"]

    @pa.dataframe_check(error="every rule version needs points for places 1, 2, 3 and 4")
    def four_places(cls, df: pd.DataFrame) -> Series[bool]:
        return df.groupby(["ruleset", "rule_version"])["place"].transform("count") == 4

    @pa.dataframe_check(error="placing points must not increase with place")
    def not_increasing(cls, df: pd.DataFrame) -> Series[bool]:
        ordered = df.sort_values(["ruleset", "rule_version", "place"])
        step = ordered.groupby(["ruleset", "rule_version"])["points"].diff()
        return (step.isna() | (step <= 0)).reindex(df.index)


class Season(pa.DataFrameModel):
    """Seasons of a league calendar (balances are kept per season)."""

    calendar: TEXT = pa.Field()
    season: TEXT = pa.Field()
    name: TEXT = pa.Field()
    starts_on: DATE = pa.Field(nullable=True)
    ends_on: DATE = pa.Field(nullable=True)

    class Config:
        strict = True
        coerce = True
        unique = ["calendar", "season"]

    @pa.dataframe_check(error="a season ends before it starts")
    def ordered(cls, df: pd.DataFrame) -> Series[bool]:
        return df["starts_on"].isna() | df["ends_on"].isna() | (df["starts_on"] <= df["ends_on"])

    @pa.dataframe_check(error="seasons overlap or leave a gap: each season must start the day after the previous one ends")
    def contiguous(cls, df: pd.DataFrame) -> Series[bool]:
        ordered = df.sort_values(["calendar", "starts_on"], na_position="first")
        prev_end = ordered.groupby("calendar")["ends_on"].shift()
        starts = pd.to_datetime(ordered["starts_on"].astype("string"))
        expected = pd.to_datetime(prev_end.astype("string")) + pd.Timedelta(days=1)
        return (prev_end.isna() & ordered.groupby("calendar").cumcount().eq(0) | (starts == expected)).reindex(df.index)


class PeriodScheme(pa.DataFrameModel):
    """How a calendar cuts ranking periods: months per period from an anchor, with cyclic names."""

    calendar: TEXT = pa.Field(unique=True)
    months_per_period: INT = pa.Field(ge=1, le=12)
    anchor: DATE = pa.Field()
    period_names: TEXT = pa.Field(str_length={"min_value": 1})

    class Config:
        strict = True
        coerce = True

    @pa.dataframe_check(error="the anchor must be the first day of a month")
    def anchor_first_of_month(cls, df: pd.DataFrame) -> Series[bool]:
        return pd.to_datetime(df["anchor"].astype("string")).dt.day == 1


class Alias(pa.DataFrameModel):
    """data/aliases/<organisation>.csv: other spellings of a player's name."""

    alias: TEXT = pa.Field(unique=True, str_length={"min_value": 1})
    player_id: TEXT = pa.Field(str_length={"min_value": 1})

    class Config:
        strict = True
        coerce = True

    @pa.dataframe_check(error="an alias must not itself be a player id that has aliases (chains are ambiguous)")
    def no_chains(cls, df: pd.DataFrame) -> Series[bool]:
        return ~df["player_id"].isin(df["alias"])


class MahjongResult(pa.DataFrameModel):
    """Lake table `mahjong_results`: one row per player per valid game."""

    event_id: TEXT = pa.Field()
    organisation: TEXT = pa.Field()
    event_date: DATE = pa.Field()
    game_no: INT = pa.Field(ge=1)
    place: INT = pa.Field(isin=[1, 2, 3, 4])
    rank_given: BOOL = pa.Field()
    player_id: TEXT = pa.Field(str_length={"min_value": 1})
    player_name: TEXT = pa.Field()
    score: INT = pa.Field()
    yakuman: INT = pa.Field(ge=0)
    yakuman_names: TEXT = pa.Field()
    fingerprint: TEXT = pa.Field()
    source_file: TEXT = pa.Field()
    source_sha256: TEXT = pa.Field()
    location: TEXT = pa.Field()
    run_id: TEXT = pa.Field()

    class Config:
        strict = True
        coerce = True
        unique = ["event_id", "player_id"]

    @pa.dataframe_check(error="a game has exactly four players")
    def four_players(cls, df: pd.DataFrame) -> Series[bool]:
        # rows are unique per (event_id, player_id), so four rows are four different players
        return df.groupby("event_id")["player_id"].transform("size") == 4

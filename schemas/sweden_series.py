"""Contracts of the Swedish team-series rule tables (seed 002, tables B2-B4, E2-E7, G1, G3;
RULES.md §3 "Series"): ``data/rules/sweden/series_*.csv``, one pandera model each.

series_margins.csv: per VP scale (total VP of a match), the lowest own VP after penalties that wins
and the lowest that draws ("Definition av vunnen respektive oavgjord match"); below ``drawn_own_vp``
the match is lost. series_match_points.csv: the team's points per match won / drawn by table,
number of divisions, division and boards per match.
"""
from __future__ import annotations

import pandas as pd
import pandera.pandas as pa
from pandera.typing import Series

NUMBER = r"^\d+(/\d+)?$"  # 64, 5/2
TABLES = ["B2", "B3", "B4", "E2", "E3", "E4", "E5", "E6", "E7", "G1", "G3"]


class SeriesMargins(pa.DataFrameModel):
    rule_version: Series[str] = pa.Field(str_length={"min_value": 1})
    scale_total: Series[int] = pa.Field(ge=2, le=30)
    won_own_vp: Series[int] = pa.Field(ge=1)
    drawn_own_vp: Series[int] = pa.Field(ge=0)
    won_example: Series[str] = pa.Field(str_matches=r"^\d+-\d+$")
    drawn_examples: Series[str] = pa.Field(str_matches=r"^\d+-\d+( \d+-\d+)*$")

    class Config:
        strict = True
        coerce = True
        unique = ["rule_version", "scale_total"]

    @pa.dataframe_check(error="a win needs more VP than a draw, and a draw at most the won VP - 1")
    def _order(cls, df: pd.DataFrame) -> Series[bool]:
        return (df["drawn_own_vp"] < df["won_own_vp"]) & (df["won_own_vp"] <= df["scale_total"])

    @pa.dataframe_check(error="the won example must be the won_own_vp and the rest of the scale")
    def _won_example(cls, df: pd.DataFrame) -> Series[bool]:
        return df["won_example"] == df["won_own_vp"].astype(str) + "-" + (df["scale_total"] - df["won_own_vp"]).astype(str)

    @pa.dataframe_check(error="the lowest drawn example must leave the other team drawn_own_vp")
    def _drawn_example(cls, df: pd.DataFrame) -> Series[bool]:
        first = df["drawn_examples"].str.split(" ").str[0].str.split("-")
        return first.str[0].astype(int).eq(df["won_own_vp"] - 1) & \
            df["drawn_examples"].str.split(" ").str[-1].str.split("-").str[0].astype(int).mul(2).ge(df["scale_total"])


class SeriesMatchPoints(pa.DataFrameModel):
    rule_version: Series[str] = pa.Field(str_length={"min_value": 1})
    table: Series[str] = pa.Field(isin=TABLES)
    divisions: Series[int] = pa.Field(ge=1, le=6)
    division: Series[int] = pa.Field(ge=1, le=6)
    denomination: Series[str] = pa.Field(isin=["bp", "sp", "gp"])
    min_boards: Series[int] = pa.Field(ge=1)
    max_boards: Series[str] = pa.Field(str_matches=r"^(\d+)?$")
    won_points: Series[str] = pa.Field(str_matches=NUMBER)
    drawn_points: Series[str] = pa.Field(str_matches=NUMBER)
    bonus: Series[str] = pa.Field(isin=["none", "B2", "B2 100%", "B2 50%", "B2 25%", "G1", "G3 20%"])
    note: Series[str] = pa.Field()

    class Config:
        strict = True
        coerce = True
        unique = ["rule_version", "table", "divisions", "division", "min_boards"]

    @pa.dataframe_check(error="division must be at most the number of divisions")
    def _division(cls, df: pd.DataFrame) -> Series[bool]:
        return df["division"] <= df["divisions"]


class SeriesBonus(pa.DataFrameModel):
    """series_bonus.csv: the bonus code of series_match_points.csv -> the printed bonus table and the
    share of it (B3: division 1 100 %, 2 50 %, 3 25 %)."""

    rule_version: Series[str] = pa.Field(str_length={"min_value": 1})
    bonus: Series[str] = pa.Field(isin=["B2", "B2 100%", "B2 50%", "B2 25%"])
    table: Series[str] = pa.Field(isin=["B2"])
    percent: Series[int] = pa.Field(ge=1, le=100)

    class Config:
        strict = True
        coerce = True
        unique = ["rule_version", "bonus"]


class SeriesParameters(pa.DataFrameModel):
    rule_version: Series[str] = pa.Field(str_length={"min_value": 1})
    name: Series[str] = pa.Field(isin=["bonus_min_share_of_halves", "g1_min_20_board_matches", "g1_min_24_board_halves", "double_series_factor",
                                       "bonus_beyond_printed_per_team", "bonus_beyond_printed_per_place",
                                       "swiss_extra_teams"])
    value: Series[str] = pa.Field(str_matches=NUMBER)
    source: Series[str] = pa.Field()

    class Config:
        strict = True
        coerce = True
        unique = ["rule_version", "name"]


class SeriesPlaceBonus(pa.DataFrameModel):
    """series_place_bonus.csv: G1's per-player bonus, G3's 20 % for the division I winner, E7's
    conversion of division III's first two places to gold."""

    rule_version: Series[str] = pa.Field(str_length={"min_value": 1})
    table: Series[str] = pa.Field(isin=["G1", "G3", "E7"])
    division: Series[int] = pa.Field(ge=1, le=6)
    place: Series[int] = pa.Field(ge=1, le=16)
    kind: Series[str] = pa.Field(isin=["points", "percent_of_played", "to_gold"])
    value: Series[str] = pa.Field(str_matches=NUMBER)
    denomination: Series[str] = pa.Field(isin=["bp", "sp", "gp"])
    source: Series[str] = pa.Field()

    class Config:
        strict = True
        coerce = True
        unique = ["rule_version", "table", "division", "place"]


class SeriesRanking(pa.DataFrameModel):
    """series_ranking.csv: the national ranking kind (ranking.csv) a series' match points count as
    (seed section 7); a table not listed (the bronze B tables) gives no ranking points. Only match
    points count: "Bonus i Allsvenskan, SM- eller DM-finaler ger ej rankingpoäng", and E7's points
    converted to gold count as the sp played ("Rankingpoäng baseras dock på det inspelade antalet
    silverpoäng")."""

    rule_version: Series[str] = pa.Field(str_length={"min_value": 1})
    table: Series[str] = pa.Field(isin=TABLES)
    kind: Series[str] = pa.Field(str_length={"min_value": 1})
    source: Series[str] = pa.Field()

    class Config:
        strict = True
        coerce = True
        unique = ["rule_version", "table"]


class SeriesInterrupted(pa.DataFrameModel):
    """series_interrupted.csv: the tables whose interrupted matches (boards_played < boards, not given
    up) earn points: at least ``min_share_played`` of the boards played gives the match's points ×
    ``factor``. The seed states it for table E3 only ("I avbrutna matcher får sp delas ut efter halv
    skala om minst halva matchen är spelad"); in a table not listed an interrupted match gives no
    points (section 5: "Inga mp delas ut om en silver- eller guldtävling avsiktligt avbryts innan alla
    brickor spelats"). A given-up match is not interrupted: its winner gets its mp (section 5)."""

    rule_version: Series[str] = pa.Field(str_length={"min_value": 1})
    table: Series[str] = pa.Field(isin=TABLES)
    min_share_played: Series[str] = pa.Field(str_matches=NUMBER)
    factor: Series[str] = pa.Field(str_matches=NUMBER)
    source: Series[str] = pa.Field()

    class Config:
        strict = True
        coerce = True
        unique = ["rule_version", "table"]


class SeriesLevels(pa.DataFrameModel):
    """series_levels.csv: the level of each series table, as the seed's headings give it (B2-B4
    "Brons, Lagserie", E2-E7 "Silver, Lagserie", G1 and G3 under "Guldpoäng"): the club fee's level."""

    rule_version: Series[str] = pa.Field(str_length={"min_value": 1})
    table: Series[str] = pa.Field(isin=TABLES)
    level: Series[str] = pa.Field(isin=["brons", "silver", "guld"])
    source: Series[str] = pa.Field()

    class Config:
        strict = True
        coerce = True
        unique = ["rule_version", "table"]


class TeamSessionWeights(pa.DataFrameModel):
    """team_session_weights.csv: how many sessions (speltillfällen) a team-series match counts as
    for the club fee (seed section 3, "Vid lagtävling räknas ett speltillfälle som"), by level and
    the match's boards; ``per``: ``match`` (bronze and silver: each match) or ``competition`` (gold:
    "En guldtävling är ett speltillfälle", each player once per series)."""

    rule_version: Series[str] = pa.Field(str_length={"min_value": 1})
    level: Series[str] = pa.Field(isin=["brons", "silver", "guld"])
    boards_from: Series[int] = pa.Field(ge=0)
    boards_to: Series[str] = pa.Field(str_matches=r"^(\d+)?$")
    sessions: Series[str] = pa.Field(str_matches=NUMBER)
    per: Series[str] = pa.Field(isin=["match", "competition"])
    note: Series[str] = pa.Field()

    class Config:
        strict = True
        coerce = True
        unique = ["rule_version", "level", "boards_from"]


RULE_TABLES = {"series_place_bonus": SeriesPlaceBonus, "series_margins": SeriesMargins, "series_match_points": SeriesMatchPoints,
               "series_bonus": SeriesBonus, "series_parameters": SeriesParameters, "series_ranking": SeriesRanking,
               "series_interrupted": SeriesInterrupted, "series_levels": SeriesLevels,
               "team_session_weights": TeamSessionWeights}


from schemas.common import DATE as _DATE, INT as _INT, POINTS as _POINTS, TEXT as _TEXT  # noqa: E402


class SeSeriesMatch(pa.DataFrameModel):
    """Lake table se_series_matches: one row per match file version posted (a walkover too)."""

    match_id: _TEXT = pa.Field()
    organisation: _TEXT = pa.Field()
    series: _TEXT = pa.Field()
    series_id: _TEXT = pa.Field()
    event_date: _DATE = pa.Field()
    round: _INT = pa.Field(ge=0)
    table: _TEXT = pa.Field(isin=TABLES)
    division: _INT = pa.Field(ge=1)
    boards: _INT = pa.Field(ge=1)
    home: _TEXT = pa.Field()
    away: _TEXT = pa.Field()
    home_vp: _POINTS = pa.Field()
    away_vp: _POINTS = pa.Field()
    result: _TEXT = pa.Field(isin=["won", "drawn", "lost", "walkover"])
    away_result: _TEXT = pa.Field(isin=["won", "drawn", "lost", "walkover"])
    home_points: _POINTS = pa.Field()
    away_points: _POINTS = pa.Field()
    denomination: _TEXT = pa.Field(isin=["bp", "sp", "gp"])
    # the club fee's players (seed section 3): members who played at least one half, 0 in a walkover
    # (rows written before 2026-12-07 have none: null)
    home_players: _INT = pa.Field(ge=0)
    away_players: _INT = pa.Field(ge=0)
    source_file: _TEXT = pa.Field()
    source_sha256: _TEXT = pa.Field()
    run_id: _TEXT = pa.Field()

    class Config:
        strict = True
        coerce = True
        unique = ["match_id"]


class SeSeriesFinal(pa.DataFrameModel):
    """Lake table se_series_finals: one row per team per final standings file version posted: its
    final place and the final-place awards its players got (bonus by place, G1/G3/E7), summed."""

    series: _TEXT = pa.Field()
    organisation: _TEXT = pa.Field()
    series_id: _TEXT = pa.Field()
    event_date: _DATE = pa.Field()
    table: _TEXT = pa.Field(isin=TABLES)
    division: _INT = pa.Field(ge=1)
    place: _INT = pa.Field(ge=1)
    team: _TEXT = pa.Field()
    bonus_bp: _POINTS = pa.Field()
    bonus_sp: _POINTS = pa.Field()
    bonus_gp: _POINTS = pa.Field()
    # the team's members who played at least one half of the series' matches (walkovers not played):
    # a gold series' club fee, one session per player (rows written before 2026-12-07: null)
    players: _INT = pa.Field(ge=0)
    source_file: _TEXT = pa.Field()
    source_sha256: _TEXT = pa.Field()
    run_id: _TEXT = pa.Field()

    class Config:
        strict = True
        coerce = True
        unique = ["series", "team", "run_id"]


class SeSeriesRanking(pa.DataFrameModel):
    """Lake table se_series_ranking: one row per player per final standings file version posted
    whose series' match points earn ranking points: the exact points played and the ranking points."""

    series: _TEXT = pa.Field()
    organisation: _TEXT = pa.Field()
    series_id: _TEXT = pa.Field()
    event_date: _DATE = pa.Field()
    club: _TEXT = pa.Field()
    table: _TEXT = pa.Field(isin=TABLES)
    member: _TEXT = pa.Field()
    team: _TEXT = pa.Field()
    place: _INT = pa.Field(ge=1)
    sp: _POINTS = pa.Field()
    gp: _POINTS = pa.Field()
    rp: _POINTS = pa.Field(ge=0)
    rp_basis: _TEXT = pa.Field()
    source_file: _TEXT = pa.Field()
    source_sha256: _TEXT = pa.Field()
    run_id: _TEXT = pa.Field()

    class Config:
        strict = True
        coerce = True
        unique = ["series", "member", "run_id"]

"""Contracts of the Swedish masterpoint system (seed 002, RULES.md §3).

Rule tables (``data/rules/sweden/*.csv``, one model each; every table of the seed is a file),
the club and member registers, and the lake table ``se_results``. Exact numbers in rule files
are written as integers, decimals ("1.15") or fractions ("2/3"); the loader turns them into
``fractions.Fraction`` after these models have checked the text.
"""
from __future__ import annotations

import pandas as pd
import pandera.pandas as pa
from pandera.typing import Series

from schemas.common import DATE, INT, POINTS, TEXT

LEVELS = ["brons", "silver", "guld", "förhöjt guld"]
FORMS = ["par", "lagbarometer", "individuell"]
FEE_FORMS = FORMS + ["lag"]
DENOMINATIONS = ["bp", "sp", "gp"]
NUMBER = r"^\d+(\.\d+)?(/\d+)?$"  # 4, 1.15, 2/3
OPTIONAL_NUMBER = r"^(\d+(\.\d+)?(/\d+)?)?$"


class _Strict:
    strict = True
    coerce = True


class RuleVersions(pa.DataFrameModel):
    rule_version: Series[str] = pa.Field(str_length={"min_value": 1}, unique=True)
    effective_from: Series[str] = pa.Field(str_matches=r"^\d{4}-\d{2}-\d{2}$")
    title: Series[str] = pa.Field()
    source: Series[str] = pa.Field()

    class Config(_Strict):
        pass


class PrintedScale(pa.DataFrameModel):
    """A printed table of the seed, one row per (size, place): A1, A2, B1, C, D, E1, F and the B2
    bonus. ``denomination`` is bp for the bronze tables; in D, E1 and F the printed silver values
    are sp and the red numbers (bronze) that follow them are bp."""

    rule_version: Series[str] = pa.Field()
    size: Series[int] = pa.Field(ge=2, le=200)
    place: Series[int] = pa.Field(ge=1, le=40)
    denomination: Series[str] = pa.Field(isin=["bp", "sp"])
    points: Series[int] = pa.Field(ge=1, le=400)

    class Config(_Strict):
        unique = ["rule_version", "size", "place"]

    @pa.dataframe_check(error="places of a row must be 1, 2, 3 ... without gaps")
    def _places_consecutive(cls, df: pd.DataFrame) -> Series[bool]:
        rank = df.groupby(["rule_version", "size"])["place"].rank(method="first")
        return rank == df["place"]

    @pa.dataframe_check(error="in a silver table the bronze (red) numbers follow all the silver ones")
    def _red_after_silver(cls, df: pd.DataFrame) -> Series[bool]:
        bronze_seen = df.sort_values("place").assign(b=lambda d: d["denomination"].eq("bp"))
        seen = bronze_seen.groupby(["rule_version", "size"])["b"].cummax()
        return ~(seen & bronze_seen["denomination"].eq("sp")).reindex(df.index)


class BronzeScale(PrintedScale):
    @pa.check("denomination", error="a bronze table holds bronze points only")
    def _bronze(cls, s: pd.Series) -> Series[bool]:
        return s == "bp"


class Scales(pa.DataFrameModel):
    """scales.csv: what each table's principle is (RULES.md §3): winner per entrant, the 2/3 chain up
    to a size, the printed range, the minimum, the share of the field that scores."""

    rule_version: Series[str] = pa.Field()
    scale: Series[str] = pa.Field(isin=["A", "B1", "C", "D", "E1", "F"])
    form: Series[str] = pa.Field(isin=FORMS)
    level: Series[str] = pa.Field(isin=["brons", "silver"])
    denomination: Series[str] = pa.Field(isin=["bp", "sp"])
    winner_per_entrant: Series[str] = pa.Field(str_matches=NUMBER)
    chain_ratio: Series[str] = pa.Field(str_matches=NUMBER)
    principle_up_to: Series[int] = pa.Field(ge=1)
    printed_from: Series[int] = pa.Field(ge=1)
    printed_to: Series[int] = pa.Field(ge=1)
    minimum: Series[int] = pa.Field(ge=0)
    places_divisor: Series[int] = pa.Field(ge=1)
    silver_divisor: Series[str] = pa.Field(str_matches=OPTIONAL_NUMBER)
    silver_max: Series[str] = pa.Field(str_matches=OPTIONAL_NUMBER)
    winner_cap: Series[str] = pa.Field(str_matches=OPTIONAL_NUMBER)
    above_printed: Series[str] = pa.Field(isin=["A2", "A2x1.5"])

    class Config(_Strict):
        unique = ["rule_version", "scale"]


class GroupCoefficients(pa.DataFrameModel):
    rule_version: Series[str] = pa.Field()
    groups: Series[int] = pa.Field(ge=2, le=5)
    group: Series[str] = pa.Field(str_matches=r"^[A-E]$")
    coefficient: Series[str] = pa.Field(str_matches=NUMBER)

    class Config(_Strict):
        unique = ["rule_version", "groups", "group"]

    @pa.dataframe_check(error="a split into n groups has exactly n group letters")
    def _complete(cls, df: pd.DataFrame) -> Series[bool]:
        return df.groupby(["rule_version", "groups"])["group"].transform("size") == df["groups"]


class BoardCoefficients(pa.DataFrameModel):
    rule_version: Series[str] = pa.Field()
    boards_from: Series[int] = pa.Field(ge=0)
    boards_to: Series[int] = pa.Field(ge=0)
    coefficient: Series[str] = pa.Field(str_matches=NUMBER)

    class Config(_Strict):
        unique = ["rule_version", "boards_from"]

    @pa.dataframe_check(error="board ranges must not be empty")
    def _range(cls, df: pd.DataFrame) -> Series[bool]:
        return df["boards_to"] >= df["boards_from"]


class DivisionCoefficients(pa.DataFrameModel):
    rule_version: Series[str] = pa.Field()
    form: Series[str] = pa.Field(isin=FORMS)
    division: Series[int] = pa.Field(ge=1)
    coefficient: Series[str] = pa.Field(str_matches=NUMBER)

    class Config(_Strict):
        unique = ["rule_version", "form", "division"]


class Requirements(pa.DataFrameModel):
    rule_version: Series[str] = pa.Field()
    level: Series[str] = pa.Field(isin=LEVELS)
    form: Series[str] = pa.Field(isin=FORMS)
    min_entrants: Series[int] = pa.Field(ge=1)
    min_boards: Series[int] = pa.Field(ge=1)
    max_boards: Series[str] = pa.Field(str_matches=r"^\d*$")
    scale_factor: Series[str] = pa.Field(str_matches=NUMBER)
    min_boards_per_match: Series[str] = pa.Field(str_matches=r"^\d*$")
    # "ja": the row of championship qualifications (SM-kval and DM finals, seed p. 4), used instead of
    # the ordinary rows of its level and form for an event with 'dm:'
    championship: Series[str] = pa.Field(isin=["", "ja"])
    note: Series[str] = pa.Field()

    class Config(_Strict):
        unique = ["rule_version", "level", "form", "min_boards", "championship"]


class DmBonus(pa.DataFrameModel):
    """dm_bonus.csv: "Bonus för DM-finaler" (seed p. 15), points per player by final place, for
    the team DM final / SM-kval (lag), the pairs DM / SM-kval (par) and the other DM finals (övrig)."""
    rule_version: Series[str] = pa.Field()
    kind: Series[str] = pa.Field(isin=["lag", "par", "övrig"])
    place: Series[int] = pa.Field(ge=1, le=16)
    points: Series[int] = pa.Field(ge=1)
    denomination: Series[str] = pa.Field(isin=DENOMINATIONS)
    source: Series[str] = pa.Field()

    class Config(_Strict):
        unique = ["rule_version", "kind", "place"]


class RallyBonus(pa.DataFrameModel):
    """rally_bonus.csv: "Rallybonus vid totalt antal startande par" (seed p. 5): the gold bonus of a
    district rally's first places, by the row of the largest pairs_from not above the rally's pairs."""
    rule_version: Series[str] = pa.Field()
    pairs_from: Series[str] = pa.Field(str_matches=NUMBER)  # 96, 101, 200.5 ("över 200": pairs come in halves)
    place: Series[int] = pa.Field(ge=1, le=16)
    points: Series[int] = pa.Field(ge=1)
    denomination: Series[str] = pa.Field(isin=["gp"])
    source: Series[str] = pa.Field()

    class Config(_Strict):
        unique = ["rule_version", "pairs_from", "place"]


class SmFinals(pa.DataFrameModel):
    """sm_finals.csv: the fixed places of the SM finals (seed p. 16): H2, the SM pairs finals of
    seniors, women and juniors (h2) and mixed (h2-mixed), the places after them by Tabell D; G2, the
    SM team final of veterans and juniors (g2), per player by the number of teams; H1, the open SM
    pairs final's rounds 2A (h1-2a) and 2B (h1-2b, from 100 pairs) with fixed gold places."""
    rule_version: Series[str] = pa.Field()
    final: Series[str] = pa.Field(isin=["h2", "h2-mixed", "g2", "h1-2a", "h1-2b"])
    entrants_from: Series[int] = pa.Field(ge=1)
    place: Series[int] = pa.Field(ge=1, le=16)
    points: Series[int] = pa.Field(ge=1)
    denomination: Series[str] = pa.Field(isin=DENOMINATIONS)
    source: Series[str] = pa.Field()

    class Config(_Strict):
        unique = ["rule_version", "final", "entrants_from", "place"]


class GoldPlaces(pa.DataFrameModel):
    rule_version: Series[str] = pa.Field()
    scale: Series[str] = pa.Field(isin=["guld", "förhöjt guld"])
    # pairs and individuals: 2 places at 28-31, 3 from 32 (p. 4); teams: 3 places from 16 teams (p. 4, 16)
    form: Series[str] = pa.Field(isin=FORMS)
    entrants_from: Series[int] = pa.Field(ge=1)
    min_boards: Series[int] = pa.Field(ge=1)
    gold_places: Series[int] = pa.Field(ge=1, le=16)
    fixed_points: Series[str] = pa.Field(str_matches=r"^(\d+( \d+)*)?$")

    class Config(_Strict):
        unique = ["rule_version", "scale", "form", "entrants_from"]


class SmallEvents(pa.DataFrameModel):
    rule_version: Series[str] = pa.Field()
    kind: Series[str] = pa.Field(isin=["orutinerade", "handikapp", "nybörjarträff"])
    boards_from: Series[int] = pa.Field(ge=0)
    boards_to: Series[str] = pa.Field(str_matches=r"^\d*$")
    factor: Series[str] = pa.Field(str_matches=NUMBER)
    minimum: Series[int] = pa.Field(ge=0)
    row_up_to_99: Series[str] = pa.Field(str_matches=r"^\d*$")
    row_from_100: Series[str] = pa.Field(str_matches=r"^\d*$")

    class Config(_Strict):
        unique = ["rule_version", "kind"]


class Fees(pa.DataFrameModel):
    rule_version: Series[str] = pa.Field()
    level: Series[str] = pa.Field(isin=LEVELS)
    form: Series[str] = pa.Field(isin=FEE_FORMS)
    sek_per_player_session: Series[str] = pa.Field(str_matches=r"^\d+\.\d{2}$")
    note: Series[str] = pa.Field()

    class Config(_Strict):
        unique = ["rule_version", "level", "form"]


class SessionWeights(pa.DataFrameModel):
    rule_version: Series[str] = pa.Field()
    level: Series[str] = pa.Field(isin=LEVELS)
    boards_from: Series[int] = pa.Field(ge=0)
    boards_to: Series[str] = pa.Field(str_matches=r"^\d*$")
    sessions: Series[str] = pa.Field(str_matches=NUMBER)
    note: Series[str] = pa.Field()

    class Config(_Strict):
        unique = ["rule_version", "level", "boards_from"]


class SanctionLimits(pa.DataFrameModel):
    rule_version: Series[str] = pa.Field()
    members_from: Series[int] = pa.Field(ge=0)
    members_to: Series[str] = pa.Field(str_matches=r"^\d*$")
    club_weight: Series[int] = pa.Field(ge=1, le=3)
    silver_events_per_season: Series[int] = pa.Field(ge=0)
    weekday_silver_max: Series[str] = pa.Field(str_matches=r"^\d*$")

    class Config(_Strict):
        unique = ["rule_version", "members_from"]


class Openness(pa.DataFrameModel):
    rule_version: Series[str] = pa.Field()
    form: Series[str] = pa.Field(isin=FORMS)
    min_clubs: Series[int] = pa.Field(ge=1)
    top_clubs: Series[int] = pa.Field(ge=1)
    max_share: Series[str] = pa.Field(str_matches=NUMBER)

    class Config(_Strict):
        unique = ["rule_version", "form", "top_clubs"]


class Simultaneous(pa.DataFrameModel):
    rule_version: Series[str] = pa.Field()
    level: Series[str] = pa.Field(isin=LEVELS)
    min_pairs_per_heat: Series[int] = pa.Field(ge=1)
    common_list_fraction: Series[str] = pa.Field(str_matches=OPTIONAL_NUMBER)
    common_list_places: Series[str] = pa.Field(str_matches=r"^\d*$")

    class Config(_Strict):
        unique = ["rule_version", "level"]


class Parameters(pa.DataFrameModel):
    rule_version: Series[str] = pa.Field()
    name: Series[str] = pa.Field()
    value: Series[str] = pa.Field(str_matches=NUMBER)
    note: Series[str] = pa.Field(nullable=True)

    class Config(_Strict):
        unique = ["rule_version", "name"]


class MasterClasses(pa.DataFrameModel):
    """master_classes.csv: the five master classes and every star level inside them (seed page 2).

    ``track`` ``klass`` is the ladder a player climbs (the highest level whose requirements are met
    is the player's level; ``rank`` orders it); ``klöverstjärna`` are the bronze-only Klöver stars,
    counted on bp held alone, a track of their own (RULES.md §3; docs/sweden.md says why).
    A level is met when mp held (after any exchange) >= ``min_mp``, bp held >= ``min_bp``, and,
    where ``min_sp``/``min_gp`` are given, sp >= min_sp or gp >= min_gp, with bp counted as sp
    (``bp_to_sp``) and sp as gp (``sp_to_gp``) at the rates in parameters.csv, exchanged points
    counting at their new value."""

    rule_version: Series[str] = pa.Field()
    track: Series[str] = pa.Field(isin=["klass", "klöverstjärna"])
    rank: Series[int] = pa.Field(ge=1, le=99)
    level: Series[str] = pa.Field(str_matches=r"^[a-zöäå]+(-\d)?$")
    class_name: Series[str] = pa.Field(isin=["Klöver", "Ruter", "Hjärter", "Spader", "Stormästare"])
    stars: Series[int] = pa.Field(ge=0, le=5)
    min_mp: Series[str] = pa.Field(str_matches=OPTIONAL_NUMBER)
    min_bp: Series[str] = pa.Field(str_matches=r"^\d*$")
    min_sp: Series[str] = pa.Field(str_matches=r"^\d*$")
    min_gp: Series[str] = pa.Field(str_matches=r"^\d*$")
    bp_to_sp: Series[str] = pa.Field(isin=["ja", "nej"])
    sp_to_gp: Series[str] = pa.Field(isin=["ja", "nej"])
    title: Series[str] = pa.Field(str_length={"min_value": 1})
    seed: Series[str] = pa.Field()

    class Config(_Strict):
        unique = ["rule_version", "level"]

    @pa.dataframe_check(error="one level per rank within a track")
    def _rank_unique(cls, df: pd.DataFrame) -> Series[bool]:
        return ~df.duplicated(["rule_version", "track", "rank"], keep=False)

    @pa.dataframe_check(error="a level needs a minimum: min_mp or min_bp")
    def _has_minimum(cls, df: pd.DataFrame) -> Series[bool]:
        return (df["min_mp"] != "") | (df["min_bp"] != "")


class Ranking(pa.DataFrameModel):
    """ranking.csv: ranking points per sp / gp by the event's kind (seed section 7). An event's kind is
    its level (silver, guld, förhöjt guld), or what its event file's ``ranking:`` says, or ``simultan``
    for a simultaneous heat or common list. A kind/denomination not listed gives no ranking points
    (bronze never does). Applied to the unrounded award; each result's points rounded up."""

    rule_version: Series[str] = pa.Field()
    kind: Series[str] = pa.Field(str_matches=r"^[a-zåäö0-9 -]{1,40}$")
    denomination: Series[str] = pa.Field(isin=["sp", "gp"])
    rp_per_point: Series[str] = pa.Field(str_matches=NUMBER)
    note: Series[str] = pa.Field()

    class Config(_Strict):
        unique = ["rule_version", "kind", "denomination"]


class ConversionFees(pa.DataFrameModel):
    """conversion_fees.csv: the fee per converted foreign event by its level (seed section 8); the
    per-registration maximum and the minimum are in parameters.csv."""

    rule_version: Series[str] = pa.Field()
    level: Series[str] = pa.Field(isin=LEVELS)
    sek_per_event: Series[str] = pa.Field(str_matches=NUMBER)
    note: Series[str] = pa.Field()

    class Config(_Strict):
        unique = ["rule_version", "level"]


class Clubs(pa.DataFrameModel):
    """The club register (data): the openness and sanction rules need each club's members."""

    club: Series[str] = pa.Field(str_matches=r"^\d+$", unique=True)
    slug: Series[str] = pa.Field(str_matches=r"^[a-z0-9][a-z0-9-]*$", unique=True)
    name: Series[str] = pa.Field(str_length={"min_value": 1})
    district: Series[str] = pa.Field(str_length={"min_value": 1})
    members: Series[int] = pa.Field(ge=0)

    class Config(_Strict):
        pass


class Members(pa.DataFrameModel):
    """The member register (an inbox file the office replaces): member number, name, home club."""

    member: Series[str] = pa.Field(str_matches=r"^\d+$", unique=True)
    name: Series[str] = pa.Field(str_length={"min_value": 1})
    club: Series[str] = pa.Field(str_matches=r"^\d+$")

    class Config(_Strict):
        pass


class SeResult(pa.DataFrameModel):
    """Lake table se_results: one row per entrant per competition of an event."""

    event_id: TEXT = pa.Field()
    organisation: TEXT = pa.Field()
    event_date: DATE = pa.Field()
    club: TEXT = pa.Field()
    event_name: TEXT = pa.Field()
    level: TEXT = pa.Field(isin=LEVELS)
    form: TEXT = pa.Field(isin=FORMS)
    competition: TEXT = pa.Field()
    field_size: INT = pa.Field(ge=1)
    boards: INT = pa.Field(ge=0)
    place: INT = pa.Field(ge=1)
    place_label: TEXT = pa.Field()
    entrant: TEXT = pa.Field()
    members: TEXT = pa.Field()
    bp: POINTS = pa.Field()
    sp: POINTS = pa.Field()
    gp: POINTS = pa.Field()
    rule_version: TEXT = pa.Field()
    source_file: TEXT = pa.Field()
    source_sha256: TEXT = pa.Field()
    location: TEXT = pa.Field()
    run_id: TEXT = pa.Field()
    # national ranking points of each player of the entrant (seed section 7: unrounded award ×
    # ranking.csv, rounded up) and how; null in files written before the ranking existed
    rp: POINTS = pa.Field(nullable=True)
    rp_basis: TEXT = pa.Field(nullable=True)
    # a barometer player paid for part of the matches (× played / matches) ranks on that part:
    # "member=rp" per such player, space separated; empty or null: every player has rp
    rp_players: TEXT = pa.Field(nullable=True)
    # the organiser's bridge week the event is part of (event file 'bridgevecka:'; empty: none;
    # null in files written before the bridge-week limit was checked)
    bridge_week: TEXT = pa.Field(nullable=True)
    # a final of a qualification (event file 'final:'): its letter ('' for any other event), and
    # the place in the whole field of its list's first place: 1 for the A-final, 'första_plac' for
    # a lower final with carry-over; null for a final without carry-over (a new competition), for
    # other events, and in files written before finals were shown on their pages
    final: TEXT = pa.Field(nullable=True)
    overall_first_place: INT = pa.Field(nullable=True, ge=1)

    class Config:
        strict = True
        coerce = True
        unique = ["event_id", "competition", "entrant"]


PRINTED_TABLES = {
    "A1": ("table_a1", BronzeScale),
    "A2": ("table_a2", BronzeScale),
    "B1": ("table_b1", BronzeScale),
    "B2bonus": ("table_b2_bonus", BronzeScale),
    "C": ("table_c", BronzeScale),
    "D": ("table_d", PrintedScale),
    "E1": ("table_e1", PrintedScale),
    "F": ("table_f", PrintedScale),
}

RULE_TABLES = {
    "rule_versions": RuleVersions,
    "scales": Scales,
    "group_coefficients": GroupCoefficients,
    "board_coefficients": BoardCoefficients,
    "division_coefficients": DivisionCoefficients,
    "requirements": Requirements,
    "dm_bonus": DmBonus,
    "sm_finals": SmFinals,
    "rally_bonus": RallyBonus,
    "gold_places": GoldPlaces,
    "small_events": SmallEvents,
    "fees": Fees,
    "session_weights": SessionWeights,
    "sanction_limits": SanctionLimits,
    "openness": Openness,
    "simultaneous": Simultaneous,
    "parameters": Parameters,
    "master_classes": MasterClasses,
    "ranking": Ranking,
    "conversion_fees": ConversionFees,
}

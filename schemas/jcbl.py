"""Contracts of the JCBL masterpoint system (seed 000, RULES.md §1).

Rule tables (``data/rules/jcbl/*.csv``, one model each), input frames (event settings, strats,
standings, holdings, opening balances) and the output frames (award components, award lines,
quarantine). Exact numbers are ``decimal.Decimal`` objects in ``object`` columns; every model is
strict, coerces, and is unique on its grain.
"""
from __future__ import annotations

from decimal import Decimal

import pandas as pd
import pandera.pandas as pa
from pandera.typing import Series

DENOMINATIONS = ["RP", "BP"]
UNITS = ["pair", "team"]
FORMULAS = ["placing", "session_score", "winning_vp"]
PLACE_FACTORS = ["geometric", "ratio", "reciprocal"]
CLASS_SCALES = ["weekly", "ccg"]


def _is_decimal(s: pd.Series, nullable: bool = False) -> pd.Series:
    ok = s.map(lambda v: isinstance(v, Decimal) and v.is_finite())
    if nullable:
        ok = ok | s.isna()
    return ok.astype(bool)


def _positive_decimal(s: pd.Series) -> pd.Series:
    return _is_decimal(s) & s.map(lambda v: isinstance(v, Decimal) and v > 0).astype(bool)


# --------------------------------------------------------------------------- rule tables


class RuleVersions(pa.DataFrameModel):
    """versions.csv: one rule version per row, with its effective date and the field cut."""

    rule_version: Series[str] = pa.Field(str_length={"min_value": 1})
    effective_from: Series[pd.Timestamp] = pa.Field()
    cut_fraction: Series[object] = pa.Field()
    source: Series[str] = pa.Field()

    class Config:
        strict = True
        coerce = True
        unique = ["rule_version"]

    @pa.check("cut_fraction", error="cut_fraction must be a Decimal in (0, 1]")
    def _cut(cls, s: pd.Series) -> pd.Series:
        return _positive_decimal(s) & s.map(lambda v: isinstance(v, Decimal) and v <= 1).astype(bool)

    @pa.dataframe_check(error="two rule versions take effect on the same date")
    def _dates_unique(cls, df: pd.DataFrame) -> pd.Series:
        return ~df["effective_from"].duplicated(keep=False)


class PlaceRatios(pa.DataFrameModel):
    """place_ratios.csv: ratio(place) for sectional pair RP and CCG placing."""

    rule_version: Series[str] = pa.Field()
    place: Series[int] = pa.Field(ge=1)
    ratio: Series[object] = pa.Field()

    class Config:
        strict = True
        coerce = True
        unique = ["rule_version", "place"]

    @pa.check("ratio", error="ratio must be a positive Decimal")
    def _ratio(cls, s: pd.Series) -> pd.Series:
        return _positive_decimal(s)

    @pa.dataframe_check(error="places must run 1..n without gaps and ratios must not increase")
    def _contiguous(cls, df: pd.DataFrame) -> bool:
        for _, g in df.groupby("rule_version"):
            g = g.sort_values("place")
            if list(g["place"]) != list(range(1, len(g) + 1)):
                return False
            r = list(g["ratio"])
            if any(b > a for a, b in zip(r, r[1:])):
                return False
        return True


class _Ratio(pa.DataFrameModel):
    numerator: Series[object] = pa.Field()
    denominator: Series[object] = pa.Field()

    @pa.check("numerator", "denominator", error="numerator and denominator must be positive Decimals")
    def _positive(cls, s: pd.Series) -> pd.Series:
        return _positive_decimal(s)


class ClassRatios(_Ratio):
    """class_ratios.csv: the class factor of weekly games (k/2) and CCG ((k+4)/16)."""

    rule_version: Series[str] = pa.Field()
    scale: Series[str] = pa.Field(isin=CLASS_SCALES)
    class_level: Series[int] = pa.Field(ge=1)
    description: Series[str] = pa.Field()

    class Config:
        strict = True
        coerce = True
        unique = ["rule_version", "scale", "class_level"]


class Coefficients(_Ratio):
    """coefficients.csv: named coefficients of event kinds (Even Chance, Women's, weekday, SRR&Pairs)."""

    rule_version: Series[str] = pa.Field()
    coefficient: Series[str] = pa.Field(str_length={"min_value": 1})
    label: Series[str] = pa.Field()
    description: Series[str] = pa.Field()

    class Config:
        strict = True
        coerce = True
        unique = ["rule_version", "coefficient"]


class Flights(_Ratio):
    """flights.csv: coefficient of flight X in an event of N flights ("フライトA(2) = 18/16")."""

    rule_version: Series[str] = pa.Field()
    flights: Series[int] = pa.Field(ge=2)
    flight: Series[str] = pa.Field(str_matches=r"^[A-Z]$")
    description: Series[str] = pa.Field()

    class Config:
        strict = True
        coerce = True
        unique = ["rule_version", "flights", "flight"]

    @pa.dataframe_check(error="an N-flight scheme must list exactly the flights A.. (N letters)")
    def _complete(cls, df: pd.DataFrame) -> bool:
        for (_, n), g in df.groupby(["rule_version", "flights"]):
            if sorted(g["flight"]) != [chr(ord("A") + i) for i in range(n)]:
                return False
        return True


class Strats(_Ratio):
    """strats.csv: coefficient of a strat limited to players under ``strat_limit`` MP (△1000 = 13/16)."""

    rule_version: Series[str] = pa.Field()
    strat_limit: Series[int] = pa.Field(gt=0)
    label: Series[str] = pa.Field()
    description: Series[str] = pa.Field()

    class Config:
        strict = True
        coerce = True
        unique = ["rule_version", "strat_limit"]


class EventKinds(pa.DataFrameModel):
    """event_kinds.csv: one row per kind of event; its fixed coefficients and class scale."""

    rule_version: Series[str] = pa.Field()
    kind: Series[str] = pa.Field(str_matches=r"^[a-z0-9_]+$")
    label: Series[str] = pa.Field(str_length={"min_value": 1})
    class_scale: Series[str] = pa.Field(nullable=True, isin=CLASS_SCALES)
    coefficients: Series[str] = pa.Field(str_matches=r"^([a-z0-9_]+(;[a-z0-9_]+)*)?$")
    weekday_applies: Series[bool] = pa.Field()
    description: Series[str] = pa.Field()

    class Config:
        strict = True
        coerce = True
        unique = ["rule_version", "kind"]


class AwardComponents(pa.DataFrameModel):
    """award_components.csv: what an event kind pays and how (one formula per component).

    placing:       base × (field + field_offset) × place_factor(place) × coefficients
                   [capped at cap_base × decay^(place-1)]; places beyond the field cut get nothing.
    session_score: base × boards per session × (score% − session_floor) × coefficients, paid when
                   score ≥ session_threshold, or > session_floor and in the top
                   lower_strat_top_fraction of the session ranking within a lower strat.
    winning_vp:    winning VP × base × boards per match × vp_reference / VP scale × coefficients.
    """

    rule_version: Series[str] = pa.Field()
    kind: Series[str] = pa.Field()
    component: Series[str] = pa.Field(str_matches=r"^[a-z0-9_]+$")
    label: Series[str] = pa.Field()
    unit: Series[str] = pa.Field(isin=UNITS)
    denomination: Series[str] = pa.Field(isin=DENOMINATIONS)
    formula: Series[str] = pa.Field(isin=FORMULAS)
    base: Series[object] = pa.Field()
    field_offset: Series[object] = pa.Field(nullable=True)
    place_factor: Series[str] = pa.Field(nullable=True, isin=PLACE_FACTORS)
    decay: Series[object] = pa.Field(nullable=True)
    cap_base: Series[object] = pa.Field(nullable=True)
    flight_coefficient: Series[bool] = pa.Field()
    strat_coefficient: Series[bool] = pa.Field()
    per_strat: Series[bool] = pa.Field()
    session_floor: Series[object] = pa.Field(nullable=True)
    session_threshold: Series[object] = pa.Field(nullable=True)
    lower_strat_top_fraction: Series[object] = pa.Field(nullable=True)
    vp_reference: Series[object] = pa.Field(nullable=True)

    class Config:
        strict = True
        coerce = True
        unique = ["rule_version", "kind", "component"]

    @pa.check("base", error="base must be a positive Decimal")
    def _base(cls, s: pd.Series) -> pd.Series:
        return _positive_decimal(s)

    @pa.check("field_offset", "decay", "cap_base", "session_floor", "session_threshold",
              "lower_strat_top_fraction", "vp_reference", error="must be a Decimal or empty")
    def _optional_decimals(cls, s: pd.Series) -> pd.Series:
        return _is_decimal(s, nullable=True)

    @pa.dataframe_check(error="placing needs field_offset and place_factor (geometric also decay)")
    def _placing_complete(cls, df: pd.DataFrame) -> pd.Series:
        p = df["formula"] == "placing"
        ok = df["field_offset"].notna() & df["place_factor"].notna()
        ok &= (df["place_factor"] != "geometric") | df["decay"].notna()
        ok &= df["cap_base"].isna() | df["decay"].notna()
        return ~p | ok

    @pa.dataframe_check(error="session_score needs session_floor, session_threshold, lower_strat_top_fraction")
    def _session_complete(cls, df: pd.DataFrame) -> pd.Series:
        s = df["formula"] == "session_score"
        ok = df["session_floor"].notna() & df["session_threshold"].notna()
        ok &= df["lower_strat_top_fraction"].notna() & (df["unit"] == "pair")
        return ~s | ok

    @pa.dataframe_check(error="winning_vp needs vp_reference and unit team")
    def _vp_complete(cls, df: pd.DataFrame) -> pd.Series:
        v = df["formula"] == "winning_vp"
        return ~v | (df["vp_reference"].notna() & (df["unit"] == "team"))

    @pa.dataframe_check(error="per_strat placing only for pairs")
    def _per_strat(cls, df: pd.DataFrame) -> pd.Series:
        return ~df["per_strat"] | ((df["formula"] == "placing") & (df["unit"] == "pair"))


# --------------------------------------------------------------------------- input frames


class EventFrame(pa.DataFrameModel):
    """One row per event: its settings (parse_event → frames["event"])."""

    organisation: Series[str] = pa.Field(str_length={"min_value": 1})
    event_id: Series[str] = pa.Field(str_length={"min_value": 1})
    event_date: Series[pd.Timestamp] = pa.Field()
    name: Series[str] = pa.Field()
    kind: Series[str] = pa.Field(str_length={"min_value": 1})
    class_level: Series[pd.Int64Dtype] = pa.Field(nullable=True, ge=1)
    weekday: Series[bool] = pa.Field()
    sessions: Series[pd.Int64Dtype] = pa.Field(nullable=True, ge=1, le=2)
    boards_per_session: Series[pd.Int64Dtype] = pa.Field(nullable=True, ge=1)
    boards_per_match: Series[pd.Int64Dtype] = pa.Field(nullable=True, ge=1)
    vp_scale: Series[object] = pa.Field(nullable=True)
    team_flights: Series[pd.Int64Dtype] = pa.Field(nullable=True, ge=1)
    pair_flights: Series[pd.Int64Dtype] = pa.Field(nullable=True, ge=1)
    source_file: Series[str] = pa.Field()

    class Config:
        strict = True
        coerce = True
        unique = ["event_id"]

    @pa.check("vp_scale", error="vp_scale must be a positive Decimal")
    def _vp(cls, s: pd.Series) -> pd.Series:
        return s.isna() | _positive_decimal(s)


class StratFrame(pa.DataFrameModel):
    """Strats of an event (parse_event → frames["strats"]): position 1 is the open strat."""

    event_id: Series[str] = pa.Field()
    strat: Series[str] = pa.Field(str_length={"min_value": 1})
    position: Series[int] = pa.Field(ge=1)
    strat_limit: Series[pd.Int64Dtype] = pa.Field(nullable=True, gt=0)

    class Config:
        strict = True
        coerce = True
        unique = ["event_id", "strat"]

    @pa.dataframe_check(error="strat 1 is open (no limit); lower strats have limits decreasing with position")
    def _order(cls, df: pd.DataFrame) -> bool:
        for _, g in df.groupby("event_id"):
            g = g.sort_values("position")
            if list(g["position"]) != list(range(1, len(g) + 1)):
                return False
            if pd.notna(g["strat_limit"].iloc[0]) or g["strat_limit"].iloc[1:].isna().any():
                return False
            lim = list(g["strat_limit"].iloc[1:])
            if any(b >= a for a, b in zip(lim, lim[1:])):
                return False
        return True


class StandingsFrame(pa.DataFrameModel):
    """Final standings, one row per entrant (pair or team) of an event.

    ``rank`` is the place in the entrant's field (unit + flight); equal ranks are a tie.
    ``players`` is the player ids separated by spaces (2 for a pair, 2-6 for a team).
    ``winning_vp`` may be empty when ``match_vps`` (VPs of each match, space separated) is given.
    """

    event_id: Series[str] = pa.Field()
    unit: Series[str] = pa.Field(isin=UNITS)
    flight: Series[str] = pa.Field(str_matches=r"^[A-Z]?$")
    entrant: Series[str] = pa.Field(str_length={"min_value": 1})
    rank: Series[int] = pa.Field(ge=1)
    players: Series[str] = pa.Field(str_matches=r"^\S+( \S+){1,5}$")
    session_1_pct: Series[object] = pa.Field(nullable=True)
    session_2_pct: Series[object] = pa.Field(nullable=True)
    winning_vp: Series[object] = pa.Field(nullable=True)
    match_vps: Series[str] = pa.Field()
    source_file: Series[str] = pa.Field()
    location: Series[str] = pa.Field()

    class Config:
        strict = True
        coerce = True
        unique = ["event_id", "unit", "entrant"]

    @pa.check("session_1_pct", "session_2_pct", error="a session score is a Decimal percentage 0-100")
    def _pct(cls, s: pd.Series) -> pd.Series:
        return s.isna() | (_is_decimal(s) & s.map(lambda v: isinstance(v, Decimal) and 0 <= v <= 100).astype(bool))

    @pa.check("winning_vp", error="winning VP is a non-negative Decimal")
    def _wvp(cls, s: pd.Series) -> pd.Series:
        return s.isna() | (_is_decimal(s) & s.map(lambda v: isinstance(v, Decimal) and v >= 0).astype(bool))

    @pa.dataframe_check(error="a pair has exactly 2 players")
    def _pair_size(cls, df: pd.DataFrame) -> pd.Series:
        return (df["unit"] != "pair") | (df["players"].str.split(" ").str.len() == 2)

    @pa.dataframe_check(error="a player appears twice in one entrant")
    def _distinct_players(cls, df: pd.DataFrame) -> pd.Series:
        return df["players"].map(lambda p: len(set(p.split())) == len(p.split())).astype(bool)


class TravellerVpScales(pa.DataFrameModel):
    """traveller_vp_scales.csv: the bridge VP scale (data/rules/bridge, ``scale_id``) that an event
    file's ``vp_scale`` (20, 30 ...) means when team VPs are computed from travellers."""

    vp_scale: Series[str] = pa.Field(str_matches=r"^\d+(\.\d+)?$")
    scale_id: Series[str] = pa.Field(str_matches=r"^[A-Za-z0-9_]+$")
    note: Series[str] = pa.Field()

    class Config:
        strict = True
        unique = ["vp_scale"]


class HoldingsFrame(pa.DataFrameModel):
    """Masterpoints each player holds as of the event date (for strat eligibility)."""

    player_id: Series[str] = pa.Field(str_length={"min_value": 1})
    masterpoints: Series[object] = pa.Field()

    class Config:
        strict = True
        coerce = True
        unique = ["player_id"]

    @pa.check("masterpoints", error="masterpoints must be a non-negative Decimal")
    def _mp(cls, s: pd.Series) -> pd.Series:
        return _is_decimal(s) & s.map(lambda v: isinstance(v, Decimal) and v >= 0).astype(bool)


class OpeningBalanceFrame(pa.DataFrameModel):
    """Points a player brought when joining the ledger (opening-balance file)."""

    organisation: Series[str] = pa.Field()
    player_id: Series[str] = pa.Field(str_length={"min_value": 1})
    as_of: Series[pd.Timestamp] = pa.Field()
    rp: Series[object] = pa.Field()
    bp: Series[object] = pa.Field()
    note: Series[str] = pa.Field()
    source_file: Series[str] = pa.Field()
    location: Series[str] = pa.Field()

    class Config:
        strict = True
        coerce = True
        unique = ["organisation", "player_id"]

    @pa.check("rp", "bp", error="an opening balance is a non-negative Decimal with 2 decimals")
    def _pts(cls, s: pd.Series) -> pd.Series:
        return _is_decimal(s) & s.map(lambda v: isinstance(v, Decimal) and v >= 0 and v == v.quantize(Decimal("0.01"))).astype(bool)


class MemberFrame(pa.DataFrameModel):
    """The member register (members.csv): one row per member, with the name pages show
    (`shown_as`: the name, or "name (id)" where two members share it; pipelines/core/register.py).
    Also the warehouse table ``jcbl_members``."""

    organisation: Series[str] = pa.Field()
    member_id: Series[str] = pa.Field(str_length={"min_value": 1, "max_value": 40})
    name: Series[str] = pa.Field(str_length={"min_value": 1, "max_value": 200})
    shown_as: Series[str] = pa.Field(str_length={"min_value": 1})
    source_file: Series[str] = pa.Field()
    location: Series[str] = pa.Field()

    class Config:
        strict = True
        coerce = True
        unique = ["organisation", "member_id"]


# --------------------------------------------------------------------------- outputs


class Quarantine(pa.DataFrameModel):
    """A rejected input record: file, where in it, what was expected and what was found."""

    source_file: Series[str] = pa.Field()
    location: Series[str] = pa.Field()
    reason: Series[str] = pa.Field(str_length={"min_value": 1})

    class Config:
        strict = True
        coerce = True


def _quantized(s: pd.Series) -> pd.Series:
    return _is_decimal(s) & s.map(lambda v: isinstance(v, Decimal) and v.as_tuple().exponent == -2).astype(bool)


class AwardComponentLines(pa.DataFrameModel):
    """One line per player per component (placing, session 1, session 2, winning VP, ...)."""

    organisation: Series[str] = pa.Field()
    event_id: Series[str] = pa.Field()
    event_date: Series[pd.Timestamp] = pa.Field()
    player_id: Series[str] = pa.Field(str_length={"min_value": 1})
    unit: Series[str] = pa.Field(isin=UNITS)
    entrant: Series[str] = pa.Field()
    component: Series[str] = pa.Field()
    denomination: Series[str] = pa.Field(isin=DENOMINATIONS)
    points: Series[object] = pa.Field()
    rule_version: Series[str] = pa.Field()
    basis: Series[str] = pa.Field(str_length={"min_value": 1})
    source_file: Series[str] = pa.Field()
    location: Series[str] = pa.Field()

    class Config:
        strict = True
        coerce = True
        unique = ["event_id", "player_id", "unit", "component"]

    @pa.check("points", error="points must be a Decimal quantized to 0.01")
    def _points(cls, s: pd.Series) -> pd.Series:
        return _quantized(s)


class AwardLines(pa.DataFrameModel):
    """compute_awards output: one line per player per denomination per event."""

    organisation: Series[str] = pa.Field()
    event_id: Series[str] = pa.Field()
    event_date: Series[pd.Timestamp] = pa.Field()
    player_id: Series[str] = pa.Field(str_length={"min_value": 1})
    denomination: Series[str] = pa.Field(isin=DENOMINATIONS)
    points: Series[object] = pa.Field()
    rule_version: Series[str] = pa.Field()
    basis: Series[str] = pa.Field(str_length={"min_value": 1})
    source_file: Series[str] = pa.Field()
    location: Series[str] = pa.Field()

    class Config:
        strict = True
        coerce = True
        unique = ["event_id", "player_id", "denomination"]

    @pa.check("points", error="points must be a positive Decimal quantized to 0.01")
    def _points(cls, s: pd.Series) -> pd.Series:
        return _quantized(s) & s.map(lambda v: isinstance(v, Decimal) and v > 0).astype(bool)


# --------------------------------------------------------------------------- lake table (nightly run)

# Arrow dtypes of the lake (schemas.common): exact decimals, no binary floats.
from schemas.common import DATE as _DATE, INT as _INT, POINTS as _POINTS, TEXT as _TEXT  # noqa: E402
import pyarrow as _pa_arrow  # noqa: E402

PERCENT = pd.ArrowDtype(_pa_arrow.decimal128(9, 4))  # session score %, at most 4 decimals
VP = pd.ArrowDtype(_pa_arrow.decimal128(12, 4))  # victory points, at most 4 decimals
LAKE_DECIMALS = 4  # decimals a percentage or VP may have to be stored exactly


class JcblStanding(pa.DataFrameModel):
    """Lake table ``jcbl_standings``: one row per entrant (pair or team) of a posted event, with
    the RP and BP each of its players received for that entry. Partitioned by month of
    ``event_date``; a row belongs to the version (``source_sha256``) of the standings file it
    came from, and ``settings_file``/``settings_sha256`` name the event file that was used."""

    event_id: _TEXT = pa.Field()
    organisation: _TEXT = pa.Field()
    event_date: _DATE = pa.Field()
    event_name: _TEXT = pa.Field()
    kind: _TEXT = pa.Field()
    rule_version: _TEXT = pa.Field()
    unit: _TEXT = pa.Field(isin=UNITS)
    flight: _TEXT = pa.Field()
    field_size: _INT = pa.Field(ge=1)
    entrant: _TEXT = pa.Field(str_length={"min_value": 1})
    rank: _INT = pa.Field(ge=1)
    players: _TEXT = pa.Field(str_length={"min_value": 1})
    session_1_pct: PERCENT = pa.Field(nullable=True)
    session_2_pct: PERCENT = pa.Field(nullable=True)
    winning_vp: VP = pa.Field(nullable=True)
    match_vps: _TEXT = pa.Field()
    rp: _POINTS = pa.Field(ge=0)
    bp: _POINTS = pa.Field(ge=0)
    source_file: _TEXT = pa.Field()
    source_sha256: _TEXT = pa.Field(str_length={"min_value": 64, "max_value": 64})
    settings_file: _TEXT = pa.Field()
    settings_sha256: _TEXT = pa.Field(str_length={"min_value": 64, "max_value": 64})
    location: _TEXT = pa.Field()
    run_id: _TEXT = pa.Field()

    class Config:
        strict = True
        coerce = True
        unique = ["event_id", "unit", "entrant"]

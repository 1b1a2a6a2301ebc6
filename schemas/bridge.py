"""pandera contracts of the bridge scoring stage (traveller lines in, standings out) and of its
rule tables. strict + coerce everywhere; each model is unique on its grain and checks the
cross-column invariants that scoring relies on."""

from __future__ import annotations

from decimal import Decimal

import numpy as np
import pandas as pd
import pandera.pandas as pa
from pandera.engines import pandas_engine as pe
from pandera.typing import Series

STRAINS = ["C", "D", "H", "S", "N", ""]
SEATS = ["N", "E", "S", "W", ""]
VULS = ["None", "NS", "EW", "All"]


class TravellerLines(pa.DataFrameModel):
    """One result of one board at one table, as parsed (``pipelines.bridge.parse_*``)."""

    event_id: Series[str]
    session: Series[int] = pa.Field(ge=1)
    section: Series[str]
    board: Series[int] = pa.Field(ge=1)
    round: Series[pd.Int64Dtype] = pa.Field(nullable=True, ge=0)
    ns_pair: Series[str] = pa.Field(str_length={"min_value": 1})
    ew_pair: Series[str] = pa.Field(str_length={"min_value": 1})
    contract: Series[str]
    level: Series[int] = pa.Field(in_range={"min_value": 0, "max_value": 7})
    strain: Series[str] = pa.Field(isin=STRAINS)
    doubled: Series[int] = pa.Field(isin=[0, 1, 2])
    declarer: Series[str] = pa.Field(isin=SEATS)
    tricks: Series[pd.Int64Dtype] = pa.Field(nullable=True, in_range={"min_value": 0, "max_value": 13})
    vulnerable: Series[str] = pa.Field(isin=VULS)
    dealer: Series[str] = pa.Field(isin=["N", "E", "S", "W"])
    score_ns: Series[pd.Int64Dtype] = pa.Field(nullable=True)
    stated_score_ns: Series[pd.Int64Dtype] = pa.Field(nullable=True)
    law77_score_ns: Series[pd.Int64Dtype] = pa.Field(nullable=True)
    deal: Series[str] = pa.Field(nullable=True)  # "N:<north> <east> <south> <west>" or ""
    par: Series[str] = pa.Field(nullable=True)   # "NS 620" or ""
    adjusted: Series[str]
    adj_ns_pct: Series[pd.Int64Dtype] = pa.Field(nullable=True, in_range={"min_value": 0, "max_value": 100})
    adj_ew_pct: Series[pd.Int64Dtype] = pa.Field(nullable=True, in_range={"min_value": 0, "max_value": 100})
    source_file: Series[str]
    location: Series[str]

    class Config:
        strict = True
        coerce = True
        unique = ["event_id", "session", "section", "round", "board", "ns_pair"]

    @pa.dataframe_check
    def played_lines_are_complete(cls, df: pd.DataFrame) -> Series[bool]:
        played = df["level"] > 0
        return ~played | ((df["declarer"] != "") & df["tricks"].notna() & (df["strain"] != ""))

    @pa.dataframe_check
    def adjusted_xor_scored(cls, df: pd.DataFrame) -> Series[bool]:
        adj = df["adj_ns_pct"].notna()
        return (adj & df["score_ns"].isna() & (df["adjusted"] != "")) | (~adj & df["score_ns"].notna() & (df["adjusted"] == ""))

    @pa.dataframe_check
    def score_is_law_77(cls, df: pd.DataFrame) -> Series[bool]:
        from pipelines.bridge.scoring import score_ns

        played = df["score_ns"].notna()
        expected = score_ns(df["level"].where(played, 0), df["strain"].where(played, ""), df["doubled"].where(played, 0),
                            df["declarer"].where(played, ""), df["vulnerable"], df["tricks"].fillna(0).astype("int64"))
        law77 = df["score_ns"].fillna(0).astype("int64") == expected
        # a scorer's stated score, scored as stated: then the Law 77 score is kept beside it
        as_stated = (df["law77_score_ns"].notna() & (df["law77_score_ns"].fillna(0).astype("int64") == expected)
                     & (df["score_ns"] == df["stated_score_ns"]).fillna(False))
        return ~played | law77 | as_stated


class BoardResults(pa.DataFrameModel):
    """A traveller line with its matchpoints or IMPs."""

    event_id: Series[str]
    session: Series[int]
    section: Series[str]
    board: Series[int] = pa.Field(ge=1)
    round: Series[pd.Int64Dtype] = pa.Field(nullable=True)
    ns_pair: Series[str]
    ew_pair: Series[str]
    contract: Series[str]
    declarer: Series[str] = pa.Field(isin=SEATS)
    tricks: Series[pd.Int64Dtype] = pa.Field(nullable=True)
    score_ns: Series[pd.Int64Dtype] = pa.Field(nullable=True)
    adjusted: Series[str]
    mp_ns: Series[pd.Float64Dtype] = pa.Field(nullable=True, ge=0)
    mp_ew: Series[pd.Float64Dtype] = pa.Field(nullable=True, ge=0)
    imp_ns: Series[pd.Float64Dtype] = pa.Field(nullable=True)
    mp_top: Series[pd.Float64Dtype] = pa.Field(nullable=True, ge=0)
    results_on_board: Series[pd.Int64Dtype] = pa.Field(nullable=True, ge=0)
    neuberg: Series[pd.BooleanDtype] = pa.Field(nullable=True)
    butler_datum: Series[pd.Int64Dtype] = pa.Field(nullable=True)
    mp_den: Series[pd.Int64Dtype] = pa.Field(nullable=True, gt=0)
    mp_top_x: Series[pd.Int64Dtype] = pa.Field(nullable=True, ge=0)
    mp_ns_x: Series[pd.Int64Dtype] = pa.Field(nullable=True, ge=0)
    mp_ew_x: Series[pd.Int64Dtype] = pa.Field(nullable=True, ge=0)
    imp_den: Series[pd.Int64Dtype] = pa.Field(nullable=True, gt=0)  # imp_ns = imp_ns_x / imp_den exactly
    imp_ns_x: Series[pd.Int64Dtype] = pa.Field(nullable=True)

    class Config:
        strict = True
        coerce = True
        unique = ["event_id", "session", "section", "round", "board", "ns_pair"]

    @pa.dataframe_check
    def ns_plus_ew_is_the_top(cls, df: pd.DataFrame) -> Series[bool]:
        """On a compared (not adjusted) line NS and EW matchpoints share the board's top."""
        compared = df["mp_ns"].notna() & (df["adjusted"] == "")
        total = (df["mp_ns"].fillna(0) + df["mp_ew"].fillna(0)).astype("float64")
        ok = np.isclose(total.to_numpy(), df["mp_top"].fillna(0).astype("float64").to_numpy(), rtol=0, atol=1e-9)
        return ~compared | pd.Series(ok, index=df.index)


class SessionStandings(pa.DataFrameModel):
    """One entrant's session result and rank."""

    event_id: Series[str]
    session: Series[int]
    section: Series[str]
    direction: Series[str] = pa.Field(isin=["NS", "EW", ""])
    entrant: Series[str]
    player_ids: Series[str]
    player_names: Series[str]
    score: Series[pe.Decimal(18, 2)]
    max_score: Series[pe.Decimal(18, 2)] = pa.Field(nullable=True)
    percentage: Series[pe.Decimal(5, 2)] = pa.Field(nullable=True)
    rank: Series[int] = pa.Field(ge=1)
    rank_label: Series[str] = pa.Field(str_matches=r"^\d+=?$")
    boards: Series[int] = pa.Field(ge=1)
    score_x: Series[int]
    max_x: Series[pd.Int64Dtype] = pa.Field(nullable=True)
    score_den: Series[int] = pa.Field(gt=0)
    scoring: Series[str] = pa.Field(isin=["MP", "XIMP", "BUTLER"])
    handicap: Series[pe.Decimal(5, 2)] = pa.Field(nullable=True)
    handicap_percentage: Series[pe.Decimal(5, 2)] = pa.Field(nullable=True)
    handicap_rank: Series[pd.Int64Dtype] = pa.Field(nullable=True, ge=1)
    handicap_rank_label: Series[str] = pa.Field(nullable=True)
    scorer_master_points: Series[str] = pa.Field(nullable=True)

    class Config:
        strict = True
        coerce = True
        unique = ["event_id", "session", "section", "direction", "entrant"]

    @pa.dataframe_check
    def percentage_within_0_100(cls, df: pd.DataFrame) -> Series[bool]:
        p = df["percentage"]
        return p.isna() | p.map(lambda v: v is None or Decimal(0) <= v <= Decimal(100))

    @pa.dataframe_check
    def label_matches_rank(cls, df: pd.DataFrame) -> Series[bool]:
        return df["rank_label"].str.rstrip("=") == df["rank"].astype(str)


class TeamMatches(pa.DataFrameModel):
    """One team's side of one match."""

    event_id: Series[str]
    session: Series[int]
    round: Series[pd.Int64Dtype] = pa.Field(nullable=True)
    team: Series[str]
    opponent: Series[str]
    boards: Series[int] = pa.Field(ge=1)
    imps_for: Series[int] = pa.Field(ge=0)
    imps_against: Series[int] = pa.Field(ge=0)
    imp_margin: Series[int]
    vp: Series[pe.Decimal(6, 2)]
    vp_scale: Series[str]

    class Config:
        strict = True
        coerce = True
        unique = ["event_id", "session", "round", "team"]

    @pa.dataframe_check
    def margin_is_for_minus_against(cls, df: pd.DataFrame) -> Series[bool]:
        return df["imp_margin"] == df["imps_for"] - df["imps_against"]

    @pa.dataframe_check
    def both_sides_agree(cls, df: pd.DataFrame) -> Series[bool]:
        other = df.merge(df, left_on=["event_id", "session", "round", "team", "opponent"],
                         right_on=["event_id", "session", "round", "opponent", "team"], how="left", suffixes=("", "_o"))
        return pd.Series((other["imps_for"].to_numpy() == other["imps_against_o"].to_numpy())
                         & (other["vp_scale"].to_numpy() == other["vp_scale_o"].to_numpy()), index=df.index)


# ---------------------------------------------------------------------------------------------
# Rule tables


class ImpTable(pa.DataFrameModel):
    diff_min: Series[int] = pa.Field(ge=0, unique=True)
    diff_max: Series[pd.Int64Dtype] = pa.Field(nullable=True)
    imps: Series[int] = pa.Field(in_range={"min_value": 0, "max_value": 24}, unique=True)

    class Config:
        strict = True
        coerce = True

    @pa.dataframe_check
    def bands_are_contiguous(cls, df: pd.DataFrame) -> Series[bool]:
        nxt = df["diff_min"].shift(-1)
        ok = nxt.isna() | (df["diff_max"].astype("Float64") + 10 == nxt)
        steps = df["imps"].diff().fillna(1) == 1
        return ok & steps & (df["diff_min"].iloc[0] == 0)


class BoardRotation(pa.DataFrameModel):
    board_mod16: Series[int] = pa.Field(in_range={"min_value": 1, "max_value": 16}, unique=True)
    dealer: Series[str] = pa.Field(isin=["N", "E", "S", "W"])
    vulnerable: Series[str] = pa.Field(isin=VULS)

    class Config:
        strict = True
        coerce = True

    @pa.dataframe_check
    def dealer_rotates(cls, df: pd.DataFrame) -> Series[bool]:
        expected = np.array(["N", "E", "S", "W"])[(df["board_mod16"].to_numpy() - 1) % 4]
        return pd.Series(df["dealer"].to_numpy() == expected, index=df.index)


class VpScales(pa.DataFrameModel):
    scale_id: Series[str] = pa.Field(unique=True)
    kind: Series[str] = pa.Field(isin=["continuous", "table"])
    max_vp: Series[int] = pa.Field(gt=0)
    decimals: Series[int] = pa.Field(in_range={"min_value": 0, "max_value": 4})
    tau_num: Series[str] = pa.Field(nullable=True)
    blitz_factor: Series[pd.Int64Dtype] = pa.Field(nullable=True, gt=0)
    note: Series[str]

    class Config:
        strict = True
        coerce = True


class VpScaleTables(pa.DataFrameModel):
    """vp_scale_tables.csv: a discrete VP scale (its scale_id in vp_scales.csv, kind "table"), one
    row per band of boards and of the IMP margin; an empty imp_max is the open top band. Read as
    text (pipelines/bridge/imps.py reads the numbers exactly)."""

    scale_id: Series[str] = pa.Field(str_length={"min_value": 1})
    boards_min: Series[str] = pa.Field(str_matches=r"^\d+$")
    boards_max: Series[str] = pa.Field(str_matches=r"^\d+$")
    imp_min: Series[str] = pa.Field(str_matches=r"^\d+$")
    imp_max: Series[str] = pa.Field(str_matches=r"^(\d+)?$")
    vp_winner: Series[str] = pa.Field(str_matches=r"^\d+(\.\d+)?$")
    vp_loser: Series[str] = pa.Field(str_matches=r"^\d+(\.\d+)?$")

    class Config:
        strict = True
        unique = ["scale_id", "boards_min", "imp_min"]

    @pa.dataframe_check(error="a band's boards_max and imp_max are not below its boards_min and imp_min")
    def bands_are_ordered(cls, df: pd.DataFrame) -> Series[bool]:
        number = {c: pd.to_numeric(df[c], errors="coerce").astype("Float64") for c in ("boards_min", "boards_max", "imp_min", "imp_max")}
        top_ok = number["imp_max"].isna() | (number["imp_max"] >= number["imp_min"])
        return ((number["boards_max"] >= number["boards_min"]) & top_ok).fillna(False).astype(bool)


# ---------------------------------------------------------------------------------------------
# Lake tables of the nightly run (pipelines/bridge/system.py). Arrow dtypes throughout: exact
# decimals (decimal128), date32 dates. Every row carries the organisation, the event, the event
# date (the month partition), the source file version and the run that wrote it. The JCBL
# masterpoint system reads bridge_session_standings and bridge_team_matches from the lake.

import pyarrow as _pa_arrow  # noqa: E402

from schemas.common import BOOL, DATE, INT, TEXT  # noqa: E402

MATCHPOINTS = pd.ArrowDtype(_pa_arrow.decimal128(12, 2))  # per board, half-up to 2 places for display
TOTAL = pd.ArrowDtype(_pa_arrow.decimal128(18, 2))
PERCENT = pd.ArrowDtype(_pa_arrow.decimal128(5, 2))
VICTORY_POINTS = pd.ArrowDtype(_pa_arrow.decimal128(6, 2))


class BridgeSession(pa.DataFrameModel):
    """Lake table ``bridge_sessions``: one row per session of an event (what a notice board heads)."""

    organisation: TEXT = pa.Field()
    event_id: TEXT = pa.Field()
    session: INT = pa.Field(ge=1)
    session_event_id: TEXT = pa.Field()  # the id of its row in the core ``events`` table
    event_date: DATE = pa.Field()
    event_name: TEXT = pa.Field()
    movement: TEXT = pa.Field(isin=["mitchell", "howell", "teams"])
    scoring: TEXT = pa.Field(isin=["MP", "XIMP", "BUTLER", "TEAMS"])
    winner_type: INT = pa.Field(isin=[1, 2])
    sections: INT = pa.Field(ge=1)
    entrants: INT = pa.Field(ge=0)
    boards: INT = pa.Field(ge=1)
    traveller_lines: INT = pa.Field(ge=1)
    adjusted_lines: INT = pa.Field(ge=0)
    mp_scale: TEXT = pa.Field(isin=["2/1/0", "1/0.5/0"])
    vp_scale: TEXT = pa.Field()
    source_file: TEXT = pa.Field()
    source_sha256: TEXT = pa.Field(str_length={"min_value": 64, "max_value": 64})
    run_id: TEXT = pa.Field()

    class Config:
        strict = True
        coerce = True
        unique = ["event_id", "session"]


class BridgeBoardResult(pa.DataFrameModel):
    """Lake table ``bridge_board_results``: one traveller line with its Law 77 score and its
    matchpoints (pairs) or IMPs (IMP pairs, teams). ``mp_ns``/``mp_ew``/``imp_ns`` are rounded
    half-up to 2 places for display; the exact values are ``mp_ns_x / mp_den`` (2/1/0 scale) and
    ``imp_ns_x / imp_den``."""

    organisation: TEXT = pa.Field()
    event_id: TEXT = pa.Field()
    event_date: DATE = pa.Field()
    session: INT = pa.Field(ge=1)
    section: TEXT = pa.Field()
    board: INT = pa.Field(ge=1)
    round: INT = pa.Field(nullable=True)
    ns_pair: TEXT = pa.Field(str_length={"min_value": 1})
    ew_pair: TEXT = pa.Field(str_length={"min_value": 1})
    contract: TEXT = pa.Field()
    level: INT = pa.Field(in_range={"min_value": 0, "max_value": 7})
    strain: TEXT = pa.Field(isin=STRAINS)
    doubled: INT = pa.Field(isin=[0, 1, 2])
    declarer: TEXT = pa.Field(isin=SEATS)
    tricks: INT = pa.Field(nullable=True, in_range={"min_value": 0, "max_value": 13})
    vulnerable: TEXT = pa.Field(isin=VULS)
    dealer: TEXT = pa.Field(isin=["N", "E", "S", "W"])
    score_ns: INT = pa.Field(nullable=True)
    stated_score_ns: INT = pa.Field(nullable=True)
    law77_score_ns: INT = pa.Field(nullable=True)
    deal: TEXT = pa.Field(nullable=True)
    par: TEXT = pa.Field(nullable=True)
    adjusted: TEXT = pa.Field()
    adj_ns_pct: INT = pa.Field(nullable=True, in_range={"min_value": 0, "max_value": 100})
    adj_ew_pct: INT = pa.Field(nullable=True, in_range={"min_value": 0, "max_value": 100})
    scoring: TEXT = pa.Field(isin=["MP", "XIMP", "BUTLER", "TEAMS"])
    mp_ns: MATCHPOINTS = pa.Field(nullable=True)
    mp_ew: MATCHPOINTS = pa.Field(nullable=True)
    mp_top: MATCHPOINTS = pa.Field(nullable=True)
    imp_ns: MATCHPOINTS = pa.Field(nullable=True)
    results_on_board: INT = pa.Field(nullable=True, ge=0)
    neuberg: BOOL = pa.Field(nullable=True)
    butler_datum: INT = pa.Field(nullable=True)
    mp_den: INT = pa.Field(nullable=True, gt=0)
    mp_top_x: INT = pa.Field(nullable=True, ge=0)
    mp_ns_x: INT = pa.Field(nullable=True, ge=0)
    mp_ew_x: INT = pa.Field(nullable=True, ge=0)
    imp_den: INT = pa.Field(nullable=True, gt=0)
    imp_ns_x: INT = pa.Field(nullable=True)
    location: TEXT = pa.Field()
    source_file: TEXT = pa.Field()
    source_sha256: TEXT = pa.Field(str_length={"min_value": 64, "max_value": 64})
    run_id: TEXT = pa.Field()

    class Config:
        strict = True
        coerce = True
        unique = ["event_id", "session", "section", "round", "board", "ns_pair"]


class BridgeSessionStanding(pa.DataFrameModel):
    """Lake table ``bridge_session_standings``: one entrant's session total, percentage and rank
    (pairs events; ``score`` is matchpoints or IMPs, see ``scoring``)."""

    organisation: TEXT = pa.Field()
    event_id: TEXT = pa.Field()
    event_date: DATE = pa.Field()
    session: INT = pa.Field(ge=1)
    section: TEXT = pa.Field()
    direction: TEXT = pa.Field(isin=["NS", "EW", ""])
    entrant: TEXT = pa.Field(str_length={"min_value": 1})
    player_ids: TEXT = pa.Field()  # ";"-separated national ids
    player_names: TEXT = pa.Field()  # "; "-separated
    score: TOTAL = pa.Field()
    max_score: TOTAL = pa.Field(nullable=True)
    percentage: PERCENT = pa.Field(nullable=True, ge=0, le=100)
    rank: INT = pa.Field(ge=1)
    rank_label: TEXT = pa.Field(str_matches=r"^\d+=?$")
    ranked_entrants: INT = pa.Field(ge=1)  # entrants ranked in the same group (section, direction)
    boards: INT = pa.Field(ge=1)
    score_x: INT = pa.Field()
    max_x: INT = pa.Field(nullable=True)
    score_den: INT = pa.Field(gt=0)
    scoring: TEXT = pa.Field(isin=["MP", "XIMP", "BUTLER"])
    # handicap pairs (USEBIO HANDICAP): the stated handicap in percentage points, the percentage
    # with the event's share of it added, and the rank on that; null without a handicap
    handicap: PERCENT = pa.Field(nullable=True)
    handicap_percentage: PERCENT = pa.Field(nullable=True)
    handicap_rank: INT = pa.Field(nullable=True, ge=1)
    handicap_rank_label: TEXT = pa.Field(nullable=True)
    # what the scorer's file awarded, for the record ("40.00 c"); never used for our awards
    scorer_master_points: TEXT = pa.Field(nullable=True)
    source_file: TEXT = pa.Field()
    source_sha256: TEXT = pa.Field(str_length={"min_value": 64, "max_value": 64})
    run_id: TEXT = pa.Field()

    class Config:
        strict = True
        coerce = True
        unique = ["event_id", "session", "section", "direction", "entrant"]

    @pa.dataframe_check(error="rank_label must be the rank, with '=' on a shared place")
    def label_matches_rank(cls, df: pd.DataFrame) -> Series[bool]:
        return df["rank_label"].str.rstrip("=") == df["rank"].astype("string")


class BridgeTeamMatch(pa.DataFrameModel):
    """Lake table ``bridge_team_matches``: one team's side of one match (IMPs per board, summed;
    then VP on ``vp_scale``)."""

    organisation: TEXT = pa.Field()
    event_id: TEXT = pa.Field()
    event_date: DATE = pa.Field()
    session: INT = pa.Field(ge=1)
    round: INT = pa.Field(nullable=True)
    team: TEXT = pa.Field(str_length={"min_value": 1})
    team_name: TEXT = pa.Field()
    opponent: TEXT = pa.Field(str_length={"min_value": 1})
    opponent_name: TEXT = pa.Field()
    player_ids: TEXT = pa.Field()
    player_names: TEXT = pa.Field()
    boards: INT = pa.Field(ge=1)
    imps_for: INT = pa.Field(ge=0)
    imps_against: INT = pa.Field(ge=0)
    imp_margin: INT = pa.Field()
    vp: VICTORY_POINTS = pa.Field(ge=0)
    vp_scale: TEXT = pa.Field()
    source_file: TEXT = pa.Field()
    source_sha256: TEXT = pa.Field(str_length={"min_value": 64, "max_value": 64})
    run_id: TEXT = pa.Field()

    class Config:
        strict = True
        coerce = True
        unique = ["event_id", "session", "round", "team"]

    @pa.dataframe_check(error="imp_margin must be imps_for - imps_against")
    def margin_is_for_minus_against(cls, df: pd.DataFrame) -> Series[bool]:
        return df["imp_margin"] == df["imps_for"] - df["imps_against"]


class BridgeOptions(pa.DataFrameModel):
    """The ``[options]`` table of a bridge organisation's settings (data/organisations/*.toml)."""

    acbl_scale: Series[bool]
    vp_scale: Series[str] = pa.Field(str_length={"min_value": 1})
    butler_trim_min_results: Series[int] = pa.Field(ge=3)
    boards_per_match: Series[pd.Int64Dtype] = pa.Field(nullable=True, ge=1)
    # per_section: each section is its own comparison group; across_sections: a common top over all
    # sections of a session (the boards are compared across the field)
    section_scoring: Series[str] = pa.Field(isin=["per_section", "across_sections"])
    # fixed: AVE+/AVE- are 60 % / 40 %; white_book: AVE+ is 60 % or the pair's own session
    # percentage if better, AVE- 40 % or its own percentage if worse (EBU White Book)
    average_plus: Series[str] = pa.Field(isin=["fixed", "white_book"])
    # share of a pair's stated HANDICAP added to its percentage: half (NZ Scorer) or full
    handicap_share: Series[str] = pa.Field(isin=["half", "full"])
    # USEBIO MASTER_POINTS_AWARDED counts hundredths (100, USEBIO 1.2 writers), tenths (10) or points (1)
    master_points_scale: Series[int] = pa.Field(isin=[1, 10, 100])

    class Config:
        strict = True
        coerce = True


class BridgeEventSettings(pa.DataFrameModel):
    """One ``[[options.events]]`` table of a bridge organisation's settings: an event, by its name,
    scored otherwise than the club's options say."""

    name: Series[str] = pa.Field(str_length={"min_value": 1})
    section_scoring: Series[str] = pa.Field(isin=["per_section", "across_sections"])
    average_plus: Series[str] = pa.Field(isin=["fixed", "white_book"])
    # share of a pair's stated HANDICAP added to its percentage: half (NZ Scorer) or full
    handicap_share: Series[str] = pa.Field(isin=["half", "full"])
    # USEBIO MASTER_POINTS_AWARDED counts hundredths (100, USEBIO 1.2 writers), tenths (10) or points (1)
    master_points_scale: Series[int] = pa.Field(isin=[1, 10, 100])

    class Config:
        strict = True
        coerce = True
        unique = ["name"]

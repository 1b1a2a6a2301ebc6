"""Duplicate bridge as a rule system of the nightly run (see pipelines/core/system.py).

Bridge scoring awards no ranking points by itself: it turns travellers (PBN, USEBIO, CSV) into
board results, session standings and team matches in the lake, which the analysts' views
(`board_results`, `session_standings`, `team_matches`, `bridge_sessions`) show and a masterpoint
system (JCBL) reads to award points. Its award frame is always empty.

Event ids are `<organisation>:<YYYY-MM-DD>:<slug of the event name>` (or the CSV's own
`event_id`, prefixed). One event id stands for one file at a time: the same session sent again at
another path (for instance as USEBIO after the PBN) is quarantined, never scored twice; a file at
the same path is a correction and replaces it.
"""
from __future__ import annotations

import json
from datetime import date
from decimal import Decimal
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from pipelines.bridge.exact import round_half_up_ratio
from pipelines.bridge.parse_csv import parse_csv
from pipelines.bridge.parse_pbn import parse_pbn
from pipelines.bridge.parse_usebio import parse_usebio
from pipelines.bridge.rules import load_vp_scales
from pipelines.bridge.standings import compute_standings
from pipelines.core.config import nearest
from pipelines.core.rule_tables import checked
from pipelines.core.settings import SettingsError, cached_by_content
from pipelines.core.system import RunContext, SourceFile, SystemBatch
from pipelines.core.validation import describe_failures, failure_cases, validate_settings
from schemas.bridge import (
    BoardRotation,
    BridgeBoardResult,
    BridgeEventSettings,
    BridgeOptions,
    BridgeSession,
    BridgeSessionStanding,
    BridgeTeamMatch,
    ImpTable,
    TravellerLines,
    VpScales,
    VpScaleTables,
)
from schemas.common import arrow_schema, empty_frame
from schemas.ledger import AwardDraft, EventRecord, QuarantineDraft

PARSERS = {".pbn": parse_pbn, ".xml": parse_usebio, ".csv": parse_csv}
KINDS = {"MP": "bridge_pairs_session", "XIMP": "bridge_imp_pairs_session", "BUTLER": "bridge_imp_pairs_session",
         "TEAMS": "bridge_teams"}
DEFAULT_OPTIONS = {"acbl_scale": False, "vp_scale": "WBF20", "butler_trim_min_results": 5, "boards_per_match": None,
                   "section_scoring": "per_section", "average_plus": "fixed", "handicap_share": "half",
                   "master_points_scale": 100, "events": []}
# The settings an event may override, by its name ([[options.events]] in the club's settings file).
EVENT_SETTINGS = ("section_scoring", "average_plus", "handicap_share", "master_points_scale")
LINE_KEY = ["event_id", "session", "section", "round", "board", "ns_pair"]
# The plausible window of a session's date. Before 1987 duplicate bridge was scored under earlier
# Laws (the 1987 Laws raised the non-vulnerable doubled undertricks from the fourth on from 200
# to 300 each), which Law 77 as implemented in scoring.py does not reproduce; after the run date
# (ctx.as_of) a date is a typo.
EARLIEST_EVENT_DATE = date(1987, 1, 1)
QUARANTINE_COLUMNS = list(QuarantineDraft.to_schema().columns)


# -- settings --------------------------------------------------------------------------------------
def options_of(org: pd.Series) -> dict:
    """The organisation's `[options]`, with defaults, checked (a wrong setting stops the run)."""
    where = f"{org['settings_file']} [options]"
    raw = json.loads(org["options"] or "{}")
    unknown = sorted(set(raw) - set(DEFAULT_OPTIONS))
    if unknown:
        raise SettingsError(f"{where}: unknown bridge option(s) "
                            f"{', '.join(repr(u) + nearest(u, list(DEFAULT_OPTIONS)) for u in unknown)}; "
                            f"known: {', '.join(DEFAULT_OPTIONS)}")
    opts = {**DEFAULT_OPTIONS, **raw}
    if not isinstance(opts["acbl_scale"], bool):
        raise SettingsError(f"{where}: acbl_scale must be true or false, found {opts['acbl_scale']!r}")
    for key in ("butler_trim_min_results", "boards_per_match"):
        if opts[key] is not None and (isinstance(opts[key], bool) or not isinstance(opts[key], int)):
            raise SettingsError(f"{where}: {key} must be a whole number, found {opts[key]!r}")
    events = opts["events"]
    if not isinstance(events, list) or not all(isinstance(e, dict) for e in events):
        raise SettingsError(f"{where}: events must be a list of [[options.events]] tables, found {events!r}")
    for i, e in enumerate(events, start=1):
        extra = sorted(set(e) - {"name", *EVENT_SETTINGS})
        if extra or "name" not in e:
            raise SettingsError(f"{where}: [[options.events]] number {i} needs a name and may set only "
                                f"{', '.join(EVENT_SETTINGS)}; found {', '.join(sorted(e))}")
    per_event = pd.DataFrame([{**{k: opts[k] for k in EVENT_SETTINGS}, **e} for e in events],
                             columns=["name", *EVENT_SETTINGS])
    validate_settings(BridgeEventSettings, per_event, f"{where} [[options.events]]", lambda i: f"number {i + 1}")
    flat = {k: v for k, v in opts.items() if k != "events"}
    validate_settings(BridgeOptions, pd.DataFrame([flat]).astype({"boards_per_match": "Int64"}), where, None)
    scales = set(load_vp_scales()["scale_id"])
    if opts["vp_scale"] not in scales:
        raise SettingsError(f"{where}: vp_scale {opts['vp_scale']!r} is not in data/rules/bridge/vp_scales.csv "
                            f"(known: {', '.join(sorted(scales))})")
    return opts


# -- exact decimals ------------------------------------------------------------------------------------
def units_to_decimal(num: pd.Series, den, dtype: pd.ArrowDtype, places: int = 2) -> pd.Series:
    """`num / den` rounded half-up to `places` decimals, as an Arrow decimal column (NA stays NA).

    Integer arithmetic, then one exact decimal multiplication by 10^-places in Arrow."""
    num = pd.Series(num).reset_index(drop=True)
    den = pd.Series(den, index=num.index) if np.ndim(den) == 0 else pd.Series(den).reset_index(drop=True)
    missing = (num.isna() | den.isna()).to_numpy(dtype=bool)
    n = num.where(~missing, 0).astype("int64").to_numpy()
    d = den.where(~missing, 1).astype("int64").to_numpy()
    hundredths = np.asarray(round_half_up_ratio(n, d, places), dtype=np.int64)
    whole = pa.array(hundredths, type=pa.int64(), mask=missing).cast(pa.decimal128(19, 0))
    step = pa.scalar(Decimal(1).scaleb(-places), type=pa.decimal128(places + 1, places))
    exact = pc.multiply(whole, step).cast(dtype.pyarrow_dtype)
    return pd.Series(pd.arrays.ArrowExtensionArray(exact))


def decimals(values: pd.Series, dtype: pd.ArrowDtype) -> pd.Series:
    """A column of Python Decimals (or None) as an Arrow decimal column."""
    array = pa.array([None if v is None or v is pd.NA else v for v in values], type=dtype.pyarrow_dtype)
    return pd.Series(pd.arrays.ArrowExtensionArray(array))


def to_lake(frame: pd.DataFrame, model) -> pd.DataFrame:
    """Exactly the model's columns with its Arrow dtypes."""
    schema = arrow_schema(model)
    table = pa.Table.from_pandas(frame[list(schema.names)].reset_index(drop=True), schema=schema, preserve_index=False)
    return table.to_pandas(types_mapper=pd.ArrowDtype)


def _concat(frames: list[pd.DataFrame], columns: list[str]) -> pd.DataFrame:
    frames = [f for f in frames if len(f)]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame({c: pd.Series(dtype="object") for c in columns})


def _quarantine(frame: pd.DataFrame) -> pd.DataFrame:
    if frame.empty:
        return empty_frame(QuarantineDraft)
    return frame.assign(record=frame["record"] if "record" in frame else pd.NA)[QUARANTINE_COLUMNS].astype(
        {"source_file": "string", "location": "string", "reason": "string"})


# -- processing ----------------------------------------------------------------------------------------
def parse_sources(sources: list[SourceFile], organisation: str) -> tuple[dict[str, pd.DataFrame], pd.DataFrame]:
    """Parse every file (a loop over files; each parser is vectorised over its lines) and prefix
    the event ids with the organisation."""
    parts: dict[str, list[pd.DataFrame]] = {"events": [], "entrants": [], "traveller_lines": []}
    quarantine = []
    for source in sources:
        parser = PARSERS[Path(source.source_file).suffix.lower()]
        frames, q = parser(source.source_file, source.read())
        frames["entrants"] = frames["entrants"].assign(source_file=source.source_file)
        for name in parts:
            parts[name].append(frames[name])
        quarantine.append(q)
    from pipelines.bridge.parse_common import ENTRANT_COLUMNS, EVENT_COLUMNS, TRAVELLER_COLUMNS

    frames = {
        "events": _concat(parts["events"], EVENT_COLUMNS),
        "entrants": _concat(parts["entrants"], ENTRANT_COLUMNS + ["source_file"]),
        "traveller_lines": _concat(parts["traveller_lines"], TRAVELLER_COLUMNS),
    }
    for name, frame in frames.items():
        frames[name] = frame.assign(event_id=organisation + ":" + frame["event_id"].astype("string")) if len(frame) else frame
    return frames, _concat(quarantine, ["source_file", "location", "reason"])


def _date_window(events: pd.DataFrame, as_of: date) -> pd.DataFrame:
    """Events dated outside the plausible window: (event_id, source_file, reason)."""
    when = events["event_date"]
    dated = when.map(lambda d: isinstance(d, date)).astype(bool)  # the readers give a date or no event
    early = dated & when.map(lambda d: isinstance(d, date) and d < EARLIEST_EVENT_DATE).astype(bool)
    late = when.map(lambda d: isinstance(d, date) and d > as_of).astype(bool) | ~dated
    shown = when.astype("string")
    name = events["name"].astype("string").fillna("")
    reason = pd.Series("", index=events.index, dtype="object")
    reason = reason.mask(early, "the session '" + name + "' is dated " + shown + f", before {EARLIEST_EVENT_DATE:%Y}: results "
                         "that old were scored under earlier Laws, which this program does not apply; probably a typo in "
                         "the date: correct it and send the file again")
    reason = reason.mask(late, "the session '" + name + "' is dated " + shown + f", after the run date {as_of:%Y-%m-%d}: "
                         "probably a typo in the date; correct it and send the file again")
    bad = early | late
    return events.loc[bad, ["event_id", "source_file"]].assign(reason=reason[bad]).astype("string")


def _reject_events(frames: dict[str, pd.DataFrame], rejected: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The frames without the (event_id, source_file) pairs of ``rejected``."""
    if rejected.empty:
        return frames
    marked = rejected[["event_id", "source_file"]].astype("string").drop_duplicates().assign(_rejected=True)
    out = {}
    for name, frame in frames.items():
        keyed = frame[["event_id", "source_file"]].astype("string").merge(marked, on=["event_id", "source_file"], how="left")
        out[name] = frame[keyed["_rejected"].isna().to_numpy()].reset_index(drop=True)
    return out


def _event_rows(rejected: pd.DataFrame, events: pd.DataFrame) -> pd.DataFrame:
    """Quarantine rows for rejected events: "whole file" when it is the file's only event."""
    per_file = events.groupby(events["source_file"].astype("string"))["event_id"].transform("nunique")
    only = dict(zip(events["source_file"].astype("string"), per_file))
    loc = rejected["source_file"].map(only).eq(1).map({True: "whole file", False: None})
    loc = loc.fillna("event " + rejected["event_id"].astype("string"))
    return _quarantine(pd.DataFrame({"source_file": rejected["source_file"], "location": loc.astype("string"),
                                     "reason": rejected["reason"], "record": pd.NA}))


def _standing_events(ctx: RunContext, organisation: str, months: set[str], active: pd.DataFrame,
                     superseded: set[str], batch_files: set[str]) -> pd.DataFrame:
    """Event ids posted from other files that still stand (current version, not being replaced)."""
    if not months:
        return pd.DataFrame(columns=["event_id", "standing_file"])
    posted = ctx.lake.read("bridge_sessions", BridgeSession, organisation, months)
    posted = posted.astype({"source_file": "string", "source_sha256": "string"}).merge(
        active.astype("string"), on=["source_file", "source_sha256"])
    posted = posted[~posted["source_file"].isin(superseded | batch_files)]
    return posted[["event_id", "source_file"]].drop_duplicates("event_id").rename(columns={"source_file": "standing_file"}).astype("string")


def _conflicts(events: pd.DataFrame, standing: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Events whose id stands already from another file (earlier run or earlier path of this
    batch): (rejected event_id/source_file pairs, their quarantine rows)."""
    ev = events.sort_values("source_file", kind="stable").astype({"event_id": "string", "source_file": "string"})
    first = ev.drop_duplicates("event_id")[["event_id", "source_file"]].rename(columns={"source_file": "first_file"})
    ev = ev.merge(first, on="event_id", how="left").merge(standing, on="event_id", how="left")
    other = ev["standing_file"].fillna(ev["first_file"])
    rejected = ev[(other != ev["source_file"]).fillna(False).astype(bool)]
    if rejected.empty:
        return rejected[["event_id", "source_file"]], empty_frame(QuarantineDraft)
    other = other[rejected.index]
    reason = (
        "the session '" + rejected["name"].astype("string") + "' of " + rejected["event_date"].astype("string")
        + " (event " + rejected["event_id"] + ") is already posted from " + other
        + ": a session is scored from one file only, so the same session sent twice (for example as PBN and as USEBIO)"
        " counts once. If this file replaces that one, put it at the same path; if it is another session, give it"
        " another event name"
    )
    q = pd.DataFrame({"source_file": rejected["source_file"], "location": "whole file", "reason": reason, "record": pd.NA})
    return rejected[["event_id", "source_file"]], _quarantine(q)


def _validated_lines(lines: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The traveller contract (pandera): rows failing it are quarantined (a parser bug otherwise)."""
    if lines.empty:
        return lines, empty_frame(QuarantineDraft)
    valid, cases = failure_cases(TravellerLines, lines.reset_index(drop=True))
    if cases.empty:
        return valid, empty_frame(QuarantineDraft)
    rows = pd.to_numeric(cases["index"], errors="coerce").dropna().astype(int).unique()
    if len(rows) == 0:  # a whole-frame failure: nothing can be trusted
        rows = np.arange(len(lines))
    bad = lines.reset_index(drop=True).iloc[rows]
    detail = "; ".join(describe_failures(cases.head(3)))
    q = pd.DataFrame({"source_file": bad["source_file"], "location": bad["location"],
                      "reason": "the traveller line fails the traveller contract (" + detail + ")", "record": pd.NA})
    good = lines.reset_index(drop=True).drop(index=rows)
    return TravellerLines.validate(good), _quarantine(q)


def _session_ids(lines: pd.DataFrame) -> pd.DataFrame:
    sessions = lines[["event_id", "session"]].drop_duplicates()
    many = sessions.groupby("event_id")["session"].transform("size") > 1
    return sessions.assign(session_event_id=sessions["event_id"].where(
        ~many, sessions["event_id"] + "#session-" + sessions["session"].astype("string")))


def event_settings(events: pd.DataFrame, opts: dict) -> pd.DataFrame:
    """``events`` with the columns of EVENT_SETTINGS: the club's option, or the override of an
    ``[[options.events]]`` table whose name equals the event's name (case and spaces ignored)."""
    key = events["name"].astype("string").fillna("").str.strip().str.casefold()
    over = pd.DataFrame([{**{k: opts[k] for k in EVENT_SETTINGS}, **e} for e in opts.get("events", [])],
                        columns=["name", *EVENT_SETTINGS])
    over = over.assign(_key=over["name"].astype("string").str.strip().str.casefold()).drop_duplicates("_key", keep="last")
    merged = pd.DataFrame({"_key": key}).merge(over.drop(columns="name"), on="_key", how="left")
    return events.assign(**{k: merged[k].fillna(opts[k]).to_numpy() for k in EVENT_SETTINGS})


def _score(frames: dict[str, pd.DataFrame], opts: dict) -> dict[str, pd.DataFrame]:
    return compute_standings(
        frames["traveller_lines"], event_settings(frames["events"], opts), frames["entrants"],
        acbl_scale=opts["acbl_scale"], butler_trim_min_results=opts["butler_trim_min_results"],
        vp_scale=opts["vp_scale"], boards_per_match=opts["boards_per_match"],
    )


def _nothing_to_compare(frames: dict[str, pd.DataFrame]) -> pd.Series:
    """Lines of pairs sessions (section) where no board has two lines: nothing to compare."""
    lines = frames["traveller_lines"]
    pairs = lines["event_id"].isin(frames["events"].loc[frames["events"]["scoring"] != "TEAMS", "event_id"])
    group = [lines["event_id"], lines["session"], lines["section"]]
    per_board = lines.groupby(group + [lines["board"]])["board"].transform("size")
    return pairs & (per_board.groupby(group).transform("max") < 2)


def score_batch(frames: dict[str, pd.DataFrame], opts: dict) -> tuple[dict[str, pd.DataFrame], pd.DataFrame]:
    """The pure scoring of pipelines/bridge/standings.py with the organisation's options, for the
    whole batch at once. Sessions that cannot be scored are quarantined instead of failing the run:
    a pairs section with a single result on every board, and (a last line of defence) any event
    whose scoring raises, found by scoring event by event only after a batch failed."""
    lonely = _nothing_to_compare(frames)
    bad = frames["traveller_lines"][lonely]
    quarantine = [pd.DataFrame({"source_file": bad["source_file"], "location": bad["location"], "record": pd.NA,
                                "reason": "no board of this session has two results, so there is nothing to compare: "
                                          "matchpoints need at least two tables; send the complete traveller"})]
    frames = {**frames, "traveller_lines": frames["traveller_lines"][~lonely]}
    try:
        return _score(frames, opts), _quarantine(pd.concat(quarantine, ignore_index=True))
    except Exception:  # noqa: BLE001 - isolate the event(s) that cannot be scored
        pass
    parts = []
    for event_id, lines in frames["traveller_lines"].groupby("event_id", sort=False):
        one = {name: frame[frame["event_id"] == event_id] for name, frame in frames.items()}
        try:
            parts.append(_score(one, opts))
        except Exception as error:  # noqa: BLE001
            quarantine.append(pd.DataFrame({
                "source_file": lines["source_file"].iloc[:1], "location": "event " + str(event_id), "record": pd.NA,
                "reason": f"the session could not be scored ({type(error).__name__}: {error}); nothing of it was posted",
            }))
    scored = {name: pd.concat([p[name] for p in parts], ignore_index=True) for name in
              ("board_results", "session_standings", "team_matches", "problems")} if parts else _score(
        {name: frame.iloc[0:0] for name, frame in frames.items()}, opts)
    return scored, _quarantine(pd.concat(quarantine, ignore_index=True))


def lake_frames(frames: dict[str, pd.DataFrame], scored: dict[str, pd.DataFrame], organisation: str, sha_of: dict,
                run_id: str, opts: dict) -> dict[str, pd.DataFrame]:
    """The four lake tables of a scored batch, typed (Arrow) and validated by the caller."""
    events = frames["events"].astype({"event_id": "string"})
    meta = events[["event_id", "event_date", "name", "movement", "scoring", "winner_type", "source_file"]].assign(
        source_sha256=lambda f: f["source_file"].map(sha_of), organisation=organisation, run_id=run_id)
    stamp = meta[["event_id", "organisation", "event_date", "source_file", "source_sha256", "run_id"]]
    half = 2 if opts["acbl_scale"] else 1

    # board results: the scored line plus what the traveller said
    lines = frames["traveller_lines"]
    extra = lines[LINE_KEY + ["level", "strain", "doubled", "vulnerable", "dealer", "stated_score_ns", "law77_score_ns", "deal", "par", "adj_ns_pct",
                              "adj_ew_pct", "location"]]
    br = scored["board_results"].astype({"event_id": "string"}).merge(extra.astype({"event_id": "string"}), on=LINE_KEY, how="left")
    br = br.merge(stamp, on="event_id", how="left").merge(meta[["event_id", "scoring"]], on="event_id", how="left")
    mp_den = br["mp_den"].astype("Int64") * half
    board_results = br.assign(
        mp_ns=units_to_decimal(br["mp_ns_x"], mp_den, BridgeBoardResult.to_schema().columns["mp_ns"].dtype.type),
        mp_ew=units_to_decimal(br["mp_ew_x"], mp_den, BridgeBoardResult.to_schema().columns["mp_ew"].dtype.type),
        mp_top=units_to_decimal(br["mp_top_x"], mp_den, BridgeBoardResult.to_schema().columns["mp_top"].dtype.type),
        imp_ns=units_to_decimal(br["imp_ns_x"], br["imp_den"].astype("Int64"), BridgeBoardResult.to_schema().columns["imp_ns"].dtype.type),
        neuberg=br["neuberg"].astype("boolean"),
    )

    # session standings (pairs)
    st = scored["session_standings"].astype({"event_id": "string"}).merge(stamp, on="event_id", how="left")
    st = st.merge(meta[["event_id", "winner_type"]], on="event_id", how="left")
    rank_dir = st["direction"].where(st["winner_type"].astype("int64") == 2, "")
    # an event scored across sections ranks its entrants across the sections
    across = st["event_id"].map(event_settings(events, opts).set_index("event_id")["section_scoring"]) == "across_sections"
    rank_section = st["section"].where(~across.fillna(False).to_numpy(), "*")
    st_cols = BridgeSessionStanding.to_schema().columns
    standings = st.assign(
        score=decimals(st["score"], st_cols["score"].dtype.type),
        max_score=decimals(st["max_score"], st_cols["max_score"].dtype.type),
        percentage=decimals(st["percentage"], st_cols["percentage"].dtype.type),
        handicap=decimals(st["handicap"], st_cols["handicap"].dtype.type),
        handicap_percentage=decimals(st["handicap_percentage"], st_cols["handicap_percentage"].dtype.type),
        ranked_entrants=st.groupby([st["event_id"], st["session"], rank_section, rank_dir])["entrant"].transform("size"),
    )

    # team matches, with the teams' names and players
    teams = scored["team_matches"].astype({"event_id": "string"}).merge(stamp, on="event_id", how="left")
    who = frames["entrants"].astype({"event_id": "string"}).drop_duplicates(["event_id", "entrant"])
    who = who[["event_id", "entrant", "entrant_name", "player_ids", "player_names"]].fillna("")
    teams = teams.merge(who.rename(columns={"entrant": "team", "entrant_name": "team_name"}), on=["event_id", "team"], how="left")
    teams = teams.merge(who[["event_id", "entrant", "entrant_name"]].rename(columns={"entrant": "opponent", "entrant_name": "opponent_name"}),
                        on=["event_id", "opponent"], how="left")
    teams = teams.fillna({"team_name": "", "opponent_name": "", "player_ids": "", "player_names": ""})
    teams = teams.assign(vp=decimals(teams["vp"], BridgeTeamMatch.to_schema().columns["vp"].dtype.type))

    # one row per session
    ids = _session_ids(lines.astype({"event_id": "string"}))
    per_session = lines.astype({"event_id": "string"}).groupby(["event_id", "session"]).agg(
        sections=("section", "nunique"), boards=("board", "nunique"), traveller_lines=("board", "size"),
        adjusted_lines=("adjusted", lambda s: int((s != "").sum())),
    ).reset_index()
    # a session none of whose lines could be scored (every line quarantined) is not an event
    scored_sessions = board_results[["event_id", "session"]].astype({"event_id": "string"}).drop_duplicates()
    per_session = per_session.merge(scored_sessions, on=["event_id", "session"])
    ranked = standings.groupby(["event_id", "session"]).size().rename("_ranked").reset_index()
    team_count = teams.groupby(["event_id", "session"])["team"].nunique().rename("_teams").reset_index()
    sessions = per_session.merge(ids, on=["event_id", "session"]).merge(meta, on="event_id", how="left")
    sessions = sessions.merge(ranked, on=["event_id", "session"], how="left").merge(team_count, on=["event_id", "session"], how="left")
    sessions = sessions.assign(
        event_name=sessions["name"],
        entrants=sessions["_ranked"].fillna(sessions["_teams"]).fillna(0).astype("int64"),
        mp_scale="1/0.5/0" if opts["acbl_scale"] else "2/1/0",
        vp_scale=opts["vp_scale"],
    )
    return {
        "bridge_sessions": to_lake(sessions, BridgeSession),
        "bridge_board_results": to_lake(board_results, BridgeBoardResult),
        "bridge_session_standings": to_lake(standings, BridgeSessionStanding),
        "bridge_team_matches": to_lake(teams, BridgeTeamMatch),
    }


def event_records(sessions: pd.DataFrame, board_results: pd.DataFrame) -> pd.DataFrame:
    """One core `events` row per session."""
    span = board_results.groupby(["event_id", "session"])["board"].agg(["min", "max"]).reset_index()
    s = sessions.merge(span, on=["event_id", "session"], how="left")
    location = ("session " + s["session"].astype("string") + ", boards " + s["min"].astype("string") + "–"
                + s["max"].astype("string"))
    return pd.DataFrame({
        "event_id": s["session_event_id"], "organisation": s["organisation"], "system": "bridge",
        "event_date": s["event_date"], "kind": s["scoring"].map(KINDS), "source_file": s["source_file"],
        "source_sha256": s["source_sha256"], "location": location,
    })[[c for c in EventRecord.to_schema().columns if c != "run_id"]]


class BridgeSystem:
    name = "bridge"
    expected_content = ("bridge results: PBN games with [Board] tags and a ScoreTable (or Contract/Result tags), "
                        "USEBIO <BOARD>/<TRAVELLER_LINE> elements, or CSV traveller lines under a header row")
    accepted_suffixes = (".pbn", ".xml", ".csv")
    lake_tables = {
        "bridge_sessions": BridgeSession,
        "bridge_board_results": BridgeBoardResult,
        "bridge_session_standings": BridgeSessionStanding,
        "bridge_team_matches": BridgeTeamMatch,
    }
    warehouse_sql = ["warehouse/bridge_sessions", "warehouse/board_results", "warehouse/session_standings",
                     "warehouse/team_matches"]

    def check_settings(self, data_dir: Path, org: pd.Series) -> None:
        """The club's [options] and the rule tables, checked before the run reads anything."""
        from pipelines.bridge.rules import (load_board_rotation, load_imp_table, load_vp_scale_tables, rules_dir_in_use,
                                           rules_from)

        def check_tables() -> bool:
            for model, table, load in ((ImpTable, "imp_table.csv", load_imp_table), (BoardRotation, "board_rotation.csv",
                                        load_board_rotation), (VpScales, "vp_scales.csv", load_vp_scales),
                                       (VpScaleTables, "vp_scale_tables.csv", load_vp_scale_tables)):
                checked(model, load(), f"rules/bridge/{table}")
            return True

        with rules_from(data_dir):
            options_of(org)
            cached_by_content("bridge.rule_tables_checked", (rules_dir_in_use(),), check_tables)

    def process(self, ctx: RunContext, org: pd.Series, sources: list[SourceFile], active: pd.DataFrame,
                superseded: set[str]) -> SystemBatch:
        from pipelines.bridge.rules import rules_from

        with rules_from(ctx.data_dir):  # the office's rule tables (a VP scale changed there is recomputed)
            return self._process(ctx, org, sources, active, superseded)

    def _process(self, ctx: RunContext, org: pd.Series, sources: list[SourceFile], active: pd.DataFrame,
                 superseded: set[str]) -> SystemBatch:
        organisation = org["organisation"]
        opts = options_of(org)
        sha_of = {s.source_file: s.sha256 for s in sources}
        frames, parse_q = parse_sources(sources, organisation)
        quarantine = [_quarantine(parse_q)]

        parsed_lines = frames["traveller_lines"][["source_file"]].astype("string")
        parser_rows = parse_q.loc[parse_q["location"].astype("string") != "whole file", ["source_file"]].astype("string")

        # dates in the plausible window (before the months of the lake are computed from them)
        if len(frames["events"]):
            out_of_window = _date_window(frames["events"], ctx.as_of)
            quarantine.append(_event_rows(out_of_window, frames["events"]))
            frames = _reject_events(frames, out_of_window)

        # one file per session: the same event id from another standing file is quarantined
        events = frames["events"]
        if len(events):
            months = {d.strftime("%Y-%m") for d in events["event_date"]}
            standing = _standing_events(ctx, organisation, months, active[["source_file", "source_sha256"]], superseded, set(sha_of))
            rejected, conflict_q = _conflicts(events, standing)
            quarantine.append(conflict_q)
            frames = _reject_events(frames, rejected)

        lines, contract_q = _validated_lines(frames["traveller_lines"])
        quarantine.append(contract_q)
        frames["traveller_lines"] = lines
        frames["events"] = frames["events"][frames["events"]["event_id"].isin(lines["event_id"])].reset_index(drop=True)

        tables = {name: empty_frame(model) for name, model in self.lake_tables.items()}
        scored = None
        if len(lines):
            scored, scoring_q = score_batch(frames, opts)
            quarantine.append(scoring_q)
            frames["traveller_lines"] = frames["traveller_lines"][frames["traveller_lines"]["event_id"].isin(scored["board_results"]["event_id"])]
            frames["events"] = frames["events"][frames["events"]["event_id"].isin(scored["board_results"]["event_id"])]
            # a team board played at one table only cannot be scored: quarantined, left out of the match
            problems = scored["problems"]
            if len(problems):
                quarantine.append(_quarantine(problems.assign(record=pd.NA)))
                unpaired = (scored["board_results"]["imp_ns"].isna()
                            & scored["board_results"]["event_id"].isin(frames["events"].loc[frames["events"]["scoring"] == "TEAMS", "event_id"]))
                scored["board_results"] = scored["board_results"][~unpaired]
                # only what is scored stands: a session whose every board was unpaired has no board
                # results, so it gets no session row (it had one with an empty board range before,
                # which failed the run when a file like it came in the same batch as a good one)
                kept = scored["board_results"][LINE_KEY].astype("string").drop_duplicates().assign(_kept=True)
                probe = frames["traveller_lines"][LINE_KEY].astype("string").merge(kept, on=LINE_KEY, how="left")
                frames["traveller_lines"] = frames["traveller_lines"][probe["_kept"].notna().to_numpy()]
                frames["events"] = frames["events"][frames["events"]["event_id"].isin(scored["board_results"]["event_id"])]
            if len(scored["board_results"]):
                tables = lake_frames(frames, scored, organisation, sha_of, ctx.run_id, opts)

        quarantine = pd.concat([q for q in quarantine if len(q)], ignore_index=True) if any(len(q) for q in quarantine) else empty_frame(QuarantineDraft)
        posted = tables["bridge_board_results"].groupby(tables["bridge_board_results"]["source_file"].astype("string")).size()
        # records: traveller lines (and rows the readers could not make one of). A line is posted, or
        # quarantined with its own row, or held back with its whole file or event (a date outside
        # the window, a session already posted from another file): those count as quarantined too.
        own_row = ~quarantine["location"].astype("string").isin(["whole file"]) & ~quarantine["location"].astype("string").str.startswith("event ")
        per_record = quarantine[own_row].groupby(quarantine.loc[own_row, "source_file"].astype("string")).size()
        held_files = set(quarantine.loc[~own_row, "source_file"].astype("string"))
        records = pd.DataFrame({"source_file": [s.source_file for s in sources]})
        n_posted = records["source_file"].map(posted).fillna(0).astype(int)
        n_own = records["source_file"].map(per_record).fillna(0).astype(int)
        n_in = (records["source_file"].map(parsed_lines.groupby("source_file").size()).fillna(0).astype(int)
                + records["source_file"].map(parser_rows.groupby("source_file").size()).fillna(0).astype(int))
        held = records["source_file"].isin(held_files)
        records = records.assign(
            records_posted=n_posted,
            records_quarantined=n_own.where(~held, n_in - n_posted),
        )
        events_out = event_records(tables["bridge_sessions"], tables["bridge_board_results"]) if len(tables["bridge_sessions"]) else \
            empty_frame(EventRecord).drop(columns="run_id")
        return SystemBatch(events=events_out, awards=empty_frame(AwardDraft), quarantine=quarantine, records=records, tables=tables)

    # -- warehouse, publications, explain: see publish.py ---------------------------------------
    def warehouse_tables(self, ctx: RunContext, org: pd.Series) -> dict[str, pd.DataFrame]:
        return {}

    def publish(self, ctx, con, org, affected_months: set[str], out_dir: Path) -> list[Path]:
        from pipelines.bridge.publish import publish_sessions

        return publish_sessions(con, org, out_dir, ctx.data_dir)

    def explain(self, con, player_id: str, event_id: str | None) -> list[str]:
        from pipelines.bridge.publish import explain_player

        return explain_player(con, player_id, event_id)


SYSTEM = BridgeSystem()

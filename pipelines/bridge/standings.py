"""Traveller lines -> board_results, session_standings, team_matches.

Pure, set-based functions: each event's scoring method (events.scoring: MP, XIMP, BUTLER,
TEAMS), winner type and pair numbering select one vectorised computation for all lines that
share them; nothing loops over rows or boards.
"""

from __future__ import annotations

from decimal import Decimal

import numpy as np
import pandas as pd

from pipelines.bridge.imps import butler_boards, cross_imp_boards, session_standings_imps, team_boards, team_matches
from pipelines.bridge.exact import round_half_up_ratio, to_decimal
from pipelines.bridge.matchpoints import matchpoint_boards, rank_labels, session_standings_mp, white_book_averages

BOARD_RESULT_COLUMNS = [
    "event_id", "session", "section", "board", "round", "ns_pair", "ew_pair", "contract", "declarer", "tricks",
    "score_ns", "adjusted", "mp_ns", "mp_ew", "imp_ns", "mp_top", "results_on_board", "neuberg", "butler_datum",
    "mp_den", "mp_top_x", "mp_ns_x", "mp_ew_x", "imp_den", "imp_ns_x",
]
STANDING_COLUMNS = [
    "event_id", "session", "section", "direction", "entrant", "player_ids", "player_names", "score", "max_score",
    "percentage", "rank", "rank_label", "boards", "score_x", "max_x", "score_den", "scoring",
    "handicap", "handicap_percentage", "handicap_rank", "handicap_rank_label", "scorer_master_points",
]
TEAM_MATCH_COLUMNS = ["event_id", "session", "round", "team", "opponent", "boards", "imps_for", "imps_against",
                      "imp_margin", "vp", "vp_scale"]


def pair_numbering(lines: pd.DataFrame, events: pd.DataFrame, entrants: pd.DataFrame | None) -> pd.DataFrame:
    """``event_id, section, numbering`` (``by_direction`` | ``unique``) for each section with lines.

    From the entrant list when it has the section (all directions empty -> unique), else from the
    event's movement (Howell -> unique)."""
    secs = lines[["event_id", "section"]].drop_duplicates()
    secs = secs.merge(events[["event_id", "movement"]], on="event_id", how="left")
    secs["numbering"] = (secs["movement"] == "howell").map({True: "unique", False: "by_direction"})
    if entrants is not None and not entrants.empty:
        e = entrants.assign(_dir=(entrants["direction"].fillna("") != "").astype(int))
        by = e.groupby(["event_id", "section"])["_dir"].max().rename("_any_dir").reset_index()
        secs = secs.merge(by, on=["event_id", "section"], how="left")
        secs.loc[secs["_any_dir"] == 1, "numbering"] = "by_direction"
        secs.loc[(secs["_any_dir"] == 0) & (secs["movement"] != "teams"), "numbering"] = "unique"
        secs = secs.drop(columns="_any_dir")
    return secs[["event_id", "section", "numbering"]]


def compute_standings(
    traveller_lines: pd.DataFrame,
    events: pd.DataFrame,
    entrants: pd.DataFrame | None = None,
    *,
    acbl_scale: bool = False,
    butler_trim_min_results: int = 5,
    vp_scale: str = "WBF20",
    boards_per_match: int | None = None,
) -> dict[str, pd.DataFrame]:
    """Score every event in ``traveller_lines`` (columns as produced by the parsers).

    Returns ``board_results``, ``session_standings``, ``team_matches`` and ``problems`` (team
    boards that could not be paired; columns source_file, location, reason)."""
    lines = traveller_lines.copy()
    ev = events[["event_id", "scoring", "winner_type", "movement"]].drop_duplicates("event_id")
    lines = lines.merge(ev, on="event_id", how="left")
    lines["scoring"] = lines["scoring"].fillna("MP")
    lines["winner_type"] = pd.to_numeric(lines["winner_type"], errors="coerce").fillna(2).astype("int64")
    numbering = pair_numbering(lines, ev, entrants)
    lines = lines.merge(numbering, on=["event_id", "section"], how="left")
    # The comparison group of a board: its section (default), or every section of the session when
    # the event is scored across sections (a common top over the field; events.section_scoring).
    # Settings are looked up per event id (isin on the few ids that use them), not per line.
    def events_with(column: str, value: str) -> np.ndarray:
        if column not in events:
            return np.zeros(len(lines), dtype=bool)
        ids = events.loc[events[column] == value, "event_id"]
        return lines["event_id"].isin(ids).to_numpy() if len(ids) else np.zeros(len(lines), dtype=bool)

    across = events_with("section_scoring", "across_sections")
    if across.any():
        lines["comparison"] = lines["section"].astype(object).where(~across, "*")
    compare_by = ["event_id", "session", "comparison" if across.any() else "section"]
    # White Book average-plus: the events that use it matchpoint in units of 1/10,000 of a point at
    # least, so that a percentage with 2 decimals of a board's top is exact (matchpoints.white_book_averages)
    white_book = events_with("average_plus", "white_book")
    if white_book.any():
        lines["mp_base"] = np.where(white_book, 10000, 100)

    # Matchpoints: per part as below; when an event is scored across sections, of every MP line at
    # once (a comparison group across sections may hold sections of both numberings: a Mitchell and
    # a Howell section of one session scored across the field).
    is_mp = lines["scoring"] == "MP"
    mp_boards = (matchpoint_boards(lines[is_mp], group_cols=compare_by, acbl_scale=acbl_scale)
                 if across.any() and is_mp.any() else None)

    boards_parts, standings_parts, team_parts, problems = [], [], [], []
    for (scoring, winners, numb), part in lines.groupby(["scoring", "winner_type", "numbering"], sort=False):
        if scoring == "TEAMS":
            tb, prob = team_boards(part)
            tb = tb.assign(imp_den=1, imp_ns_x=tb["imp_ns"])
            boards_parts.append(tb)
            problems.append(prob)
            team_parts.append(team_matches(tb, vp_scale, boards_per_match))
            continue
        if scoring == "MP":
            b = (mp_boards.loc[part.index] if mp_boards is not None
                 else matchpoint_boards(part, group_cols=compare_by, acbl_scale=acbl_scale))
            wb = pd.Series(white_book, index=lines.index).loc[part.index] if white_book.any() else pd.Series(False, index=part.index)
            if wb.any():
                b = pd.concat([white_book_averages(b[wb], pair_numbering=numb), b[~wb]]).loc[b.index]
            st = session_standings_mp(b, winners=int(winners), pair_numbering=numb, acbl_scale=acbl_scale)
            st["score_den"] = st["mp_den"] * (2 if acbl_scale else 1)
        else:
            b = butler_boards(part, trim_min_results=butler_trim_min_results) if scoring == "BUTLER" else cross_imp_boards(part)
            st = session_standings_imps(b, winners=int(winners), pair_numbering=numb)
            st["score_den"] = st["mp_den"]
        st["scoring"] = scoring
        boards_parts.append(b)
        standings_parts.append(st)

    board_results = pd.concat(boards_parts, ignore_index=True) if boards_parts else pd.DataFrame(columns=BOARD_RESULT_COLUMNS)
    for c in BOARD_RESULT_COLUMNS:
        if c not in board_results:
            board_results[c] = pd.NA
    board_results = board_results[BOARD_RESULT_COLUMNS].sort_values(
        ["event_id", "session", "section", "board", "ns_pair"], kind="stable").reset_index(drop=True)

    standings = pd.concat(standings_parts, ignore_index=True) if standings_parts else pd.DataFrame(columns=STANDING_COLUMNS)
    standings = _attach_players(standings, entrants)
    standings = apply_handicaps(standings, entrants, events)
    standings = scorer_master_points(standings, entrants, events)
    for c in STANDING_COLUMNS:
        if c not in standings:
            standings[c] = pd.NA
    standings = standings[STANDING_COLUMNS]

    teams = pd.concat(team_parts, ignore_index=True) if team_parts else pd.DataFrame(columns=TEAM_MATCH_COLUMNS)
    probs = pd.concat(problems, ignore_index=True) if problems else pd.DataFrame(columns=["source_file", "location", "reason"])
    return {"board_results": board_results, "session_standings": standings, "team_matches": teams[TEAM_MATCH_COLUMNS],
            "problems": probs}


def scorer_master_points(standings: pd.DataFrame, entrants: pd.DataFrame | None, events: pd.DataFrame) -> pd.DataFrame:
    """The master points the scorer's file awarded a pair (USEBIO ``MASTER_POINTS``), for the
    record: text such as ``"40.00 c"`` or ``"15.00 b; 2.50 c"`` (one per award and type; types are
    different denominations and are never added up). ``MASTER_POINTS_AWARDED`` is a whole number of
    hundredths of a point (USEBIO 1.2 writers, e.g. 4000 = 40 points) or of tenths, as the event's
    ``master_points_scale`` (100, 10 or 1) says. Our own awards never use it."""
    keys = ["event_id", "section", "direction", "entrant"]
    if standings.empty or entrants is None or entrants.empty or "master_points" not in entrants:
        return standings.assign(scorer_master_points="")
    mp = entrants[keys + ["master_points"]].fillna("").astype("string")
    mp = mp[mp["master_points"].str.strip() != ""].drop_duplicates(keys)
    if mp.empty:
        return standings.assign(scorer_master_points="")
    scale = (events.drop_duplicates("event_id").set_index("event_id")["master_points_scale"] if "master_points_scale" in events
             else pd.Series(dtype="int64"))
    one = mp.assign(award=mp["master_points"].str.split("; ")).explode("award")
    parts = one["award"].str.extract(r"^(?P<raw>\d+)\s*(?P<type>.*)$")
    div = one["event_id"].map(scale).fillna(100).astype("int64")
    hundredths = pd.to_numeric(parts["raw"], errors="coerce").fillna(0).astype("int64") * (100 // div)
    places = np.where(div == 1, 0, np.where(div == 10, 1, 2))
    value = [str(d.quantize(Decimal(1).scaleb(-int(p)))) for d, p in zip(to_decimal(hundredths), places)]
    one = one.assign(text=(pd.Series(value, index=one.index) + " " + parts["type"].fillna("")).str.strip())
    joined = one.groupby(keys, sort=False)["text"].agg("; ".join).reset_index()
    out = standings.merge(joined, on=keys, how="left")
    out.index = standings.index
    return out.assign(scorer_master_points=out["text"].fillna("")).drop(columns="text")


def apply_handicaps(standings: pd.DataFrame, entrants: pd.DataFrame | None, events: pd.DataFrame) -> pd.DataFrame:
    """Handicap pairs: the handicap the file states for a pair (percentage points, ``entrants.handicap``)
    is added to its percentage, in full or half as the event's ``handicap_share`` says ("half", the
    default: the New Zealand Scorer's handicaps, whose printed percentage is the matchpoint
    percentage + handicap / 2; "full"). ``percentage`` and ``rank`` stay the scratch result (the
    scorer's PLACE); ``handicap_percentage`` (half-up to 2 places, from the exact total) and
    ``handicap_rank`` rank the handicapped result in the same groups. Pairs events with
    percentages only; entrants without a handicap get none (and no handicap rank)."""
    if standings.empty:
        return standings.assign(handicap=None, handicap_percentage=None, handicap_rank=pd.NA, handicap_rank_label="")
    keys = ["event_id", "section", "direction", "entrant"]
    if entrants is not None and not entrants.empty and "handicap" in entrants:
        h = entrants[keys + ["handicap"]].fillna("").astype("string")
        h = h[h["handicap"].str.strip() != ""].drop_duplicates(keys)
        merged = standings[keys].astype("string").merge(h, on=keys, how="left")["handicap"]
        merged.index = standings.index
    else:
        merged = pd.Series(pd.NA, index=standings.index, dtype="string")
    text = merged.fillna("").str.strip()
    max_x = pd.to_numeric(standings["max_x"], errors="coerce").fillna(0).astype("int64").to_numpy()
    # a handicap event is one where some pair has a handicap; writers leave out a handicap of 0
    # (NZ Scorer writes HANDICAP only when it is not 0), so its other pairs have 0
    in_hcp_event = standings["event_id"].isin(standings.loc[(text != "").to_numpy(), "event_id"]).to_numpy()
    has = in_hcp_event & (max_x > 0)
    text = text.where(text != "", "0")
    if not has.any():
        return standings.assign(handicap=None, handicap_percentage=None,
                                handicap_rank=pd.array([pd.NA] * len(standings), dtype="Int64"), handicap_rank_label="")
    # hundredths of a percentage point, exactly (the parser lets only [+-]dd.dd through)
    hund = np.where(has, np.rint(pd.to_numeric(text.where(pd.Series(has, index=text.index), "0"), errors="coerce")
                                 .fillna(0).to_numpy(dtype=float) * 100), 0).astype(np.int64)
    share = (events.drop_duplicates("event_id").set_index("event_id")["handicap_share"].reindex(standings["event_id"])
             .fillna("half").to_numpy() if "handicap_share" in events else np.full(len(standings), "half"))
    twice_share = np.where(share == "full", 2, 1)  # the share of the handicap, in halves
    score_x = pd.to_numeric(standings["score_x"], errors="coerce").fillna(0).astype("int64").to_numpy()
    safe_max = np.where(max_x > 0, max_x, 1)
    # 100 * score / max + share * h  =  (20000 * score_x + twice_share * hund * max_x) / (200 * max_x)
    num = 20000 * score_x + twice_share * hund * safe_max
    den = 200 * safe_max
    pct_h = round_half_up_ratio(num, den, 2)
    out = standings.assign(
        handicap=to_decimal(pd.Series(hund, dtype="Int64").where(has)),
        handicap_percentage=to_decimal(pd.Series(np.asarray(pct_h, dtype=np.int64), dtype="Int64").where(has)),
    )
    exact = pd.Series(num / den, index=out.index)  # ordering only (as session_standings_mp ranks)
    winners = (out["event_id"].map(events.drop_duplicates("event_id").set_index("event_id")["winner_type"])
               .fillna(2).astype("int64") if "winner_type" in events else pd.Series(2, index=out.index))
    rank_dir = out["direction"].where(winners == 2, "")
    m = pd.Series(has, index=out.index)
    ranked = out[m]
    ranks, labels = rank_labels(exact[m], [ranked["event_id"], ranked["session"], ranked["section"], rank_dir[m]])
    out["handicap_rank"] = ranks.reindex(out.index).astype("Int64")
    out["handicap_rank_label"] = labels.reindex(out.index).fillna("")
    return out


def _attach_players(standings: pd.DataFrame, entrants: pd.DataFrame | None) -> pd.DataFrame:
    if standings.empty:
        return standings
    if entrants is None or entrants.empty:
        return standings.assign(player_ids="", player_names="")
    if "session" in entrants and entrants["session"].notna().any():
        # Per-session entrant lists (CSV): an event's pairs are matched within their session, so a
        # pair number reused by other players in another session of the file keeps its own players;
        # events whose list has no session (PBN, USEBIO) are matched as before.
        listed = entrants["session"].notna()
        by_session = standings["event_id"].isin(entrants.loc[listed, "event_id"])
        parts = [_attach(standings[by_session], entrants[listed].astype({"session": "int64"}), ["session"]),
                 _attach(standings[~by_session], entrants[~listed], [])]
        return pd.concat(parts).sort_index()
    return _attach(standings, entrants, [])


def _attach(standings: pd.DataFrame, entrants: pd.DataFrame, extra: list[str]) -> pd.DataFrame:
    """Player ids and names of each standing, matched on event (and ``extra`` keys), section,
    direction and entrant; then more loosely. Keeps the index of ``standings``."""
    if standings.empty:
        return standings.assign(player_ids="", player_names="")
    index = standings.index
    ev = ["event_id", *extra]
    e = entrants[ev + ["section", "direction", "entrant", "player_ids", "player_names"]].fillna("")
    exact = standings.merge(e, on=ev + ["section", "direction", "entrant"], how="left")
    # entrant lists without a section, or a Howell list with directions, still identify the pair
    loose = e.drop_duplicates(ev + ["entrant", "direction"]).rename(
        columns={"player_ids": "_ids2", "player_names": "_names2"}).drop(columns="section")
    exact = exact.merge(loose, on=ev + ["direction", "entrant"], how="left")
    any_dir = e.drop_duplicates(ev + ["entrant"]).rename(
        columns={"player_ids": "_ids3", "player_names": "_names3"})[ev + ["entrant", "_ids3", "_names3"]]
    exact = exact.merge(any_dir, on=ev + ["entrant"], how="left")
    exact.index = index
    howell = exact["direction"] == ""
    exact["player_ids"] = exact["player_ids"].fillna(exact["_ids2"]).fillna(exact["_ids3"].where(howell)).fillna("")
    exact["player_names"] = exact["player_names"].fillna(exact["_names2"]).fillna(exact["_names3"].where(howell)).fillna("")
    return exact.drop(columns=["_ids2", "_names2", "_ids3", "_names3"])

"""JCBL standings from travellers: the bridge scoring stage in front of the JCBL awards.

A club that sends its travellers instead of a standings file drops ``<event>.pbn`` (PBN 2.1),
``<event>.xml`` (USEBIO 1.2) or ``<event>.travellers.csv`` (the bridge CSV traveller format)
next to ``<event>.event.txt`` (docs/jcbl.md, "Travellers instead of a standings file").

Two steps, both pure (no inbox, no lake):

* :func:`read_travellers` parses the file with the bridge parser of its suffix
  (``pipelines.bridge.parse_pbn/parse_usebio/parse_csv``). Its quarantine rows carry the bridge
  parser's reasons (a stated score disagreeing with Law 77, an unknown pair number ...).
* :func:`standings_from_travellers` scores the lines with ``pipelines.bridge.standings.compute_standings``
  (through ``pipelines.bridge.system.score_batch``, which also refuses a session with nothing to
  compare) and turns the result into the JCBL standings frame that ``compute_awards`` takes
  (``schemas.jcbl.StandingsFrame``):

  - pairs (weekly pairs, CCG, STF): one row per pair, identified across sessions by its two
    players' ids; ``session_N_pct`` = the bridge session percentage (2 decimals, half up);
    ``rank`` = competition rank over **all** pairs of the event (every section and direction)
    of the exact combined score: total matchpoints / total maximum over the sessions (for one
    session, one section and a one-winner movement this is the bridge rank itself);
  - teams (weekly teams, Even Chance, Women's without flights): one row per team,
    ``match_vps`` = the VPs of its matches in round order on the event's VP scale, ``rank`` =
    competition rank of the total VP. The winning VP (the VPs of the matches won) is then
    computed by the JCBL awards exactly as for a standings file with ``match_vps``.

Player ids are the ids the traveller file gives (PBN ``MemberID1``.. / ``MemberIDs``, USEBIO
``NATIONAL_ID_NUMBER``, CSV ``ns_ids``/``ew_ids``); a pair or team without them cannot be
credited, so the event waits for a corrected file. Names are never used as ids.
"""
from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from pathlib import Path, PurePosixPath

from pipelines.core.rule_tables import checked, read_csv_text
from pipelines.core.settings import DATA_DIR, cached_by_content  # the bundled rule data (checkout or wheel)
import pandas as pd

from schemas import jcbl as S

TRAVELLER_SUFFIXES = (".travellers.csv", ".pbn", ".xml")
RULES_DIR = DATA_DIR / "rules" / "jcbl"
QCOLS = ["source_file", "location", "reason"]
STANDINGS_COLUMNS = list(S.StandingsFrame.to_schema().columns)


def is_traveller_file(source_file: str) -> bool:
    name = PurePosixPath(source_file).name.lower()
    return any(name.endswith(s) and len(name) > len(s) for s in TRAVELLER_SUFFIXES)


def traveller_suffix(source_file: str) -> str:
    name = PurePosixPath(source_file).name.lower()
    return next(s for s in TRAVELLER_SUFFIXES if name.endswith(s))


def _q(rows: list[tuple[str, str, str]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=QCOLS)


def _empty_standings() -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series(dtype=int if c == "rank" else object) for c in STANDINGS_COLUMNS})


# --------------------------------------------------------------------------- step 1: parse


def read_travellers(source_file: str, data: bytes) -> tuple[dict[str, pd.DataFrame], pd.DataFrame]:
    """The bridge parser of the file's suffix: ({events, entrants, traveller_lines}, quarantine)."""
    from pipelines.bridge.parse_csv import parse_csv
    from pipelines.bridge.parse_pbn import parse_pbn
    from pipelines.bridge.parse_usebio import parse_usebio

    parser = {".pbn": parse_pbn, ".xml": parse_usebio, ".travellers.csv": parse_csv}[traveller_suffix(source_file)]
    try:
        frames, quarantine = parser(source_file, data)
    except Exception as error:  # noqa: BLE001 - a bridge parser failure holds this event, never the run
        return {"events": pd.DataFrame(), "entrants": pd.DataFrame(), "traveller_lines": pd.DataFrame()}, _q([(
            source_file, "whole file",
            f"the traveller file could not be read (an internal error of the bridge reader, {type(error).__name__}: "
            f"{str(error)[:200]}); please send the file to the office so it can be fixed, or send a standings file instead")])
    quarantine = quarantine[QCOLS].astype(str).reset_index(drop=True) if len(quarantine) else _q([])
    return frames, quarantine


# --------------------------------------------------------------------------- VP scales


def load_traveller_vp_scales(rules_dir: Path | None = None) -> pd.DataFrame:
    """``traveller_vp_scales.csv`` of the office's rule folder (`rules_dir`; the bundled one where
    that folder has none, as a data folder written before travellers were read): which bridge VP
    scale (``data/rules/bridge``) an event file's ``vp_scale`` means when the VPs are computed from
    travellers. Read and validated once per content."""
    path = Path(rules_dir or RULES_DIR) / "traveller_vp_scales.csv"
    path = path if path.is_file() else RULES_DIR / "traveller_vp_scales.csv"
    label = "rules/jcbl/traveller_vp_scales.csv"
    return cached_by_content("jcbl.traveller_vp_scales", (path,),
                             lambda: checked(S.TravellerVpScales, read_csv_text(path, label), label))


def bridge_scale_for(vp_scale: Decimal, rules_dir: Path | None = None) -> tuple[str | None, str]:
    """(scale_id, "") or (None, why not) for an event file's ``vp_scale``."""
    from pipelines.bridge.rules import load_vp_scales

    table = load_traveller_vp_scales(rules_dir)
    hit = table[table["vp_scale"].map(Decimal) == Decimal(vp_scale)]
    known = ", ".join(f"{r.vp_scale} ({r.scale_id})" for r in table.itertuples())
    if hit.empty:
        return None, (f"no VP scale is stored for vp_scale {vp_scale} (data/rules/jcbl/traveller_vp_scales.csv knows "
                      f"{known or 'none'}), so the match VPs cannot be computed from the travellers; send a standings "
                      f"file with each team's match_vps (docs/jcbl.md) or ask the office to add the scale's table")
    scale_id = hit.iloc[0]["scale_id"]
    scales = load_vp_scales().set_index("scale_id")
    if scale_id not in scales.index:
        return None, f"VP scale {scale_id} (for vp_scale {vp_scale}) is not in data/rules/bridge/vp_scales.csv"
    if Decimal(str(scales.loc[scale_id, "max_vp"])) != Decimal(vp_scale):
        return None, f"VP scale {scale_id} goes to {scales.loc[scale_id, 'max_vp']} VP, but the event file says vp_scale {vp_scale}"
    return scale_id, ""


# --------------------------------------------------------------------------- step 2: standings


def _label(section: pd.Series, direction: pd.Series, entrant: pd.Series) -> pd.Series:
    sec = section.fillna("").astype(str)
    return sec.where(sec == "", sec + "-") + direction.fillna("").astype(str) + entrant.astype(str)


def _ids(text: pd.Series) -> pd.Series:
    """'a;b' → ['a', 'b'] (blank ids dropped)."""
    return text.fillna("").astype(str).map(lambda t: [x.strip() for x in t.replace(",", ";").split(";") if x.strip()])


def _competition_ranks(values: list[Fraction]) -> list[int]:
    """1 + the number of strictly better values (ties share a rank, the next one skips)."""
    order = sorted(values, reverse=True)
    first = {}
    for i, v in enumerate(order):
        first.setdefault(v, i + 1)
    return [first[v] for v in values]


def standings_from_travellers(source_file: str, frames: dict[str, pd.DataFrame], event: dict[str, pd.DataFrame],
                              rules, rules_dir: Path | None = None) -> tuple[pd.DataFrame, pd.DataFrame, int]:
    """(JCBL standings, problems, traveller lines read) for one event's parsed traveller file.

    ``event`` are the frames of ``parse_event`` (``event``, ``strats``); ``rules`` the JCBL rules.
    Problems are quarantine rows (source_file, location, reason); when there are any the
    standings are empty: the field decides every award, so a partial field is never posted."""
    from pipelines.bridge.system import score_batch

    ev = event["event"].iloc[0]
    lines = frames["traveller_lines"]
    n_lines = len(lines)
    rs = rules.for_date(ev["event_date"]) if hasattr(rules, "for_date") else rules
    kind = rs.kind(ev["kind"])
    units = set(rs.components(ev["kind"])["unit"])
    where = "whole file"

    def fail(reason: str, location: str = where):
        return _empty_standings(), _q([(source_file, location, reason)]), n_lines

    if n_lines == 0:
        return fail("the traveller file has no traveller lines")
    if len(units) > 1:
        return fail(f"{kind['label']} awards team and pair results together; the travellers of one file cannot give "
                    "both: send a standings file (docs/jcbl.md)")
    unit = units.pop()
    flights = ev["team_flights"] if unit == "team" else ev["pair_flights"]
    if pd.notna(flights) and int(flights) > 1:
        return fail(f"{kind['label']} is played in {int(flights)} flights and a traveller file does not say which "
                    "flight each entrant is in: send a standings file with a flight column (docs/jcbl.md)")
    scoring = str(frames["events"]["scoring"].iloc[0]) if len(frames["events"]) else "MP"
    if unit == "team" and scoring != "TEAMS":
        return fail(f"{kind['label']} is a teams event, but the traveller file holds a pairs session (scoring {scoring}): "
                    "expected team matches (PBN HomeTeam/VisitTeam/Room, USEBIO or CSV teams)")
    if unit == "pair" and scoring != "MP":
        return fail(f"{kind['label']} is a matchpoint pairs event, but the traveller file is scored {scoring}: "
                    "expected a matchpoint pairs session")

    from pipelines.bridge.system import DEFAULT_OPTIONS

    # the bridge stage's own defaults (one definition: a new bridge setting reaches JCBL travellers too)
    opts = {**DEFAULT_OPTIONS, "events": []}
    if unit == "team":
        if pd.isna(ev["vp_scale"]):
            return fail(f"{kind['label']}: the event file must give vp_scale to turn the matches into VPs", "vp_scale")
        scale_id, why = bridge_scale_for(ev["vp_scale"], rules_dir)
        if scale_id is None:
            return fail(why)
        opts["vp_scale"] = scale_id
        if pd.notna(ev["boards_per_match"]):
            opts["boards_per_match"] = int(ev["boards_per_match"])
    try:
        scored, refused = score_batch(frames, opts)
    except Exception as error:  # noqa: BLE001 - a scoring failure holds this event, never the run
        return fail(f"the travellers could not be scored ({type(error).__name__}: {error})")
    problems = pd.concat([refused[QCOLS].astype(str), scored["problems"][QCOLS].astype(str)], ignore_index=True) \
        if len(refused) or len(scored["problems"]) else _q([])
    if len(problems):
        return _empty_standings(), problems.assign(source_file=source_file), n_lines
    if unit == "pair":
        st, problems = _pairs(source_file, scored["session_standings"], ev)
    else:
        st, problems = _teams(source_file, scored["team_matches"], frames["entrants"], ev)
    if len(problems):
        return _empty_standings(), problems, n_lines
    return S.StandingsFrame.validate(st[STANDINGS_COLUMNS].reset_index(drop=True)), _q([]), n_lines


def _pairs(source_file: str, ss: pd.DataFrame, ev) -> tuple[pd.DataFrame, pd.DataFrame]:
    problems: list[tuple[str, str, str]] = []
    ss = ss.copy()
    ss["label"] = _label(ss["section"], ss["direction"], ss["entrant"])
    ss["ids"] = _ids(ss["player_ids"])
    ss["where"] = "pair " + ss["label"] + " (session " + ss["session"].astype(str) + ")"
    bad = ss[ss["ids"].str.len() != 2]
    for row in bad.itertuples():
        problems.append((source_file, row.where,
                         f"expected the member numbers of both players of pair {row.label} (PBN TotalScoreTable "
                         f"MemberID1/MemberID2, USEBIO NATIONAL_ID_NUMBER, CSV ns_ids/ew_ids), found "
                         f"{';'.join(row.ids) or 'none'} (names: {row.player_names or 'none'}): points are credited "
                         "to member numbers"))
    spaced = ss[ss["ids"].map(lambda ids: any(" " in i for i in ids)).astype(bool)]
    for row in spaced.itertuples():
        problems.append((source_file, row.where, f"a member number contains a blank: {';'.join(row.ids)}"))
    if problems:
        return _empty_standings(), _q(problems)
    nsess = int(ev["sessions"]) if pd.notna(ev["sessions"]) else 1
    found = sorted(int(s) for s in ss["session"].unique())
    if found != list(range(1, nsess + 1)):
        return _empty_standings(), _q([(source_file, "whole file",
                                        f"the event file says {nsess} session(s) (sessions: {nsess}); the traveller file "
                                        f"holds session(s) {', '.join(map(str, found))}: expected sessions "
                                        f"{', '.join(map(str, range(1, nsess + 1)))}")])
    ss["key"] = ss["ids"].map(lambda ids: " ".join(sorted(ids)))
    per_key = ss.groupby("key")["session"].agg(lambda s: sorted(int(x) for x in s))
    for key, sessions in per_key.items():
        if sessions != found:
            rows = ss[ss["key"] == key]
            problems.append((source_file, ", ".join(rows["where"]),
                             f"the pair of players {key} played session(s) {', '.join(map(str, sessions))} only, expected "
                             f"every session ({', '.join(map(str, found))}): a pair is followed across sessions by its two "
                             "member numbers"))
    if problems:
        return _empty_standings(), _q(problems)
    # exact combined score: total matchpoints / total maximum over the sessions
    ss["score_f"] = [Fraction(int(x), int(d)) for x, d in zip(ss["score_x"], ss["score_den"])]
    ss["max_f"] = [Fraction(int(x), int(d)) for x, d in zip(ss["max_x"], ss["score_den"])]
    ss = ss.sort_values(["session", "section", "direction", "entrant"], kind="stable")
    total = ss.groupby("key", sort=False).agg(score=("score_f", lambda s: sum(s, Fraction(0))),
                                               top=("max_f", lambda s: sum(s, Fraction(0))))
    first = ss[ss["session"] == 1].set_index("key")
    pct = {i: ss[ss["session"] == i].set_index("key")["percentage"] for i in (1, 2)}
    ratio = [s / t if t else Fraction(0) for s, t in zip(total["score"], total["top"])]
    st = pd.DataFrame({
        "event_id": ev["event_id"], "unit": "pair", "flight": "",
        "entrant": first.loc[total.index, "label"].to_numpy(),
        "rank": _competition_ranks(ratio),
        # the players in the traveller's order (session 1)
        "players": [" ".join(ids) for ids in first.loc[total.index, "ids"]],
        "session_1_pct": [_pct(pct[1].get(k)) for k in total.index],
        "session_2_pct": [_pct(pct[2].get(k)) for k in total.index],
        "winning_vp": None, "match_vps": "", "source_file": source_file,
        "location": ("pair " + first.loc[total.index, "label"] + (" (session 1)" if nsess > 1 else "")).to_numpy(),
    })
    st = st.sort_values(["rank", "entrant"], kind="stable").reset_index(drop=True)
    return st, _q([])


def _pct(value) -> Decimal | None:
    if value is None or (not isinstance(value, Decimal) and pd.isna(value)):
        return None
    return Decimal(str(value))


def _teams(source_file: str, tm: pd.DataFrame, entrants: pd.DataFrame, ev) -> tuple[pd.DataFrame, pd.DataFrame]:
    problems: list[tuple[str, str, str]] = []
    who = entrants.drop_duplicates("entrant").set_index("entrant") if len(entrants) else pd.DataFrame(
        columns=["entrant_name", "player_ids", "player_names"])
    teams = sorted(set(tm["team"].astype(str)) | set(who.index.astype(str)), key=lambda t: (len(t), t))
    played = set(tm["team"].astype(str))
    for team in teams:
        name = str(who.loc[team, "entrant_name"]) if team in who.index else ""
        where = f"team {team}" + (f" ({name})" if name and name != team else "")
        ids = [x.strip() for x in str(who.loc[team, "player_ids"] if team in who.index else "").replace(",", ";").split(";") if x.strip()]
        if team not in played:
            problems.append((source_file, where, f"team {team} is in the file's list of teams but played no complete match"))
        if not ids:
            names = str(who.loc[team, "player_names"]) if team in who.index else ""
            problems.append((source_file, where,
                             f"expected the member numbers of the players of team {team} (PBN TotalScoreTable MemberIDs "
                             f"or MemberID1.., USEBIO NATIONAL_ID_NUMBER, CSV ns_ids/ew_ids), found none (names: "
                             f"{names or 'none'}): points are credited to member numbers"))
    if problems:
        return _empty_standings(), _q(problems)
    tm = tm.assign(team=tm["team"].astype(str)).sort_values(["team", "session", "round"], kind="stable")
    vps = tm.groupby("team", sort=False)["vp"].agg(list)
    total = {t: sum((Decimal(str(v)) for v in vs), Decimal(0)) for t, vs in vps.items()}
    order = list(vps.index)
    ranks = _competition_ranks([Fraction(total[t]) for t in order])
    labels = {t: (str(who.loc[t, "entrant_name"]) if t in who.index else "") for t in order}
    st = pd.DataFrame({
        "event_id": ev["event_id"], "unit": "team", "flight": "", "entrant": order, "rank": ranks,
        "players": [" ".join(x.strip() for x in str(who.loc[t, "player_ids"]).replace(",", ";").split(";") if x.strip())
                    for t in order],
        "session_1_pct": None, "session_2_pct": None, "winning_vp": None,
        "match_vps": [" ".join(str(Decimal(str(v))) for v in vps[t]) for t in order],
        "source_file": source_file,
        "location": [f"team {t}" + (f" ({labels[t]})" if labels[t] and labels[t] != t else "") for t in order],
    })
    st = st.sort_values(["rank", "entrant"], kind="stable").reset_index(drop=True)
    return st, _q([])

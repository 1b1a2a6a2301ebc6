"""Match logs: derive events, matches won, rounds, players and places from logged matches.

Every (date, bracket) of a log is an event. Byes and forfeits advance the winner but are not
matches won. Places come from the last rounds of a single-elimination bracket, as data
(``elimination_places.csv``: final winner 1st, finalist 2nd, semi-final losers 3/4 tie,
quarter-final losers 5-8 tie), unless the director states a bracket's places with
``# place: [date,] bracket, player, place`` lines; stated places replace the derived ones of
that bracket.
"""

from __future__ import annotations

import csv

import pandas as pd

from pipelines.core.validation import validate_frame
from schemas import backgammon as sch

from . import players as player_rows
from . import quarantine as q
from .frames import empty_tables
from .reading import clean_text
from .rules import BackgammonRules, version_in_force
from .settings import EARLIEST_YEAR, LATEST_YEAR, Settings, date_problem, event_id, parse_date, slug

COLUMNS = ["date", "bracket", "round", "winner", "loser", "match_length"]
OPTIONAL_COLUMNS = ["result"]
ALIASES = {
    "event_date": "date",
    "rnd": "round",
    "length": "match_length",
    "points": "match_length",
    "match_points": "match_length",
    "player_1": "winner",
    "player_2": "loser",
}
RESULT_WORDS = {
    "played": "played",
    "bye": "bye",
    "forfeit": "forfeit",
    "forfeited": "forfeit",
    "ff": "forfeit",
    "walkover": "forfeit",
    "w/o": "forfeit",
}
_LENGTH = r"([0-9]{1,4})\s*(?:pt|pts|point|points)?"
MAX_ROUNDS = 99


# --------------------------------------------------------------------------- match rows
def stage_rows(rows: pd.DataFrame) -> pd.DataFrame:
    """Text cells → typed columns (missing where unreadable) for MatchRowChecks."""
    text = {c: clean_text(rows[c]) for c in [*COLUMNS, *OPTIONAL_COLUMNS]}
    loser_is_bye = text["loser"].str.casefold().eq("bye").fillna(False).astype(bool)
    result_word = text["result"].str.casefold().fillna("")
    result = result_word.map(RESULT_WORDS).where(result_word != "", "played")
    result = result.where(~(loser_is_bye & (result_word == "")), "bye").astype("str")
    rounds = text["round"].where(text["round"].str.fullmatch(r"[0-9]{1,2}").fillna(False).astype(bool))
    rounds = pd.to_numeric(rounds).astype("Int64")
    rounds = rounds.where((rounds >= 1) & (rounds <= MAX_ROUNDS))
    length = pd.to_numeric(text["match_length"].str.extract(f"^{_LENGTH}$", expand=False)).astype("Int64")
    shaped = text["date"].str.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}").fillna(False).astype(bool)
    year = pd.to_numeric(text["date"].str.slice(0, 4).where(shaped), errors="coerce")
    plausible = (year >= EARLIEST_YEAR) & (year <= LATEST_YEAR)
    dates = pd.to_datetime(text["date"].where(shaped & plausible), format="%Y-%m-%d", errors="coerce")
    bracket = text["bracket"].map(lambda b: slug(b) or pd.NA if isinstance(b, str) else pd.NA).astype("str")
    staged = pd.DataFrame(
        {
            "line": rows["line"],
            "location": "line " + rows["line"].astype("str"),
            "date_raw": text["date"],
            "bracket_raw": text["bracket"],
            "round_raw": text["round"],
            "winner_raw": text["winner"],
            "loser_raw": text["loser"],
            "length_raw": text["match_length"],
            "result_raw": text["result"],
            "date_plausible": ~(shaped & ~plausible.fillna(False).astype(bool)),
            "event_date": dates,
            "bracket": bracket,
            "round": rounds,
            "winner": text["winner"],
            "loser": text["loser"].where(~loser_is_bye),
            "match_length": length,
            "length_ok": (text["match_length"].isna() | (length >= 1)).fillna(False).astype(bool),
            "result": result,
        }
    )
    return staged


def _keys(frame: pd.DataFrame) -> pd.Series:
    return frame["event_date"].dt.strftime("%Y-%m-%d") + "|" + frame["bracket"]


# --------------------------------------------------------------------------- stated places
def stated_places(source_file: str, settings: Settings, groups: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame, set | None]:
    """Parse ``# place:`` lines. Returns (stated, quarantine, keys to reject (None = all))."""
    lines = settings.repeated[settings.repeated["key"] == "place"]
    stated_cols = ["event_key", "player_key", "place_raw", "place_line", "player_raw"]
    if lines.empty:
        return pd.DataFrame(columns=stated_cols), q.empty(), set()
    locations, reasons, reject, reject_all = [], [], set(), False
    records = []
    by_bracket = {b: g for b, g in groups.groupby("bracket")}  # one pass, not a filter per line
    empty = groups.iloc[:0]
    names = sorted(by_bracket)
    known_brackets = ", ".join(names[:10]) + (f" and {len(names) - 10} more" if len(names) > 10 else "")
    for line, value in zip(lines["line"], lines["value"]):
        parts = [p.strip() for p in next(csv.reader([value], skipinitialspace=True), [])]
        where = f"line {line}"
        if len(parts) not in (3, 4) or not all(parts):
            locations.append(where)
            reasons.append(f"expected '# place: bracket, player, place' (or 'date, bracket, player, place'); found '{value}'")
            reject_all = True
            continue
        date = None
        if len(parts) == 4:
            date = parse_date(parts[0])
            if date is None:
                locations.append(where)
                reasons.append(date_problem(parts[0]))
                reject |= set(by_bracket.get(slug(parts[-3]), empty)["event_key"])
                continue
        brk, player, place = slug(parts[-3]), " ".join(parts[-2].split()), parts[-1]
        match = by_bracket.get(brk, empty)
        if date is not None:
            match = match[match["event_date"] == date]
        if match.empty:
            locations.append(where)
            reasons.append(f"bracket '{parts[-3]}'{f' of {date:%Y-%m-%d}' if date is not None else ''} has no matches in this log; "
                           f"brackets in the log: {known_brackets}")
            reject_all = True
            continue
        if len(match) > 1:
            locations.append(where)
            reasons.append(f"bracket '{parts[-3]}' is played on {len(match)} dates in this log; "
                           "write the date first: '# place: 2025-03-04, bracket, player, place'")
            reject |= set(match["event_key"])
            continue
        records.append((match["event_key"].iloc[0], player.casefold(), place, line, player))
    stated = pd.DataFrame(records, columns=stated_cols)
    return stated, q.rows(source_file, locations, reasons), (None if reject_all else reject)


# --------------------------------------------------------------------------- appearances
def appearances(ok: pd.DataFrame) -> pd.DataFrame:
    """One line per player per match row: winners (advanced) and losers (eliminated)."""
    cols = ["event_key", "bracket", "event_date", "line", "round", "result"]
    win = ok[cols].assign(
        player=ok["winner"], advanced=True, won=ok["result"].eq("played"), lost=False
    )
    has_loser = ok["loser"].notna()
    # assign the loser column of the same rows: a whole column assigned to an empty frame (a
    # log of byes only) would bring its rows back with missing rounds
    lose = ok.loc[has_loser, cols].assign(
        player=ok.loc[has_loser, "loser"], advanced=False, won=False, lost=True
    )
    app = pd.concat([win, lose], ignore_index=True)
    app["player_key"] = app["player"].str.casefold()
    # the display name of a player is its first spelling in the file
    first = app.sort_values("line").drop_duplicates("player_key").set_index("player_key")["player"]
    app["player"] = app["player_key"].map(first)
    app["rounds"] = app.groupby("event_key")["round"].transform("max").astype("int64")
    return app


def stage_bracket(app: pd.DataFrame, derive_keys: set) -> pd.DataFrame:
    """Helper columns of BracketChecks (structure of each bracket)."""
    key = ["event_key", "player_key"]
    staged = app.assign(
        derive_places=app["event_key"].isin(derive_keys),
        times_in_round=app.groupby([*key, "round"])["line"].transform("size").astype("int64"),
        previous_round=app["round"] - 1,
        next_round=app["round"] + 1,
    )
    # rounds must run 1..R: report the first missing round once, at the bracket's first line
    present = staged[["event_key", "round"]].drop_duplicates().sort_values(["event_key", "round"])
    present["expected"] = present.groupby("event_key").cumcount() + 1
    gaps = present[present["round"] != present["expected"]].groupby("event_key")["expected"].min().rename("_gap")
    first_line = staged.groupby("event_key")["line"].transform("min")
    staged = staged.merge(gaps, left_on="event_key", right_index=True, how="left")
    staged["round_gap"] = staged["_gap"].where(staged["line"] == first_line).astype("Int64")
    # single elimination: nobody plays after losing
    lost_in = staged[staged["lost"]].groupby(key)["round"].min().rename("_lost_in")
    staged = staged.merge(lost_in, left_on=key, right_index=True, how="left")
    staged["lost_earlier_in"] = staged["_lost_in"].where(staged["_lost_in"] < staged["round"]).astype("Int64")
    # everybody after round 1 came through the previous round (won it or had a bye)
    advanced = staged.loc[staged["advanced"], [*key, "round"]].drop_duplicates().assign(_came=True)
    advanced["round"] = advanced["round"] + 1
    staged = staged.merge(advanced, on=[*key, "round"], how="left")
    staged["came_through"] = (staged["round"] == 1) | staged["_came"].eq(True)
    # every winner before the last round plays the next round
    played = staged[[*key, "round"]].drop_duplicates().assign(_next=True)
    played["round"] = played["round"] - 1
    staged = staged.merge(played, on=[*key, "round"], how="left")
    staged["went_on"] = ~staged["advanced"] | (staged["round"] == staged["rounds"]) | staged["_next"].eq(True)
    # the last round is the final: one line, played or forfeited
    last = staged[staged["round"] == staged["rounds"]]
    final = last.assign(_bye=last["result"].eq("bye")).groupby("event_key").agg(
        final_rows=("line", "nunique"), _final_bye=("_bye", "any"))
    staged = staged.merge(final, left_on="event_key", right_index=True, how="left")
    staged["final_note"] = staged["_final_bye"].map({True: ", one of them a bye", False: ""})
    staged["final_ok"] = (staged["final_rows"] == 1) & ~staged["_final_bye"].astype(bool)
    staged["location"] = "line " + staged["line"].astype("str")
    return staged[list(sch.BracketChecks.to_schema().columns)]


# --------------------------------------------------------------------------- players
def derive_players(app: pd.DataFrame, groups: pd.DataFrame, stated: pd.DataFrame, rules: BackgammonRules) -> pd.DataFrame:
    """Per event and player: matches won, lines, and the place label (derived or stated)."""
    key = ["event_key", "player_key"]
    per_player = app.groupby(key).agg(
        player_raw=("player", "first"),
        matches_won=("won", "sum"),
        line=("line", "min"),
        _lines=("line", "size"),
    ).reset_index()
    # the lines label in Python only for players on several lines (most are: a call per player)
    several = app.merge(per_player.loc[per_player["_lines"] > 1, key], on=key)
    labels = several.groupby(key)["line"].agg(q.lines_label).rename("location").reset_index() if len(several) else \
        pd.DataFrame(columns=[*key, "location"])
    per_player = per_player.merge(labels, on=key, how="left")
    per_player["location"] = per_player["location"].where(per_player["location"].notna(),
                                                          "line " + per_player["line"].astype("str")).astype("str")
    per_player = per_player.drop(columns="_lines")
    # derived places from the last rounds (elimination_places.csv)
    outcome = app.assign(
        rounds_before_final=app["rounds"] - app["round"],
        outcome=app["lost"].map({True: "lost", False: "won"}),
    )
    outcome = outcome[outcome["lost"] | (outcome["advanced"] & (outcome["round"] == outcome["rounds"]))]
    outcome = outcome.merge(groups[["event_key", "rule_version"]], on="event_key")
    derived = outcome.merge(rules.elimination, on=["rule_version", "rounds_before_final", "outcome"])[
        [*key, "place_row"]
    ].drop_duplicates(key)
    derived = derived[~derived["event_key"].isin(set(stated["event_key"]))]
    placed = per_player.merge(derived.rename(columns={"place_row": "_derived"}), on=key, how="left").merge(
        stated[[*key, "place_raw", "place_line"]], on=key, how="left"
    )
    placed["place_raw"] = placed["place_raw"].where(placed["place_raw"].notna(), placed["_derived"]).astype("str")
    stated_line = placed["place_line"].astype("Int64")
    placed["location"] = placed["location"].where(stated_line.isna(), "line " + stated_line.astype("str"))
    placed["line"] = stated_line.fillna(placed["line"]).astype("int64")
    placed["won_raw"] = placed["matches_won"].astype("int64").astype("str")
    return placed


# --------------------------------------------------------------------------- the whole log
def derive(
    source_file: str, rows: pd.DataFrame, settings: Settings, rules: BackgammonRules
) -> tuple[dict[str, pd.DataFrame], pd.DataFrame]:
    problems: list[pd.DataFrame] = []
    v = settings.values

    # 1. rows
    staged = stage_rows(rows)
    found = q.failures(sch.MatchRowChecks, staged)
    problems.append(q.from_failures(source_file, found, staged))
    bad = staged.loc[found["index"].unique()]
    ok = staged.drop(index=found["index"].unique())
    if ok.empty:
        lines = staged["line"]
        note = q.rows(source_file, [q.lines_label(lines)], [
            f"nothing in this log is posted: none of its {q.plural(len(lines), 'match line')} could be read (see the problems above)"
        ])
        return empty_tables("events", "players", "matches"), q.concat(*problems, note)
    ok = ok.assign(event_key=_keys(ok))

    # 2. events: one per (date, bracket)
    groups = ok.groupby("event_key").agg(event_date=("event_date", "first"), bracket=("bracket", "first")).reset_index()
    groups["rule_version"] = version_in_force(groups["event_date"], rules.versions)
    rejected: set = set()
    if bad["bracket"].isna().any():
        rejected |= set(groups["event_key"])
    rejected |= set(groups.loc[groups["bracket"].isin(set(bad.loc[bad["event_date"].isna(), "bracket"].dropna())), "event_key"])
    rejected |= set(_keys(bad.dropna(subset=["event_date", "bracket"])))
    no_version = groups[groups["rule_version"].isna()]
    if len(no_version):
        first = rules.versions["effective_from"].min()
        problems.append(q.rows(
            source_file,
            [q.lines_label(ok.loc[ok["event_key"] == k, "line"]) for k in no_version["event_key"]],
            [f"no rule version is in force on {d:%Y-%m-%d}; the first takes effect on {first:%Y-%m-%d}" for d in no_version["event_date"]],
        ))
        rejected |= set(no_version["event_key"])

    # 3. stated places
    stated, stated_problems, stated_reject = stated_places(source_file, settings, groups)
    problems.append(stated_problems)
    rejected |= set(groups["event_key"]) if stated_reject is None else stated_reject

    # 4. bracket structure (not of brackets with a rejected line: it would only echo that line)
    incomplete = set(rejected)
    app = appearances(ok)
    derive_keys = set(groups["event_key"]) - set(stated["event_key"])
    structure = stage_bracket(app, derive_keys)
    found = q.failures(sch.BracketChecks, structure)
    found = found[~structure.loc[found["index"], "event_key"].isin(incomplete).to_numpy()]
    problems.append(q.from_failures(source_file, found, structure))
    broken = set(structure.loc[found["index"].unique(), "event_key"]) | incomplete
    rejected |= broken

    # 5. players, places; the same checks as a results file
    placed = derive_players(app, groups, stated, rules)
    unknown_player = stated.merge(placed[["event_key", "player_key"]], how="left", indicator=True)
    unknown_player = unknown_player[unknown_player["_merge"] == "left_only"]
    problems.append(q.rows(
        source_file,
        ["line " + str(n) for n in unknown_player["place_line"]],
        [f"{p} has no match in bracket '{k.split('|')[1]}' of {k.split('|')[0]}; check the spelling of the name"
         for p, k in zip(unknown_player["player_raw"], unknown_player["event_key"])],
    ))
    rejected |= set(unknown_player["event_key"])
    # a bracket already rejected for its lines or structure would only repeat its problems here
    placed = placed[~placed["event_key"].isin(broken)]
    checked = player_rows.stage(
        placed[["event_key", "line", "location", "player_raw", "place_raw", "won_raw"]],
        groups.assign(rounds=groups["event_key"].map(app.groupby("event_key")["rounds"].max()))[
            ["event_key", "rounds", "rule_version"]
        ],
        rules,
    )
    found, rejected_players = player_rows.check(source_file, checked, rules)
    problems.append(rejected_players)
    rejected |= set(checked.loc[found["index"].unique(), "event_key"])

    # 6. what is posted, what is not
    summaries = []
    # one pass each: a loop of filters would be quadratic. A bracket whose every line was
    # rejected is named by those lines.
    keyed_bad = bad.dropna(subset=["event_date", "bracket"])
    lines_of = ok.groupby("event_key")["line"]
    bad_lines_of = keyed_bad.assign(event_key=_keys(keyed_bad)).groupby("event_key")["line"]
    for key in sorted(rejected):
        lines = lines_of.get_group(key) if key in lines_of.groups else (
            bad_lines_of.get_group(key) if key in bad_lines_of.groups else ok["line"].iloc[:0])
        date, brk = key.split("|")
        summaries.append((q.lines_label(lines), f"bracket '{brk}' of {date} not posted ({q.plural(len(lines), 'match line')}) "
                          "because of the problems reported for this log; correct them and send the log again"))
    problems.append(q.rows(source_file, [s[0] for s in summaries], [s[1] for s in summaries]))

    keep = groups[~groups["event_key"].isin(rejected)].copy()
    if keep.empty:
        return empty_tables("events", "players", "matches"), q.concat(*problems)
    tables: dict[str, pd.DataFrame] = {}
    keep["event_id"] = [event_id(v["club"], d, v["event"], b) for d, b in zip(keep["event_date"], keep["bracket"])]
    ids = keep.set_index("event_key")["event_id"]
    per_event = checked[checked["event_key"].isin(ids.index)]
    summary = per_event.groupby("event_key").agg(players=("players", "first"), rounds=("rounds", "first"))
    ok_kept = ok[ok["event_key"].isin(ids.index)]
    keep = keep.merge(summary, left_on="event_key", right_index=True)
    keep["location"] = keep["event_key"].map(ok_kept.groupby("event_key")["line"].agg(q.lines_label))
    tables["events"] = validate_frame(
        sch.Events,
        keep.assign(
            organisation=v["club"],
            event_name=v["event"],
            level=v["level"],
            method=v["method"],
            multiplier=pd.Series([v["multiplier"]] * len(keep), index=keep.index, dtype=object),
            source_file=source_file,
        )[list(sch.Events.to_schema().columns)].reset_index(drop=True)
    )
    tables["players"] = validate_frame(
        sch.Players,
        per_event.assign(event_id=per_event["event_key"].map(ids), source_file=source_file)[
            list(sch.Players.to_schema().columns)
        ].reset_index(drop=True)
    )
    names = app.drop_duplicates("player_key").set_index("player_key")["player"]
    tables["matches"] = validate_frame(
        sch.Matches,
        ok_kept.assign(
            event_id=ok_kept["event_key"].map(ids),
            winner=ok_kept["winner"].str.casefold().map(names),
            loser=ok_kept["loser"].str.casefold().map(names),
            source_file=source_file,
        )[list(sch.Matches.to_schema().columns)].reset_index(drop=True)
    )
    return tables, q.concat(*problems)

"""Parse the two documented input formats (docs/backgammon.md) into validated frames.

``parse_results(source_file, data)`` and ``parse_match_log(source_file, data)`` both return
``(tables, quarantine)``: ``tables`` maps ``"events"``, ``"players"`` (and, for a match log,
``"matches"``) to frames of the ``schemas.backgammon`` models; ``quarantine`` has the columns
``source_file, location, reason``. Bad input never raises: every rejected line is quarantined and
the rest is parsed where that is safe (an event whose settings are invalid posts nothing; a
match-log bracket with any rejected line posts nothing, because its places, rounds and players
depend on every match).
"""

from __future__ import annotations

import pandas as pd

from pipelines.core.validation import validate_frame
from schemas import backgammon as sch

from . import bracket, players, reading
from . import quarantine as q
from .frames import empty_tables
from .rules import BackgammonRules, load_rules
from .settings import MATCH_LOG, RESULTS, event_id, read_settings

RESULT_COLUMNS = ["player", "place", "matches_won"]
RESULT_ALIASES = {
    "name": "player",
    "member": "player",
    "member_id": "player",
    "player_id": "player",
    "place_label": "place",
    "wins": "matches_won",
    "won": "matches_won",
    "matches": "matches_won",
}


def _finish(quarantine: pd.DataFrame) -> pd.DataFrame:
    """Every problem once, in the order of the file (file and settings problems first)."""
    rows = q.concat(quarantine).drop_duplicates(ignore_index=True)
    first_line = pd.to_numeric(rows["location"].str.extract(r"(\d+)", expand=False), errors="coerce").fillna(0)
    order = first_line.sort_values(kind="stable").index
    return validate_frame(sch.Quarantine, rows.loc[order].reset_index(drop=True))


def _settings_and_rows(source_file: str, raw, kind, rules: BackgammonRules, organisation: str | None, *,
                       line_word: str, settings_word: str, no_rows: str):
    """(settings, rows, quarantine) of a read file (results or match log), or (None, None,
    quarantine) when none of its lines can post: no header or settings at all, invalid settings
    (each data line is then held with that reason), or no data line."""
    if raw.header_line is None and raw.settings.empty:
        return None, None, raw.quarantine
    settings = read_settings(raw, kind, rules, organisation)
    quarantine = q.concat(raw.quarantine, settings.quarantine)
    rows = raw.rows
    if raw.header_line is None:
        return None, None, quarantine
    if not settings.ok:
        if len(rows):
            quarantine = q.concat(quarantine, q.rows(
                source_file, [q.lines_label(rows["line"])],
                [f"{q.plural(len(rows), line_word)} not posted because {settings_word} are invalid (see the settings problems)"]))
        return None, None, quarantine
    if rows.empty:
        return None, None, q.concat(quarantine, q.rows(source_file, ["file"], [no_rows]))
    return settings, rows, quarantine


def parse_results(
    source_file: str,
    data: bytes,
    *,
    rules: BackgammonRules | None = None,
    organisation: str | None = None,
) -> tuple[dict[str, pd.DataFrame], pd.DataFrame]:
    """Parse a results file: ``# key: value`` settings, then ``player,place,matches_won`` rows.

    ``organisation`` (the inbox folder) fills a missing ``club`` setting and must match a given one.
    """
    rules = rules or load_rules()
    tables = empty_tables("events", "players")
    raw = reading.read(source_file, data, columns=RESULT_COLUMNS, column_aliases=RESULT_ALIASES, what="player")
    settings, rows, quarantine = _settings_and_rows(
        source_file, raw, RESULTS, rules, organisation, line_word="player line", settings_word="the event settings",
        no_rows="the table has no readable player lines; list one line per player")
    if settings is None:
        return tables, _finish(quarantine)

    v = settings.values
    key = event_id(v["club"], v["date"], v["event"], v["bracket"])
    event_keys = pd.DataFrame(
        {"event_key": [key], "rounds": [v["rounds"]], "rule_version": [v["rule_version"]],
         "extra_players": [len(raw.bad_lines)]}
    )
    staged = (
        rows.assign(
            event_key=key,
            location="line " + rows["line"].astype("str"),
            player_raw=reading.clean_text(rows["player"]),
            place_raw=reading.clean_text(rows["place"]),
            won_raw=reading.clean_text(rows["matches_won"]),
        )
        .pipe(players.stage, event_keys, rules)
    )
    found, rejected = players.check(source_file, staged, rules)
    accepted = staged.drop(index=found["index"].unique())
    quarantine = q.concat(quarantine, rejected)
    if accepted.empty:
        return tables, _finish(quarantine)

    settings_lines = list(settings.lines.values()) + [raw.header_line]
    tables["events"] = validate_frame(
        sch.Events,
        pd.DataFrame(
            {
                "event_id": [key],
                "organisation": [v["club"]],
                "event_date": [v["date"]],
                "event_name": [v["event"]],
                "bracket": [v["bracket"]],
                "level": [v["level"]],
                "method": [v["method"]],
                "multiplier": pd.Series([v["multiplier"]], dtype=object),
                "rounds": [v["rounds"]],
                "players": [int(staged["players"].iloc[0])],
                "source_file": [source_file],
                "location": [q.lines_label(settings_lines)],
            }
        )
    )
    tables["players"] = validate_frame(
        sch.Players,
        accepted.assign(event_id=accepted["event_key"], source_file=source_file)[
            list(sch.Players.to_schema().columns)
        ].reset_index(drop=True)
    )
    return tables, _finish(quarantine)


def parse_match_log(
    source_file: str,
    data: bytes,
    *,
    rules: BackgammonRules | None = None,
    organisation: str | None = None,
) -> tuple[dict[str, pd.DataFrame], pd.DataFrame]:
    """Parse a match log: settings, then ``date,bracket,round,winner,loser,match_length[,result]``.

    Each (date, bracket) is an event. Matches won, rounds and players are derived; places come
    from the last rounds of a single-elimination bracket unless ``# place:`` lines state them.
    """
    rules = rules or load_rules()
    tables = empty_tables("events", "players", "matches")
    raw = reading.read(
        source_file,
        data,
        columns=bracket.COLUMNS,
        optional_columns=bracket.OPTIONAL_COLUMNS,
        column_aliases=bracket.ALIASES,
        what="match",
    )
    settings, rows, quarantine = _settings_and_rows(
        source_file, raw, MATCH_LOG, rules, organisation, line_word="match line", settings_word="the log's settings",
        no_rows="the log has no match lines; log one line per match or bye")
    if settings is None:
        return tables, _finish(quarantine)

    derived, problems = bracket.derive(source_file, rows, settings, rules)
    tables.update(derived)
    return tables, _finish(q.concat(quarantine, problems))


def detect_format(data: bytes) -> str | None:
    """'results' or 'match_log', from the header line of the table; None when neither."""
    text, _ = reading.decode("", data)
    if text is None:
        return None
    header = next((ln for ln in reading.physical_lines(text) if ln.strip() and not ln.strip().startswith("#")), "")
    if len(header) > reading.MAX_LINE_CHARS:
        return None
    for delimiter in (",", ";", "\t"):
        cells = {reading.norm_key(c) for c in header.split(delimiter)}
        if set(bracket.COLUMNS) <= {bracket.ALIASES.get(c, c) for c in cells}:
            return "match_log"
        if set(RESULT_COLUMNS) <= {RESULT_ALIASES.get(c, c) for c in cells}:
            return "results"
    return None


def parse_file(
    source_file: str,
    data: bytes,
    *,
    rules: BackgammonRules | None = None,
    organisation: str | None = None,
) -> tuple[dict[str, pd.DataFrame], pd.DataFrame]:
    """Parse either format, chosen by the table's header line (see ``detect_format``)."""
    kind = detect_format(data)
    if kind == "match_log":
        return parse_match_log(source_file, data, rules=rules, organisation=organisation)
    if kind == "results":
        return parse_results(source_file, data, rules=rules, organisation=organisation)
    text, problems = reading.decode(source_file, data)
    if text is None:
        return empty_tables("events", "players"), _finish(problems)
    lines = reading.physical_lines(text)
    first = next((i for i, ln in enumerate(lines, start=1) if ln.strip() and not ln.strip().startswith("#")), None)
    header = lines[first - 1].strip() if first else ""
    reason = (
        "not a backgammon results file or match log: expected the header line "
        f"'{','.join(RESULT_COLUMNS)}' (results file) or '{','.join(bracket.COLUMNS)}' (match log); "
        + (f"found '{reading.show(header)}' on line {first}" if header else "found no table")
    )
    return empty_tables("events", "players"), _finish(q.rows(source_file, ["file"], [reason]))

"""Backgammon club master points as a rule system of the nightly run (pipelines/core/system.py).

What a club drops in ``inbox/<club>/`` (any sub-folders): one results file or match log per
tournament night (docs/backgammon.md). Per batch of new or corrected files of one club:

* each file is parsed and validated by the pure core (``parse_file``); rejected lines go to the
  quarantine with the text of the offending line(s) as ``record``;
* events (brackets) are checked against each other and against the ledger: an event id
  (``club/date/event-name/bracket``) posts once. A results file and a match log of the same
  tournament give the same id: the second one is quarantined, naming the file that posted it.
  On one night, a file that posted the event before (now corrected) keeps it, else the first
  file by path. A corrected file is not in conflict with its own earlier version;
* events dated after the run's date, or with a multiplier finer than the lake stores, are
  quarantined;
* awards (``compute_awards``) become AwardDraft lines (``club_mp``, season = the club's season of
  the event date: the calendar year by default), the events EventRecord rows (kind
  ``backgammon_tournament``), and the posted player results the lake table
  ``backgammon_results`` (``schemas.backgammon.BackgammonResult``).

Warehouse: ``backgammon_results`` (current file versions) and ``backgammon_standings`` (the
monthly points race, from the ledger). Publications and ``explain`` lines: ``publish.py``.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from pipelines.backgammon.awards import compute_awards
from pipelines.backgammon.frames import empty_tables
from pipelines.backgammon.parse import detect_format, parse_file
from pipelines.backgammon.quarantine import lines_label
from pipelines.backgammon.reading import lenient_text, physical_lines
from pipelines.backgammon.rules import BackgammonRules, load_rules
from pipelines.core.settings import SettingsError
from pipelines.core.system import RunContext, SourceFile, SystemBatch
from pipelines.core.validation import validate_frame
from schemas.backgammon import DENOMINATION, MULTIPLIER, MULTIPLIER_DECIMALS, BackgammonResult
from schemas.common import DATE, POINTS, empty_frame
from schemas.ledger import AwardDraft, EventRecord, QuarantineDraft

SYSTEM_NAME = "backgammon"
EVENT_KIND = "backgammon_tournament"
DEFAULT_SEASON_START = 1  # seasons are calendar years unless the club's settings say otherwise
KNOWN_OPTIONS: set[str] = set()  # the [options] table of a backgammon club: none yet
MULTIPLIER_LIMIT = 10 ** (12 - MULTIPLIER_DECIMALS)  # what decimal(12, 6) holds
RECORD_MAX_LINES = 12  # a quarantine record quotes at most this many lines of the file
RECORD_MAX_CHARS = 500  # ... and at most this much of each line
EXPECTED_CONTENT = ("a backgammon results file ('# key: value' settings, then the header 'player,place,matches_won' "
                    "and one line per player) or a match log (settings, then 'date,bracket,round,winner,loser,"
                    "match_length' and one line per match)")

_AWARD_COLUMNS = list(AwardDraft.to_schema().columns)
_EVENT_COLUMNS = [c for c in EventRecord.to_schema().columns if c != "run_id"]
_RESULT_COLUMNS = list(BackgammonResult.to_schema().columns)
_QUARANTINE_COLUMNS = list(QuarantineDraft.to_schema().columns)


# --------------------------------------------------------------------------- settings


def season_start_month(org: pd.Series) -> int:
    value = org.get("season_start_month")
    return DEFAULT_SEASON_START if value is None or pd.isna(value) else int(value)


def season_label(dates: pd.Series, start_month: int) -> pd.Series:
    """The season of each date: '2025' for a calendar-year season (start month 1); '2025-26' for a
    season from September 2025 to August 2026 (start month 9)."""
    d = pd.to_datetime(dates.astype("string"))
    year = d.dt.year - (d.dt.month < start_month).astype("int64")
    label = year.astype("string")
    if start_month != 1:
        label = label + "-" + ((year + 1) % 100).astype("string").str.zfill(2)
    return label.astype("string")


def _check_options(org: pd.Series) -> None:
    options = json.loads(org.get("options") or "{}")
    unknown = set(options) - KNOWN_OPTIONS
    if unknown:
        raise SettingsError(
            f"{org['settings_file']}: unknown [options] for a backgammon club: {', '.join(sorted(unknown))} "
            "(a backgammon club has no options yet)"
        )


# --------------------------------------------------------------------------- helpers


def _concat(frames: list[pd.DataFrame], empty: pd.DataFrame) -> pd.DataFrame:
    frames = [f for f in frames if len(f)]
    return pd.concat(frames, ignore_index=True) if frames else empty


def _line_numbers(locations: pd.Series) -> pd.DataFrame:
    """(row, line) for every line a location names: 'line 7', 'lines 9, 14', 'lines 10–12, 15'."""
    named = locations[locations.str.startswith("line").fillna(False).astype(bool)]
    parts = named.str.extractall(r"(\d+)(?:\s*[–-]\s*(\d+))?")
    if parts.empty:
        return pd.DataFrame({"row": pd.Series(dtype="int64"), "line": pd.Series(dtype="int64")})
    start = parts[0].astype("int64").to_numpy()
    end = parts[1].fillna(parts[0]).astype("int64").to_numpy()
    counts = np.maximum(end - start + 1, 1)
    rows = np.repeat(parts.index.get_level_values(0).to_numpy(), counts)
    first = np.repeat(start, counts)
    offset = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
    return pd.DataFrame({"row": rows, "line": first + offset})


def _file_lines(source_file: str, data: bytes) -> pd.DataFrame:
    """The file's physical lines (numbered as the parser numbers them), each cut to
    RECORD_MAX_CHARS for quoting."""
    text = lenient_text(data)
    lines = [ln if len(ln) <= RECORD_MAX_CHARS else ln[:RECORD_MAX_CHARS] + "…" for ln in physical_lines(text)]
    return pd.DataFrame({"source_file": source_file, "line": np.arange(1, len(lines) + 1), "text": lines})


def _quarantine(problems: pd.DataFrame, lines: pd.DataFrame) -> pd.DataFrame:
    """QuarantineDraft rows; `record` quotes the line(s) the location names (None for the whole
    file or the settings as a whole)."""
    if problems.empty:
        return empty_frame(QuarantineDraft)
    problems = problems.reset_index(drop=True)
    named = _line_numbers(problems["location"]).assign(source_file=lambda f: problems["source_file"].to_numpy()[f["row"]])
    quoted = named.merge(lines, on=["source_file", "line"], how="inner").sort_values(["row", "line"])
    quoted = quoted[quoted.groupby("row").cumcount() < RECORD_MAX_LINES]
    record = quoted.groupby("row")["text"].agg("\n".join)
    location = problems["location"].mask(problems["location"] == "file", "whole file")
    return pd.DataFrame(
        {
            "source_file": problems["source_file"],
            "location": location,
            "reason": problems["reason"],
            "record": record.reindex(problems.index).astype("string"),
        }
    )[_QUARANTINE_COLUMNS]


# --------------------------------------------------------------------------- the system


class BackgammonSystem:
    # its events are published inside period pages (the site links a player's lines to them)
    publishes_periods = True
    name = SYSTEM_NAME
    accepted_suffixes = (".csv", ".txt", ".tsv")
    lake_tables = {"backgammon_results": BackgammonResult}
    warehouse_sql = ["warehouse/backgammon_results", "warehouse/backgammon_standings"]
    expected_content = EXPECTED_CONTENT

    def isolation_groups(self, sources: list[SourceFile], ctx: RunContext | None = None) -> list[list[SourceFile]]:
        """Files that must be scored together: files are read one by one, but two files of one
        night holding the same event (a results file and a match log of one tournament, or a
        copy) are checked against each other so that the event posts once. So files sharing an
        event id form one group (transitively); every other file stands alone. A file that
        cannot be parsed at all stands alone (its retry will quarantine it). The files are read
        with the run's rule tables (the office's level aliases), the bundled ones without a run."""
        rules = self.rules(ctx) if ctx is not None else load_rules()
        ids: list[set[str]] = []
        for source in sources:
            try:
                tables, _ = parse_file(source.source_file, source.read(), rules=rules, organisation=source.organisation)
                ids.append(set(tables["events"]["event_id"]))
            except Exception:  # noqa: BLE001 - grouping never fails; the retry reports the error
                ids.append(set())
        parent = list(range(len(sources)))

        def find(i: int) -> int:
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        owner: dict[str, int] = {}
        for i, events in enumerate(ids):
            for e in events:
                if e in owner:
                    parent[find(i)] = find(owner[e])
                else:
                    owner[e] = i
        groups: dict[int, list[SourceFile]] = {}
        for i, source in enumerate(sources):
            groups.setdefault(find(i), []).append(source)
        return list(groups.values())

    def check_settings(self, data_dir: Path, org: pd.Series) -> None:
        """The club's [options] and the rule tables, checked before the run reads anything."""
        _check_options(org)
        load_rules(Path(data_dir) / "rules" / "backgammon")

    def rules(self, ctx: RunContext) -> BackgammonRules:
        return load_rules(Path(ctx.data_dir) / "rules" / "backgammon")

    def process(self, ctx: RunContext, org: pd.Series, sources: list[SourceFile], active: pd.DataFrame,
                superseded: set[str]) -> SystemBatch:
        _check_options(org)
        return _Batch(ctx, org, sources, active, superseded, self.rules(ctx)).run()

    # -- warehouse, publications, explain: see publish.py ---------------------------------------
    def warehouse_tables(self, ctx: RunContext, org: pd.Series) -> dict[str, pd.DataFrame]:
        """`backgammon_clubs`: each club's name and the first month of its season."""
        return {
            "backgammon_clubs": pd.DataFrame(
                {
                    "organisation": [str(org["organisation"])],
                    "club_name": [str(org["display_name"])],
                    "season_start_month": pd.Series([season_start_month(org)], dtype="int64"),
                }
            )
        }

    def publish(self, ctx, con, org, affected_months: set[str], out_dir: Path) -> list[Path]:
        from pipelines.backgammon.publish import publish_points_race

        return publish_points_race(con, org, affected_months, out_dir, ctx.data_dir)

    def explain(self, con, player_id: str, event_id: str | None) -> list[str]:
        from pipelines.backgammon.publish import explain_points_race

        return explain_points_race(con, player_id)


SYSTEM = BackgammonSystem()


class _Batch:
    """One night's new or corrected files of one backgammon club."""

    def __init__(self, ctx: RunContext, org: pd.Series, sources: list[SourceFile], active: pd.DataFrame,
                 superseded: set[str], rules: BackgammonRules):
        self.ctx, self.org, self.sources, self.active, self.superseded, self.rules = ctx, org, sources, active, superseded, rules
        self.organisation = str(org["organisation"])
        self.sha_of = {s.source_file: s.sha256 for s in sources}

    def run(self) -> SystemBatch:
        events, players, problems, lines = self._parse()
        events, rejected = self._check_events(events, players)
        problems = _concat([problems, rejected], problems)
        players = players.merge(events[["event_id", "source_file"]], on=["event_id", "source_file"], how="inner")

        if len(events):
            awards = compute_awards(events, players, self.rules)
            awards = awards.assign(season=season_label(awards["event_date"], season_start_month(self.org)))
        else:
            awards = None
        quarantine = _quarantine(problems, lines)
        posted = players.groupby("source_file").size()
        rejected_rows = quarantine[quarantine["location"] != "whole file"].groupby("source_file").size()
        records = pd.DataFrame({"source_file": [s.source_file for s in self.sources]}).assign(
            records_posted=lambda f: f["source_file"].map(posted).fillna(0).astype("int64"),
            records_quarantined=lambda f: f["source_file"].map(rejected_rows).fillna(0).astype("int64"),
        )
        return SystemBatch(
            events=self._event_records(events),
            awards=self._award_drafts(awards),
            quarantine=quarantine,
            records=records,
            tables={"backgammon_results": self._results(awards, events)},
        )

    # -- parsing -----------------------------------------------------------------------------------
    def _parse(self):
        events, players, problems, lines = [], [], [], []
        for source in self.sources:  # per file: the parsers read one file's lines at a time
            data = source.read()
            tables, quarantine = parse_file(source.source_file, data, rules=self.rules, organisation=self.organisation)
            if tables["events"].empty and quarantine.empty:
                quarantine = pd.DataFrame({"source_file": [source.source_file], "location": ["file"], "reason": [
                    f"no results found: expected {EXPECTED_CONTENT}"]})
            events.append(tables["events"].assign(input_format=detect_format(data)))
            players.append(tables["players"])
            problems.append(quarantine)
            lines.append(_file_lines(source.source_file, data))
        empty = empty_tables("events", "players")
        return (
            _concat(events, empty["events"].assign(input_format=pd.Series(dtype="str"))),
            _concat(players, empty["players"]),
            _concat(problems, pd.DataFrame(columns=["source_file", "location", "reason"])),
            _concat(lines, pd.DataFrame(columns=["source_file", "line", "text"])),
        )

    # -- event checks --------------------------------------------------------------------------------
    def _prior_events(self, months: set[str]) -> pd.DataFrame:
        """Events of this club in the ledger: every version (for who posted an id before), and the
        ones standing now (active file versions whose path is not corrected tonight)."""
        prior = self.ctx.lake.read("events", EventRecord, self.organisation, months, where="system = ?", params=[SYSTEM_NAME])
        active = self.active[["source_file", "source_sha256"]].astype("string")
        standing = prior.astype({"source_file": "string", "source_sha256": "string"}).merge(
            active, on=["source_file", "source_sha256"], how="inner"
        )
        standing = standing[~standing["source_file"].isin(self.superseded)]
        return prior, standing

    def _check_events(self, events: pd.DataFrame, players: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
        """Keep the events that may post; quarantine rows for the others (one row per event)."""
        if events.empty:
            return events, pd.DataFrame(columns=["source_file", "location", "reason"])
        events = events.reset_index(drop=True)
        months = set(events["event_date"].dt.strftime("%Y-%m"))
        prior, standing = self._prior_events(months)
        when = events["event_date"].dt.strftime("%Y-%m-%d")
        what = events["event_name"] + " (" + events["bracket"] + ", " + when + ")"
        reason = pd.Series(pd.NA, index=events.index, dtype="string")

        # 1. a date after the run's date is a typo (results are sent after the tournament)
        future = events["event_date"].dt.date > self.ctx.as_of
        reason = reason.mask(
            future & reason.isna(),
            "the tournament's date " + when + f" is after the date of this run ({self.ctx.as_of:%Y-%m-%d}); "
            "check the date setting (year-month-day) and send the file again",
        )
        # 2. the lake keeps multipliers with at most MULTIPLIER_DECIMALS decimals, below MULTIPLIER_LIMIT
        too_fine = events["multiplier"].map(lambda m: m.as_tuple().exponent < -MULTIPLIER_DECIMALS).astype(bool)
        too_large = events["multiplier"].map(lambda m: m >= MULTIPLIER_LIMIT).astype(bool)
        reason = reason.mask(
            (too_fine | too_large) & reason.isna(),
            "MP bonus multiplier " + events["multiplier"].astype("str")
            + f" is not a number below {MULTIPLIER_LIMIT} with at most {MULTIPLIER_DECIMALS} decimals "
            "(e.g. 1.5 or 1.333333); correct the multiplier setting and send the file again",
        )
        # 3. posted before from another file that still stands
        earlier = standing.drop_duplicates("event_id").set_index("event_id")
        posted_from = events["event_id"].map(earlier["source_file"]).astype("string")
        posted_at = events["event_id"].map(earlier["location"]).astype("string")
        clash = posted_from.notna() & reason.isna()
        reason = reason.mask(
            clash,
            "event " + events["event_id"] + ": " + what + " was already posted from " + posted_from + " ("
            + posted_at + "); a tournament posts once, whether it comes as a results file or as a match log. "
            "Nothing of this event was posted from this file. To change the posted results, send the corrected "
            "file under the name " + posted_from + "; if this is another tournament or bracket, give it its own "
            "event name or bracket",
        )
        # 4. the same event in two files tonight: the file that posted it before keeps it, else
        #    the first by path
        owner = prior.sort_values("run_id").drop_duplicates("event_id", keep="last").set_index("event_id")["source_file"]
        candidates = events[reason.isna()]
        owned = (candidates["event_id"].map(owner).astype("string") == candidates["source_file"]).fillna(False)
        order = candidates.assign(_not_owner=(~owned.astype(bool)).astype("int64")).sort_values(
            ["event_id", "_not_owner", "source_file"]
        )
        keeper = order.drop_duplicates("event_id").set_index("event_id")["source_file"]
        kept_by = events["event_id"].map(keeper).astype("string")
        twice = reason.isna() & kept_by.notna() & (kept_by != events["source_file"])
        reason = reason.mask(
            twice,
            "event " + events["event_id"] + ": " + what + " is also in " + kept_by + ", which arrived the same "
            "night and posts it; a tournament posts once, whether it comes as a results file or as a match log. "
            "Nothing of this event was posted from this file; if this is another tournament or bracket, give it "
            "its own event name or bracket and send the file again",
        )

        bad = events[reason.notna()]
        if bad.empty:
            return events, pd.DataFrame(columns=["source_file", "location", "reason"])
        # where: the event's settings or match lines, and its player lines
        player_locs = players.merge(bad[["event_id", "source_file"]], on=["event_id", "source_file"])
        spots = pd.concat(
            [bad[["event_id", "source_file", "location"]], player_locs[["event_id", "source_file", "location"]]],
            ignore_index=True,
        )
        numbered = _line_numbers(spots["location"].reset_index(drop=True))
        numbered = numbered.assign(event_id=spots["event_id"].to_numpy()[numbered["row"]],
                                   source_file=spots["source_file"].to_numpy()[numbered["row"]])
        label = numbered.groupby(["event_id", "source_file"])["line"].agg(lines_label)
        keys = pd.MultiIndex.from_frame(bad[["event_id", "source_file"]])
        rows = pd.DataFrame(
            {
                "source_file": bad["source_file"].to_numpy(),
                "location": label.reindex(keys).fillna("whole file").to_numpy(),
                "reason": reason[bad.index].to_numpy(),
            }
        )
        return events[reason.isna()].reset_index(drop=True), rows

    # -- output frames ---------------------------------------------------------------------------------
    def _event_records(self, events: pd.DataFrame) -> pd.DataFrame:
        if events.empty:
            return empty_frame(EventRecord).drop(columns=["run_id"])
        return pd.DataFrame(
            {
                "event_id": events["event_id"],
                "organisation": events["organisation"],
                "system": SYSTEM_NAME,
                "event_date": events["event_date"].dt.date.astype(DATE),
                "kind": EVENT_KIND,
                "source_file": events["source_file"],
                "source_sha256": events["source_file"].map(self.sha_of),
                "location": events["location"],
            }
        )[_EVENT_COLUMNS]

    def _award_drafts(self, awards: pd.DataFrame | None) -> pd.DataFrame:
        if awards is None or awards.empty:
            return empty_frame(AwardDraft)
        drafts = pd.DataFrame(
            {
                "organisation": awards["organisation"],
                "system": SYSTEM_NAME,
                "event_id": awards["event_id"],
                "event_date": awards["event_date"].dt.date.astype(DATE),
                "player_id": awards["player_id"],
                "denomination": DENOMINATION,
                "points": pd.array(awards["points"].tolist(), dtype=POINTS),
                "rule_version": awards["rule_version"],
                "basis": awards["basis"],
                "season": awards["season"],
                "source_file": awards["source_file"],
                "source_sha256": awards["source_file"].map(self.sha_of),
                "location": awards["location"],
            }
        )[_AWARD_COLUMNS]
        return validate_frame(AwardDraft, drafts)

    def _results(self, awards: pd.DataFrame | None, events: pd.DataFrame) -> pd.DataFrame:
        if awards is None or awards.empty:
            return empty_frame(BackgammonResult)
        settings = events[["event_id", "level", "method", "multiplier", "rounds", "players", "input_format"]]
        rows = awards.merge(settings, on="event_id", how="inner", validate="many_to_one")
        return rows.assign(
            event_date=rows["event_date"].dt.date.astype(DATE),
            multiplier=pd.array(rows["multiplier"].tolist(), dtype=MULTIPLIER),
            points=pd.array(rows["points"].tolist(), dtype=POINTS),
            source_sha256=rows["source_file"].map(self.sha_of),
            run_id=self.ctx.run_id,
        )[_RESULT_COLUMNS]

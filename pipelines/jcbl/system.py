"""JCBL masterpoints as a rule system of the nightly run (the contract: pipelines/core/system.py).

What an office drops in ``inbox/<organisation>/`` (docs/jcbl.md, "The inbox and the nightly run"):

    <event>.event.txt              the event settings (date, kind, class, strats ...)
    <event>.standings.csv          the final standings (rank, entrant, players, scores), or instead
    <event>.pbn / <event>.xml / <event>.travellers.csv   the travellers (PBN, USEBIO, bridge CSV),
                                   scored by the bridge functions (pipelines/jcbl/travellers.py)
    opening_balances.csv           points players brought when they joined (also <name>.opening_balances.csv)
    members.csv                    the member register (member_id, name), in the organisation folder: the
                                   names the pages show; a new register replaces the previous one

An event is a PAIR of files that may arrive on different nights, so:

* The results file (standings or travellers) is the unit of posting; below, "standings file"
  stands for either. An event has one results file: a second one in the inbox is quarantined.
* The standings file is the unit of posting. Every award line, the event record and the
  ``jcbl_standings`` rows of an event carry the standings file's path and content hash. A
  corrected standings file is therefore an ordinary correction: the run reverses the lines of
  that path and this module posts the new ones (with the event settings read from the inbox).
* The event id is the path of the pair without its suffix: ``jcbl-tokyo/2024-06-16-stf``.
* Whichever file of the pair arrives, the other one is read from the inbox, where it stays after
  being processed: standings arriving after their event file are posted that night; an event file
  arriving after its standings posts the standings that were waiting. A file whose partner is not
  in the inbox yet is quarantined with "waiting for <the other file>"; nothing needs re-sending
  once the partner arrives.
* A corrected event file whose standings are already posted: if the corrected settings give the
  same awards (a new name, say), nothing changes. Otherwise it is quarantined with what to do
  (send the standings file again with any change), because the run reverses lines only of the
  path that was corrected, and the lines belong to the standings path. (Reversing them here would
  need a core change; see the report of issue 4.)

Strat holdings as of an event date: every JCBL award line of the organisation dated before it
(reversals included; lines of files corrected this night left out), the lines of this night's
earlier events, and the opening balances dated on or before it. An event posted late does not
change the strats of events already posted (posted history is never rewritten silently).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path, PurePosixPath

import pandas as pd

from pipelines.core import ledger
from pipelines.core.inbox import IGNORED_PREFIXES, InboxFile, inbox_root, read_partner
from pipelines.core.processing import held_for_event_file
from pipelines.core.system import RunContext, SourceFile, SystemBatch
from pipelines.jcbl.awards import aggregate_awards, checked_event, components_of, winning_vp
from pipelines.jcbl.parse import MAX_MATCHES, REGISTER_NAME, holdings_as_of, parse_event, parse_members, parse_opening_balances, parse_standings
from pipelines.jcbl.rules import JcblRules, load_rules
from pipelines.jcbl.travellers import (TRAVELLER_SUFFIXES, is_traveller_file, load_traveller_vp_scales, read_travellers,
                                       standings_from_travellers)
from schemas.common import DATE, INT, POINTS, TEXT, empty_frame
from schemas.jcbl import LAKE_DECIMALS, PERCENT, VP, JcblStanding, MemberFrame
from schemas.ledger import AwardDraft, AwardLine, EventRecord, QuarantineDraft

SYSTEM_NAME = "jcbl"
EVENT_SUFFIX = ".event.txt"
STANDINGS_SUFFIX = ".standings.csv"
OPENING_NAME = "opening_balances.csv"
DEFAULT_SEASON_START = 4  # April–March
KNOWN_OPTIONS: set[str] = set()  # the [options] table of a JCBL organisation: none yet
POINTS_LIMIT = Decimal(10) ** 10  # what decimal(12, 2) holds
EXPECTED_CONTENT = ("JCBL files: an event file <event>.event.txt ('date: 2024-06-02', 'kind: weekly_pairs' ...), "
                    "its standings <event>.standings.csv (header 'rank,entrant,players' and one line per entrant) or "
                    "travellers (.pbn, .xml, .travellers.csv), or opening_balances.csv (player_id,as_of,rp,bp), or the member register members.csv (member_id,name)")

_AWARD_COLUMNS = list(AwardDraft.to_schema().columns)
_EVENT_COLUMNS = [c for c in EventRecord.to_schema().columns if c != "run_id"]
_STANDING_COLUMNS = list(JcblStanding.to_schema().columns)


# --------------------------------------------------------------------------- file names


RESULT_SUFFIXES = (STANDINGS_SUFFIX,) + TRAVELLER_SUFFIXES  # an event's results: one of these


def role_of(source_file: str) -> str | None:
    """'event', 'standings', 'travellers', 'opening', 'register' or None (not a JCBL file name)."""
    name = PurePosixPath(source_file).name.lower()
    if name.endswith(EVENT_SUFFIX) and len(name) > len(EVENT_SUFFIX):
        return "event"
    if name.endswith(STANDINGS_SUFFIX) and len(name) > len(STANDINGS_SUFFIX):
        return "standings"
    if is_traveller_file(source_file):
        return "travellers"
    if name == OPENING_NAME or name.endswith("." + OPENING_NAME):
        return "opening"
    if name == REGISTER_NAME:
        return "register"
    return None


def event_key(source_file: str) -> str:
    """The event id: the path of an event, standings or traveller file without its suffix."""
    name = source_file.lower()
    suffix = next(s for s in (EVENT_SUFFIX,) + RESULT_SUFFIXES if name.endswith(s))
    return source_file[: -len(suffix)]


def season_label(dates: pd.Series, start_month: int) -> pd.Series:
    """Balance season of each date: '2024-25' for April 2024 – March 2025 (start month 4);
    a season starting in January is labelled by its year ('2024')."""
    d = pd.to_datetime(dates.astype("string"))
    year = d.dt.year - (d.dt.month < start_month).astype(int)
    if start_month == 1:
        return year.astype(str)
    return year.astype(str) + "-" + ((year + 1) % 100).astype(str).str.zfill(2)


def _start_month(org: pd.Series) -> int:
    value = org.get("season_start_month")
    return DEFAULT_SEASON_START if value is None or pd.isna(value) else int(value)


def _check_options(org: pd.Series) -> None:
    options = json.loads(org.get("options") or "{}")
    unknown = set(options) - KNOWN_OPTIONS
    if unknown:
        from pipelines.core.settings import SettingsError

        raise SettingsError(f"{org['settings_file']}: unknown [options] for a JCBL organisation: {', '.join(sorted(unknown))}")


# --------------------------------------------------------------------------- inbox look-ups


@dataclass
class _Unit:
    key: str
    event: InboxFile | None = None
    standings: InboxFile | None = None  # the results file: <key>.standings.csv or a traveller file
    missing: str = ""  # why a partner could not be used
    others: tuple = ()  # further results files of the same event (a conflict)
    records: int = 0  # records of the results file (standings lines or traveller lines)

    @property
    def travellers(self) -> bool:
        return self.standings is not None and role_of(self.standings.source_file) == "travellers"


# --------------------------------------------------------------------------- the system


class JcblSystem:
    name = SYSTEM_NAME
    accepted_suffixes = (".txt", ".csv", ".pbn", ".xml")
    lake_tables = {"jcbl_standings": JcblStanding}
    warehouse_sql = ["warehouse/jcbl_standings", "warehouse/jcbl_masterpoints"]
    expected_content = EXPECTED_CONTENT

    def isolation_groups(self, sources: list[SourceFile], ctx: RunContext | None = None) -> list[list[SourceFile]]:
        """Files that must be scored together: the event file and the results file(s) of one
        event (its key, case-insensitive: the partner is found that way in the inbox). Opening
        balances and other files stand alone (every opening-balance file of the organisation is
        read from the inbox whatever the group). Groups keep the order of ``sources``.

        Scored alone, an event's strat holdings miss the awards of the same night's earlier
        events of other groups; the core retries groups only after a batch failed."""
        groups: dict[str, list[SourceFile]] = {}
        for s in sources:
            role = role_of(s.source_file)
            key = ("event:" + event_key(s.source_file).lower()) if role in ("event", "standings", "travellers") \
                else ("file:" + s.source_file)
            groups.setdefault(key, []).append(s)
        return list(groups.values())

    def check_settings(self, data_dir: Path, org: pd.Series) -> None:
        """The organisation's [options] and the rule tables, checked before the run reads anything."""
        _check_options(org)
        load_rules(Path(data_dir) / "rules" / "jcbl")
        load_traveller_vp_scales(Path(data_dir) / "rules" / "jcbl")

    def rules(self, ctx: RunContext) -> JcblRules:
        return load_rules(Path(ctx.data_dir) / "rules" / "jcbl")

    def process(self, ctx: RunContext, org: pd.Series, sources: list[SourceFile], active: pd.DataFrame,
                superseded: set[str]) -> SystemBatch:
        from pipelines.bridge.rules import rules_from

        with rules_from(ctx.data_dir):  # travellers scored with the office's bridge tables
            return _Batch(ctx, org, sources, superseded, self.rules(ctx)).run()

    # -- warehouse, publications, explain: see publish.py ---------------------------------------
    def warehouse_tables(self, ctx: RunContext, org: pd.Series) -> dict[str, pd.DataFrame]:
        kinds = self.rules(ctx).tables["event_kinds"]
        return {"jcbl_event_kinds": kinds[["rule_version", "kind", "label", "description"]].astype(str).reset_index(drop=True),
                "jcbl_members": members_table(ctx, org)}

    def publish(self, ctx, con, org, affected_months: set[str], out_dir: Path) -> list[Path]:
        from pipelines.jcbl.publish import publish_events, register_changed

        # a new register changes the names on every page, whatever month was posted tonight
        return publish_events(con, org, affected_months, out_dir, every_event=register_changed(con, org["organisation"]))

    def player_names(self, con, org) -> pd.DataFrame:
        """Names beside member ids on the site's index and player pages (the member register)."""
        from pipelines.core.sql import fetch

        return fetch(con, "select member_id as player_id, name from jcbl_members where organisation = ?", [org["organisation"]])

    def names_changed(self, con, org) -> bool:
        """The site renders every player page (and earlier season's page) again the night a new
        register arrives: the names on them change (a page is written only when its bytes do)."""
        from pipelines.jcbl.publish import register_changed

        return register_changed(con, org["organisation"])

    def explain(self, con, player_id: str, event_id: str | None) -> list[str]:
        from pipelines.jcbl.publish import explain_player

        return explain_player(con, player_id, event_id)


SYSTEM = JcblSystem()


def members_table(ctx: RunContext, org: pd.Series) -> pd.DataFrame:
    """The warehouse table jcbl_members: the good lines of the organisation's register in the
    inbox (its bad lines were quarantined the night it arrived), as the pages show them."""
    organisation = org["organisation"]
    members = pd.DataFrame(columns=list(MemberFrame.to_schema().columns))
    f = read_partner(Path(ctx.inbox), f"{organisation}/{REGISTER_NAME}") if ctx.inbox is not None else None
    if f is not None:
        members = parse_members(f.source_file, f.data, organisation)[0]["members"]
    return members.astype(str).reset_index(drop=True)


class _Batch:
    """One night's new or corrected files of one JCBL organisation."""

    def __init__(self, ctx: RunContext, org: pd.Series, sources: list[SourceFile], superseded: set[str], rules: JcblRules):
        _check_options(org)
        self.ctx, self.org, self.sources, self.superseded, self.rules = ctx, org, sources, superseded, rules
        self.organisation = org["organisation"]
        self.start_month = _start_month(org)
        self.root = inbox_root(ctx, sources[0]) if sources else Path(".")
        self.quarantine: list[tuple[str, str, str]] = []
        self.posted: dict[str, int] = {}  # batch source_file → records posted
        self.awards: list[pd.DataFrame] = []
        self.events: list[pd.DataFrame] = []
        self.standings: list[pd.DataFrame] = []
        self._history: pd.DataFrame | None = None

    # -- helpers ---------------------------------------------------------------------------------
    def _reject(self, source_file: str, location: str, reason: str) -> None:
        self.quarantine.append((source_file, location, reason))

    def _reject_frame(self, frame: pd.DataFrame) -> None:
        self.quarantine.extend(zip(frame["source_file"], frame["location"], frame["reason"]))

    def _hold(self, unit: _Unit, reason: str) -> None:
        """A 'whole file' line for each file of the unit that arrived tonight."""
        for f in (unit.event, unit.standings):
            if f is not None and f.in_batch:
                self._reject(f.source_file, "whole file", reason)

    # -- the night's work --------------------------------------------------------------------------
    def run(self) -> SystemBatch:
        batch_files = {"event": [], "standings": [], "travellers": [], "opening": [], "register": []}
        for s in self.sources:
            role = role_of(s.source_file)
            if role is None:
                self._reject(s.source_file, "whole file",
                             f"not a JCBL file name: expected <event>{EVENT_SUFFIX} (event settings), <event>{STANDINGS_SUFFIX} "
                             f"(final standings), <event>.pbn, <event>.xml or <event>.travellers.csv (travellers instead of "
                             f"standings), {OPENING_NAME} (opening balances) or {REGISTER_NAME} (the member register), found {PurePosixPath(s.source_file).name!r}; "
                             "see docs/jcbl.md. The file waits in the inbox; rename it to be read")
                continue
            batch_files[role].append(InboxFile(s.source_file, s.path, s.sha256, s.read(), in_batch=True))

        self.openings = self._opening_balances(batch_files["opening"])
        self._register(batch_files["register"])
        units = self._units(batch_files["event"], batch_files["standings"] + batch_files["travellers"])
        ready = [r for r in (self._parse(u) for u in units) if r is not None]
        for unit, event, standings in sorted(ready, key=lambda r: (r[1]["event"]["event_date"].iloc[0], r[0].key)):
            self._score(unit, event, standings)
        return self._result()

    def _opening_balances(self, batch: list[InboxFile]) -> pd.DataFrame:
        """Every opening-balance file of the organisation (tonight's ones report their problems)."""
        names = {f.source_file for f in batch}
        files = list(batch)
        org_dir = self.root / self.organisation
        if org_dir.is_dir():
            for path in sorted(org_dir.rglob("*")):
                rel = path.relative_to(self.root).as_posix()
                if (path.is_file() and not path.is_symlink() and role_of(rel) == "opening" and rel not in names
                        and not any(p.startswith(IGNORED_PREFIXES) for p in PurePosixPath(rel).parts)):
                    files.append(InboxFile(rel, path, "", path.read_bytes(), in_batch=False))
        frames = []
        for f in sorted(files, key=lambda f: f.source_file):
            parsed, problems = parse_opening_balances(f.source_file, f.data, self.organisation, as_of=self.ctx.as_of)
            frame = parsed["opening_balances"]
            if f.in_batch:
                self._reject_frame(problems)
            frames.append(frame)
        if not frames:
            return None
        allp = pd.concat(frames, ignore_index=True)
        dup = allp.duplicated("player_id", keep="first")
        first = allp[~dup].set_index("player_id")
        for row in allp[dup].itertuples():
            if row.source_file in names:
                other = first.loc[row.player_id]
                self._reject(row.source_file, row.location,
                             f"player {row.player_id} already has an opening balance in {other['source_file']} {other['location']}; "
                             "a player has one opening balance: remove one of the two lines")
        kept = allp[~dup].reset_index(drop=True)
        accepted = kept[kept["source_file"].isin(names)].groupby("source_file").size()
        for name in names:
            self.posted[name] = int(accepted.get(name, 0))
        return kept

    def _register(self, batch: list[InboxFile]) -> None:
        """Tonight's member register: its bad lines are quarantined, its members counted as
        posted. It posts no ledger lines and scores nothing: the pages read it (jcbl_members)."""
        for f in batch:
            if PurePosixPath(f.source_file).parent.as_posix() != self.organisation:
                self._reject(f.source_file, "whole file",
                             f"the member register belongs in the organisation folder: {self.organisation}/{REGISTER_NAME} "
                             "(one register per organisation); this file waits in the inbox and is not read")
                continue
            parsed, problems = parse_members(f.source_file, f.data, self.organisation)
            self._reject_frame(problems)
            self.posted[f.source_file] = len(parsed["members"])

    def _units(self, events: list[InboxFile], standings: list[InboxFile]) -> list[_Unit]:
        units: dict[str, _Unit] = {}
        batch_results: dict[str, list[InboxFile]] = {}
        for f in standings:
            batch_results.setdefault(event_key(f.source_file), []).append(f)
            units.setdefault(event_key(f.source_file), _Unit(event_key(f.source_file)))
        for f in events:
            units.setdefault(event_key(f.source_file), _Unit(event_key(f.source_file))).event = f
        for unit in units.values():
            if unit.event is None:
                unit.event = read_partner(self.root, unit.key + EVENT_SUFFIX)
            # every results file of the event: tonight's, and the others in the inbox
            found = {f.source_file: f for f in batch_results.get(unit.key, [])}
            for suffix in RESULT_SUFFIXES:
                f = read_partner(self.root, unit.key + suffix)
                if f is not None and f.source_file not in found:
                    if f.source_file in self.ctx.duplicate_paths(self.organisation):
                        unit.missing = (f"the results file {f.source_file} has the same content as another file that is posted (tonight or earlier), "
                                        "so it was not read (the same content under two names posts once); if this is a "
                                        "different event, send its own results")
                        continue
                    found[f.source_file] = f
            files = sorted(found.values(), key=lambda f: (not f.in_batch, f.source_file))
            unit.standings = files[0] if files else None
            unit.others = tuple(files[1:])
        return [units[k] for k in sorted(units)]

    def _parse(self, unit: _Unit):
        """Parse both files of a unit: (unit, event frames, standings frame), or None when held."""
        if unit.standings is None:
            expected = unit.key + STANDINGS_SUFFIX
            self._hold(unit, unit.missing or (
                f"waiting for the standings file {expected} (rank, entrant, players ...; see docs/jcbl.md) or the "
                f"travellers {unit.key}.pbn, .xml or .travellers.csv: the event is "
                "posted the night it arrives; this event file need not be sent again"))
            return None
        if unit.others:
            names = ", ".join(f.source_file for f in (unit.standings,) + unit.others)
            reason = (f"event {unit.key} has more than one results file in the inbox ({names}): an event is posted from "
                      "one file only, its standings file or its travellers, so none of them is read; remove the one "
                      "that should not count (a file posted earlier stays posted until its own path is corrected)")
            for f in (unit.standings,) + unit.others:
                if f.in_batch:
                    self._reject(f.source_file, "whole file", reason)
            if unit.event is not None and unit.event.in_batch:
                self._reject(unit.event.source_file, "whole file", reason)
            return None
        if unit.event is None:
            expected = unit.key + EVENT_SUFFIX
            self._hold(unit, f"waiting for the event settings file {expected} (date, kind, class ...; see docs/jcbl.md): "
                             "the standings are posted the night it arrives; this standings file need not be sent again")
            return None
        event, eq = parse_event(unit.event.source_file, unit.event.data, self.organisation, as_of=self.ctx.as_of,
                                rules=self.rules)
        if unit.travellers:
            return self._parse_travellers(unit, event, eq)
        standings, sq = parse_standings(unit.standings.source_file, unit.standings.data)
        unit.records = len(standings["standings"])
        if unit.event.in_batch:
            self._reject_frame(eq)
        if unit.standings.in_batch:
            self._reject_frame(sq)
        if len(eq):
            detail = "; ".join(f"{r.location}: {r.reason}" for r in eq.head(5).itertuples()) + (
                f" (and {len(eq) - 5} more)" if len(eq) > 5 else "")
            if unit.standings.in_batch:
                self._reject(unit.standings.source_file, "whole file",
                             held_for_event_file(unit.event.source_file, detail, "these standings", kind="event settings file"))
            return None
        if len(sq):
            if unit.event.in_batch:
                shown = [f"{r.location}: {r.reason}" for r in sq.itertuples() if r.location != "file"]
                detail = "; ".join(shown[:5]) + (f" (and {len(shown) - 5} more)" if len(shown) > 5 else "")
                self._reject(unit.event.source_file, "whole file",
                             f"waiting for a corrected standings file {unit.standings.source_file}: {detail}")
            return None
        event = {name: frame.assign(event_id=unit.key) for name, frame in event.items()}
        st = standings["standings"].assign(event_id=unit.key)
        return unit, event, st

    def _parse_travellers(self, unit: _Unit, event: dict, eq: pd.DataFrame):
        """The traveller route: the bridge parser and scoring make the standings (travellers.py).
        Like a standings file, any problem holds back the whole event."""
        results = unit.standings
        frames, tq = read_travellers(results.source_file, results.data)
        unit.records = len(frames["traveller_lines"]) + len(tq)
        if unit.event.in_batch:
            self._reject_frame(eq)
        if results.in_batch:
            self._reject_frame(tq)
        if len(eq):
            detail = "; ".join(f"{r.location}: {r.reason}" for r in eq.head(5).itertuples()) + (
                f" (and {len(eq) - 5} more)" if len(eq) > 5 else "")
            if results.in_batch:
                self._reject(results.source_file, "whole file",
                             held_for_event_file(unit.event.source_file, detail, "these travellers", kind="event settings file"))
            return None
        event = {name: frame.assign(event_id=unit.key) for name, frame in event.items()}
        problems = tq
        st = None
        if not len(tq):
            try:
                # the office's traveller VP scales (its bridge tables: `process` reads them from its folder)
                st, problems, _ = standings_from_travellers(results.source_file, frames, event, self.rules,
                                                            Path(self.ctx.data_dir) / "rules" / "jcbl")
            except Exception as error:  # noqa: BLE001 - an unexpected failure holds this event, not the night
                st, problems = None, pd.DataFrame([(results.source_file, "whole file",
                    f"the travellers could not be turned into standings (an internal error, {type(error).__name__}: "
                    f"{str(error)[:200]}); please send the file to the office, or send a standings file instead")],
                    columns=["source_file", "location", "reason"])
            if results.in_batch:
                self._reject_frame(problems)
        if len(problems):
            detail = "; ".join(f"{r.location}: {r.reason}" for r in problems.head(5).itertuples())
            more = f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""
            if results.in_batch:
                self._reject(results.source_file, "whole file",
                             f"event {unit.key} waits for a corrected traveller file: {len(problems)} problem(s) listed "
                             f"for this file{more}; every award depends on the whole field, so nothing of this event is "
                             f"posted until the corrected travellers are sent to the same path ({results.source_file})")
            if unit.event.in_batch:
                self._reject(unit.event.source_file, "whole file",
                             f"waiting for a corrected traveller file {results.source_file}: {detail}{more}")
            return None
        return unit, event, st.assign(event_id=unit.key)

    # -- scoring -----------------------------------------------------------------------------------
    def _history_before(self, when: pd.Timestamp) -> pd.DataFrame:
        """Award lines (player_id, event_date, points) dated before `when`: the ledger + tonight's."""
        if self._history is None:
            lake = self.ctx.lake.read("awards", AwardLine, self.organisation, where="system = ?", params=[SYSTEM_NAME])
            self._history = lake[~lake["source_file"].isin(self.superseded)][["player_id", "event_date", "points"]]
        parts = [self._history] + [a[["player_id", "event_date", "points"]] for a in self.awards]
        allp = pd.concat([p for p in parts if len(p)], ignore_index=True) if any(len(p) for p in parts) else self._history
        return allp[pd.to_datetime(allp["event_date"].astype("string")) < when]

    def _precision(self, st: pd.DataFrame, source_file: str) -> pd.DataFrame:
        """Scores the lake cannot store exactly (more than 4 decimals)."""
        rows = []
        for col, label in (("session_1_pct", "session_1"), ("session_2_pct", "session_2"), ("winning_vp", "winning_vp")):
            too_fine = st[st[col].map(lambda v: isinstance(v, Decimal) and v.as_tuple().exponent < -LAKE_DECIMALS).astype(bool)]
            rows += [(source_file, loc, f"{label}: expected at most {LAKE_DECIMALS} decimals, found {v}")
                     for loc, v in zip(too_fine["location"], too_fine[col])]
        vps = st["match_vps"].str.split().explode().dropna()
        vps = vps[vps != ""]
        fine = vps.map(lambda v: Decimal(v).as_tuple().exponent >= -LAKE_DECIMALS).astype(bool)
        rows += [(source_file, loc, f"match_vps: expected VPs with at most {LAKE_DECIMALS} decimals, found {v}")
                 for loc, v in zip(st.loc[vps[~fine].index, "location"], vps[~fine])]
        return pd.DataFrame(rows, columns=["source_file", "location", "reason"])

    def _refuse(self, unit: _Unit, problems: pd.DataFrame) -> None:
        self._reject_frame(problems)
        detail = "; ".join(f"{r.source_file} {r.location}: {r.reason}" for r in problems.head(5).itertuples())
        more = f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""
        self._hold(unit, f"event {unit.key} cannot be scored: {detail}{more}")

    def _vp_bounds(self, st: pd.DataFrame, ev: pd.Series) -> pd.DataFrame:
        """A match cannot give more VPs than the event's scale; a team's winning VP cannot exceed
        the scale times its matches."""
        scale = ev["vp_scale"]
        if pd.isna(scale):
            return pd.DataFrame(columns=["source_file", "location", "reason"])
        vps = st["match_vps"].str.split().explode().dropna()
        vps = vps[vps != ""]
        over = vps[vps.map(lambda v: Decimal(v) > scale).astype(bool)]
        first = over[~over.index.duplicated()]
        rows = [(src, loc, f"match_vps: {v} VP in one match is more than the event's VP scale ({scale}): check the VPs "
                           "or the event file's vp_scale")
                for src, loc, v in zip(st.loc[first.index, "source_file"], st.loc[first.index, "location"], first)]
        given = st[st["winning_vp"].notna() & (st["unit"] == "team")]
        if "boards_per_match" in ev and len(given):
            cap = scale * MAX_MATCHES
            for row in given[given["winning_vp"].map(lambda v: v > cap).astype(bool)].itertuples():
                rows.append((row.source_file, row.location, f"winning_vp: {row.winning_vp} is more than {MAX_MATCHES} "
                                                            f"matches on a {scale}-VP scale can give ({cap})"))
        return pd.DataFrame(rows, columns=["source_file", "location", "reason"])

    def _already_posted(self, standings: InboxFile) -> pd.DataFrame | None:
        """Standing award lines of this standings version, if it was posted on an earlier night."""
        events = self.ctx.lake.read("events", EventRecord, self.organisation, where="source_file = ? and source_sha256 = ?",
                                    params=[standings.source_file, standings.sha256])
        if events.empty:
            return None
        lines = self.ctx.lake.read("awards", AwardLine, self.organisation, where="source_file = ?", params=[standings.source_file])
        return ledger.standing_lines(lines)

    def _score(self, unit: _Unit, event: dict, st: pd.DataFrame) -> None:
        ev = event["event"].iloc[0]
        when = pd.Timestamp(ev["event_date"])
        holdings = None
        if len(event["strats"]):
            holdings = holdings_as_of(self._history_before(when), self.openings, when)
        checked = checked_event(event, st, self.rules)
        problems = pd.concat([checked.problems, self._precision(st, unit.standings.source_file), self._vp_bounds(st, ev)],
                             ignore_index=True)
        if len(problems):
            self._refuse(unit, problems)
            return
        components = components_of(checked, holdings, self.rules)
        lines = aggregate_awards(components)
        too_large = lines[lines["points"].map(lambda p: abs(p) >= POINTS_LIMIT).astype(bool)]
        if len(too_large):
            self._refuse(unit, pd.DataFrame({
                "source_file": unit.standings.source_file, "location": too_large["location"].astype(str),
                "reason": [f"player {p} would receive {v} {d}, more than the ledger holds (below {POINTS_LIMIT:,}): check "
                           "the event settings (boards, VP scale) and the scores" for p, v, d in
                           zip(too_large["player_id"], too_large["points"], too_large["denomination"])],
            }))
            return
        posted = None if unit.standings.in_batch else self._already_posted(unit.standings)
        if posted is not None:
            # tonight brought a corrected event file for standings posted on an earlier night
            before = set(zip(posted["player_id"], posted["denomination"], posted["points"].map(Decimal)))
            after = set(zip(lines["player_id"], lines["denomination"], lines["points"]))
            if before == after:
                self.posted[unit.event.source_file] = 1
            else:
                self._reject(unit.event.source_file, "whole file",
                             f"the awards of {unit.key} were posted from the earlier settings and these settings change them; "
                             f"to repost them, send the standings file {unit.standings.source_file} again with any change "
                             "(e.g. add a line '# settings corrected'): the next run then reverses the earlier awards and "
                             "posts them under these settings")
            return
        self._post(unit, ev, st, components, lines)

    def _post(self, unit: _Unit, ev: pd.Series, st: pd.DataFrame, components: pd.DataFrame, lines: pd.DataFrame) -> None:
        standings, settings = unit.standings, unit.event
        dates = pd.to_datetime(lines["event_date"])
        n = len(lines)
        drafts = pd.DataFrame({
            "organisation": self.organisation,
            "system": SYSTEM_NAME,
            "event_id": unit.key,
            "event_date": pd.Series(dates.dt.date.to_numpy(), dtype=DATE),
            "player_id": lines["player_id"].to_numpy(),
            "denomination": lines["denomination"].to_numpy(),
            "points": pd.Series(list(lines["points"]), dtype=POINTS),
            "rule_version": lines["rule_version"].to_numpy(),
            "basis": lines["basis"].to_numpy(),
            "season": season_label(pd.Series(dates.dt.date.to_numpy()), self.start_month).to_numpy() if n else [],
            "source_file": standings.source_file,
            "source_sha256": standings.sha256,
            "location": lines["location"].to_numpy(),
        }, index=range(n))
        self.awards.append(drafts[_AWARD_COLUMNS].astype({c: TEXT for c in _AWARD_COLUMNS if c not in ("event_date", "points")}))

        if unit.travellers:
            where = f"travellers: {unit.records} traveller lines, {len(st)} entrants"
        else:
            line_numbers = st["location"].str.extract(r"(\d+)")[0].astype(int)
            where = f"standings lines {line_numbers.min()}–{line_numbers.max()}"
        self.events.append(pd.DataFrame([{
            "event_id": unit.key, "organisation": self.organisation, "system": SYSTEM_NAME,
            "event_date": when_date(ev["event_date"]), "kind": f"jcbl_{ev['kind']}",
            "source_file": standings.source_file, "source_sha256": standings.sha256,
            "location": f"{where}; settings {settings.source_file}",
        }])[_EVENT_COLUMNS])

        # one row per entrant, with what each of its players received for that entry
        per_player = components.groupby(["unit", "entrant", "player_id", "denomination"])["points"].agg(
            lambda s: sum(s, Decimal("0.00")))
        per_entrant = per_player.groupby(level=["unit", "entrant", "denomination"]).max().unstack("denomination")
        rows = st.merge(per_entrant.reset_index(), on=["unit", "entrant"], how="left") if len(per_entrant) else st.assign(RP=None, BP=None)
        for d in ("RP", "BP"):
            if d not in rows:
                rows[d] = None
        scale = ev["vp_scale"]
        teams = rows["unit"] == "team"
        computed = winning_vp(rows["match_vps"], scale) if pd.notna(scale) else pd.Series(None, index=rows.index, dtype=object)
        wvp = rows["winning_vp"].where(rows["winning_vp"].notna(), computed.where(teams & (rows["match_vps"] != "")))
        rs = self.rules.for_date(ev["event_date"])
        table = pd.DataFrame({
            "event_id": unit.key, "organisation": self.organisation,
            "event_date": pd.Series([when_date(ev["event_date"])] * len(rows), dtype=DATE),
            "event_name": ev["name"] or "", "kind": ev["kind"], "rule_version": rs.rule_version,
            "unit": rows["unit"], "flight": rows["flight"],
            "field_size": rows.groupby(["unit", "flight"])["entrant"].transform("size").astype("int64"),
            "entrant": rows["entrant"], "rank": rows["rank"].astype("int64"), "players": rows["players"],
            "session_1_pct": pd.Series(list(rows["session_1_pct"]), dtype=PERCENT),
            "session_2_pct": pd.Series(list(rows["session_2_pct"]), dtype=PERCENT),
            "winning_vp": pd.Series([None if pd.isna(v) else v for v in wvp], dtype=VP),
            "match_vps": rows["match_vps"],
            "rp": pd.Series([Decimal("0.00") if pd.isna(v) else v for v in rows["RP"]], dtype=POINTS),
            "bp": pd.Series([Decimal("0.00") if pd.isna(v) else v for v in rows["BP"]], dtype=POINTS),
            "source_file": standings.source_file, "source_sha256": standings.sha256,
            "settings_file": settings.source_file, "settings_sha256": settings.sha256,
            "location": rows["location"], "run_id": self.ctx.run_id,
        })
        self.standings.append(table[_STANDING_COLUMNS].astype({"rank": INT, "field_size": INT}))
        self.posted[standings.source_file] = unit.records if standings.in_batch else 0
        if settings.in_batch:
            self.posted[settings.source_file] = 1

    # -- the batch's result --------------------------------------------------------------------------
    def _result(self) -> SystemBatch:
        quarantine = pd.DataFrame(list(dict.fromkeys(self.quarantine)), columns=["source_file", "location", "reason"])
        quarantine = quarantine.assign(record=pd.NA)[list(QuarantineDraft.to_schema().columns)] if len(quarantine) \
            else empty_frame(QuarantineDraft)
        per_file = quarantine[quarantine["location"] != "whole file"].groupby("source_file").size()
        names = [s.source_file for s in self.sources]
        records = pd.DataFrame({
            "source_file": names,
            "records_posted": [self.posted.get(n, 0) for n in names],
            "records_quarantined": [int(per_file.get(n, 0)) for n in names],
        })

        def concat(frames, model, columns=None):
            frames = [f for f in frames if len(f)]
            if not frames:
                empty = empty_frame(model)
                return empty[columns] if columns else empty
            return pd.concat(frames, ignore_index=True)

        return SystemBatch(
            events=concat(self.events, EventRecord, _EVENT_COLUMNS),
            awards=concat(self.awards, AwardDraft),
            quarantine=quarantine,
            records=records,
            tables={"jcbl_standings": concat(self.standings, JcblStanding)},
        )


def when_date(value):
    return pd.Timestamp(value).date()

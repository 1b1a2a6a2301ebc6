"""Swedish masterpoints as a rule system of the nightly run (contract: pipelines/core/system.py).

The federation (organisation ``svensk-bridge``) receives from its clubs, in ``inbox/svensk-bridge/<club>/``:

    <event>.event.txt         the event (date, level, form, boards, met ...; docs/sweden.md)
    <event>.standings.csv     the result list (place, entrant, member numbers ...)

and the office drops ``inbox/svensk-bridge/medlemsregister.csv`` (member number, name, home club);
a new register replaces the previous one at the same path (a correction, versioned like any source).

The standings file is the unit of posting (its path and hash are on every award line); its event
file is read from the inbox whichever of the two arrives first. The event id is the pair's path
without its suffix. One ledger line per player per denomination (bp, sp, gp) per event.
"""
from __future__ import annotations

from fractions import Fraction
import itertools
import json
from dataclasses import replace
from datetime import date
from decimal import Decimal
from pathlib import Path, PurePosixPath

import numpy as np
import pandas as pd

from pipelines.core.inbox import InboxFile, inbox_root, read_partner
from pipelines.core.processing import held_for_event_file
from pipelines.core.system import RunContext, SourceFile, SystemBatch
from pipelines.core.memory import texts_held_once
from pipelines.core.ranks import repeated
from pipelines.core.settings import cached_by_content
from pipelines.core.rule_tables import as_integers, checked, read_csv_text
from pipelines.core.text import clip
from pipelines.core.dates import as_dates
from pipelines.sweden import awards as A
from pipelines.sweden import championships as DM
from pipelines.sweden.evenings import check_evenings
from pipelines.sweden import finals as FN
from pipelines.sweden.classes import rates_table
from pipelines.sweden import ranking as R
from pipelines.sweden import foreign as F
from pipelines.sweden import rally as RB
from pipelines.sweden.parse import parse_event, parse_members, parse_standings
from pipelines.sweden.rules import SwedenRules, frac, load_rules
from pipelines.sweden.series import load_series_rules
from pipelines.sweden import series_batch as SB
from pipelines.sweden.travellers import TRAVELLER_SUFFIXES, standings_from_travellers, traveller_suffix
from schemas.common import DATE, INT, POINTS, TEXT, empty_frame
from schemas.ledger import AwardDraft, EventRecord, QuarantineDraft, SourceRecord
from schemas.sweden import Clubs, SeResult

SYSTEM_NAME = "sweden"
EVENT_SUFFIX = ".event.txt"
STANDINGS_SUFFIX = ".standings.csv"
REGISTER_NAME = "medlemsregister.csv"
DEFAULT_SEASON_START = 7
SILVER = ("silver", "guld", "förhöjt guld")
# events scored and posted together: large enough that the slice's one SQL pass and its merges
# stay set-based, small enough that a history holds its intermediate frames for few events at a time
EVENTS_PER_SLICE = 2_000

_AWARD_COLUMNS = list(AwardDraft.to_schema().columns)
_EVENT_COLUMNS = [c for c in EventRecord.to_schema().columns if c != "run_id"]
_RESULT_COLUMNS = list(SeResult.to_schema().columns)
# the result row's texts that are the same on every row of an event (or of the run)
_EVENT_TEXTS = ["event_id", "organisation", "club", "event_name", "level", "form", "rule_version",
                "source_file", "source_sha256", "run_id", "bridge_week", "final"]


def role_of(source_file: str) -> str | None:
    if SB.role(source_file):  # team series: .match.txt, .series.txt, .final.csv (docs/sweden-series.md)
        return "series"
    name = PurePosixPath(source_file).name.lower()
    if name.endswith(EVENT_SUFFIX) and len(name) > len(EVENT_SUFFIX):
        return "event"
    if name.endswith(STANDINGS_SUFFIX) and len(name) > len(STANDINGS_SUFFIX):
        return "standings"
    if name == REGISTER_NAME:
        return "register"
    if name.endswith(F.SUFFIX) and len(name) > len(F.SUFFIX):
        return "conversion"
    if name.endswith(RB.SUFFIX) and len(name) > len(RB.SUFFIX):
        return "rally"
    if traveller_suffix(source_file):
        return "standings"
    return None


def event_key(source_file: str) -> str:
    low = source_file.lower()
    for suffix in (EVENT_SUFFIX, STANDINGS_SUFFIX) + TRAVELLER_SUFFIXES:
        if low.endswith(suffix):
            return source_file[: -len(suffix)]
    return source_file


def season_label(d, start_month: int) -> str:
    y = _season_bounds(d, start_month)[0].year
    return str(y) if start_month == 1 else f"{y}/{(y + 1) % 100:02d}"


def _season_bounds(d, start_month: int) -> tuple[date, date]:
    """The first day of the season of date d (season_label's) and the first day of the next."""
    d = pd.Timestamp(d)
    y = d.year - (1 if d.month < start_month else 0)
    return date(y, start_month, 1), date(y + 1, start_month, 1)


def load_clubs(data_dir: Path, org: pd.Series) -> pd.DataFrame:
    options = json.loads(org.get("options") or "{}")
    path = Path(data_dir) / options.get("club_register", "rules/sweden/clubs.csv")
    # read and validated once per content of the register (a run asks twice, a process many times)
    label = options.get("club_register", "rules/sweden/clubs.csv")
    return cached_by_content("sweden.clubs", (path,), lambda: checked(
        Clubs, as_integers(read_csv_text(path, label), ["members"], label), label))


def _members_of(f: InboxFile) -> tuple[pd.DataFrame, list]:
    """parse_members once per version of the register (by its bytes' digest): a night reads it to
    resolve its lists' members and again for the warehouse's names; a federation's register of
    18,000 members takes about 90 ms to parse. Shared: callers derive frames, never change it."""
    return cached_by_content("sweden.members", (), lambda: parse_members(f.source_file, f.data), f.source_file, f.sha256)


class SwedenSystem:
    name = SYSTEM_NAME
    # its tables are ';'-separated (a Swedish Excel's list separator); the core's quarantine report too
    csv_delimiter = ";"
    accepted_suffixes = (".txt", ".csv", ".pbn", ".xml")
    lake_tables = {"se_results": SeResult, **SB.LAKE_TABLES}
    # se_club_fees after the series' views: it charges their matches too
    warehouse_sql = (["warehouse/se_result_rows", "warehouse/se_results", "warehouse/se_holdings", "warehouse/se_levels", "warehouse/se_level_changes",
                      "warehouse/se_promotions", "warehouse/se_level_reversals", "warehouse/se_ranking_results",
                      "warehouse/se_ranking", "warehouse/se_conversion_fees"] + SB.WAREHOUSE_SQL + ["warehouse/se_club_fees"])
    expected_content = ("an event file of 'key: value' lines (datum, nivå, form, brickor ...) or a result list "
                        "with the columns plac;par;medlemmar (see docs/sweden.md)")

    def check_settings(self, data_dir: Path, org: pd.Series) -> None:
        """The rule tables (the team series' too) and the club register, checked before the run reads anything."""
        load_rules(Path(data_dir) / "rules" / "sweden")
        load_series_rules(Path(data_dir) / "rules" / "sweden")
        load_clubs(data_dir, org)

    def rules(self, ctx: RunContext) -> SwedenRules:
        return load_rules(Path(ctx.data_dir) / "rules" / "sweden")

    def isolation_groups(self, sources: list[SourceFile], ctx: RunContext | None = None) -> list[list[SourceFile]]:
        """An event file and its standings file are scored together; anything else alone."""
        groups: dict[str, list[SourceFile]] = {}
        for s in sources:
            key = event_key(s.source_file) if role_of(s.source_file) in ("event", "standings") else s.source_file
            groups.setdefault(key, []).append(s)
        return list(groups.values())

    def process(self, ctx: RunContext, org: pd.Series, sources: list[SourceFile], active: pd.DataFrame,
                superseded: set[str]) -> SystemBatch:
        return _Batch(ctx, org, sources, superseded, self.rules(ctx)).run()

    def warehouse_tables(self, ctx: RunContext, org: pd.Series) -> dict[str, pd.DataFrame]:
        rules = self.rules(ctx)
        clubs = load_clubs(ctx.data_dir, org).assign(organisation=org["organisation"])
        members = pd.DataFrame(columns=["member", "name", "club"])
        if ctx.inbox is not None:
            f = read_partner(Path(ctx.inbox), f"{org['organisation']}/{REGISTER_NAME}")
            if f is not None:
                members, _ = _members_of(f)
        fees = rules.tables["fees"][["rule_version", "level", "form", "sek_per_player_session"]].astype(str)
        weights = rules.tables["session_weights"][["rule_version", "level", "boards_from", "boards_to", "sessions"]].astype(str)
        series_rules = load_series_rules(Path(ctx.data_dir) / "rules" / "sweden")
        return {
            # counts as integers and dates as DATE for the analysts, as in every other relation
            "se_clubs": clubs[["organisation", "club", "slug", "name", "district"]].astype(str).assign(
                member_count=pd.to_numeric(clubs["members"]).astype("int64")).reset_index(drop=True),
            "se_members": members[["member", "name", "club"]].astype(str).assign(organisation=org["organisation"]).reset_index(drop=True),
            "se_fee_rates": fees.reset_index(drop=True),
            "se_session_weights": weights.reset_index(drop=True),
            "se_series_levels": series_rules["series_levels"][["rule_version", "table", "level"]].astype(str).reset_index(drop=True),
            "se_team_session_weights": series_rules["team_session_weights"][
                ["rule_version", "level", "boards_from", "boards_to", "sessions", "per"]].astype(str).reset_index(drop=True),
            "se_rule_versions": rules.tables["rule_versions"][["rule_version"]].astype(str).assign(
                effective_from=as_dates(rules.tables["rule_versions"]["effective_from"])).reset_index(drop=True),
            "se_master_classes": rules.tables["master_classes"].drop(columns=["seed"]).astype(str).reset_index(drop=True),
            "se_class_rates": rates_table(rules),
            "se_ranking_parameters": R.parameters_table(rules),
            "se_conversion_fee_rates": rules.tables["conversion_fees"][["rule_version", "level", "sek_per_event"]].astype(str).reset_index(drop=True),
            "se_conversion_fee_limits": F.fee_limits_table(rules),
        }

    def publish(self, ctx, con, org, affected_months: set[str], out_dir: Path) -> list[Path]:
        from pipelines.sweden.pins import publish_pins
        from pipelines.sweden.publish import publish_events
        from pipelines.sweden.ranking_page import publish_ranking

        # a new member register renames members on every result list: every event page is
        # rendered again that night, and written where its text changed; otherwise the pages of the
        # events whose rows are new tonight (an event's page shows only its own rows)
        return (publish_events(con, org, affected_months, out_dir, every_event=self.names_changed(con, org),
                               runs=ctx.publishing_runs or None, scoped=ctx.scoped)
                + SB.publish_series(con, org, out_dir)
                + publish_pins(con, org, out_dir, str(ctx.as_of)) + publish_ranking(con, org, out_dir))

    def player_names(self, con, org) -> pd.DataFrame:
        """Names beside member numbers on the site's player pages (the member register)."""
        from pipelines.core.sql import fetch

        return fetch(con, "select member as player_id, name from se_members where organisation = ?", [org["organisation"]])

    def section_titles(self, con, org) -> dict[str, str]:
        """The site's sections are the clubs' folders: named by the club register."""
        from pipelines.core.sql import fetch

        from pipelines.sweden.pins import FOLDER as PINS

        clubs = fetch(con, "select slug, name from se_clubs where organisation = ?", [org["organisation"]])
        return {**dict(zip(clubs["slug"].astype(str), clubs["name"].astype(str))), PINS: "Mästarnålar per månad"}

    def player_notes(self, con, org, players: set[str]) -> dict[str, list[str]]:
        """The site's player pages: master class, what the next class needs, promotions."""
        from pipelines.sweden.publish import class_notes

        return class_notes(con, org["organisation"], players)

    def names_changed(self, con, org) -> bool:
        """A new member register tonight: the names on every page may have changed (the event
        pages and the site's player pages are rendered again, written where they change)."""
        from pipelines.core.register import register_changed

        return register_changed(con, org["organisation"], f"{org['organisation']}/{REGISTER_NAME}")

    def player_pages_due(self, con, org) -> set[str]:
        """Player pages to render every night whatever was posted: the ranked members' (the
        ranking position moves with everyone's results and with time)."""
        from pipelines.sweden.publish import ranked_members

        return ranked_members(con, org["organisation"])

    def explain(self, con, player_id: str, event_id: str | None) -> list[str]:
        from pipelines.sweden.publish import explain_player

        return explain_player(con, player_id, event_id)


SYSTEM = SwedenSystem()


def _groups(frame: pd.DataFrame, keys: list[str], values: list[str]):
    """(key tuple, [value tuples]) of `frame`'s rows grouped by `keys`, as pandas' groupby gives
    them (keys sorted, rows with a missing key left out, each group's rows in their order), from
    the columns zipped once instead of a sub-frame per group."""
    frame = frame.dropna(subset=keys)
    rows = sorted(zip(zip(*(frame[k] for k in keys)), zip(*(frame[v] for v in values))), key=lambda row: row[0])
    for key, group in itertools.groupby(rows, key=lambda row: row[0]):
        yield key, [value for _, value in group]


class _Batch:
    def __init__(self, ctx: RunContext, org: pd.Series, sources: list[SourceFile], superseded: set[str], rules: SwedenRules):
        self.ctx, self.org, self.sources, self.superseded, self.rules = ctx, org, sources, superseded, rules
        self.organisation = org["organisation"]
        sm = org.get("season_start_month")
        self.start_month = DEFAULT_SEASON_START if sm is None or pd.isna(sm) else int(sm)
        self.root = inbox_root(ctx, sources[0]) if sources else Path(".")
        self.quarantine: list[tuple[str, str, str]] = []
        self.posted: dict[str, int] = {}
        self.awards: list[pd.DataFrame] = []
        self.events: list[dict] = []
        self.results: list[pd.DataFrame] = []
        self.clubs = load_clubs(ctx.data_dir, org)
        self.silver_count: dict[tuple[str, str], list[pd.Timestamp]] = {}
        # the silver and gold events of each bridge week, {(club, bridge week, season): {event_id: level}}
        self.bridge_weeks: dict[tuple[str, str, str], dict[str, str]] = {}
        self.final_parts: set[str] = set()  # posted events that are a lower or fresh final of another
        # the finals posted so far of each club, day and level, {(club, date, level): [Final]} (finals.py)
        self.finals: dict[tuple, list[FN.Final]] = {}

    def _reject(self, source_file: str, location: str, reason: str) -> None:
        self.quarantine.append((source_file, location, reason))

    # -- the night ------------------------------------------------------------------------------
    def run(self) -> SystemBatch:
        batch = {"event": [], "standings": [], "register": [], "series": [], "conversion": [], "rally": []}
        for s in self.sources:
            role = role_of(s.source_file)
            if role is None:
                self._reject(s.source_file, "whole file",
                             f"not a Swedish masterpoint file name: expected <event>{EVENT_SUFFIX}, <event>{STANDINGS_SUFFIX} "
                             "(or the travellers <event>.pbn, <event>.xml, <event>.travellers.csv) "
                             f"or {REGISTER_NAME} (the member register, in the organisation folder) or <name>{F.SUFFIX} (converted "
                             f"foreign points) or <rally>{RB.SUFFIX} (a district rally's bonus), found "
                             f"{PurePosixPath(s.source_file).name!r}; see docs/sweden.md. Rename the file to have it read")
                continue
            batch[role].append(InboxFile(s.source_file, s.path, s.sha256, s.read(), True))
        self.members = self._register(batch["register"])
        keys: dict[str, dict] = {}
        for f in batch["event"] + batch["standings"]:
            keys.setdefault(event_key(f.source_file), {})[role_of(f.source_file)] = f
        if batch["register"]:
            # a new member register: result lists held back earlier (e.g. for unknown members) are tried again
            for source_file in self._held_lists():
                if event_key(source_file) not in keys:
                    f = read_partner(self.root, source_file)
                    if f is not None:
                        keys[event_key(source_file)] = {"standings": f}
        units = []
        for key, files in keys.items():
            if "event" not in files:
                other = read_partner(self.root, key + EVENT_SUFFIX)
                if other is not None:
                    files["event"] = other
            if "standings" not in files:
                found = [f for f in (read_partner(self.root, key + s) for s in (STANDINGS_SUFFIX,) + TRAVELLER_SUFFIXES) if f]
                copies = [f for f in found if f.source_file in self.ctx.duplicate_paths(self.organisation)]
                if copies:
                    # the same content under two names posts once (DESIGN.md), tonight as on a later night
                    self._hold(files, f"the result list {copies[0].source_file} has the same content as another file that "
                                      "is posted (tonight or earlier), so it was not read; if this is a different event, "
                                      "send its own result list")
                    continue
                if found:
                    files["standings"] = found[0]
            units.append((key, files))
        # the event files first, for the events' dates; then the events are read, checked, scored and
        # posted in slices in date order (the sanction limits count a club's silver events in that
        # order): a history holds the result lists, competitions, players and merges of one slice
        # at a time, and lets go of each event's files and settings once its slice is posted
        batch["event"], batch["standings"] = [], []
        tonight = set(keys)
        del keys
        heads = [h for h in (self._parse(k, f) for k, f in sorted(units)) if h is not None]
        del units
        heads += self._held_again(heads, tonight)
        del tonight
        heads.sort(key=lambda h: (h[1]["date"], h[0]))
        self._history()
        while heads:
            part, heads = heads[:EVENTS_PER_SLICE], heads[EVENTS_PER_SLICE:]
            parsed = [p for p in (self._parse_list(*h) for h in part) if p is not None]
            del part
            if parsed:
                self._score_slice(parsed)
            del parsed
        self.pending, self.flat = [], {}
        for f in batch["conversion"]:
            self._post_conversion(f)
        for f in batch["rally"]:
            self._post_rally(f)
        series_tables = SB.run_night(self, batch["series"], register_tonight=bool(batch["register"]))
        result = self._result()
        result.tables.update(series_tables)
        return result

    def _score_slice(self, parsed: list[tuple]) -> None:
        """Check, score and post a slice of the night's parsed events (each independent of the others
        but for the sanction limits' count, which `self.silver_count` carries from slice to slice)."""
        self.pending: list[tuple] = []
        # the members of every result list of the slice at once: known to the register? listed twice?
        # Only the lists with an unknown or repeated member are kept, per list (usually none of them)
        self.flat = {}
        if self.members is not None:
            lists = pd.concat([st for _, _, st, _ in parsed], ignore_index=True)
            keys = np.repeat([key for key, _, _, _ in parsed], [len(st) for _, _, st, _ in parsed])
            allm = lists[["location", "entrant", "members"]].assign(key=keys).explode("members")
            allm = allm.assign(known=allm["members"].isin(self.members.index),
                               twice=repeated(allm["key"], allm["members"]))
            self.flat = dict(tuple(allm[~allm["known"] | allm["twice"]].groupby("key", sort=False)))
        for key, ev, st, files in parsed:
            self._score(key, ev, st, files)
        # every competition of the slice scored at once (one SQL pass), then posted event by event
        comps = [c for p in self.pending if not p[1]["avbruten"] for c in p[4]]
        _, players = A.score(self.rules, comps) if comps else (None, None)
        self._post_all(players)

    @staticmethod
    def _event_of(competition: str) -> str:
        return competition.split("#", 1)[0]

    def _held_again(self, heads: list[tuple], tonight: set[str]) -> list[tuple]:
        """Events held on an earlier night because of another event, tried again without being sent
        again: a final held for another final's list (finals.py), in the club folders of tonight's
        finals, and a final or a bridge-week event, in the club folders of tonight's corrections (a
        corrected list can free a bridge week's place or clear a final's conflict)."""
        folders = {PurePosixPath(key).parent for key, ev, _ in heads if ev.get("final")} \
            | {PurePosixPath(event_key(f)).parent for f in self.superseded}
        out = []
        for source_file in self._held_lists() if folders else ():
            key = event_key(source_file)
            if key in tonight or PurePosixPath(key).parent not in folders:
                continue
            files = {"standings": read_partner(self.root, source_file), "event": read_partner(self.root, key + EVENT_SUFFIX)}
            head = self._parse(key, files) if None not in files.values() else None
            if head is not None and (head[1].get("final") or head[1].get("bridge_week")):
                out.append(head)
        return out

    def _held_lists(self) -> list[str]:
        """Result lists whose latest version was quarantined as a whole and never posted."""
        sources = self.ctx.lake.read("sources", SourceRecord, self.organisation)
        if sources.empty:
            return []
        latest = sources.sort_values(["run_id", "source_file"]).drop_duplicates("source_file", keep="last")
        held = latest[(latest["status"] == "quarantined") & latest["source_file"].map(lambda f: role_of(str(f)) == "standings")]
        return sorted(str(f) for f in held["source_file"])

    def _register(self, batch: list[InboxFile]) -> pd.DataFrame | None:
        f = next((f for f in batch if PurePosixPath(f.source_file).parent.as_posix() == self.organisation), None)
        for other in batch:
            if other is not f:
                self._reject(other.source_file, "whole file",
                             f"the member register belongs in the organisation folder: {self.organisation}/{REGISTER_NAME}")
        if f is None:
            f = read_partner(self.root, f"{self.organisation}/{REGISTER_NAME}")
        if f is None:
            return None
        members, problems = _members_of(f)
        if f.in_batch:
            for loc, reason in ((p[1], p[2]) for p in problems):
                self._reject(f.source_file, loc, reason)
            self.posted[f.source_file] = len(members)
        return members.set_index("member")

    def _hold(self, files: dict, reason: str) -> None:
        for f in files.values():
            if f.in_batch:
                self._reject(f.source_file, "whole file", reason)

    def _parse(self, key: str, files: dict):
        """The event file of an event whose two files are here: (key, ev, files), or None (held)."""
        if "event" not in files:
            self._hold(files, f"waiting for the event file {key}{EVENT_SUFFIX} (datum, nivå, form, brickor ...; docs/sweden.md): "
                              "the result list is posted the night it arrives and need not be sent again")
            return None
        if "standings" not in files:
            self._hold(files, f"waiting for the result list {key}{STANDINGS_SUFFIX} (plac;par;medlemmar): the event is "
                              "posted the night it arrives; this event file need not be sent again")
            return None
        ev_file, st_file = files["event"], files["standings"]
        ev, eq = parse_event(ev_file.source_file, ev_file.data, self.ctx.as_of)
        if ev_file.in_batch:
            self.quarantine.extend(eq)
        if ev is None:
            if st_file.in_batch:
                detail = "; ".join(f"{loc}: {r}" for _, loc, r in eq)
                self._reject(st_file.source_file, "whole file", held_for_event_file(ev_file.source_file, detail, "this result list"))
            return None
        return key, ev, files

    def _parse_list(self, key: str, ev: dict, files: dict):
        """The result list of an event whose event file stands: (key, ev, standings, files) or None."""
        ev_file, st_file = files["event"], files["standings"]
        if traveller_suffix(st_file.source_file):
            if ev["form"] != "par":
                st, sq = None, [(st_file.source_file, "whole file", f"travellers are read for pairs events only (form: par), "
                                                                    f"the event file says form: {ev['form']}")]
            else:
                st, sq = standings_from_travellers(st_file.source_file, st_file.data)
        else:
            st, sq = parse_standings(st_file.source_file, st_file.data, ev["form"])
        if st_file.in_batch:
            self.quarantine.extend(sq)
        if st is None:
            if not st_file.in_batch:
                self._reject(ev_file.source_file, "whole file",
                             f"waiting for a corrected result list {st_file.source_file}: "
                             + "; ".join(f"{loc}: {r}" for _, loc, r in sq[:5]))
            elif sq and all(loc != "whole file" for _, loc, _ in sq):
                self._reject(st_file.source_file, "whole file",
                             f"event {key} waits for a corrected result list: every award depends on the whole field, so "
                             f"nothing is posted until the list is sent again to the same path ({len(sq)} problem(s) listed)")
            return None
        if not st_file.in_batch:
            posted = self.ctx.lake.read("events", EventRecord, self.organisation, where="source_file = ? and source_sha256 = ?",
                                        params=[st_file.source_file, st_file.sha256])
            if len(posted):
                self._reject(ev_file.source_file, "whole file",
                             f"the awards of {key} were posted from the earlier event file; to repost them under these settings "
                             f"send the result list {st_file.source_file} again with any change (e.g. a line '# ändrad')")
                return None
        return key, ev, st, files

    # -- history for the sanction limits ---------------------------------------------------------
    def _history(self) -> None:
        ev = self.ctx.lake.read("events", EventRecord, self.organisation)
        if ev.empty:
            return
        ev = ev[~ev["source_file"].isin(self.superseded)]
        finals = ev["kind"].astype(str).str.contains("_final_")
        self.final_parts = set(ev.loc[finals, "event_id"].astype(str))
        ev = ev[ev["kind"].astype(str).str.startswith("se_silver") & ~finals]
        for eid, d in zip(ev["event_id"], ev["event_date"]):
            club = PurePosixPath(str(eid)).parts[1] if len(PurePosixPath(str(eid)).parts) > 2 else ""
            self.silver_count.setdefault((club, season_label(d, self.start_month)), []).append(pd.Timestamp(str(d)))

    # -- scoring ---------------------------------------------------------------------------------
    def _club_of(self, key: str, ev: dict) -> pd.Series | None:
        parts = PurePosixPath(key).parts
        slug = parts[1] if len(parts) > 2 else ""
        if not hasattr(self, "_by_club"):
            rows = [r for _, r in self.clubs.iterrows()]
            self._by_club = {r["club"]: r for r in rows}
            self._by_slug = {r["slug"]: r for r in rows}
        return self._by_club.get(ev["club"]) if ev.get("club") else self._by_slug.get(slug)

    def _score(self, key: str, ev: dict, st: pd.DataFrame, files: dict) -> None:
        st_file, ev_file = files["standings"], files["event"]
        problems: list[tuple[str, str]] = []
        club = self._club_of(key, ev)
        if club is None:
            slug = PurePosixPath(key).parts[1] if len(PurePosixPath(key).parts) > 2 else "(none)"
            problems.append(("whole file", f"unknown club: folder {slug!r}" + (f" / klubb {ev['club']}" if ev.get("club") else "")
                             + " is not in the club register (data/rules/sweden/clubs.csv); the office adds the club there"))
        if self.members is None:
            self._hold(files, f"waiting for the member register {self.organisation}/{REGISTER_NAME} (medlemsnummer;namn;klubb): "
                              "players are identified by member number")
            return
        try:
            version = self.rules.for_date(ev["date"])
        except ValueError as error:
            problems.append(("whole file", str(error)))
            version = None
        # members: known, or guests
        flat = self.flat.get(key)  # the list's unknown and repeated members (None: it has none)
        unknown = flat[~flat["known"]] if flat is not None else None
        guests = sorted(set(unknown["members"])) if unknown is not None else []
        if guests and not ev["gäster"]:  # (itertuples only over offending rows: pyarrow columns make it costly)
            for r in unknown.itertuples():
                self._reject(st_file.source_file, r.location,
                             f"medlemmar: member number {r.members} is not in the member register; correct the number, or put "
                             "'gäster: ja' in the event file if non-members may play (they get no points)")
            problems.append(("whole file", f"{len(unknown)} unknown member number(s)"))
        twice = flat[flat["twice"]] if flat is not None and flat["twice"].any() else None
        for r in (twice.drop_duplicates("members").itertuples() if twice is not None else ()):
            problems.append((r.location, f"medlemmar: member {r.members} plays for more than one entrant"))
        if ev["form"] == "lagbarometer":
            tie = st.duplicated(["section", "place"], keep=False).to_numpy()
            for r in (st[tie].itertuples() if tie.any() else ()):
                problems.append((r.location, f"plac: {r.place}= is a tie; in team events ties are always broken "
                                             "(särskiljning): give each team its own place"))
        if ev["mitchell"] and not set(st["section"]) <= {"NS", "ÖV"}:
            problems.append(("whole file", "mitchell: ja needs a sektion column with NS or ÖV on every line"))
        if ev["divisions"] and not set(st["section"]) <= {"1", "2"}:
            problems.append(("whole file", "divisioner: ja needs a sektion column with 1 or 2 on every line"))
        if ev["handikapp"] and st["hcp_place"].isna().all():
            problems.append(("whole file", "handikapp: ja needs a hcp_plac column (the place on the handicap list)"))
        problems += check_evenings(self.rules, ev, st, ev_file.source_file)
        if version is not None and ev.get("ranking") and ev["ranking"] not in R.kinds(self.rules, version):
            problems.append(("whole file", f"ranking: {ev['ranking']!r} is not a kind of data/rules/sweden/ranking.csv "
                                           f"({', '.join(sorted(R.kinds(self.rules, version)))})"))
        comps = []
        if not problems and version is not None:
            # one section (most events): the list itself, not a groupby's copy
            sections = st["section"].unique()
            parts = [(sections[0], st)] if len(sections) == 1 else st.groupby("section", sort=True)
            for section, part in parts:
                n = len(part)
                evc = dict(ev, division=int(section) if ev["divisions"] else None)
                why = A.check_requirements(self.rules, evc, n, section)
                problems += [("whole file", w) for w in why]
                if not why:
                    comps.append({"competition": f"{key}#{section}" if section else key, "event_id": key, "ev": evc,
                                  "st": part.reset_index(drop=True), "n": n, "section": section,
                                  "list": A.event_list(self.rules, evc, n)})
        part_of_event = A.lower_final(ev) or A.fresh_final(ev)  # the A-final carries the event's silver status and count
        if not problems and ev["level"] in SILVER and not part_of_event:
            problems += self._silver_rules(key, ev, st, club)
        if not problems and ev.get("final") and club is not None:
            problems += self._finals_check(key, ev, st, club)
        if problems:
            for loc, reason in problems:
                if loc != "whole file" or "unknown member" not in reason:
                    self._reject(st_file.source_file, loc, reason)
            self._hold({k: f for k, f in files.items() if k == "event"},
                       f"event {key} cannot be scored: " + "; ".join(r for _, r in problems[:5]))
            return
        if ev["level"] in SILVER and not part_of_event and ev.get("bridge_week"):
            self._bridge_week(club, ev)[key] = ev["level"]
        if ev.get("final") and club is not None:
            finals = self._finals_of(club, ev)  # (a corrected list replaces the final's earlier entry)
            finals[:] = [f for f in finals if f.event_id != key] + [FN.final_of(key, ev, len(st), itertools.chain.from_iterable(st["members"]))]
        if ev["level"] == "silver" and not part_of_event:
            # the club's season limit counts silver events (seed p. 3: "högst fem silvertävlingar per
            # spelår"); gold is sanctioned by the federation and not counted, as in _history
            self.silver_count.setdefault((club["slug"], season_label(ev["date"], self.start_month)), []).append(pd.Timestamp(ev["date"]))
        self.pending.append((key, ev, st, files, comps, club, version, guests))

    def _silver_rules(self, key: str, ev: dict, st: pd.DataFrame, club: pd.Series) -> list[tuple[str, str]]:
        out = []
        if ev["level"] in ("guld", "förhöjt guld") and not ev["sanction"]:
            out.append(("whole file", "a gold event needs the sanction reference of Förbundet Svensk Bridge: add 'sanktion: <reference>'"))
        # openness (pairs and individuals): at least five clubs, championships included; the
        # percentages not in championships (seed p. 4: "Dessa procenttal gäller ej vid mästerskapstävlingar")
        op = self.rules.tables["openness"]
        op = op[op["form"] == ev["form"]]
        if len(op):
            flat = st["members"].explode()
            home = flat.map(self.members["club"]).dropna()
            counts = home.value_counts()
            weights = self.clubs.set_index("club")["members"].reindex(counts.index).fillna(0).astype(int)
            limits = self.rules.tables["sanction_limits"]
            def weight(m):
                row = limits[(limits["members_from"] <= m)].sort_values("members_from").iloc[-1]
                return int(row["club_weight"])
            shares = []
            for c, k in counts.items():
                w = weight(int(weights[c]))
                shares += [Decimal(int(k)) / Decimal(len(home)) / w] * w
            shares.sort(reverse=True)
            need = int(op["min_clubs"].iloc[0])
            if len(shares) < need:
                out.append(("whole file", f"silver status needs players from at least {need} clubs (a club of 100-199 members "
                                          f"counts as two, 200 or more as three; championships too, only the percentages "
                                          f"are waived there); found {len(shares)}"))
            for r in op.itertuples() if not ev["mästerskap"] else ():
                top = sum(shares[: r.top_clubs])
                if top > Decimal(str(frac(r.max_share).numerator)) / Decimal(frac(r.max_share).denominator):
                    out.append(("whole file", f"silver status: {r.top_clubs} club(s) may have at most {frac(r.max_share) * 100}% of the "
                                              f"players, found {(top * 100).quantize(Decimal('0.1'))}% (not for championships: 'mästerskap: ja')"))
        # team events (a barometer): two clubs suffice; a club of 100+ members may play alone; a smaller
        # club needs at least 20 % of the players from other clubs (not for championships)
        if ev["form"] == "lagbarometer" and not ev["mästerskap"] and club is not None:
            home = st["members"].explode().map(self.members["club"]).dropna()
            others = (home != club["club"]).sum()
            need = self.rules.param("team_silver_other_clubs_share")
            if int(club["members"]) < int(self.rules.param("team_silver_own_club_members")) and len(home) and \
                    Fraction(int(others), len(home)) < need:
                out.append(("whole file", f"silver team event of {club['name']} ({club['members']} members): at least "
                                          f"{int(need * 100)}% of the players must come from other clubs, found "
                                          f"{int(others)} of {len(home)} (a club of 100 or more members may play alone)"))
        # a bridge week: at most two silver events, or one gold and one silver (seed p. 3); a sanction
        # reference does not lift it (every silver and gold event of a bridge week is sanctioned)
        if ev.get("bridge_week") and club is not None:
            out += self._bridge_week_limit(key, ev, club)
        # sanction limits per club and season
        if ev["level"] == "silver" and not ev["sanction"] and club is not None:
            limits = self.rules.tables["sanction_limits"]
            row = limits[limits["members_from"] <= int(club["members"])].sort_values("members_from").iloc[-1]
            season = season_label(ev["date"], self.start_month)
            earlier = self.silver_count.get((club["slug"], season), [])
            if len(earlier) + 1 > int(row["silver_events_per_season"]):
                out.append(("whole file", f"{club['name']} ({club['members']} members) may hold {row['silver_events_per_season']} silver "
                                          f"events in season {season} and this is number {len(earlier) + 1}; add the district's "
                                          "'sanktion: <reference>' if a further event was sanctioned"))
            if row["weekday_silver_max"] and pd.Timestamp(ev["date"]).day_of_week < 5:
                wd = sum(1 for d in earlier if d.day_of_week < 5) + 1
                if wd > int(row["weekday_silver_max"]):
                    out.append(("whole file", f"{club['name']} may hold at most {row['weekday_silver_max']} silver events on weekdays "
                                              f"in season {season}; this is number {wd}; add 'sanktion: <reference>' if sanctioned"))
        return out

    def _bridge_week(self, club: pd.Series, ev: dict) -> dict[str, str]:
        """{event_id: level} of the silver and gold events of the event's bridge week posted so far:
        earlier nights' (the lake's result rows of the organising club) and tonight's. The same name
        in another season is another bridge week."""
        season = season_label(ev["date"], self.start_month)
        k = (str(club["club"]), ev["bridge_week"], season)
        if k not in self.bridge_weeks:
            # the club's silver and gold rows of the season only (a club's whole history is thousands
            # of rows); bridge_week is filtered after the read: a lake file of an earlier release lacks it
            first, end = _season_bounds(ev["date"], self.start_month)
            rows = self.ctx.lake.read("se_results", SeResult, self.organisation,
                                      months={f"{m:%Y-%m}" for m in pd.date_range(first, end, freq="MS", inclusive="left")},
                                      where="club = ? and event_date >= ? and event_date < ? and level in (select unnest(?))",
                                      params=[str(club["club"]), first, end, sorted(SILVER)])
            rows = rows[(rows["bridge_week"].fillna("") == ev["bridge_week"]) & ~rows["source_file"].isin(self.superseded)
                        & ~rows["event_id"].isin(self.final_parts)]
            self.bridge_weeks[k] = dict(zip(rows["event_id"].astype(str), rows["level"].astype(str)))
        return self.bridge_weeks[k]

    def _bridge_week_limit(self, key: str, ev: dict, club: pd.Series) -> list[tuple[str, str]]:
        """Seed p. 3: 'Vid bridgeveckor får arrangör spela högst två silvertävlingar eller en guld och en
        silvertävling' (parameters.csv: bridge_week_max_events, bridge_week_max_gold)."""
        others = {e: lv for e, lv in self._bridge_week(club, ev).items() if e != key}
        events = len(others) + 1
        gold = sum(lv != "silver" for lv in others.values()) + (ev["level"] != "silver")
        most, most_gold = int(self.rules.param("bridge_week_max_events")), int(self.rules.param("bridge_week_max_gold"))
        if events <= most and gold <= most_gold:
            return []
        listed = ", ".join(f"{PurePosixPath(e).name} ({lv})" for e, lv in sorted(others.items()))
        return [("whole file", f"bridgevecka {ev['bridge_week']!r} of {club['name']}: an organiser may play at most {most} "
                               f"silver or gold events in a bridge week, at most {most_gold} of them gold (seed p. 3: 'högst två "
                               f"silvertävlingar eller en guld och en silvertävling'); with {listed} this {ev['level']} event "
                               f"would be number {events}, {gold} of them gold. Play it for bronze points (nivå: brons), or "
                               "correct the bridgevecka line if it is not part of this bridge week")]

    def _finals_of(self, club: pd.Series, ev: dict) -> list[FN.Final]:
        """The finals of the club's day and level posted so far: earlier nights' (the lake's result rows,
        each carry-over final's qualification read from its event file in the inbox) and tonight's."""
        k = (str(club["club"]), ev["date"], ev["level"])
        if k not in self.finals:
            # (the final's columns are filtered here, not in SQL: a lake file written before they
            # existed lacks them, and the read gives them as null); finals share their day's month
            rows = self.ctx.lake.read("se_results", SeResult, self.organisation, months={str(ev["date"])[:7]},
                                      where="club = ? and event_date = ? and level = ?",
                                      params=[str(club["club"]), ev["date"], ev["level"]])
            rows = rows[(rows["final"].fillna("") != "") & ~rows["source_file"].isin(self.superseded)]
            # the lake keeps every version of a list: a final's rows are those of its latest posting
            rows = rows[rows["run_id"] == rows.groupby("event_id")["run_id"].transform("max")]
            found = []
            for event_id, part in rows.groupby("event_id", sort=True):
                first = part["overall_first_place"].iloc[0]
                settings = {"final": str(part["final"].iloc[0]), "carry_over": not pd.isna(first),
                            "first_place": None if pd.isna(first) else int(first)}
                f = read_partner(self.root, f"{event_id}{EVENT_SUFFIX}") if settings["carry_over"] else None
                earlier, _ = parse_event(f.source_file, f.data) if f is not None else (None, [])
                if earlier is not None:  # without its event file the final's qualification is unknown: members only
                    settings.update(field=earlier.get("field"), qual_rounds=earlier.get("qual_rounds"),
                                    final_rounds=earlier.get("final_rounds"))
                final = FN.final_of(str(event_id), settings, len(part), " ".join(part["members"]).split())
                found.append(final if earlier is not None else replace(final, qualification=None))
            self.finals[k] = found
        return self.finals[k]

    def _finals_check(self, key: str, ev: dict, st: pd.DataFrame, club: pd.Series) -> list[tuple[str, str]]:
        """A final against the other finals of its club, day and level (finals.py): no pair in two finals,
        no overall place in two finals of one qualification. A corrected list replaces its earlier rows."""
        others = [f for f in self._finals_of(club, ev) if f.event_id != key]
        if not others:
            return []
        location_of = {m: loc for ms, loc in zip(st["members"], st["location"]) for m in ms}
        return FN.conflicts(FN.final_of(key, ev, len(st), location_of), others, location_of)

    def _post_all(self, players: pd.DataFrame | None) -> None:
        """Ledger lines, event records and se_results rows of every scored event of the batch, set-based."""
        if not self.pending:
            return
        meta = pd.DataFrame([{
            "event_id": key, "event_date": ev["date"], "rule_version": version or "",
            "season": season_label(ev["date"], self.start_month), "source_file": files["standings"].source_file,
            "source_sha256": files["standings"].sha256, "aborted": ev["avbruten"], "club": "" if club is None else club["club"],
            "event_name": ev["name"], "level": ev["level"], "form": ev["form"], "boards": ev["boards"] or 0,
            "bridge_week": ev.get("bridge_week") or "", "final_letter": ev.get("final") or "",
            "overall_first": 1 if ev.get("final") == "A" else ev["first_place"] if A.lower_final(ev) else None,
        } for key, ev, st, files, comps, club, version, guests in self.pending])
        # one frame of every list of the night, then the field sizes over it at once
        standings = pd.concat([st for _, _, st, *_ in self.pending], ignore_index=True)
        standings = standings.assign(event_id=np.repeat([p[0] for p in self.pending], [len(p[2]) for p in self.pending]),
                                     competition=standings["section"])
        standings["field_size"] = standings.groupby(["event_id", "section"])["entrant"].transform("size")
        standings["place_label"] = standings["place"].astype(str) + standings.duplicated(
            ["event_id", "section", "place"], keep=False).map({True: "=", False: ""})
        standings["competition_id"] = standings["event_id"] + ("#" + standings["section"]).where(standings["section"] != "", "")
        # ledger lines: known members with points
        if players is not None and len(players):
            lines = players[players["member"].isin(self.members.index) & (players["final"] > 0)]
            lines = lines.merge(meta[~meta["aborted"]], on="event_id")
            lines = lines.merge(standings[["competition_id", "entrant", "location"]],
                                left_on=["competition", "entrant"], right_on=["competition_id", "entrant"], how="left")
            self._append_awards(lines, "event_id", "final")
            best = lines.groupby(["competition", "entrant", "denomination"])["final"].max().unstack("denomination")
            standings = standings.merge(best.reset_index(), left_on=["competition_id", "entrant"], right_on=["competition", "entrant"],
                                        how="left", suffixes=("", "_pts"))
            standings = standings.merge(self._ranking_points(lines), left_on=["competition_id", "entrant"],
                                        right_on=["competition", "entrant"], how="left", suffixes=("", "_rp"))
        for d in ("bp", "sp", "gp"):
            if d not in standings:
                standings[d] = 0
        # event records
        for key, ev, st, files, comps, club, version, guests in self.pending:
            note = f"; guests without points: {', '.join(guests)}" if guests else ""
            if ev["avbruten"]:
                note += "; aborted or walkover: no points"
            self.events.append({"event_id": key, "organisation": self.organisation, "system": SYSTEM_NAME,
                                "event_date": ev["date"], "kind": f"se_{ev['level'].replace(' ', '_')}_{ev['form']}"
                                        + (f"_final_{ev['final'].lower()}" if A.lower_final(ev) or A.fresh_final(ev) else ""),
                                "source_file": files["standings"].source_file, "source_sha256": files["standings"].sha256,
                                "location": f"result list lines {st['line'].min()}–{st['line'].max()}; event file "
                                            f"{files['event'].source_file}{note}"})
            self.posted[files["standings"].source_file] = len(st) if files["standings"].in_batch else 0
            if files["event"].in_batch:
                self.posted[files["event"].source_file] = 1
        self._post_dm_bonus(standings, meta)
        rows = standings.merge(meta.drop(columns=["aborted"]), on="event_id")
        zero = Decimal("0.00")
        frame = pd.DataFrame({
            "event_id": rows["event_id"], "organisation": self.organisation, "event_date": pd.Series(list(rows["event_date"]), dtype=DATE),
            "club": rows["club"], "event_name": rows["event_name"], "level": rows["level"], "form": rows["form"],
            "competition": rows["section"], "field_size": rows["field_size"].astype("int64"), "boards": rows["boards"].astype("int64"),
            "place": rows["place"].astype("int64"), "place_label": rows["place_label"], "entrant": rows["entrant"],
            "members": rows["members"].map(" ".join),
            **{d: pd.Series([zero if pd.isna(v) else Decimal(int(v)).quantize(zero) for v in rows[d]], dtype=POINTS) for d in ("bp", "sp", "gp")},
            "rule_version": rows["rule_version"], "source_file": rows["source_file"], "source_sha256": rows["source_sha256"],
            "location": rows["location"], "run_id": self.ctx.run_id,
            "rp": pd.Series([zero if pd.isna(v) else Decimal(int(v)).quantize(zero) for v in rows.get("rp", pd.Series(pd.NA, index=rows.index))],
                            dtype=POINTS),
            "rp_basis": rows.get("rp_basis", pd.Series("", index=rows.index)).fillna(""),
            "rp_players": rows.get("rp_players", pd.Series("", index=rows.index)).fillna(""),
            "bridge_week": rows["bridge_week"], "final": rows["final_letter"],
            "overall_first_place": pd.array(rows["overall_first"], dtype=INT),
        })
        frame = frame.astype({"event_date": DATE, "field_size": INT, "boards": INT, "place": INT,
                              "rp_basis": TEXT, "rp_players": TEXT, "bridge_week": TEXT, "final": TEXT})[_RESULT_COLUMNS]
        # a history holds every result row of the night until it is staged (~17 rows an event)
        self.results.append(texts_held_once(frame, _EVENT_TEXTS))

    def _post_dm_bonus(self, standings: pd.DataFrame, meta: pd.DataFrame) -> None:
        """The DM-final bonus of places 1-3 (seed p. 15; pipelines/sweden/championships.py): ledger lines
        in their own event ``<event>#dm-bonus`` (kind se_dm_bonus_<kind>), so that they are told apart
        from the final's own award and earn no ranking points (a bonus never does, seed section 7)."""
        dm = {key: (ev, club) for key, ev, st, files, comps, club, version, guests in self.pending
              if ev.get("dm") and not ev["avbruten"] and club is not None}
        if not dm:
            return
        version_of = dict(zip(meta["event_id"], meta["rule_version"]))
        st = standings[standings["event_id"].isin(list(dm))]
        st = st.assign(kind=st["event_id"].map(lambda k: dm[k][0]["dm"]), form=st["event_id"].map(lambda k: dm[k][0]["form"]),
                       open=st["event_id"].map(lambda k: bool(dm[k][0]["dm_open"])),
                       district=st["event_id"].map(lambda k: dm[k][1]["district"]),
                       of=st["event_id"].map(lambda k: dm[k][0].get("rounds") or dm[k][0].get("boards") or 0))
        table = self.rules.tables["dm_bonus"]
        lines, withheld = [], []
        for version, part in st.groupby(st["event_id"].map(version_of)):
            bonus = table[table["rule_version"] == version]
            got, held = DM.bonus_lines(DM.bonus_players(part), bonus, self.members["club"].astype(str),
                                       self.clubs.set_index(self.clubs["club"].astype(str))["district"])
            lines.append(got.assign(rule_version=version))
            withheld.append(held)
        lines = pd.concat(lines, ignore_index=True)
        lines = lines[lines["member"].isin(self.members.index)]
        withheld = pd.concat(withheld, ignore_index=True)
        info = meta.set_index("event_id")
        for key, (ev, club) in dm.items():
            held = withheld[withheld["event_id"] == key]
            note = "; ".join(f"{m}: {r}" for m, r in zip(held["member"], held["reason"]))
            self.events.append({"event_id": f"{key}#dm-bonus", "organisation": self.organisation, "system": SYSTEM_NAME,
                                "event_date": ev["date"], "kind": f"se_dm_bonus_{ev['dm']}",
                                "source_file": info.at[key, "source_file"], "source_sha256": info.at[key, "source_sha256"],
                                "location": f"DM bonus of places 1-3 of {key} (dm: {ev['dm']}"
                                            + (", open" if ev["dm_open"] else ", closed" if ev["form"] == "par" else "") + ")"
                                            + (f"; no bonus for {note}" if note else "")})
        if lines.empty:
            return
        lines = lines.assign(bonus_event=lines["event_id"] + "#dm-bonus").merge(
            info[["event_date", "season", "source_file", "source_sha256"]], left_on="event_id", right_index=True)
        self._append_awards(lines, "bonus_event", "points")

    def _append_awards(self, lines: pd.DataFrame, event_column: str, points_column: str) -> None:
        """Award drafts of whole points from a frame of lines (member, denomination, event_date,
        rule_version, basis, season, source_file, source_sha256, location)."""
        drafts = pd.DataFrame({
            "organisation": self.organisation, "system": SYSTEM_NAME, "event_id": lines[event_column].to_numpy(),
            "event_date": pd.Series(list(lines["event_date"]), dtype=DATE),
            "player_id": lines["member"].to_numpy(), "denomination": lines["denomination"].to_numpy(),
            "points": pd.Series([Decimal(int(v)).quantize(Decimal("0.01")) for v in lines[points_column]], dtype=POINTS),
            "rule_version": lines["rule_version"].to_numpy(), "basis": lines["basis"].to_numpy(),
            "season": lines["season"].to_numpy(), "source_file": lines["source_file"].to_numpy(),
            "source_sha256": lines["source_sha256"].to_numpy(), "location": lines["location"].fillna("").to_numpy(),
        })
        self.awards.append(drafts[_AWARD_COLUMNS].astype({c: TEXT for c in _AWARD_COLUMNS if c not in ("event_date", "points")}))

    def _post_conversion(self, f: InboxFile) -> None:
        """A conversion file of the office (seed section 8): each row of a known member becomes a ledger
        line (its own basis) and an event record (kind se_konvertering_<level>: the fee view counts it)."""
        rows, problems = F.read_file(f.source_file, f.data)
        for loc, reason in problems:
            self._reject(f.source_file, loc, reason)
        if rows.empty:
            return
        if self.members is None:
            self._reject(f.source_file, "whole file", f"waiting for the member register {self.organisation}/{REGISTER_NAME}")
            return
        out = F.convert_rows(rows, self.rules)
        known = out["medlemsnummer"].isin(self.members.index)
        for r in out[~known].itertuples():
            self._reject(f.source_file, r.location, f"medlemsnummer: member number {clip(r.medlemsnummer)} is not in the member register")
        for r in out[known & (out["problem"] != "")].itertuples():
            self._reject(f.source_file, r.location, r.problem)
        ok = out[known & (out["problem"] == "")]
        if ok.empty:
            return
        registration = ok["registrering"].where(ok["registrering"] != "", f.source_file)
        event_ids = f.source_file + "#" + ok["location"].str.replace("line ", "rad-", regex=False)
        dates = [pd.Timestamp(d).date() for d in ok["datum"]]
        versions = [self.rules.for_date(d) for d in dates]
        levels = ok["nivå"].str.lower().where(~ok["land"].str.lower().isin(F.DANISH), ok["valör"].str.lower().map(
            {"bp": "brons", "sp": "silver", "gp": "guld"}))
        for eid, d, lv, reg, loc, name in zip(event_ids, dates, levels, registration, ok["location"], ok["tävling"]):
            self.events.append({"event_id": eid, "organisation": self.organisation, "system": SYSTEM_NAME, "event_date": d,
                                "kind": f"se_konvertering_{str(lv).replace(' ', '_')}", "source_file": f.source_file,
                                "source_sha256": f.sha256, "location": f"{loc}: {name}; registrering {reg}"})
        given = ok[ok["points"] > 0]
        if len(given):
            gi = given.index
            drafts = pd.DataFrame({
                "organisation": self.organisation, "system": SYSTEM_NAME, "event_id": event_ids.loc[gi].to_numpy(),
                "event_date": pd.Series([dates[ok.index.get_loc(i)] for i in gi], dtype=DATE),
                "player_id": given["medlemsnummer"].to_numpy(), "denomination": given["denomination"].to_numpy(),
                "points": pd.Series([Decimal(int(v)).quantize(Decimal("0.01")) for v in given["points"]], dtype=POINTS),
                "rule_version": [versions[ok.index.get_loc(i)] for i in gi], "basis": ("konvertering: " + given["basis"]).to_numpy(),
                "season": [season_label(dates[ok.index.get_loc(i)], self.start_month) for i in gi],
                "source_file": f.source_file, "source_sha256": f.sha256, "location": given["location"].to_numpy(),
            })
            self.awards.append(drafts[_AWARD_COLUMNS].astype({c: TEXT for c in _AWARD_COLUMNS if c not in ("event_date", "points")}))
        self.posted[f.source_file] = len(ok)

    def _posted_results(self) -> pd.DataFrame:
        """The current result lists: tonight's and earlier nights' (the latest run of each event whose
        list was not replaced tonight), one row per entrant."""
        cols = ["event_id", "event_date", "club", "level", "form", "competition", "field_size", "source_file", "run_id"]
        earlier = self.ctx.lake.read("se_results", SeResult, self.organisation)
        earlier = earlier[~earlier["source_file"].isin(self.superseded)]
        earlier = earlier[earlier["run_id"] == earlier.groupby("event_id")["run_id"].transform("max")]
        tonight = [r for r in self.results if len(r)]
        frames = [f[cols].astype(str) for f in [earlier] + tonight if len(f)]
        if not frames:
            return pd.DataFrame(columns=cols)
        out = pd.concat(frames, ignore_index=True)
        # an event posted tonight replaces its earlier rows
        latest = out.groupby("event_id")["run_id"].transform("max")
        return out[out["run_id"] == latest]

    def _post_rally(self, f: InboxFile) -> None:
        """A district rally's gold bonus (seed p. 5; pipelines/sweden/rally.py): checked against the
        silver events it names, posted as its own event (kind se_rally_bonus, no ranking points)."""
        rally, problems = RB.parse_rally(f.source_file, f.data, self.organisation)
        for loc, reason in problems:
            self._reject(f.source_file, loc, reason)
        if rally is None:
            return
        if self.members is None:
            self._reject(f.source_file, "whole file", f"waiting for the member register {self.organisation}/{REGISTER_NAME}")
            return
        results = self._posted_results()
        district_of = dict(zip(self.clubs["club"].astype(str), self.clubs["district"].astype(str)))
        where = rally["where"]["tävlingar"]
        counted, wrong = [], []
        for event_id in rally["events"]:
            rows = results[results["event_id"] == event_id]
            ev_file = read_partner(self.root, event_id + EVENT_SUFFIX)
            ev = parse_event(ev_file.source_file, ev_file.data)[0] if ev_file is not None else None
            short = event_id.removeprefix(self.organisation + "/")
            if rows.empty or ev is None:
                wrong.append(f"{short} has no posted result list (yet): send this rally file again once it is posted")
            elif rows["level"].iloc[0] != "silver":
                wrong.append(f"{short} is a {rows['level'].iloc[0]} event; a rally comprises silver events")
            elif R.event_kind(ev) == RB.EXCLUDED_KIND:
                wrong.append(f"{short} is an April or October silver event, which a rally may not comprise")
            elif district_of.get(rows["club"].iloc[0], "") != rally["district"]:
                wrong.append(f"{short} is of club {rows['club'].iloc[0]} in district "
                             f"{district_of.get(rows['club'].iloc[0], '?')!r}, not {rally['district']!r}")
            elif ev.get("final") not in (None, "A"):
                # a B/C-final is part of its event (docs/sweden.md, Finals), whose starting pairs
                # are the qualification's: counted once, by its A-final's kval_par
                wrong.append(f"{short} is the {ev['final']}-final of its event: list the event once, by its A-final "
                             "(a rally counts the pairs that started the qualification, kval_par)")
            elif ev.get("gemensam_lista"):
                wrong.append(f"{short} is the common list of a simultaneous event: its pairs are those of the heats; "
                             "list the heats, which are the events")
            else:
                counted.append((rows, ev))
        dates = [pd.Timestamp(r["event_date"].iloc[0]).date() for r, _ in counted]
        rally_date = rally["date"] or (max(dates) if dates else None)
        version = self.rules.for_date(rally_date) if rally_date else None
        least = int(self.rules.param("rally_min_events", version)) if version else 6
        if not wrong and len(counted) < least:
            wrong.append(f"a rally must comprise at least {least} silver events, found {len(counted)}")
        if wrong:
            for reason in wrong:
                self._reject(f.source_file, where, f"tävlingar: {reason}")
            return
        # "totalt antal startande par": an A-final's event started with the qualification's pairs
        per_event = [RB.equivalent_pairs(r["form"].iloc[0], int(ev["field"]), self.rules, version)
                     if ev.get("final") == "A" and ev.get("field") else
                     sum(RB.equivalent_pairs(r["form"].iloc[0], int(n), self.rules, version)
                         for n in r.drop_duplicates("competition")["field_size"]) for r, ev in counted]
        pairs = sum(per_event, Fraction(0))
        points = RB.bonus_places(self.rules, version, pairs)
        key = f.source_file[: -len(RB.SUFFIX)]
        pairs_text = RB.fraction_text(pairs)
        header = (f"rally {rally['name'] or key} ({rally['district']}): {len(counted)} silver events, {pairs_text} pairs "
                  f"({' + '.join(map(RB.fraction_text, per_event))})")
        lines = RB.bonus_lines(rally["places"], points)
        known = [ln for ln in lines if ln[0] in self.members.index]
        for member, place, _, _ in lines:
            if member not in self.members.index:
                self._reject(f.source_file, rally["where"][f"plac_{place}"],
                             f"plac_{place}: member number {clip(member)} is not in the member register")
        bonus = " ".join(map(str, points)) + " gp" if points else "no bonus below the first row of rally_bonus.csv"
        self.events.append({"event_id": key, "organisation": self.organisation, "system": SYSTEM_NAME, "event_date": rally_date,
                            "kind": "se_rally_bonus", "source_file": f.source_file, "source_sha256": f.sha256,
                            "location": f"{header} → {bonus}"})
        self.posted[f.source_file] = max(1, len(known))
        if not known:
            return
        frame = pd.DataFrame(known, columns=["member", "place", "points", "how"])
        frame = frame.assign(event_id=key, denomination="gp", event_date=[rally_date] * len(frame), rule_version=version,
                             basis=f"{header} → {bonus}; " + frame["how"] + " (a bonus: no ranking points)",
                             season=season_label(rally_date, self.start_month), source_file=f.source_file, source_sha256=f.sha256,
                             location=frame["place"].map(lambda k: rally["where"][f"plac_{k}"]))
        self._append_awards(frame, "event_id", "points")

    def _ranking_points(self, lines: pd.DataFrame) -> pd.DataFrame:
        """Ranking points of each entrant's result (seed section 7), from the unrounded award of its
        sp and gp lines (one exact value per entrant and denomination) and the event's kind."""
        ev_of = {key: ev for key, ev, *_ in self.pending}
        top = lines[lines["denomination"].isin(["sp", "gp"])].drop_duplicates(["competition", "entrant", "denomination"])
        out = []
        # a barometer player paid for part of the matches ranks on that part, exact (× played / matches)
        part = lines[lines["denomination"].isin(["sp", "gp"]) & (lines["share"].astype(str) != "1")]
        players: dict[tuple, list[tuple[str, int, str]]] = {}
        # each result's lines from the columns zipped once, in the keys' order (a pandas group per
        # entrant cost about a millisecond, and a silver event has dozens)
        for (comp, entrant, member, event_id, version, share), g in _groups(
                part, ["competition", "entrant", "member", "event_id", "rule_version", "share"], ["denomination", "exact"]):
            f = Fraction(str(share))
            exact = {d: Fraction(x) * f for d, x in g}
            rp, how = R.ranking_points(exact, R.event_kind(ev_of[event_id]), self.rules, version)
            players.setdefault((comp, entrant), []).append((str(member), rp, f"{member} played {share} of the matches: {how}"))
        for (comp, entrant, event_id, version), g in _groups(
                top, ["competition", "entrant", "event_id", "rule_version"], ["denomination", "exact"]):
            exact = {d: Fraction(x) for d, x in g}
            rp, how = R.ranking_points(exact, R.event_kind(ev_of[event_id]), self.rules, version)
            mine = players.get((comp, entrant), [])
            how += "".join(f"; {h}" for _, _, h in mine)
            out.append((comp, entrant, rp, how, " ".join(f"{m}={r}" for m, r, _ in mine)))
        return pd.DataFrame(out, columns=["competition", "entrant", "rp", "rp_basis", "rp_players"])

    def _result(self) -> SystemBatch:
        names = {s.source_file for s in self.sources}
        # problems of files read from the inbox but not sent tonight stay with their own earlier quarantine
        self.quarantine = [q for q in self.quarantine if q[0] in names]
        q = pd.DataFrame(list(dict.fromkeys(self.quarantine)), columns=["source_file", "location", "reason"])
        q = q.assign(record=pd.NA)[list(QuarantineDraft.to_schema().columns)] if len(q) else empty_frame(QuarantineDraft)
        per_file = q[q["location"] != "whole file"].groupby("source_file").size()
        names = [s.source_file for s in self.sources]
        records = pd.DataFrame({"source_file": names,
                                "records_posted": [self.posted.get(n, 0) for n in names],
                                "records_quarantined": [int(per_file.get(n, 0)) for n in names]})
        awards = [a for a in self.awards if len(a)]
        events = pd.DataFrame(self.events, columns=_EVENT_COLUMNS) if self.events else empty_frame(EventRecord)[_EVENT_COLUMNS]
        if self.events:
            events = events.astype({"event_date": DATE})
        results = [r for r in self.results if len(r)]
        return SystemBatch(
            events=events,
            awards=pd.concat(awards, ignore_index=True) if awards else empty_frame(AwardDraft),
            quarantine=q, records=records,
            tables={"se_results": pd.concat(results, ignore_index=True) if results else empty_frame(SeResult)},
        )

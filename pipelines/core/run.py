"""The nightly run: inbox → lake → ledger → warehouse → publications, all or nothing.

Stages (each timed in the run report):
  scan       list inbox files, hash the new or changed ones, classify them
  process    per organisation, its rule system parses, validates (pandera) and awards
  ledger     post award lines; reverse the lines of corrected files
  validate   pandera validation of everything about to be written
  stage      write Parquet files under var/staging/<run_id>/
  audit      audit queries over committed + staged data (must return no rows)
  publish    warehouse and publications built into temporary files
  commit     move files into the lake, replace the manifest (the commit point), swap in the
             warehouse and publications, write the run report

A run that fails or is killed before the manifest is replaced leaves the lake, ledger and
warehouse as they were; the next run removes its leftovers and does the work.
"""
from __future__ import annotations

import fcntl
import json
import os
import secrets
import signal
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from pathlib import Path

import numpy as np
import pandas as pd

from pipelines.core import inbox, ledger, memory, parallel, quarantine_report, site, warehouse
from pipelines.core.dates import month_keys
from pipelines.core.lake import Lake, StagedRun, write_json_atomically
from pipelines.core.processing import process_isolated
from pipelines.core.recompute import (
    difference as recompute_difference,
    difference_by_player,
    not_rederived,
    recompute_selection,
    recomputation_id as _recomputation_id,
    recomputation_rows as _recomputation_rows,
    rule_data_record,
    rule_data_warnings,
)
from pipelines.core.rule_tables import check_settings
from pipelines.core.settings import DATA_DIR, DEFAULT_MAX_FILE_MB, StatePaths, load_organisations, values_kept_in
from pipelines.core.sql import connect, duckdb_config
from pipelines.core.system import RunContext, SourceFile, get_system
from pipelines.core.text import visible_controls
from pipelines.core.validation import describe_failures, failure_cases
from schemas.common import empty_frame
from schemas.ledger import AwardDraft, AwardLine, EventRecord, QuarantineDraft, QuarantineRecord, RecomputationRecord, SourceRecord

# the night's lines from which the heap is handed back before the audit and again before the
# publications (a collection and a trim cost a night 0.04-0.05 s, and 0.09 s in a test process
# full of objects; a history's lines and result rows free a gigabyte)
GIVE_BACK_FROM_LINES = 100_000

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_QUARANTINE = 3
EXIT_LOCKED = 4

# Test hook: POINTLEDGER_KILL_AT=<checkpoint> kills the process there (SIGKILL), to prove that a
# run dying half-way leaves no trace. Checkpoints: after_process, after_stage, before_manifest,
# after_manifest.
KILL_ENV = "POINTLEDGER_KILL_AT"


class RunLocked(Exception):
    pass


class RunFailed(Exception):
    pass


class OutputsFailed(Exception):
    """The run committed its lines, but rebuilding the warehouse or publications failed. The next
    run redoes them (a committed run without a run report has its outputs redone)."""


@dataclass
class Recompute:
    """`pointledger recompute`: re-derive the posted lines of the current file versions in range
    under the rule data now in data/, and post only the difference (pipelines/core/recompute.py)."""

    organisation: str | None = None
    system: str | None = None
    date_from: date | None = None
    date_to: date | None = None
    dry_run: bool = False
    reason: str = ""

    @property
    def full_range(self) -> bool:
        return self.date_from is None and self.date_to is None


@dataclass
class RunResult:
    run_id: str
    exit_code: int
    report: dict = field(default_factory=dict)


def _checkpoint(name: str) -> None:
    if os.environ.get(KILL_ENV) == name:
        os.kill(os.getpid(), signal.SIGKILL)


@contextmanager
def run_lock(paths: StatePaths):
    """One run at a time per state folder; a second run refuses at once."""
    paths.root.mkdir(parents=True, exist_ok=True)
    handle = open(paths.lock, "a+")
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            raise RunLocked(
                f"another pointledger run is using {paths.root} ({holder}); "
                "wait for it to finish, then run again. Nothing was posted."
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"pid {os.getpid()}, started {datetime.now(timezone.utc):%Y-%m-%d %H:%M:%S} UTC")
        handle.flush()
        yield
    finally:
        handle.close()


def new_run_id() -> str:
    return datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S%fZ") + "-" + secrets.token_hex(2)


class _Timer:
    def __init__(self):
        self.durations: dict[str, float] = {}

    @contextmanager
    def stage(self, name: str, progress=None):
        start = time.perf_counter()
        if progress:
            progress.stage(name)
        yield
        self.durations[name] = round(self.durations.get(name, 0) + time.perf_counter() - start, 4)


class _NoProgress:
    def stage(self, name):
        pass

    def files(self, total):
        pass

    def advance(self, n=1):
        pass


def run(
    inbox_dir: Path,
    state_dir: Path,
    as_of: date | None = None,
    data_dir: Path = DATA_DIR,
    progress=None,
    enabled: list[str] | None = None,
    max_file_mb: int = DEFAULT_MAX_FILE_MB,
    recompute: Recompute | None = None,
    publication_base_url: str | None = None,
) -> RunResult:
    """The nightly batch. `enabled`: the organisations to run (default all of `data_dir`);
    `max_file_mb`: the size limit of an inbox file where an organisation sets none; `recompute`:
    instead of tonight's new files, re-derive the posted history in its range (same lock, same
    atomic commit)."""
    duckdb_config()  # a wrong POINTLEDGER_DUCKDB_THREADS stops the run before it reads anything
    memory.use_system_allocator()
    parallel.workers()  # and so does a wrong POINTLEDGER_WORKERS
    paths = StatePaths(Path(state_dir))
    progress = progress or _NoProgress()
    as_of = as_of or date.today()
    run_id = new_run_id()
    with run_lock(paths), values_kept_in(paths.settings_cache):
        try:
            return _run_locked(Path(inbox_dir), paths, as_of, data_dir, run_id, progress, enabled, max_file_mb, recompute,
                               publication_base_url)
        except OutputsFailed:
            raise
        except (Exception, KeyboardInterrupt) as error:
            if any(r["run_id"] == run_id for r in Lake.open(paths).runs):
                # the manifest names this run: its lines are posted, whatever failed (or was
                # interrupted) after the commit; the next run writes its outputs and report
                stopped = ("was interrupted" if isinstance(error, KeyboardInterrupt)
                           else f"failed ({type(error).__name__}: {error})")
                raise OutputsFailed(f"run {run_id} posted its lines, but then {stopped} before its warehouse, "
                                    "publications or report were done; the next run redoes them") from error
            # Nothing was committed: remove what this run staged or moved, keep the state as it was.
            Lake.open(paths).recover()
            paths.warehouse.with_name(paths.warehouse.name + ".tmp").unlink(missing_ok=True)
            raise


def _run_locked(inbox_dir: Path, paths: StatePaths, as_of: date, data_dir: Path, run_id: str, progress,
                enabled: list[str] | None = None, max_file_mb: int = DEFAULT_MAX_FILE_MB,
                recompute: Recompute | None = None, publication_base_url: str | None = None) -> RunResult:
    timer = _Timer()
    started = datetime.now(timezone.utc)
    lake = Lake.open(paths)
    recovered = lake.recover()
    known = load_organisations(data_dir)
    organisations = load_organisations(data_dir, enabled)
    check_settings(data_dir, organisations)
    ctx = RunContext(run_id=run_id, as_of=as_of, lake=lake, data_dir=data_dir, inbox=inbox_dir, checkpoint=_checkpoint,
                     publication_base_url=publication_base_url)

    # -- scan ----------------------------------------------------------------------------------
    with timer.stage("scan", progress):
        history = lake.read("sources", SourceRecord)
        latest = inbox.latest_versions(history)
        ever_sent = set(history["organisation"].unique())
        del history
        files, refused = inbox.scan(inbox_dir)
        unknown_org = files[~files["organisation"].isin(known.index)]
        # organisations the configuration does not enable are left alone, not reported
        not_enabled = files[files["organisation"].isin(known.index) & ~files["organisation"].isin(organisations.index)]
        files = files[files["organisation"].isin(organisations.index)]
        files = inbox.with_hashes(files, latest)
        files = inbox.classify(files, latest)
        ctx.duplicates = frozenset(files.loc[files["action"] == "duplicate", "source_file"].astype(str))
        if recompute is not None:
            # tonight's new files wait for the nightly run; only the posted history is re-derived,
            # and what of it the inbox no longer holds as posted is said (never passed over)
            left_out = not_rederived(files, latest, lake, organisations, recompute)
            files = recompute_selection(files, latest, lake, organisations, recompute)
            unknown_org, not_enabled = unknown_org.iloc[:0], not_enabled.iloc[:0]
            refused = refused.iloc[:0]
            ctx.duplicates = frozenset()
        system_of = organisations["system"]
        # a file's type is judged when it is to be read: tonight's new and corrected files (a
        # federation's inbox keeps 180,000 files read on earlier nights, whose names are not
        # looked at again); a recomputation judges every file it selected
        judged = (files["action"].isin(["new", "correction", "recompute"]).to_numpy(dtype=bool) if recompute is None
                  else np.ones(len(files), dtype=bool))
        suffix = files.loc[judged, "source_file"].str.extract(r"(\.[^./]+)$")[0].str.lower().fillna("")
        suffixes_of = {org: get_system(system_of[org]).accepted_suffixes for org in files.loc[judged, "organisation"].unique()}
        accepted = np.ones(len(files), dtype=bool)
        accepted[judged] = [suf in suffixes_of[org] for suf, org in zip(suffix.tolist(), files.loc[judged, "organisation"].tolist())]
        accepted = pd.Series(accepted, index=files.index)
        limit_mb = files["organisation"].map(organisations["max_file_mb"]).astype("Float64").fillna(max_file_mb)
        files = files.assign(supported=accepted, too_large=(files["size_bytes"] > limit_mb * 1_000_000).astype(bool),
                             limit_mb=limit_mb)

    quarantine_parts = [_unknown_org_quarantine(unknown_org), _refused_quarantine(refused)]
    oversized = files[files["action"].isin(["new", "correction"]) & files["supported"] & files["too_large"]]
    quarantine_parts.append(
        pd.DataFrame(
            {
                "source_file": oversized["source_file"],
                "location": "whole file",
                "reason": "file too large: " + (oversized["size_bytes"] / 1_000_000).round(1).astype(str)
                + " MB, the limit is " + oversized["limit_mb"].astype(int).astype(str)
                + " MB (max_file_mb in the organisation settings); the file was not read. Send the results "
                "in smaller files (one per event or day), or ask the office to raise the limit",
                "record": pd.NA,
            }
        )
    )
    files = files.assign(supported=files["supported"] & ~files["too_large"]).drop(columns=["too_large", "limit_mb"])
    if recompute is not None:  # a file quarantined for its type or size stays as it is: no rule reads it
        files = files[files["supported"]]
    unsupported = files[files["action"].isin(["new", "correction"]) & ~files["supported"]
                        & ~files["source_file"].isin(oversized["source_file"])]
    quarantine_parts.append(
        pd.DataFrame(
            {
                "source_file": unsupported["source_file"],
                "location": "whole file",
                "reason": "unsupported file type " + unsupported["source_file"].str.extract(r"(\.[^./]+)$")[0].fillna("(none)")
                + " for a " + unsupported["organisation"].map(system_of) + " organisation; expected one of "
                + unsupported["organisation"].map(lambda o: ", ".join(get_system(system_of[o]).accepted_suffixes)),
                "record": pd.NA,
            }
        )
    )

    # -- process ---------------------------------------------------------------------------------
    to_process = files[files["action"].isin(["new", "correction", "recompute"]) & files["supported"]]
    active = latest.loc[latest["status"] != "duplicate", ["source_file", "sha256"]].rename(columns={"sha256": "source_sha256"})
    with timer.stage("process", progress):
        events, awards, records, tables, incidents = _process(ctx, organisations, to_process, active, quarantine_parts, progress)
        del to_process, active
    _checkpoint("after_process")

    # -- ledger ----------------------------------------------------------------------------------
    with timer.stage("ledger", progress):
        drafts = pd.concat([a for a in awards if len(a)], ignore_index=True) if any(len(a) for a in awards) else None
        posted = ledger.post(drafts, run_id, as_of) if drafts is not None else empty_frame(AwardLine)
        replaced = files[files["supersedes_sha256"].notna()]
        reversals = empty_frame(AwardLine)
        recomputation = None
        rederived_lines = None
        if recompute is not None:
            recomputation = _recomputation_id(run_id)
            prior = _prior_lines(lake, replaced)
            standing = ledger.standing_lines(prior) if len(prior) else prior
            posted = recompute_difference(standing, drafts if drafts is not None else empty_frame(AwardDraft), recomputation,
                                          run_id, as_of)
            # a re-derived version's source record counts the lines that stand for it (as a fresh
            # run's would), not only the difference this recomputation posts
            rederived_lines = drafts.groupby("source_file").size() if drafts is not None else pd.Series(dtype="int64")
            replaced = replaced.iloc[:0]
        if len(replaced):
            prior = _prior_lines(lake, replaced)
            standing = ledger.standing_lines(prior)
            reversals = ledger.reverse(standing, replaced.set_index("source_file")["sha256"], run_id, as_of)
        award_lines = pd.concat([reversals, posted], ignore_index=True) if len(reversals) else posted
        del awards, drafts, posted  # a large first run holds several copies otherwise
    if recompute is not None and recompute.dry_run:
        return _dry_run_result(run_id, as_of, recomputation, recompute, award_lines, files, left_out)

    # -- validate ---------------------------------------------------------------------------------
    with timer.stage("validate", progress):
        quarantine = pd.concat([q for q in quarantine_parts if len(q)], ignore_index=True) if any(len(q) for q in quarantine_parts) else empty_frame(QuarantineDraft)
        quarantine = quarantine.assign(
            run_id=run_id, organisation=quarantine["source_file"].str.extract(r"^([^/]*)")[0],
            # a NUL or a stray carriage return quoted from a file, written out (\x00) to be seen
            reason=visible_controls(quarantine["reason"]), record=visible_controls(quarantine["record"]),
        )[list(QuarantineRecord.to_schema().columns)]
        event_frame = pd.concat([e for e in events if len(e)], ignore_index=True).assign(run_id=run_id) if any(len(e) for e in events) else empty_frame(EventRecord)
        source_rows = _source_records(files, records, quarantine, award_lines, run_id, rederived_lines)
        checked = {
            "awards": _validated(AwardLine, award_lines),
            "events": _validated(EventRecord, event_frame),
            "quarantine": _validated(QuarantineRecord, quarantine),
            "sources": _validated(SourceRecord, source_rows),
        }
        # a table of one organisation passed its model in process_isolated (and is coerced to
        # it): validating it again would check the same rows twice; frames of several
        # organisations are validated together (their grain may collide)
        system_tables = {
            name: (model, frames[0][0] if len(frames) == 1 and frames[0][1]
                   else _validated(model, pd.concat([frame for frame, _ in frames], ignore_index=True)))
            for name, (model, frames) in tables.items()
        }
        del tables, events, award_lines, event_frame

    # -- stage -------------------------------------------------------------------------------------
    staged = StagedRun(lake, run_id)
    with timer.stage("stage", progress):
        staged.write("awards", AwardLine, checked["awards"], month_column="event_date")
        staged.write("events", EventRecord, checked["events"], month_column="event_date")
        for name in system_tables:  # (no loop variable keeps the last table, a history's largest, alive)
            staged.write(name, *system_tables[name], month_column="event_date")
        staged.write("quarantine", QuarantineRecord, checked["quarantine"])
        staged.write("sources", SourceRecord, checked["sources"])
        if recompute is not None:
            staged.write("recomputations", RecomputationRecord,
                         _validated(RecomputationRecord, _recomputation_rows(recomputation, run_id, recompute, files,
                                                                            checked["awards"], lake, data_dir)))
    _checkpoint("after_stage")

    # The months of the award lines (reversals included) and of the events this run wrote: the
    # partitions the audit reads and the months whose publications are refreshed. This and what
    # the run record and report need of the night's lines are taken now: the frames are written,
    # and a history's lines and system tables (about 0.45 GB at 300 Swedish clubs × 24 months)
    # would otherwise be held through the audit's queries and the publications.
    dated = pd.concat([checked["awards"][["organisation", "event_date"]], checked["events"][["organisation", "event_date"]]])
    dated = dated.assign(month=month_keys(dated["event_date"])).drop_duplicates(["organisation", "month"])
    affected = {org: sorted(set(months)) for org, months in dated.groupby("organisation")["month"]}
    rule_data = rule_data_record(lake, organisations, data_dir, checked["awards"], recompute)
    difference = difference_by_player(checked["awards"]) if recompute is not None else None
    reversed_whole = _reversed_whole(files, checked["awards"])
    checked["awards"] = checked["awards"][["entry_type"]]
    del system_tables, dated
    lines_posted = len(checked["awards"])
    if lines_posted >= GIVE_BACK_FROM_LINES:  # a night's few lines leave nothing to hand back
        memory.give_back()

    # -- audit -------------------------------------------------------------------------------------
    with timer.stage("audit", progress):
        con = connect()
        try:
            # Audits read what this run adds plus the committed partitions it could collide
            # with: lines of a file live in the months of its events, and a reversal in the
            # month of the line it reverses, so (organisation, month) partitions suffice.
            scope = {org: set(months) for org, months in affected.items()}
            for table, model in [("awards", AwardLine), ("events", EventRecord)]:
                files_ = [f for org, months in scope.items() for f in lake.committed_files(table, org, months)]
                warehouse.create_lake_view(con, table, model, files_ + staged.staged_paths(table))
            warehouse.create_lake_view(con, "sources", SourceRecord, lake.committed_files("sources") + staged.staged_paths("sources"))
            failures = warehouse.run_audits(con)
        finally:
            con.close()
        if failures:
            detail = "; ".join(f"{name}: {len(rows)} row(s), e.g. {rows.head(3).to_dict('records')}" for name, rows in failures.items())
            raise RunFailed(f"audit failed, nothing was posted: {detail}")

    run_record = {
        "run_id": run_id,
        "as_of": as_of.isoformat(),
        "started_at": started.isoformat(timespec="seconds"),
        "affected": affected,
        **rule_data,
    }

    # -- commit: files into the lake, then the manifest ---------------------------------------------
    with timer.stage("commit", progress):
        staged.commit(run_record, checkpoint=_checkpoint)
    _checkpoint("after_manifest")

    if lines_posted >= GIVE_BACK_FROM_LINES:  # before the publications' workers start beside this process
        memory.give_back()

    # -- warehouse and publications (derived; rebuilt from the committed lake) -----------------------
    # A committed run without a report was stopped before its publications were done: redo its
    # months too (the warehouse is rebuilt every run anyway).
    affected = {org: set(months) for org, months in run_record["affected"].items()}
    publishing_runs = {run_id}
    for earlier in lake.runs[:-1]:
        if not (paths.runs / f"{earlier['run_id']}.json").exists():
            publishing_runs.add(earlier["run_id"])
            for org, months in earlier.get("affected", {}).items():
                affected.setdefault(org, set()).update(months)
    ctx.publishing_runs = frozenset(publishing_runs)
    # ...and its report is written now, from the lake, so its quarantine is still signalled
    unreported = _report_unreported_runs(paths, lake, run_id)
    warehouse_notes: list[str] = []
    # an organisation that never sent a file (none posted, none tonight, not even one refused) and has
    # no pages has nothing to publish: no empty site is written for it (the site's index lists it
    # from its first file on). Its views are in the warehouse all the same.
    heard_from = ever_sent | set(files["organisation"]) | set(checked["quarantine"]["organisation"])
    to_publish = {o for o in organisations.index if o in heard_from or (paths.publications / o).exists()}
    try:
        with timer.stage("publish", progress):
            published = refresh_outputs(ctx, paths, organisations, lake, affected=affected, notes=warehouse_notes,
                                        to_publish=to_publish)
    except Exception as error:
        raise OutputsFailed(
            f"run {run_id} posted its lines, but rebuilding the warehouse and publications failed "
            f"({type(error).__name__}: {error}); the next run redoes them"
        ) from error

    report = _report(run_id, as_of, started, inbox_dir, files, unknown_org, checked, recovered, timer, published)
    report["files"]["refused_unread"] = int(len(refused))
    report["files"]["not_enabled"] = int(len(not_enabled))
    report["internal_errors"] = incidents
    report["warehouse_notes"] = warehouse_notes
    report["earlier_runs_unreported"] = unreported
    report["corrections_reversed_whole"] = reversed_whole
    report["rule_data_changed"] = rule_data_warnings(run_record)
    if recompute is not None:
        report["recomputation"] = {"recomputation_id": recomputation, "reason": recompute.reason,
                                   "files": int((files["action"] == "recompute").sum()),
                                   "not_rederived": left_out, "difference": difference}
    exit_code = EXIT_QUARANTINE if len(checked["quarantine"]) or any(r["quarantined"] for r in unreported) else EXIT_OK
    report["exit_code"] = exit_code
    write_json_atomically(paths.runs / f"{run_id}.json", report)
    return RunResult(run_id, exit_code, report)


def _report_unreported_runs(paths: StatePaths, lake: Lake, this_run: str) -> list[dict]:
    """Committed runs that never wrote their report (stopped after their commit): write a report
    for each from the lake, so that no night's quarantine goes unsignalled."""
    missing = [r for r in lake.runs if r["run_id"] != this_run and not (paths.runs / f"{r['run_id']}.json").exists()]
    if not missing:
        return []
    ids = [r["run_id"] for r in missing]
    rows = lake.read("quarantine", QuarantineRecord, where="run_id in (select unnest(?))", params=[ids])
    counts = rows.groupby("run_id").size().to_dict() if len(rows) else {}
    out = []
    for r in missing:
        quarantined = int(counts.get(r["run_id"], 0))
        late = {
            "run_id": r["run_id"], "as_of": r.get("as_of"), "started_at": r.get("started_at"),
            "reconstructed_by": this_run,
            "note": "this run committed its lines but stopped before writing its report; reconstructed from the lake",
            "records": {"quarantined": quarantined},
            "exit_code": EXIT_QUARANTINE if quarantined else EXIT_OK,
        }
        write_json_atomically(paths.runs / f"{r['run_id']}.json", late)
        out.append({"run_id": r["run_id"], "as_of": r.get("as_of"), "quarantined": quarantined})
    return out


def _holds_every_file(lake: Lake, organisation: str, pruned: dict[str, tuple[type, list[Path]]]) -> bool:
    """Whether the files chosen for a scoped warehouse are all the organisation's files (its months
    are every month it has: a small league, a first season)."""
    return all(files == lake.committed_files(table, organisation) for table, (_, files) in pruned.items())


def refresh_outputs(ctx, paths: StatePaths, organisations: pd.DataFrame, lake: Lake, affected: dict,
                    notes: list[str] | None = None, to_publish: set[str] | None = None) -> list[str]:
    """Rebuild the warehouse and the publications of the affected periods (plus any missing).
    `to_publish`: the organisations whose publications are made (default: all)."""
    data_tables: dict[str, list[pd.DataFrame]] = {}
    system_views: list[str] = []
    models = dict(warehouse.CORE_TABLES)
    for system_name in sorted(set(organisations["system"])):
        system = get_system(system_name)
        models.update(system.lake_tables)
        for view in system.warehouse_sql:
            if view not in system_views:
                system_views.append(view)
        for _, org in organisations[organisations["system"] == system_name].iterrows():
            for name, frame in system.warehouse_tables(ctx, org).items():
                data_tables.setdefault(name, []).append(frame)
    tables = {name: pd.concat(frames, ignore_index=True).drop_duplicates() for name, frames in data_tables.items()}
    runs = pd.DataFrame(
        [{"run_id": r["run_id"], "as_of": r.get("as_of"), "started_at": r.get("started_at")} for r in lake.runs],
        columns=["run_id", "as_of", "started_at"],
    )
    # dates as DATE, timestamps as TIMESTAMP (UTC) in the warehouse, like every other relation
    runs = runs.assign(as_of=pd.to_datetime(runs["as_of"]).dt.date,
                       started_at=pd.to_datetime(runs["started_at"], utc=True).dt.tz_convert(None))
    lake_files = {table: (model, lake.committed_files(table)) for table, model in models.items()}
    tmp = warehouse.build(paths.warehouse, lake_files, tables, system_views, runs,
                          rows_db=paths.warehouse_rows, lake_root=paths.lake)
    note = warehouse.swap_in(tmp, paths.warehouse, set_aside=paths.runs / f"{ctx.run_id}-analyst-session.wal")
    if note and notes is not None:
        notes.append(note)

    def scoped(organisation: str, months: set[str], reads: set[str] | None = None):
        """An in-memory warehouse with the same views over one organisation's files of these
        months only: what a publication of a period reads, whatever the size of the ledger.
        Only the core's relations and the organisation's own system's (its publication reads no
        other system's); with `reads`, only the views the publication queries and what they read."""
        system = get_system(organisations.loc[organisation, "system"])
        own = {**warehouse.CORE_TABLES, **system.lake_tables}
        pruned = {table: (model, lake.committed_files(table, organisation, months)) for table, model in own.items()}
        if _holds_every_file(lake, organisation, pruned):
            # the warehouse itself (`con`, open while the publications are made) answers as the
            # copy would, without making one
            return con.cursor()
        scoped_con = connect()
        warehouse.define(scoped_con, pruned, tables, [v for v in system_views if v in system.warehouse_sql], runs,
                         scoped=True, reads=reads)
        return scoped_con

    ctx.scoped = scoped
    published: list[str] = []
    con = connect(paths.warehouse, read_only=True)
    try:
        for organisation, org in organisations.iterrows():
            if to_publish is not None and organisation not in to_publish:
                continue
            system = get_system(org["system"])
            out_dir = paths.publications / organisation
            months = set(affected.get(organisation, []))
            for path in system.publish(ctx, con, org, months, out_dir):
                published.append(str(path))
            problems = quarantine_report.open_problems(con, organisation)  # the report's and the index's
            lang = org.get("language") or "en"
            report = quarantine_report.publish(con, organisation, out_dir, problems,
                                               getattr(system, "csv_delimiter", ","),
                                               site.messages(ctx.data_dir, lang), lang)
            if report is not None:
                published.append(str(report))
            # the site's index and player pages link what the systems published (pipelines/core/site.py)
            names = system.player_names(con, org) if hasattr(system, "player_names") else None
            notes_for = ((lambda players, _s=system, _o=org: _s.player_notes(con, _o, players))
                         if hasattr(system, "player_notes") else None)
            always = system.player_pages_due(con, org) if hasattr(system, "player_pages_due") else set()
            renamed = system.names_changed(con, org) if hasattr(system, "names_changed") else False
            sections = system.section_titles(con, org) if hasattr(system, "section_titles") else None
            published.extend(str(p) for p in site.publish_organisation(con, org, out_dir, ctx.run_id, ctx.data_dir,
                                                                       names, notes_for, always,
                                                                       getattr(system, "publishes_periods", False),
                                                                       paths.page_index(organisation), sections,
                                                                       every_page=renamed,
                                                                       open_problems=len(problems),
                                                                       base_url=ctx.publication_base_url))
        top = site.publish_site_index(paths.publications, organisations, ctx.data_dir)
        if top is not None:
            published.append(str(top))
    finally:
        con.close()
    return published


def _process(ctx: RunContext, organisations: pd.DataFrame, to_process: pd.DataFrame, active: pd.DataFrame,
             quarantine_parts: list, progress) -> tuple[list, list, list, dict, list]:
    """Each organisation's files through its rule system, isolated (pipelines/core/processing.py).
    A function of its own so that nothing of the last organisation (its sources, its largest table)
    outlives the loop: a history's tables are held otherwise through the publications."""
    events, awards, records, tables, incidents = [], [], [], {}, []
    progress.files(len(to_process))
    for organisation, batch in to_process.groupby("organisation", sort=True):
        org = organisations.loc[organisation]
        system = get_system(org["system"])
        sources = [
            SourceFile(organisation, row.source_file, Path(row.path), row.sha256) for row in batch.itertuples()
        ]
        # a recomputed file replaces its own earlier lines: systems that read holdings from the
        # ledger (JCBL strats) must not count them beside the re-derived ones
        superseded = set(batch.loc[batch["action"].isin(["correction", "recompute"]), "source_file"])
        isolated = process_isolated(ctx, system, org, sources, active, superseded)
        del sources
        result = isolated.batch
        incidents.extend(i.as_dict() for i in isolated.incidents)
        events.append(result.events)
        awards.append(result.awards)
        records.append(result.records)
        quarantine_parts.append(result.quarantine)
        for name, frame in result.tables.items():
            if frame is None or not len(frame):
                continue
            tables.setdefault(name, (system.lake_tables[name], []))[1].append((frame, name in isolated.validated))
        progress.advance(len(batch))
        del result, isolated
    return events, awards, records, tables, incidents

def _validated(model, frame: pd.DataFrame) -> pd.DataFrame:
    validated, cases = failure_cases(model, frame)
    if len(cases):
        raise RunFailed(f"{model.__name__} output failed validation (a pipeline bug; nothing was posted): "
                        + "; ".join(describe_failures(cases.head(10))))
    return validated


def _unknown_org_quarantine(files: pd.DataFrame) -> pd.DataFrame:
    if files.empty:
        return empty_frame(QuarantineDraft)
    top_level = files["organisation"] == ""
    reason = ("no organisation settings for folder '" + files["organisation"] + "': add data/organisations/"
              + files["organisation"] + ".toml (or move the file into a known organisation's folder); the file waits in the inbox")
    reason = reason.mask(top_level, "files must be inside an organisation folder (inbox/<organisation>/...); the file waits in the inbox")
    return pd.DataFrame({"source_file": files["source_file"], "location": "whole file", "reason": reason, "record": pd.NA})


def _refused_quarantine(refused: pd.DataFrame) -> pd.DataFrame:
    """Inbox entries refused before reading (links, non-UTF-8 names): reported on every run."""
    if refused.empty:
        return empty_frame(QuarantineDraft)
    return pd.DataFrame({"source_file": refused["source_file"], "location": "whole file",
                         "reason": refused["reason"], "record": pd.NA})


def _source_records(files, records, quarantine, award_lines, run_id, rederived_lines=None) -> pd.DataFrame:
    """One source record per file version processed. `rederived_lines`: a recomputation's lines per
    file as re-derived (it posts only the difference, but the version stands with all of them)."""
    processed = files[files["action"] != "unchanged"]
    counts = pd.concat(records, ignore_index=True) if records else pd.DataFrame(columns=["source_file", "records_posted", "records_quarantined"])
    lines = (award_lines[award_lines["entry_type"] == "award"].groupby("source_file").size() if rederived_lines is None
             else rederived_lines)
    whole_file = quarantine[quarantine["location"] == "whole file"].groupby("source_file").size()
    merged = processed.merge(counts, on="source_file", how="left")
    posted = merged["records_posted"].fillna(0).astype(int)
    # a whole-file row counts as one record only where the system counted none for that file
    # (a file held back whole has its own records counted by its rule system already)
    reported = merged["records_quarantined"].fillna(0).astype(int)
    whole = merged["source_file"].map(whole_file).fillna(0).astype(int)
    rejected = reported + whole.where(reported == 0, 0)
    status = pd.Series("posted", index=merged.index, dtype="string")
    status = status.mask(rejected > 0, "posted_with_quarantine").mask((rejected > 0) & (posted == 0), "quarantined")
    status = status.mask(merged["action"] == "duplicate", "duplicate")
    return merged.assign(
        run_id=run_id,
        status=status,
        records_posted=posted,
        records_quarantined=rejected,
        award_lines=merged["source_file"].map(lines).fillna(0).astype(int),
    )[list(SourceRecord.to_schema().columns)]


def _report(run_id, as_of, started, inbox_dir, files, unknown_org, checked, recovered, timer, published) -> dict:
    action_counts = files["action"].value_counts().to_dict()
    sources = checked["sources"]
    return {
        "run_id": run_id,
        "as_of": as_of.isoformat(),
        "started_at": started.isoformat(timespec="seconds"),
        "finished_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "inbox": str(inbox_dir),
        "files": {
            "seen": int(len(files) + len(unknown_org)),
            "new": int(action_counts.get("new", 0)),
            "corrections": int(action_counts.get("correction", 0)),
            "already_posted": int(action_counts.get("unchanged", 0)),
            "duplicates": int(action_counts.get("duplicate", 0)),
            "posted": int((sources["status"] == "posted").sum()),
            "posted_with_quarantine": int((sources["status"] == "posted_with_quarantine").sum()),
            "quarantined": int((sources["status"] == "quarantined").sum()),
            "waiting_unknown_organisation": int(len(unknown_org)),
        },
        "records": {
            "posted": int(sources["records_posted"].sum()),
            "quarantined": int(len(checked["quarantine"])),
        },
        "award_lines": {
            "posted": int((checked["awards"]["entry_type"] == "award").sum()),
            "reversals": int((checked["awards"]["entry_type"] == "reversal").sum()),
        },
        "recovered_from_interrupted_run": recovered,
        "publications": published,
        "durations_seconds": timer.durations,
    }


def _reversed_whole(files: pd.DataFrame, awards: pd.DataFrame) -> list[dict]:
    """Corrections whose new version posted no line while its earlier version's lines were
    reversed: an empty or cut-short upload looks like this, and the office should hear of it."""
    corrected = files.loc[files["action"] == "correction", "source_file"]
    if corrected.empty:
        return []
    lines = awards[awards["source_file"].isin(corrected)]
    if lines.empty:
        return []
    counts = lines.groupby(["source_file", "entry_type"]).size().unstack(fill_value=0)
    reversed_ = counts.get("reversal", pd.Series(0, index=counts.index))
    posted = counts.get("award", pd.Series(0, index=counts.index))
    whole = reversed_[(reversed_ > 0) & (posted == 0)]
    return [{"source_file": str(f), "reversed_lines": int(n)} for f, n in whole.sort_index().items()]


def _prior_lines(lake: Lake, replaced: pd.DataFrame) -> pd.DataFrame:
    """Every ledger line (awards and reversals) of the given paths."""
    if replaced.empty:
        return empty_frame(AwardLine)
    return pd.concat(
        [lake.read("awards", AwardLine, org, where="source_file in (select unnest(?))", params=[list(group["source_file"])])
         for org, group in replaced.groupby("organisation")],
        ignore_index=True,
    )


def _dry_run_result(run_id: str, as_of: date, recomputation: str, recompute: Recompute, award_lines: pd.DataFrame,
                    files: pd.DataFrame, left_out: dict[str, list[str]]) -> RunResult:
    """`recompute --dry-run`: the difference it would post, nothing written. Exit 3 when there is one."""
    report = {
        "run_id": run_id, "as_of": as_of.isoformat(), "dry_run": True,
        "recomputation": {"recomputation_id": recomputation, "reason": recompute.reason,
                          "files": int((files["action"] == "recompute").sum()),
                          "not_rederived": left_out, "difference": difference_by_player(award_lines)},
        "award_lines": {"posted": int((award_lines["entry_type"] == "award").sum()),
                        "reversals": int((award_lines["entry_type"] == "reversal").sum())},
    }
    return RunResult(run_id, EXIT_QUARANTINE if len(award_lines) else EXIT_OK, report)

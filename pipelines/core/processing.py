"""One organisation's batch through its rule system, with every failure confined to its files.

`run` and `check` both call `process_isolated`, so a file is judged the same way by both.

A rule system scores a batch of files together (vectorised). Whatever goes wrong inside it — an
exception in a parser or a scorer, or output that breaks its own contract (a pandera model) —
must cost only the files concerned, never the night:

1. the batch is processed whole (the fast path);
2. if that raises, each isolation group (the files that must be scored together; by default
   each file alone) is processed on its own, and a group that still raises is quarantined as a
   whole with "internal error" (the traceback goes to the run report, not to the club); the
   groups that did not raise are then scored together once more, so that checks across the
   night's files (a game posted in two files) still hold;
3. the outputs are checked against their models; rows that break them are traced to their
   source files, and those files' groups are withdrawn from the batch and quarantined;
4. a file that yielded no record at all, and no problem either, is quarantined: "no results
   found", never posted empty.
"""
from __future__ import annotations

import traceback
from dataclasses import dataclass, field

import pandas as pd

from pipelines.core.system import FileChangedWhileRead, SourceFile, SystemBatch
from pipelines.core.validation import describe_failures, failure_cases
from schemas.common import empty_frame
from schemas.ledger import AwardDraft, EventRecord, QuarantineDraft

RECORD_COLUMNS = ["source_file", "records_posted", "records_quarantined"]


def held_for_event_file(event_file: str, detail: str, this: str, kind: str = "event file") -> str:
    """The reason of a result list held back whole because its event file has problems. The
    quarantine view (sql/warehouse/quarantine.sql) reads the event file's path out of this wording
    and resolves the hold the night a version of that file with no problem of its own is read: keep
    "held back until the event [settings] file <path> is corrected (" as it is."""
    return (f"held back until the {kind} {event_file} is corrected ({detail}); send the corrected {kind}, "
            f"{this} need not be sent again")
DEFAULT_EXPECTED = "result records in one of the formats documented for this organisation's rule system"


@dataclass
class Incident:
    """An unexpected internal error, for the run report (the office's, not the club's, to fix)."""

    source_files: list[str]
    error: str
    traceback: str

    def as_dict(self) -> dict:
        return {"source_files": self.source_files, "error": self.error, "traceback": self.traceback}


@dataclass
class IsolatedBatch:
    """`validated`: the lake tables of `batch` that passed their model here (coerced to its types;
    rows of withdrawn files since left out): the run validates a table again only where several
    organisations' frames are put together (their grain may collide)."""
    batch: SystemBatch
    incidents: list[Incident] = field(default_factory=list)
    validated: frozenset[str] = frozenset()


def isolation_groups(system, sources: list[SourceFile], ctx) -> list[list[SourceFile]]:
    """The files a rule system must score together; each file alone unless the system says so.
    `ctx` is the run: a system that reads the files to group them reads them with its rules."""
    grouper = getattr(system, "isolation_groups", None)
    if grouper is None:
        return [[source] for source in sources]
    groups = [list(group) for group in grouper(sources, ctx) if group]
    covered = {s.source_file for group in groups for s in group}
    # a file the system forgot stays its own group: nothing is left out of the accounting
    return groups + [[s] for s in sources if s.source_file not in covered]


def process_isolated(ctx, system, organisation: pd.Series, sources: list[SourceFile], active: pd.DataFrame,
                     superseded: set[str]) -> IsolatedBatch:
    incidents: list[Incident] = []
    try:
        parts = [system.process(ctx, organisation, sources, active, superseded)]
    except Exception:
        parts = _retry_by_group(ctx, system, organisation, sources, active, superseded, incidents)
    batch = _concat(parts)
    batch, withdrawn, validated = _withdraw_invalid_outputs(system, batch, sources, ctx)
    incidents.extend(withdrawn)
    batch = _quarantine_empty_files(system, batch, sources, ctx)
    return IsolatedBatch(batch, incidents, validated)


def _retry_by_group(ctx, system, organisation: pd.Series, sources: list[SourceFile], active: pd.DataFrame,
                    superseded: set[str], incidents: list[Incident]) -> list[SystemBatch]:
    """The batch raised: find the groups that raise on their own, then score the others together.

    The groups are searched by halving: each half that scores is kept, each half that raises is
    halved again, down to single groups. One bad file among n costs about 2·log2(n) batches, not
    n (a federation night of 300 clubs' files would otherwise be scored file by file).

    Scoring the good groups together again (rather than keeping the halves' results) keeps the
    checks that look across the files of one night: a game posted twice in two files, a JCBL
    player's holdings from an earlier event of the same night. If the good groups raise together
    too (a fault that only shows in company), the halves' results stand.
    """
    good: list[tuple[list[SourceFile], SystemBatch]] = []
    failed: list[SystemBatch] = []

    def process(groups: list[list[SourceFile]]) -> SystemBatch:
        files = [s for group in groups for s in group]
        names = {s.source_file for s in files}
        return system.process(ctx, organisation, files, active, superseded & names)

    def search(groups: list[list[SourceFile]]) -> None:
        """`groups` raised together: score each half, halving again where one raises."""
        if len(groups) == 1:
            return  # recorded by the caller, which holds the error
        middle = len(groups) // 2
        for half in (groups[:middle], groups[middle:]):
            try:
                good.append((half, process(half)))
            except Exception as error:
                if len(half) == 1:
                    failed.append(_failed_group(half[0], error, incidents))
                else:
                    search(half)

    groups = isolation_groups(system, sources, ctx)
    if len(groups) == 1:
        try:
            good.append((groups, process(groups)))
        except Exception as error:
            failed.append(_failed_group(groups[0], error, incidents))
    else:
        search(groups)
    if not failed or len(good) < 2:
        return [part for _, part in good] + failed
    together = [group for groups_of_part, _ in good for group in groups_of_part]
    try:
        return [process(together)] + failed
    except Exception:
        return [part for _, part in good] + failed


def _failed_group(group: list[SourceFile], error: Exception, incidents: list[Incident]) -> SystemBatch:
    """The quarantine of a group that raised on its own: a file written while the run read it
    waits for the next run (not a fault); anything else is an internal error, with an incident."""
    if isinstance(error, FileChangedWhileRead):
        changed = str(error)
        reasons = [FileChangedWhileRead.reason if s.source_file == changed else
                   f"held back with {changed}, which changed while this run was reading it: the next run reads both again"
                   for s in group]
        return SystemBatch(events=pd.DataFrame(), awards=pd.DataFrame(), records=pd.DataFrame(columns=RECORD_COLUMNS),
                           quarantine=pd.DataFrame({"source_file": [s.source_file for s in group], "location": "whole file",
                                                    "reason": reasons, "record": pd.NA}))
    incidents.append(_incident(group, error))
    return _internal_error_batch(group, error)


def _incident(group: list[SourceFile], error: Exception) -> Incident:
    return Incident(
        source_files=[s.source_file for s in group],
        error=f"{type(error).__name__}: {error}"[:2000],
        traceback="".join(traceback.format_exception(error))[-20000:],
    )


def _whole_file_rows(source_files: list[str], reason: str) -> pd.DataFrame:
    return pd.DataFrame({"source_file": source_files, "location": "whole file", "reason": reason, "record": pd.NA})


def _internal_error_batch(group: list[SourceFile], error: Exception) -> SystemBatch:
    together = f" (scored together with {', '.join(s.source_file for s in group[1:])})" if len(group) > 1 else ""
    reason = (
        f"internal error while reading or scoring this file{together}: {type(error).__name__}. "
        "This is a fault in pointledger, not necessarily in the file: the office has the details in the "
        "run report. The file waits in the inbox; it is read again when it is corrected or pointledger is fixed."
    )
    return SystemBatch(
        events=pd.DataFrame(), awards=pd.DataFrame(), records=pd.DataFrame(columns=RECORD_COLUMNS),
        quarantine=_whole_file_rows([group[0].source_file] + [s.source_file for s in group[1:]], reason),
    )


def _concat(parts: list[SystemBatch]) -> SystemBatch:
    def cat(frames):
        frames = [f for f in frames if f is not None and len(f)]
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()

    tables: dict[str, list[pd.DataFrame]] = {}
    for part in parts:
        for name, frame in part.tables.items():
            tables.setdefault(name, []).append(frame)
    if len(parts) == 1:
        return parts[0]
    return SystemBatch(
        events=cat(p.events for p in parts),
        awards=cat(p.awards for p in parts),
        quarantine=cat(p.quarantine for p in parts),
        records=cat(p.records for p in parts) if any(len(p.records) for p in parts) else pd.DataFrame(columns=RECORD_COLUMNS),
        tables={name: cat(frames) if any(len(f) for f in frames) else frames[0] for name, frames in tables.items()},
    )


def _contracts(system, batch: SystemBatch) -> list[tuple[str, type, pd.DataFrame]]:
    event_model = EventRecord.to_schema().remove_columns(["run_id"])
    out = [("awards", AwardDraft, batch.awards), ("events", event_model, batch.events),
           ("quarantine", QuarantineDraft, batch.quarantine)]
    out += [(name, system.lake_tables[name], frame) for name, frame in batch.tables.items()]
    return out


def _validate(model, frame: pd.DataFrame):
    if hasattr(model, "validate") and not isinstance(model, type):
        # a DataFrameSchema (the event contract without run_id)
        from pandera.errors import SchemaErrors

        try:
            return model.validate(frame, lazy=True), pd.DataFrame(columns=["index", "column", "check", "failure_case"])
        except SchemaErrors as errors:
            return frame, errors.failure_cases[["index", "column", "check", "failure_case"]].copy()
    return failure_cases(model, frame)


def _withdraw_invalid_outputs(system, batch: SystemBatch, sources: list[SourceFile], ctx
                              ) -> tuple[SystemBatch, list[Incident], frozenset[str]]:
    """Rows that break their model: trace them to their files and withdraw those files' groups.
    Also returns the names of the lake tables that passed their model (the returned batch holds
    them as validated)."""
    bad_files: dict[str, list[str]] = {}
    unattributed: list[str] = []
    tables, validated = dict(batch.tables), set()
    for name, model, frame in _contracts(system, batch):
        if frame is None or not len(frame):
            continue
        checked, cases = _validate(model, frame)
        if not len(cases):
            if tables.get(name) is frame:
                tables[name] = checked
                validated.add(name)
            continue
        problems = describe_failures(cases.head(5))
        labels = cases["index"].dropna().unique()
        offending = frame.index.isin(labels) if "source_file" in frame.columns else []
        files = frame.loc[offending, "source_file"].dropna().unique().tolist() if len(labels) and len(offending) else []
        if not files:
            unattributed.append(f"{name}: " + "; ".join(problems))
            continue
        for source_file in files:
            bad_files.setdefault(source_file, []).append(f"{name}: " + "; ".join(problems))
    # every award line must belong to an event of its own file (the audit `award_without_event`)
    if len(batch.awards) and "event_id" in batch.awards.columns:
        # distinct pairs first: the cast would copy both texts of every line of a history (2.5M)
        known = (batch.events[["event_id", "source_file"]].drop_duplicates().astype(str)
                 if len(batch.events) and "event_id" in batch.events.columns else pd.DataFrame(columns=["event_id", "source_file"]))
        lines = batch.awards[["event_id", "source_file"]].drop_duplicates().astype(str)
        orphans = lines.merge(known, how="left", indicator=True).query("_merge == 'left_only'")
        for source_file, group in orphans.groupby("source_file"):
            bad_files.setdefault(source_file, []).append(
                f"awards: {len(group)} award line(s) for an event this file does not hold (e.g. {group['event_id'].iloc[0]})")
    if unattributed:
        # cannot tell which file: the whole batch goes (still only this organisation's batch)
        for s in sources:
            bad_files.setdefault(s.source_file, []).extend(unattributed)
    batch = SystemBatch(events=batch.events, awards=batch.awards, quarantine=batch.quarantine, records=batch.records,
                        tables=tables)
    if not bad_files:
        return batch, [], frozenset(validated)
    groups = isolation_groups(system, sources, ctx)
    withdrawn: set[str] = set()
    for group in groups:
        names = {s.source_file for s in group}
        if names & set(bad_files):
            withdrawn |= names
    # a file scored beside the batch (a partner read from the inbox) is withdrawn by name
    withdrawn |= set(bad_files)
    incidents = [
        Incident(source_files=[f], error="output failed its contract: " + " | ".join(problems)[:2000], traceback="")
        for f, problems in bad_files.items()
    ]
    reason = (
        "this file produced results pointledger could not check ({}); nothing of it was posted. "
        "Check the file's dates, numbers and names; if they are right, this is a fault in pointledger "
        "and the office has the details in the run report."
    )

    def keep(frame):
        if frame is None or not len(frame) or "source_file" not in frame.columns:
            return frame
        return frame[~frame["source_file"].isin(withdrawn)].reset_index(drop=True)

    quarantine_rows = pd.concat(
        [keep(batch.quarantine) if len(batch.quarantine) else empty_frame(QuarantineDraft)]
        + [_whole_file_rows([f], reason.format(_short(bad_files.get(f, ["scored together with a file that did"]))))
           for f in sorted(withdrawn)],
        ignore_index=True,
    )
    records = batch.records
    if len(records):
        records = records.assign(
            records_posted=records["records_posted"].where(~records["source_file"].isin(withdrawn), 0)
        )
    # a validated table less the rows of withdrawn files is still valid (its checks hold per row
    # and per event, and a subset keeps its grain unique)
    return SystemBatch(
        events=keep(batch.events), awards=keep(batch.awards), quarantine=quarantine_rows, records=records,
        tables={name: keep(frame) for name, frame in batch.tables.items()},
    ), incidents, frozenset(validated)


def _short(problems: list[str]) -> str:
    text = problems[0]
    return text if len(text) <= 300 else text[:297] + "..."


def _quarantine_empty_files(system, batch: SystemBatch, sources: list[SourceFile], ctx) -> SystemBatch:
    """A file with no record and no problem found is not 'posted, 0 records': it is quarantined."""
    seen: set[str] = set()
    for frame in (batch.awards, batch.events, batch.quarantine, *batch.tables.values()):
        if frame is not None and len(frame) and "source_file" in frame.columns:
            # unique() first: a set over a million award lines is a Python loop, a few files are not
            seen |= set(frame["source_file"].dropna().unique().tolist())
    if len(batch.records):
        counted = batch.records[(batch.records["records_posted"] > 0) | (batch.records["records_quarantined"] > 0)]
        seen |= set(counted["source_file"])
    # a file held back while its partner is missing is accounted for by its group's rows (the
    # groups are asked for only when some file has none: a system may parse files to group them)
    empty = [s.source_file for group in isolation_groups(system, sources, ctx)
             if not {g.source_file for g in group} & seen for s in group] \
        if any(s.source_file not in seen for s in sources) else []
    if not empty:
        return batch
    expected = getattr(system, "expected_content", None) or DEFAULT_EXPECTED
    reason = (f"no results found in this file: expected {expected}. Nothing was posted: check that this is the right "
              "file (if it is only a notice, such as a day without games, nothing needs doing)")
    quarantine = pd.concat(
        [batch.quarantine if len(batch.quarantine) else empty_frame(QuarantineDraft), _whole_file_rows(empty, reason)],
        ignore_index=True,
    )
    return SystemBatch(events=batch.events, awards=batch.awards, quarantine=quarantine, records=batch.records,
                       tables=batch.tables)

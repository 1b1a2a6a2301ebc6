"""The mutation campaign: generated files through each rule system's `process`, in-process.

Per parser target (a file format of a rule system) the campaign generates N files from the
sample inbox's files of that format (`mutate.mutate`, seeded by campaign seed, target and file
index, so file i of a target is the same file whatever the number of workers) and passes each
one, alone, to `get_system(name).process(ctx, org_row, [SourceFile(...)], empty_active, set())`
the way `pointledger check` does. A crash is:

* any exception escaping `process` (signature: exception type and the innermost frame in the
  project's code),
* a time-out (a file that takes longer than `timeout` seconds: a parser worse than linear),
* output that fails its pandera model the way the nightly run validates it (events, award lines
  after posting, quarantine rows, the system's lake tables), or
* accounting that is off: a file without a `records` row, or with no record posted and no
  quarantine row (silently empty), or rows that name a file that was not in the batch.

Every crashing input is written to <out>/<system>/ with its traceback; `summary.json` holds the
figures. `minimise` shrinks the smallest input of each crash signature line by line.
"""
from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import tempfile
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field, replace
from datetime import date
from pathlib import Path, PurePosixPath

import pandas as pd

from pipelines.fuzz.mutate import mutate

PROJECT_ROOT = Path(__file__).resolve().parents[2]
AS_OF = date(2026, 12, 2)
DEFAULT_SEED = 14


@dataclass(frozen=True)
class Target:
    """One parser: the system, its organisation and the sample files it is seeded from."""

    name: str
    system: str
    organisation: str
    seeds: tuple[str, ...]  # paths inside the sample inbox
    # JCBL and Sweden score an event file with its result file: the partner goes in the same batch
    # unmutated (the first of the candidates that exists in the sample inbox)
    partner: tuple[tuple[str, str], ...] = ()  # (seed suffix, partner suffix)
    # files the system reads from the inbox beside the batch (the Swedish member register):
    # written into the scratch inbox unmutated, never part of the batch
    context: tuple[str, ...] = ()
    inbox: str = ""  # the sample inbox the seeds, partners and context files are read from

    def partner_of(self, seed: str) -> str | None:
        for mine, theirs in self.partner:
            if seed.endswith(mine):
                candidate = seed[: -len(mine)] + theirs
                if not self.inbox or (Path(self.inbox) / candidate).is_file():
                    return candidate
        return None


def targets(inbox: Path | None = None) -> list[Target]:
    from pipelines.core.settings import DEFAULT_INBOX

    inbox = Path(inbox or DEFAULT_INBOX)

    def files(org: str, pattern: str, exclude: str | None = None) -> tuple[str, ...]:
        found = sorted(p.relative_to(inbox).as_posix() for p in (inbox / org).rglob(pattern) if p.is_file())
        return tuple(f for f in found if not (exclude and exclude in f))

    se = "svensk-bridge"
    se_register = (f"{se}/medlemsregister.csv",)
    se_event_partners = ((".event.txt", ".standings.csv"), (".event.txt", ".pbn"), (".event.txt", ".xml"),
                         (".event.txt", ".travellers.csv"))
    found = [
        Target("mahjong-text", "mahjong", "sofu-mahjong", files("sofu-mahjong", "*.txt")),
        Target("mahjong-csv", "mahjong", "sofu-mahjong", files("sofu-mahjong", "*.csv")),
        Target("bridge-pbn", "bridge", "tokyo-bridge-club", files("tokyo-bridge-club", "*.pbn")),
        Target("bridge-xml", "bridge", "tokyo-bridge-club", files("tokyo-bridge-club", "*.xml")),
        Target("bridge-csv", "bridge", "tokyo-bridge-club", files("tokyo-bridge-club", "*.csv")),
        Target("jcbl-event", "jcbl", "jcbl-tokyo", files("jcbl-tokyo", "*.event.txt"),
               partner=((".event.txt", ".standings.csv"),)),
        Target("jcbl-standings", "jcbl", "jcbl-tokyo", files("jcbl-tokyo", "*.standings.csv"),
               partner=((".standings.csv", ".event.txt"),)),
        Target("backgammon-results", "backgammon", "ukbgclub", files("ukbgclub", "*.csv", exclude="match-log")),
        Target("backgammon-matchlog", "backgammon", "ukbgclub", files("ukbgclub", "*match-log*")),
        Target("sweden-event", "sweden", se, files(se, "*.event.txt"), partner=se_event_partners, context=se_register),
        Target("sweden-standings", "sweden", se, files(se, "*.standings.csv"),
               partner=((".standings.csv", ".event.txt"),), context=se_register),
        Target("sweden-travellers", "sweden", se, files(se, "*.pbn"), partner=((".pbn", ".event.txt"),),
               context=se_register),
        Target("sweden-register", "sweden", se, se_register if (inbox / se_register[0]).is_file() else ()),
        # team series: a match file is read with its series file (and the register) from the inbox;
        # the final standings with the series file and its matches
        Target("sweden-match", "sweden", se, files(se, "*.match.txt"), context=se_register + files(se, "*.series.txt")),
        Target("sweden-series-file", "sweden", se, files(se, "*.series.txt"), context=se_register),
        Target("sweden-series-final", "sweden", se, files(se, "*.final.csv"),
               context=se_register + files(se, "*.series.txt") + files(se, "*.match.txt")),
    ]
    return [replace(t, inbox=str(inbox)) for t in found]


def generate(target: Target, index: int, seed: int, inbox: Path, cache: dict | None = None) -> tuple[str, bytes, list[str]]:
    """File `index` of a target: (seed path, mutated bytes, mutations applied)."""
    cache = cache if cache is not None else {}

    def read(rel: str) -> bytes:
        if rel not in cache:
            cache[rel] = (inbox / rel).read_bytes()
        return cache[rel]

    rng = random.Random(f"{seed}/{target.name}/{index}")
    seed_file = rng.choice(target.seeds)
    others = [read(rng.choice(target.seeds)), read(seed_file)]
    data, applied = mutate(read(seed_file), rng, others)
    return seed_file, data, applied


# -- running one file ----------------------------------------------------------------------------


class Timeout(Exception):
    pass


def _on_alarm(signum, frame):
    raise Timeout("process took longer than the time limit")


@dataclass
class Outcome:
    ok: bool
    signature: str = ""
    detail: str = ""  # traceback or what was wrong
    seconds: float = 0.0
    records_posted: int = 0
    quarantined: int = 0
    # per group of files scored together (a generated file and its partner): (posted, quarantined)
    by_group: dict = field(default_factory=dict)


def _innermost_project_frame(tb) -> str:
    frames = traceback.extract_tb(tb)
    ours = [f for f in frames if "/pipelines/" in f.filename and "/pipelines/fuzz/" not in f.filename]
    frame = (ours or frames or [None])[-1]
    if frame is None:
        return "?"
    path = Path(frame.filename)
    try:
        path = path.relative_to(PROJECT_ROOT)
    except ValueError:
        path = Path(path.name)
    return f"{path.as_posix()}:{frame.lineno} in {frame.name}"


def _first_line(text: str, limit: int = 160) -> str:
    line = (str(text).strip().splitlines() or [""])[0]
    return line if len(line) <= limit else line[:limit] + "…"


class Harness:
    """What one worker process needs: organisations, a scratch lake and inbox, a run context."""

    def __init__(self, data_dir: Path | None = None, timeout: float = 30.0):
        from pipelines.core.lake import Lake
        from pipelines.core.settings import DATA_DIR, StatePaths, load_organisations
        from pipelines.core.system import RunContext

        self.data_dir = Path(data_dir or DATA_DIR)
        self.organisations = load_organisations(self.data_dir)
        self.scratch = Path(tempfile.mkdtemp(prefix="pointledger-fuzz-"))
        self.inbox = self.scratch / "inbox"
        self.inbox.mkdir()
        self.ctx = RunContext(run_id="fuzz", as_of=AS_OF, lake=Lake.open(StatePaths(self.scratch / "state")),
                              data_dir=self.data_dir, inbox=self.inbox)
        self.timeout = timeout

    def close(self) -> None:
        shutil.rmtree(self.scratch, ignore_errors=True)

    def process(self, target: Target, files: list[tuple[str, bytes]], groups: dict[str, str] | None = None) -> Outcome:
        """Pass the files (inbox path, bytes) to the target system's `process` as one batch.

        `groups` maps each path to the generated file it belongs to (a batch of several generated
        files, each with its partner); without it the whole batch is one group."""
        from pipelines.core.system import SourceFile, get_system

        org = self.organisations.loc[target.organisation]
        system = get_system(org["system"])
        shutil.rmtree(self.inbox, ignore_errors=True)
        for rel in target.context:
            if rel not in {r for r, _ in files}:
                path = self.inbox / rel
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes((Path(target.inbox) / rel).read_bytes())
        sources = []
        for rel, data in files:
            path = self.inbox / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            sources.append(SourceFile(target.organisation, rel, path, hashlib.sha256(data).hexdigest()))
        active = pd.DataFrame(columns=["source_file", "source_sha256"])
        start = time.perf_counter()
        # the limit is CPU time (ITIMER_PROF: user + system), not wall time: a parser worse than
        # linear burns CPU, while a process starved on a shared machine does not (wall-clock
        # limits reported 14 false time-outs under a load of 9 on 2 cores)
        previous = signal.signal(signal.SIGPROF, _on_alarm)
        signal.setitimer(signal.ITIMER_PROF, self.timeout)
        try:
            batch = system.process(self.ctx, org, sources, active, set())
            signal.setitimer(signal.ITIMER_PROF, 0)
            problems = check_batch(batch, system, [s.source_file for s in sources], self.ctx, grouped=bool(target.partner),
                                   groups=groups)
        except Timeout:
            return Outcome(False, f"Timeout (over {self.timeout:g} s of CPU)", "", time.perf_counter() - start)
        except Exception as error:  # noqa: BLE001 - that is what the campaign looks for
            signal.setitimer(signal.ITIMER_PROF, 0)
            return Outcome(False, f"{type(error).__name__} at {_innermost_project_frame(error.__traceback__)}",
                           traceback.format_exc(), time.perf_counter() - start)
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
            signal.signal(signal.SIGPROF, previous)
        seconds = time.perf_counter() - start
        if problems:
            return Outcome(False, problems[0][0], "\n".join(d for _, d in problems), seconds)
        group_of = groups or {}
        posted = Counter()
        for source_file, n in zip(batch.records["source_file"].astype(str), batch.records["records_posted"]):
            posted[group_of.get(source_file, "")] += int(n)
        held = Counter(group_of.get(f, "") for f in batch.quarantine["source_file"].astype(str))
        by_group = {g: (n, held[g]) for g, n in posted.items()}
        return Outcome(True, seconds=seconds, records_posted=int(batch.records["records_posted"].sum()),
                       quarantined=len(batch.quarantine), by_group=by_group)


def check_batch(batch, system, source_files: list[str], ctx, grouped: bool = False,
                groups: dict[str, str] | None = None) -> list[tuple[str, str]]:
    """What the nightly run would reject or silently lose in a SystemBatch: (signature, detail).

    `groups` (path -> generated file) judges files scored together per group in a batch of several."""
    from pipelines.core import ledger
    from pipelines.core.validation import describe_failures, failure_cases
    from schemas.ledger import AwardLine, EventRecord, QuarantineDraft

    problems: list[tuple[str, str]] = []

    def validate(model, frame: pd.DataFrame, what: str) -> None:
        _, cases = failure_cases(model, frame.copy())
        if len(cases):
            first = cases.iloc[0]
            problems.append((f"OutputInvalid {what}.{first['column']} check {_first_line(first['check'], 60)}",
                             "; ".join(describe_failures(cases.head(10)))))

    validate(EventRecord, batch.events.assign(run_id=ctx.run_id), "EventRecord")
    posted = ledger.post(batch.awards, ctx.run_id, ctx.as_of) if len(batch.awards) else batch.awards
    if len(posted):
        validate(AwardLine, posted, "AwardLine")
    validate(QuarantineDraft, batch.quarantine, "QuarantineDraft")
    for name, frame in batch.tables.items():
        if name in system.lake_tables:
            validate(system.lake_tables[name], frame, name)
        else:
            problems.append((f"Accounting: table {name} is not one of the system's lake tables", name))

    names = set(source_files)
    records = batch.records
    missing = names - set(records["source_file"].astype(str))
    if missing:
        problems.append(("Accounting: a file has no records row", ", ".join(sorted(missing))))
    for what, frame in [("quarantine", batch.quarantine), ("awards", batch.awards), ("events", batch.events), ("records", records)]:
        if len(frame) and "source_file" in frame:
            strangers = set(frame["source_file"].dropna().astype(str)) - names
            if strangers:
                problems.append((f"Accounting: {what} rows name a file not in the batch", ", ".join(sorted(strangers))))
    # Files scored together (a JCBL event file and its standings file) are judged as a group:
    # when the standings are quarantined, the event file rightly posts nothing of its own.
    quarantined = batch.quarantine["source_file"].astype(str).value_counts() if len(batch.quarantine) else pd.Series(dtype=int)
    group_of = groups or {}
    group_held = Counter(group_of.get(f, "") for f in batch.quarantine["source_file"].astype(str))
    for row in records.itertuples():
        group_quarantined = group_held[group_of.get(str(row.source_file), "")]
        alone = int(quarantined.get(str(row.source_file), 0)) == 0 and (not grouped or group_quarantined == 0)
        if int(row.records_posted) == 0 and alone:
            problems.append(("Accounting: no record posted and no quarantine row (silently empty)", str(row.source_file)))
    return problems


# -- the campaign ----------------------------------------------------------------------------------


@dataclass
class Crash:
    target: str
    index: int
    seed_file: str
    mutations: list[str]
    signature: str
    detail: str
    size: int
    saved_as: str = ""


@dataclass
class ChunkResult:
    target: str
    files: int = 0
    seconds: float = 0.0
    crashes: list[Crash] = field(default_factory=list)
    posted_files: int = 0
    slowest: float = 0.0
    rerun_batches: int = 0  # batches with a problem, run again file by file
    batched: bool | None = None  # several files per `process` call (None: no file ran)


_HARNESS: Harness | None = None
_CACHE: dict = {}


def _worker_init(data_dir: str | None, timeout: float) -> None:
    global _HARNESS
    import warnings

    warnings.simplefilter("ignore", RuntimeWarning)  # pandas casts of garbage: the outcome says what matters
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _HARNESS = Harness(Path(data_dir) if data_dir else None, timeout)


def _run_chunk(args) -> ChunkResult:
    target, start, stop, seed, inbox, out_dir, deadline, batch = args
    harness = _HARNESS
    result = ChunkResult(target.name)
    inbox = Path(inbox)
    indices = []
    for index in range(start, stop):
        if deadline and time.time() > deadline:
            break  # the time budget is spent: the summary says how many files ran
        indices.append(index)
    generated = {i: generate(target, i, seed, inbox, _CACHE) for i in indices}
    # None when the time budget left this chunk no file (it must not overwrite what the others did)
    result.batched = (batch > 1 and _batchable(harness, target, inbox)) if indices else None
    if result.batched:
        for first in range(0, len(indices), batch):
            _run_batch(harness, target, indices[first:first + batch], generated, inbox, out_dir, result)
    else:
        for index in indices:
            _run_one(harness, target, index, generated[index], inbox, out_dir, result)
    return result


def _files_of(target: Target, seed_file: str, data: bytes, inbox: Path, folder: str = "") -> list[tuple[str, bytes]]:
    """A generated file with its unmutated partner; in `folder` (a sub-folder beside the seed) when given."""
    def place(rel: str) -> str:
        return str(PurePosixPath(rel).parent / folder / PurePosixPath(rel).name) if folder else rel

    files = [(place(seed_file), data)]
    partner = target.partner_of(seed_file)
    if partner:
        files.append((place(partner), (inbox / partner).read_bytes()))
    return files


def _run_one(harness: Harness, target: Target, index: int, made: tuple, inbox: Path, out_dir, result: ChunkResult) -> None:
    """File `index` alone through `process`: the authority on what a generated file does."""
    seed_file, data, applied = made
    outcome = harness.process(target, _files_of(target, seed_file, data, inbox))
    result.seconds += outcome.seconds
    result.slowest = max(result.slowest, outcome.seconds)
    _judge(harness, target, index, made, outcome, outcome.records_posted, outcome.quarantined, inbox, out_dir, result)


def _judge(harness, target, index, made, outcome: Outcome, posted: int, quarantined: int, inbox, out_dir,
           result: ChunkResult) -> None:
    seed_file, data, applied = made
    result.files += 1
    # a silent loss is fewer records and no quarantine row: with a row, the unmutated file's count
    # (a process call of its own, the first time a seed file is judged) is not needed
    if outcome.ok and not set(applied) & LOSSY and quarantined == 0:
        baseline = _baseline(harness, target, seed_file, target.partner_of(seed_file), inbox)
        if posted < baseline:
            outcome = Outcome(False, SILENT_LOSS, f"{posted} record(s) posted, {baseline} from the "
                              f"unmutated {seed_file}, and no quarantine row; mutations: {', '.join(applied)}",
                              outcome.seconds)
    if outcome.ok:
        result.posted_files += posted > 0
        return
    crash = Crash(target.name, index, seed_file, applied, outcome.signature, outcome.detail, len(data))
    if out_dir:
        crash.saved_as = save_input(Path(out_dir), target, crash, data)
    result.crashes.append(crash)


def _run_batch(harness: Harness, target: Target, indices: list[int], generated: dict, inbox: Path, out_dir,
               result: ChunkResult) -> None:
    """Several generated files in one `process` call (each in its own sub-folder, with its partner).

    The fixed cost of a call (validation, DuckDB, frames) is paid once for the batch. A batch with
    any problem is run again file by file, and only what a file does alone counts as its crash; a
    problem that only the batch shows is recorded as such ("BatchOnly: ...") on its first file."""
    files, groups = [], {}
    for index in indices:
        seed_file, data, _ = generated[index]
        for rel, content in _files_of(target, seed_file, data, inbox, folder=f"fuzz-{index:05d}"):
            files.append((rel, content))
            groups[rel] = str(index)
    outcome = harness.process(target, files, groups)
    if outcome.ok:
        result.seconds += outcome.seconds
        result.slowest = max(result.slowest, outcome.seconds / len(indices))
        for index in indices:
            posted, held = outcome.by_group.get(str(index), (0, 0))
            _judge(harness, target, index, generated[index], outcome, posted, held, inbox, out_dir, result)
        return
    result.rerun_batches += 1
    crashes_before = len(result.crashes)
    for index in indices:
        seconds_before = result.seconds
        seed_file, data, applied = generated[index]
        single = harness.process(target, _files_of(target, seed_file, data, inbox))
        result.seconds = seconds_before + single.seconds
        result.slowest = max(result.slowest, single.seconds)
        _judge(harness, target, index, generated[index], single, single.records_posted, single.quarantined, inbox,
               out_dir, result)
    if len(result.crashes) == crashes_before:
        first = indices[0]
        seed_file, data, applied = generated[first]
        crash = Crash(target.name, first, seed_file, applied, f"BatchOnly: {outcome.signature}",
                      f"files {indices[0]}..{indices[-1]} together; every file alone is fine\n{outcome.detail}", len(data))
        if out_dir:
            crash.saved_as = save_input(Path(out_dir), target, crash, data)
        result.crashes.append(crash)


_BATCHABLE: dict = {}


def _batchable(harness: Harness, target: Target, inbox: Path) -> bool:
    """A target's files may share a `process` call when its unmutated seed files, each in its own
    sub-folder and all in one call, post exactly what each posts alone (a system that reads a
    file's folder, e.g. to find a series file beside a match, is run file by file)."""
    if target.name not in _BATCHABLE:
        seeds = list(target.seeds[:8])
        files, groups = [], {}
        for i, seed_file in enumerate(seeds):
            for rel, content in _files_of(target, seed_file, (inbox / seed_file).read_bytes(), inbox, folder=f"fuzz-{i:05d}"):
                files.append((rel, content))
                groups[rel] = str(i)
        together = harness.process(target, files, groups)
        alone = [_baseline(harness, target, f, target.partner_of(f), inbox) for f in seeds]
        _BATCHABLE[target.name] = together.ok and all(
            together.by_group.get(str(i), (0, 0))[0] == n for i, n in enumerate(alone))
    return _BATCHABLE[target.name]


# Mutations after which fewer records may rightly post without a word: the lines are gone.
# After any other mutation every record of the original is still there in some form, so a record
# that no longer posts must be quarantined ("nothing silently lost").
LOSSY = {"truncate", "delete_line", "empty_or_header_only"}
SILENT_LOSS = "SilentLoss: fewer records posted than from the unmutated file, and no quarantine row"
_BASELINES: dict = {}


def _baseline(harness: Harness, target: Target, seed_file: str, partner: str | None, inbox: Path) -> int:
    """Records the unmutated seed file (and its partner) post."""
    key = (target.name, seed_file)
    if key not in _BASELINES:
        files = [(seed_file, (inbox / seed_file).read_bytes())] + ([(partner, (inbox / partner).read_bytes())] if partner else [])
        outcome = harness.process(target, files)
        _BASELINES[key] = outcome.records_posted if outcome.ok else 0
    return _BASELINES[key]


def save_input(out_dir: Path, target: Target, crash: Crash, data: bytes) -> str:
    folder = out_dir / target.system
    folder.mkdir(parents=True, exist_ok=True)
    name = PurePosixPath(crash.seed_file).name
    path = folder / f"{target.name}-{crash.index:05d}-{name}"
    path.write_bytes(data)
    path.with_name(path.name + ".traceback.txt").write_text(
        f"target {target.name}, file {crash.index}, seed file {crash.seed_file}, mutations {', '.join(crash.mutations)}\n"
        f"{crash.signature}\n\n{crash.detail}\n", encoding="utf-8")
    return str(path)


def git_commit(what: str = "HEAD", *path: str) -> str:
    try:
        if path:  # the last commit that changed these paths
            return subprocess.run(["git", "log", "-1", "--format=%H", what, "--", *path], cwd=PROJECT_ROOT,
                                  capture_output=True, text=True, check=True).stdout.strip() or "unknown"
        return subprocess.run(["git", "rev-parse", what], cwd=PROJECT_ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def run_campaign(files_per_target: int, seed: int = DEFAULT_SEED, jobs: int = 2, out_dir: Path | None = None,
                 only: list[str] | None = None, inbox: Path | None = None, data_dir: Path | None = None,
                 timeout: float = 30.0, chunk: int = 25, minimise_budget: int = 0, minutes: float = 0, start: int = 0,
                 batch: int = 1, log=print) -> dict:
    """Run the campaign; returns the summary (also written to <out_dir>/summary.json)."""
    from pipelines.core.settings import DEFAULT_INBOX

    inbox = Path(inbox or DEFAULT_INBOX)
    chosen = [t for t in targets(inbox) if not only or t.name in only or t.system in only]
    chosen = [t for t in chosen if t.seeds]
    if out_dir:
        out_dir = Path(out_dir)
        for t in chosen:
            shutil.rmtree(out_dir / t.system, ignore_errors=True)
        out_dir.mkdir(parents=True, exist_ok=True)
    deadline = time.time() + minutes * 60 if minutes else None
    # interleave the targets, so that a time budget cuts every parser's share alike
    # files start .. start + files_per_target - 1 of each target (a later campaign can go on where one stopped)
    end = start + files_per_target
    tasks = [(t, first, min(first + chunk, end), seed, str(inbox), str(out_dir) if out_dir else None, deadline, batch)
             for first in range(start, end, chunk) for t in chosen]
    by_target = {t.name: ChunkResult(t.name) for t in chosen}
    wall = {t.name: [None, None] for t in chosen}
    started = time.perf_counter()
    if jobs > 1:
        import multiprocessing

        with multiprocessing.get_context("fork").Pool(jobs, _worker_init, (str(data_dir) if data_dir else None, timeout)) as pool:
            for part in pool.imap(_run_chunk, tasks):
                _merge(by_target[part.target], part)
    else:
        _worker_init(str(data_dir) if data_dir else None, timeout)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            for task in tasks:
                _merge(by_target[task[0].name], _run_chunk(task))
        finally:
            _HARNESS.close()
    total = time.perf_counter() - started
    summary = {
        "commit": git_commit(),
        # the last commit that changed what is fuzzed (everything but the fuzz package itself)
        "parsers_commit": git_commit("HEAD", "pipelines", "schemas", "sql", "data/rules", ":!pipelines/fuzz"),
        "seed": seed,
        "files_per_target": files_per_target,
        "first_file": start,
        "jobs": jobs,
        "timeout_seconds": timeout,
        "files_per_process_call": batch,
        "time_budget_minutes": minutes or None,
        "wall_seconds": round(total, 1),
        "targets": {},
    }
    for t in chosen:
        r = by_target[t.name]
        signatures: dict[str, dict] = {}
        for c in sorted(r.crashes, key=lambda c: (c.size, c.index)):
            s = signatures.setdefault(c.signature, {"count": 0, "mutations": Counter(), "smallest": None, "examples": []})
            s["count"] += 1
            s["mutations"].update(c.mutations)
            if s["smallest"] is None:
                s["smallest"] = {"index": c.index, "seed_file": c.seed_file, "mutations": c.mutations, "size": c.size,
                                 "saved_as": c.saved_as, "detail": c.detail}
            if len(s["examples"]) < 5:
                s["examples"].append(c.saved_as or f"file {c.index}")
        for s in signatures.values():
            s["mutations"] = dict(s["mutations"].most_common())
        summary["targets"][t.name] = {
            "system": t.system,
            "seed_files": list(t.seeds),
            "files": r.files,
            "crashes": len(r.crashes),
            "files_with_records_posted": r.posted_files,
            "seconds": round(r.seconds, 1),
            "slowest_file_seconds": round(r.slowest, 2),
            "batched": bool(r.batched),
            "batches_rerun_file_by_file": r.rerun_batches,
            "signatures": dict(sorted(signatures.items(), key=lambda kv: -kv[1]["count"])),
        }
    if out_dir:  # written before the shrinking too: hours of files are never lost to it
        (out_dir / "summary.json").write_text(json.dumps(summary, indent=2, ensure_ascii=False, default=str), encoding="utf-8")
    if minimise_budget:
        minimise_all(summary, chosen, inbox, data_dir, timeout, minimise_budget, out_dir, log)
    if out_dir:
        (out_dir / "summary.json").write_text(json.dumps(summary, indent=2, ensure_ascii=False, default=str), encoding="utf-8")
    return summary


def _merge(into: ChunkResult, part: ChunkResult) -> None:
    into.files += part.files
    into.seconds += part.seconds
    into.crashes.extend(part.crashes)
    into.posted_files += part.posted_files
    into.slowest = max(into.slowest, part.slowest)
    into.rerun_batches += part.rerun_batches
    into.batched = into.batched or part.batched if part.batched is not None else into.batched


# -- shrinking a crashing input ---------------------------------------------------------------------


def minimise(harness: Harness, target: Target, seed_file: str, data: bytes, signature: str, inbox: Path,
             budget: int = 150) -> bytes:
    """Remove lines (then bytes of a single remaining long line) while the same signature recurs."""
    partner = target.partner_of(seed_file)
    partner_data = (inbox / partner).read_bytes() if partner else None
    calls = 0

    def still(candidate: bytes) -> bool:
        nonlocal calls
        calls += 1
        files = [(seed_file, candidate)] + ([(partner, partner_data)] if partner else [])
        outcome = harness.process(target, files)
        return not outcome.ok and outcome.signature == signature

    lines = data.split(b"\n")
    chunk = max(1, len(lines) // 2)
    while chunk >= 1 and calls < budget:
        i, changed = 0, False
        while i < len(lines) and calls < budget:
            candidate = lines[:i] + lines[i + chunk:]
            if candidate and still(b"\n".join(candidate)):
                lines, changed = candidate, True
            else:
                i += chunk
        if not changed:
            chunk //= 2
    result = b"\n".join(lines)
    # a long line: halve its run of repeated filler while the crash holds
    while len(result) > 4096 and calls < budget:
        cut = _shrink_longest_run(result)
        if cut == result or not still(cut):
            break
        result = cut
    return result


def _shrink_longest_run(data: bytes) -> bytes:
    best_start, best_len, i = 0, 0, 0
    while i < len(data):
        j = i
        while j < len(data) and data[j] == data[i]:
            j += 1
        if j - i > best_len:
            best_start, best_len = i, j - i
        i = j
    if best_len < 64:
        return data
    return data[: best_start + best_len // 2] + data[best_start + best_len:]


def minimise_all(summary: dict, chosen: list[Target], inbox: Path, data_dir, timeout: float, budget: int,
                 out_dir: Path | None, log=print) -> None:
    harness = Harness(Path(data_dir) if data_dir else None, timeout)
    try:
        for t in chosen:
            for signature, s in summary["targets"][t.name]["signatures"].items():
                if signature == SILENT_LOSS or signature.startswith("BatchOnly: "):
                    continue  # judged outside one file's `process` (against the unmutated file, or a batch): not shrunk
                smallest = s["smallest"]
                _, data, _ = generate(t, smallest["index"], summary["seed"], inbox)
                small = minimise(harness, t, smallest["seed_file"], data, signature, inbox, budget)
                s["minimal"] = {"size": len(small), "text": small[:2000].decode("utf-8", errors="backslashreplace")}
                if out_dir:
                    path = Path(out_dir) / t.system / f"minimal-{t.name}-{smallest['index']:05d}-{PurePosixPath(smallest['seed_file']).name}"
                    path.write_bytes(small)
                    s["minimal"]["saved_as"] = str(path)
                log(f"  minimised {t.name} {signature[:70]}: {len(data)} -> {len(small)} bytes")
    finally:
        harness.close()

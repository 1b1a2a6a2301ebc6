"""The Parquet lake and its manifest: the single commit point of a run.

Layout (Hive-style folders, one file per run per partition):

    var/lake/<table>/org=<organisation>/month=<YYYY-MM>/part-<run_id>.parquet   (dated tables)
    var/lake/<table>/org=<organisation>/part-<run_id>.parquet                   (undated tables)
    var/lake/_manifest.json                                                     (committed runs)

A run writes its files under var/staging/<run_id>/ first. Committing moves them into the lake and
then atomically replaces the manifest (write temp file, fsync, rename). Readers only ever read the
files the manifest lists, so a run killed at any point leaves the committed lake exactly as it was;
the next run deletes whatever the killed run left behind (`recover`).
"""
from __future__ import annotations

import json
import os
import shutil
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pandera.pandas as pa
import pyarrow as pa_arrow
import pyarrow.parquet as pq

from pipelines.core import parallel
from pipelines.core.dates import month_keys
from pipelines.core.memory import is_held_once
from pipelines.core.settings import StatePaths
from pipelines.core.sql import arrow, scratch
from schemas.common import arrow_schema, empty_frame

MANIFEST_FORMAT = 1
# A partition (table, organisation, month) holding more files than this is rewritten as one file
# by the run that adds to it, so nightly runs over years keep the lake (and every read) small.
COMPACT_AFTER = 8
# From twice this many partitions in one write of rows in partition order, a thread per core
# writes them (StagedRun.write)
PARTITIONS_PER_THREAD = 4


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def conform(table, schema):
    """A table read from lake files as the model's schema: columns by name, a column that older
    files do not have (the model gained it since they were written) filled with nulls."""
    missing = [f for f in schema if f.name not in table.column_names]
    for f in missing:
        table = table.append_column(f.name, pa_arrow.nulls(len(table), f.type))
    return table.select(schema.names).cast(schema)


def _take_ascending(table: pa_arrow.Table, rows: np.ndarray) -> pa_arrow.Table:
    """The rows at `rows` (ascending positions) of a table, taken chunk by chunk: Arrow's take on
    a column of several chunks first joins them into one array, a copy of the whole column for
    every partition taken (a history's ledger arrives in one chunk per slice of events)."""
    columns = []
    for column in table.columns:
        ends = np.cumsum([len(chunk) for chunk in column.chunks], dtype=np.int64)
        cuts = np.searchsorted(rows, ends)  # the rows before each chunk's end
        pieces, first = [], 0
        for chunk, end, cut in zip(column.chunks, ends, cuts):
            if cut > first:
                pieces.append(chunk.take(pa_arrow.array(rows[first:cut] - (end - len(chunk)))))
            first = cut
        columns.append(pa_arrow.chunked_array(pieces, type=column.type))
    return pa_arrow.Table.from_arrays(columns, schema=table.schema)


def write_json_atomically(path: Path, payload: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as handle:
        json.dump(payload, handle, ensure_ascii=False, indent=1, default=str)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)
    _fsync_dir(path.parent)


@dataclass
class Lake:
    paths: StatePaths
    manifest: dict = field(default_factory=dict)

    @classmethod
    def open(cls, paths: StatePaths) -> "Lake":
        lake = cls(paths)
        lake.manifest = lake._read_manifest()
        return lake

    def _read_manifest(self) -> dict:
        if not self.paths.manifest.exists():
            return {"format": MANIFEST_FORMAT, "runs": []}
        with self.paths.manifest.open(encoding="utf-8") as handle:
            return json.load(handle)

    # -- reading -----------------------------------------------------------------------------
    @property
    def runs(self) -> list[dict]:
        return self.manifest["runs"]

    def committed_files(
        self, table: str, organisation: str | None = None, months: set[str] | None = None
    ) -> list[Path]:
        """Files of committed runs for a table, pruned by organisation and month folders."""
        prefix = f"{table}/"
        org_part = f"org={organisation}/" if organisation else None
        selected = []
        for run in self.runs:
            for rel in run["files"]:
                if not rel.startswith(prefix):
                    continue
                if org_part and org_part not in rel:
                    continue
                if months is not None:
                    month = _month_of(rel)
                    if month is not None and month not in months:
                        continue
                selected.append(self.paths.lake / rel)
        return selected

    def read(
        self,
        table: str,
        model: type[pa.DataFrameModel],
        organisation: str | None = None,
        months: set[str] | None = None,
        where: str | None = None,
        params: list | None = None,
    ) -> pd.DataFrame:
        """Committed rows of a table as a typed frame. `where` is a SQL predicate with `?` params."""
        files = self.committed_files(table, organisation, months)
        if not files:
            return empty_frame(model)
        con = scratch()
        try:
            query = "select * from read_parquet(?, union_by_name = true, hive_partitioning = false)"
            if where:
                query += f" where {where}"
            table_ = arrow(con, query, [[str(f) for f in files], *(params or [])])
        finally:
            con.close()
        return conform(table_, arrow_schema(model)).to_pandas(types_mapper=pd.ArrowDtype)

    # -- recovery ----------------------------------------------------------------------------
    def recover(self) -> list[str]:
        """Delete what an interrupted run left: its staging folder and uncommitted lake files."""
        removed = []
        if self.paths.staging.exists():
            shutil.rmtree(self.paths.staging)
            removed.append(str(self.paths.staging))
        committed = {rel for run in self.runs for rel in run["files"]}
        if self.paths.lake.exists():
            for path in self.paths.lake.rglob("*.parquet"):
                if path.relative_to(self.paths.lake).as_posix() not in committed:
                    path.unlink()
                    removed.append(str(path))
        return removed


def _month_of(rel: str) -> str | None:
    for part in rel.split("/"):
        if part.startswith("month="):
            return part[len("month=") :]
    return None


@dataclass
class StagedRun:
    """The files of one run, written under var/staging/<run_id>/ until commit."""

    lake: Lake
    run_id: str
    files: list[str] = field(default_factory=list)
    models: dict = field(default_factory=dict)

    @property
    def root(self) -> Path:
        return self.lake.paths.staging / self.run_id

    def write(
        self,
        table: str,
        model: type[pa.DataFrameModel],
        frame: pd.DataFrame,
        month_column: str | None = None,
    ) -> list[str]:
        """Write a validated frame, one file per organisation (and month of `month_column`)."""
        if frame.empty:
            return []
        schema = arrow_schema(model)
        self.models[table] = model
        # texts held once (`memory.texts_held_once`) stay dictionaries until their partition is
        # written, as plain text: the whole column spelt out at once is the copy they avoid
        held_once = {f.name for f in schema if is_held_once(frame.dtypes.get(f.name))}
        as_held = pa_arrow.schema([pa_arrow.field(f.name, frame.dtypes[f.name].pyarrow_dtype, f.nullable)
                                   if f.name in held_once else f for f in schema])
        arrow = pa_arrow.Table.from_pandas(frame[list(schema.names)], schema=as_held, preserve_index=False)
        if held_once:  # the files as the text columns would write them (pandas' metadata included)
            text = {c: pd.ArrowDtype(schema.field(c).type) for c in held_once}
            schema = pa_arrow.Table.from_pandas(frame.iloc[:0][list(schema.names)].astype(text), schema=schema,
                                                preserve_index=False).schema
        # partitions as codes, (organisation, month) in sorted order, without a Python string per row
        orgs, org_names = pd.factorize(frame["organisation"], sort=True)
        if month_column:
            months, month_names = pd.factorize(month_keys(frame[month_column]), sort=True)
        else:
            months, month_names = np.zeros(len(frame), dtype=np.int64), [""]
        codes = orgs * len(month_names) + months
        present = np.unique(codes)
        # rows grouped by partition: a frame already in partition order (a night's rows in date
        # order usually are) is sliced; otherwise each partition's rows are taken on their own,
        # so that only one partition is copied at a time (a history's ledger is a gigabyte)
        order = None if len(codes) < 2 or (np.diff(codes) >= 0).all() else np.argsort(codes, kind="stable")
        bounds = np.searchsorted(codes if order is None else codes[order], np.append(present, present[-1] + 1))

        def write_partition(i: int) -> str:
            code = present[i]
            organisation, month = org_names[code // len(month_names)], month_names[code % len(month_names)]
            rel = f"{table}/org={organisation}/" + (f"month={month}/" if month_column else "") + f"part-{self.run_id}.parquet"
            target = self.root / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            rows = (arrow.slice(bounds[i], bounds[i + 1] - bounds[i]) if order is None
                    else _take_ascending(arrow, order[bounds[i]:bounds[i + 1]]))
            pq.write_table(rows.cast(schema) if held_once else rows, target)
            return rel

        # a history's partitions are written by a thread per core (Arrow encodes and compresses
        # without the GIL): a league's two years, 0.9 -> 0.5 s; a night's one or two by this one.
        # Only slices: a frame out of partition order copies each partition it takes, and the
        # Swedish history's stage is near its peak of memory (at 300 x 24, one run each: 1.92 GiB
        # with two partitions taken at a time, 1.89 GiB with one)
        threads = min(parallel.workers(), len(present) // PARTITIONS_PER_THREAD) if order is None else 1
        if threads > 1:
            with ThreadPoolExecutor(threads) as pool:
                written = list(pool.map(write_partition, range(len(present))))
        else:
            written = [write_partition(i) for i in range(len(present))]
        self.files.extend(written)
        return written

    def staged_paths(self, table: str) -> list[Path]:
        return [self.root / rel for rel in self.files if rel.startswith(f"{table}/")]

    def _compact(self) -> set[str]:
        """Fold the committed files of every crowded partition this run writes to into the run's
        own file of that partition. Returns the committed files it replaces."""
        by_partition: dict[str, list[str]] = {}
        for run in self.lake.runs:
            for rel in run["files"]:
                by_partition.setdefault(rel.rsplit("/", 1)[0], []).append(rel)
        replaced: set[str] = set()
        for rel in self.files:
            partition = rel.rsplit("/", 1)[0]
            earlier = by_partition.get(partition, [])
            if len(earlier) + 1 <= COMPACT_AFTER:
                continue
            schema = arrow_schema(self.models[rel.split("/", 1)[0]])
            parts = [pq.read_table(self.lake.paths.lake / f, schema=schema) for f in earlier]
            parts.append(pq.read_table(self.root / rel, schema=schema))
            pq.write_table(pa_arrow.concat_tables(parts), self.root / rel)
            replaced.update(earlier)
        return replaced

    def commit(self, run_record: dict, checkpoint=lambda name: None) -> None:
        """Move the staged files into the lake, then publish them by replacing the manifest."""
        replaced = self._compact()
        for rel in self.files:
            target = self.lake.paths.lake / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(self.root / rel, target)
        checkpoint("before_manifest")
        earlier_runs = [{**run, "files": [f for f in run["files"] if f not in replaced]} for run in self.lake.runs]
        manifest = {
            "format": MANIFEST_FORMAT,
            "runs": [*earlier_runs, {**run_record, "files": list(self.files)}],
        }
        write_json_atomically(self.lake.paths.manifest, manifest)
        self.lake.manifest = manifest
        for rel in replaced:  # no longer listed: gone now, or by `recover` if we stop here
            (self.lake.paths.lake / rel).unlink(missing_ok=True)
        shutil.rmtree(self.lake.paths.staging, ignore_errors=True)

"""What every rule system plugs into the nightly run.

A rule system is a module under pipelines/<system>/ whose `SYSTEM` object has:

* `name`, `accepted_suffixes` (file types it reads),
* `lake_tables`: {table: pandera model} of the dated tables it writes (partitioned by month of
  `event_date`),
* `process(ctx, organisation, sources, active, superseded) -> SystemBatch`: parse, validate and
  award a batch of new or corrected files of one organisation. `organisation` is its row of
  data/organisations (a Series); `active` the (source_file, source_sha256) versions standing now;
  `superseded` the paths whose earlier version this batch replaces (their award lines are
  reversed by the run itself),
* `warehouse_tables(ctx, organisation) -> {name: DataFrame}`: small data tables its views join,
* `warehouse_sql`: names of sql/ files that create its warehouse views,
* `publish(ctx, con, organisation, affected_months, out_dir) -> list[Path]`,
* `explain(con, player_id, event_id) -> list[str]`: extra lines for `pointledger explain`,
* `check_settings(data_dir, organisation)` (optional): raise SettingsError for a mistake in the
  organisation's settings or the system's rule tables (pipelines/core/rule_tables.py); the run
  calls it for every enabled organisation before it reads anything.
"""
from __future__ import annotations

import hashlib
import importlib
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

import pandas as pd

from pipelines.core.lake import Lake


@dataclass(frozen=True)
class SourceFile:
    organisation: str
    source_file: str  # path inside the inbox, starting with the organisation folder
    path: Path
    sha256: str

    def read(self) -> bytes:
        data = self.path.read_bytes()
        # the scan's digest names the version posted: bytes written since (a club's program still
        # saving the file) would be posted under another version's name
        if self.sha256 and hashlib.sha256(data).hexdigest() != self.sha256:
            raise FileChangedWhileRead(self.source_file)
        return data


class FileChangedWhileRead(Exception):
    """A file's bytes are not those the run's scan found: it was written while the run read it."""

    reason = ("the file changed while this run was reading it (was it still being written or copied?): nothing "
              "of it was posted tonight; the next run reads it again")


@dataclass
class RunContext:
    run_id: str
    as_of: date
    lake: Lake
    data_dir: Path
    inbox: Path | None = None  # where the organisation folders are (files of earlier nights too)
    # paths the scan labelled duplicates tonight (their content stands at another path): a system
    # that reads a partner file from the inbox beside the batch must not read these either
    duplicates: frozenset = frozenset()
    # set before publishing: scoped(organisation, months, reads=None) -> an in-memory DuckDB
    # connection with the warehouse views over that organisation's lake files of those months
    # only (with `reads`: the views named and those they read)
    scoped: callable = None
    # set before publishing: the runs whose lines tonight's publications show for the first time
    # (this run, and a committed run stopped before its publications were done)
    publishing_runs: frozenset = frozenset()
    checkpoint: callable = lambda name: None
    # where var/publications is served (pointledger.toml): the feeds' links are made absolute by it
    publication_base_url: str | None = None
    _waiting_duplicates: dict = field(default_factory=dict, repr=False)

    def duplicate_paths(self, organisation: str) -> frozenset:
        """Paths of an organisation whose content stands at another path: labelled duplicates by
        tonight's scan, or waiting as duplicates since an earlier night. A partner file read from
        the inbox beside the batch (an event's result list) is not read when it is one of these:
        the same content under two names posts once (DESIGN.md), whichever night it arrives."""
        if organisation not in self._waiting_duplicates:
            from schemas.ledger import SourceRecord

            sources = self.lake.read("sources", SourceRecord, organisation)
            earlier = set()
            if len(sources):
                latest = sources.sort_values(["run_id", "source_file"]).drop_duplicates("source_file", keep="last")
                earlier = set(latest.loc[latest["status"] == "duplicate", "source_file"].astype(str))
            self._waiting_duplicates[organisation] = frozenset(earlier)
        return self._waiting_duplicates[organisation] | self.duplicates


@dataclass
class SystemBatch:
    events: pd.DataFrame  # EventRecord columns except run_id
    awards: pd.DataFrame  # AwardDraft
    quarantine: pd.DataFrame  # QuarantineDraft
    records: pd.DataFrame  # source_file, records_posted, records_quarantined
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)


_SYSTEMS = {
    "mahjong": "pipelines.mahjong.system",
    "jcbl": "pipelines.jcbl.system",
    "backgammon": "pipelines.backgammon.system",
    "bridge": "pipelines.bridge.system",
    "sweden": "pipelines.sweden.system",
}


def get_system(name: str):
    if name not in _SYSTEMS:
        raise KeyError(name)
    return importlib.import_module(_SYSTEMS[name]).SYSTEM


def available_systems() -> list[str]:
    return list(_SYSTEMS)

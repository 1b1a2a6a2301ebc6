"""Shared helpers: build an inbox in a temp folder, run the pipeline, query the warehouse."""
from __future__ import annotations

import fcntl
import gc
import os
import shutil
import sys
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # tests/mahjong/reference.py etc. import as modules
# one worker process per core (pytest-xdist): each DuckDB database gets one thread, as README
# "Configuration" advises for a machine running several processes (the commands the tests start
# inherit it)
os.environ.setdefault("POINTLEDGER_DUCKDB_THREADS", "1")

from office import AS_OF, Office  # noqa: E402,F401 - tests/office.py (several conftest modules share the name)
from pipelines.core.sql import fetch, open_database  # noqa: E402

# Each test process builds and drops many small pandas frames: Python's cyclic garbage collector
# took about 4 % of a worker's time (1.2 s of 31 s in three heavy test files). What is imported by
# now is never garbage, so it leaves the collector's scans, and young objects are collected less
# often (0.3 s of the same 31 s). The test processes only: a nightly run keeps Python's defaults.
gc.collect()
gc.freeze()
gc.set_threshold(50_000, 20, 100)


def pytest_unconfigure(config):
    # back to the collector before the process exits, where DuckDB's binding checks that its
    # objects were freed (frozen ones would be reported as leaked)
    gc.unfreeze()
    gc.collect()


@pytest.fixture
def office(tmp_path: Path) -> Office:
    return Office(tmp_path)


@dataclass(frozen=True)
class SampleRun:
    """The bundled sample inbox after one nightly run: `inbox`, `state` (var/)."""

    inbox: Path
    state: Path

    def query(self, sql: str, params=None) -> pd.DataFrame:
        con = open_database(self.state / "warehouse.duckdb", read_only=True)  # (tests/office.py: why)
        try:
            return fetch(con, sql, params)
        finally:
            con.close()


@pytest.fixture(scope="session")
def sample_run(tmp_path_factory) -> SampleRun:
    """The whole sample inbox posted by one run, shared by every test file of the session (and by
    the pytest-xdist workers: the first to need it runs it under a lock, the others wait and read
    it). Read it, never write to it: a test that changes the state copies it first."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    root = shared / "sample-run"
    # the run of this session only (a --basetemp kept from an earlier session holds an older one)
    session = os.environ.get("PYTEST_XDIST_TESTRUNUID", str(os.getpid()))
    with open(shared / "sample-run.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = root / "done"
        if not done.exists() or done.read_text(encoding="utf-8") != session:
            from pipelines.core import run as nightly
            from pipelines.core.settings import DATA_DIR

            shutil.rmtree(root, ignore_errors=True)
            shutil.copytree(DATA_DIR / "samples" / "inbox", root / "inbox")
            nightly.run(root / "inbox", root / "var", AS_OF, DATA_DIR)
            done.write_text(session, encoding="utf-8")
    return SampleRun(root / "inbox", root / "var")

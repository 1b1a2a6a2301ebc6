"""A federation office in a temp folder, for tests: importable by name (`from office import Office`),
unlike conftest modules, which several folders have."""
from __future__ import annotations

import os
import shutil
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import pandas as pd

from pipelines.core import run as nightly
from pipelines.core.settings import DATA_DIR
from pipelines.core.sql import fetch, open_database

AS_OF = date(2026, 12, 2)


@dataclass(frozen=True)
class CliResult:
    returncode: int
    stdout: str
    stderr: str


def pointledger(*args: str, cwd: Path | None = None, env: dict | None = None) -> CliResult:
    """`pointledger ARGS` run from `cwd`, in this process (click's test runner: the same command,
    exit code and output as the installed tool, without starting Python and importing pandas
    again for each call). Tests of what only a process shows (a SIGKILL, a lock held by another
    process, the installed wheel) start real processes. `env`: variables to set, or to remove
    (None); POINTLEDGER_CONFIG is removed unless given."""
    from click.testing import CliRunner

    from pipelines.cli import main

    environment = {"POINTLEDGER_CONFIG": None, **(env or {})}
    before = os.getcwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        done = CliRunner().invoke(main, [str(a) for a in args], env=environment, catch_exceptions=False)
    finally:
        os.chdir(before)
    return CliResult(done.exit_code, done.stdout, done.stderr)


class Office:
    """A federation office in a temp folder: an inbox, a state folder, and the nightly run.

    Runs use a copy of data/ holding only the organisations that have a folder in this inbox,
    so a test of one rule system does not run (or wait for) the others.
    """

    def __init__(self, root: Path):
        self.inbox = root / "inbox"
        self.state = root / "var"
        self.data = root / "data"
        self.inbox.mkdir()
        shutil.copytree(DATA_DIR, self.data, ignore=shutil.ignore_patterns("samples"))

    @classmethod
    def copy_of(cls, other: "Office", root: Path) -> "Office":
        """An office at `root` holding a copy of `other`'s inbox, state and data (as an office
        restores its folders from a backup: new files, same contents)."""
        shutil.copytree(other.inbox.parent, root, symlinks=True, dirs_exist_ok=True)
        office = cls.__new__(cls)
        office.inbox, office.state, office.data = root / "inbox", root / "var", root / "data"
        return office

    def data_dir(self) -> Path:
        present = {p.name for p in self.inbox.iterdir() if p.is_dir()}
        organisations = self.data / "organisations"
        shutil.rmtree(organisations)
        organisations.mkdir()
        for settings in (DATA_DIR / "organisations").glob("*.toml"):
            if settings.stem in present:
                shutil.copy(settings, organisations / settings.name)
        return self.data

    def post(self, relpath: str, text: str | bytes) -> Path:
        path = self.inbox / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
        return path

    def run(self, as_of: date = AS_OF) -> nightly.RunResult:
        return nightly.run(self.inbox, self.state, as_of, self.data_dir())

    @contextmanager
    def reader(self):
        """`query` for several queries on one read-only connection (opening the warehouse file
        costs more than a small query): `with office.reader() as query: query(sql, params)`."""
        con = open_database(self.state / "warehouse.duckdb", read_only=True)
        try:
            yield lambda sql, params=None: fetch(con, sql, params)
        finally:
            con.close()

    def query(self, sql: str, params=None) -> pd.DataFrame:
        # attached to the process's DuckDB instance, as the run's own connections are: a new
        # instance for each of the suite's thousand queries would cost 12 ms each
        con = open_database(self.state / "warehouse.duckdb", read_only=True)
        try:
            return fetch(con, sql, params)
        finally:
            con.close()

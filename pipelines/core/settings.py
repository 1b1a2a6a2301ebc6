"""Where things live, and the organisation settings read from data/."""
from __future__ import annotations

from typing import Literal

import hashlib
import importlib.resources
import json
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import pandas as pd
from pydantic import BaseModel, ConfigDict

from schemas.organisation import Organisation

PROJECT_ROOT = Path(__file__).resolve().parents[2]


def _resources() -> Path:
    """Where sql/ and data/ are: the checkout's top level, or inside the installed wheel
    (pipelines/_bundled, see pyproject.toml)."""
    if (PROJECT_ROOT / "sql" / "macros.sql").is_file() and (PROJECT_ROOT / "pyproject.toml").is_file():
        return PROJECT_ROOT
    return Path(str(importlib.resources.files("pipelines") / "_bundled"))


RESOURCES = _resources()
DATA_DIR = RESOURCES / "data"  # the bundled example data (an office keeps its own: --data-dir)
SQL_DIR = RESOURCES / "sql"
DEFAULT_INBOX = DATA_DIR / "samples" / "inbox"
DEFAULT_STATE = Path("var")
# An inbox file larger than this is quarantined unread (a club's result file is kilobytes; this
# bounds the memory one file can take). An organisation sets its own with `max_file_mb`.
DEFAULT_MAX_FILE_MB = 20


class SettingsError(Exception):
    """A rule, calendar or organisation data file is wrong: the run cannot start."""


@dataclass(frozen=True)
class StatePaths:
    root: Path

    @property
    def lake(self) -> Path:
        return self.root / "lake"

    @property
    def manifest(self) -> Path:
        return self.lake / "_manifest.json"

    @property
    def staging(self) -> Path:
        return self.root / "staging"

    @property
    def warehouse(self) -> Path:
        return self.root / "warehouse.duckdb"

    @property
    def warehouse_rows(self) -> Path:
        """The lake's rows as DuckDB tables, kept up to date run by run (rebuildable)."""
        return self.root / "cache" / "warehouse-rows.duckdb"

    @property
    def settings_cache(self) -> Path:
        """Validated rule tables and settings kept between nights (`values_kept_in`; rebuildable)."""
        return self.root / "cache" / "settings"

    @property
    def runs(self) -> Path:
        return self.root / "runs"

    def page_index(self, organisation: str) -> Path:
        """What the site last read of each published page (title, links, file stamp), so that a
        night reads only the pages that changed (rebuildable: deleting it costs one full read)."""
        return self.root / "cache" / "pages" / f"{organisation}.json"

    @property
    def publications(self) -> Path:
        return self.root / "publications"

    @property
    def lock(self) -> Path:
        return self.root / ".lock"


class OrganisationSettings(BaseModel):
    """The keys of data/organisations/<organisation>.toml (their values are checked again, with
    the rule system's own schema for `[options]`)."""

    model_config = ConfigDict(extra="forbid")

    organisation: str
    display_name: str
    system: str
    ruleset: str | None = None
    calendar: str | None = None
    aliases: str | None = None
    game_total: int | None = None
    season_start_month: int | None = None
    max_file_mb: int | None = None
    language: Literal["en", "ja", "sv"] = "en"
    options: dict = {}


def load_organisations(data_dir: Path = DATA_DIR, enabled: list[str] | None = None) -> pd.DataFrame:
    """Every data/organisations/*.toml, validated; indexed by organisation id. Read and
    validated once per content of the folder (a run, and a process running many, asks often)."""
    if not (data_dir / "organisations").is_dir():
        raise SettingsError(f"{data_dir}: not a data directory (expected an organisations/ folder with one "
                            "<organisation>.toml per organisation; `pointledger init` writes one)")
    # read and validated once per content, whichever folder holds it (an office's restored copy,
    # a test's own data folder); each settings file is named by its path in this folder
    validated = cached_by_content("organisations", (data_dir / "organisations",), lambda: _read_organisations(data_dir))
    validated = validated.assign(settings_file=[(data_dir / "organisations" / PurePosixPath(f).name).as_posix()
                                                for f in validated["settings_file"]])
    if enabled is None:
        return validated
    from pipelines.core.config import nearest

    unknown = [o for o in enabled if o not in validated.index]
    if unknown:
        raise SettingsError("organisations enabled in the configuration but not in " + str(data_dir / "organisations")
                            + ": " + ", ".join(f"{o!r}{nearest(o, list(validated.index))}" for o in unknown))
    return validated.loc[list(dict.fromkeys(enabled))]


def _read_organisations(data_dir: Path) -> pd.DataFrame:
    from pipelines.core.config import read_settings

    rows = []
    for path in sorted((data_dir / "organisations").glob("*.toml")):
        settings = read_settings(path, OrganisationSettings).model_dump(exclude_none=True)
        rows.append(
            {
                "organisation": settings.get("organisation"),
                "display_name": settings.get("display_name"),
                "system": settings.get("system"),
                "ruleset": settings.get("ruleset"),
                "calendar": settings.get("calendar"),
                "aliases": settings.get("aliases"),
                "game_total": settings.get("game_total"),
                "season_start_month": settings.get("season_start_month"),
                "max_file_mb": settings.get("max_file_mb"),
                "options": json.dumps(settings.get("options", {}), ensure_ascii=False, default=str),
                "language": settings.get("language", "en"),
                "settings_file": path.as_posix(),
            }
        )
    frame = pd.DataFrame(rows, columns=list(Organisation.to_schema().columns))
    try:
        validated = Organisation.validate(frame, lazy=True)
    except Exception as error:  # pandera SchemaErrors: report every problem at once
        raise SettingsError(f"organisation settings under {data_dir / 'organisations'} are invalid:\n{error}") from error
    return validated.set_index("organisation", drop=False)


def files_stamp(*paths: Path | str) -> tuple:
    """(path, size, mtime) of every file at or under `paths`: part of a rule-table cache key, so
    that tables read once per process are read again when the office edits them (a recompute
    after a rule change, a long-lived process)."""
    stamp = []
    for root in map(Path, paths):
        files = sorted(p for p in root.rglob("*") if p.is_file()) if root.is_dir() else [root] if root.is_file() else []
        for f in files:
            st = f.stat()
            stamp.append((str(f), st.st_size, st.st_mtime_ns))
    return tuple(stamp)


# Rule tables validated once per content, not once per folder: the same tables copied to another
# data directory (a second office in one process, a restored copy) are not validated again.
_DIGESTS: dict[tuple, str] = {}
_BY_CONTENT: dict[tuple, object] = {}
_KEEP = 32


def content_digest(*paths: Path | str) -> str:
    """A digest of the names (relative to each of `paths`) and bytes of every file at or under
    `paths`; the files are read again only when their size or modification time changes."""
    stamp = files_stamp(*paths)
    if stamp not in _DIGESTS:
        digest = hashlib.blake2b(digest_size=20)
        for root in map(Path, paths):
            files = sorted(p for p in root.rglob("*") if p.is_file()) if root.is_dir() else [root] if root.is_file() else []
            digest.update(f"<{len(files)} files>".encode())
            for f in files:
                data = f.read_bytes()
                digest.update(f"{f.relative_to(root) if root.is_dir() else f.name}:{len(data)}:".encode())
                digest.update(data)
        if len(_DIGESTS) >= 4 * _KEEP:
            _DIGESTS.clear()
        _DIGESTS[stamp] = digest.hexdigest()
    return _DIGESTS[stamp]


def cached_by_content(name: str, paths: tuple, load, *extra):
    """`load()`, once per content of the files at `paths` (and `extra`, the other inputs of the
    load): rule systems keep their validated tables here. The value is shared: callers must not
    modify it (they filter and assign, as the style asks). Inside `values_kept_in(folder)` (a
    nightly run: its state's cache) the value is also kept on disk, so the next process (the next
    night) does not read and validate the same rule tables again."""
    key = (name, extra, content_digest(*paths))
    if key in _BY_CONTENT:
        return _BY_CONTENT[key]
    kept = _kept_file(key)
    value = _read_kept(kept) if kept is not None else _MISSING
    if value is _MISSING:
        value = load()
        if kept is not None:
            _keep(kept, value)
    if len(_BY_CONTENT) >= _KEEP:
        del _BY_CONTENT[next(iter(_BY_CONTENT))]  # the oldest
    _BY_CONTENT[key] = value
    return value


# -- validated settings kept between processes ---------------------------------------------------
#
# A nightly run is a new process: without this, each night reads and validates every rule table
# again (about half a second for the five systems, most of an idle night's own work). The folder is
# the state's cache (rebuildable: deleting it costs one night that validate again). A file's name
# is a digest of the value's key, the code that made it (the .py files of pipelines/ and schemas/)
# and the library versions, so a changed rule table, a new release or an upgraded pandas never
# reads a value made by another. A file that cannot be read is made again, never trusted.

_MISSING = object()
_KEPT_IN: list[Path] = []  # the folder of the innermost `values_kept_in`
_KEPT_FILES = 64  # the most recent values a folder keeps
_CODE: list[str] = []


def _code_digest() -> str:
    if not _CODE:
        import sys

        import numpy
        import pandera
        import pyarrow

        import pipelines
        import schemas

        digest = hashlib.blake2b(digest_size=20)
        digest.update(repr((sys.version, pd.__version__, numpy.__version__, pyarrow.__version__,
                            pandera.__version__)).encode())
        for package in (Path(pipelines.__file__).parent, Path(schemas.__file__).parent):
            for source in sorted(package.rglob("*.py")):
                digest.update(f"{source.relative_to(package.parent).as_posix()}:".encode())
                digest.update(source.read_bytes())
        _CODE.append(digest.hexdigest())
    return _CODE[0]


class values_kept_in:
    """Within this block `cached_by_content` also keeps its values in `folder` (see above)."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)

    def __enter__(self):
        _KEPT_IN.append(self.folder)
        return self

    def __exit__(self, *exc):
        _KEPT_IN.pop()
        return False


def _kept_file(key: tuple) -> Path | None:
    if not _KEPT_IN:
        return None
    digest = hashlib.sha256(repr((key, _code_digest())).encode()).hexdigest()[:40]
    return _KEPT_IN[-1] / f"{key[0]}-{digest}.pickle"


def _read_kept(path: Path):
    import pickle

    try:
        return pickle.loads(path.read_bytes())
    except FileNotFoundError:
        return _MISSING
    except Exception:  # a damaged or truncated file (a disk full, a copy cut short): made again
        path.unlink(missing_ok=True)
        return _MISSING


def _keep(path: Path, value) -> None:
    import os
    import pickle

    try:
        data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # a value that cannot be kept is made again by the next process
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
        partial.write_bytes(data)
        os.replace(partial, path)  # a reader sees the whole file or none
        kept = sorted(path.parent.glob("*.pickle"), key=lambda p: p.stat().st_mtime_ns)
        for old in kept[:-_KEPT_FILES]:
            old.unlink(missing_ok=True)
    except OSError:  # a read-only or full disk costs speed, never the night
        pass

"""Bridge rule tables, read from ``data/rules/bridge/`` (rules are data)."""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache
from pathlib import Path

from pipelines.core.settings import DATA_DIR, files_stamp  # the bundled rule data (checkout or wheel)
import pandas as pd

RULES_DIR = DATA_DIR / "rules" / "bridge"
# The rule tables of the run's data directory (the office's `--data-dir`, where a rule change is
# made): set around a system's work by `rules_from`, else the bundled example data.
_RUN_RULES_DIR: ContextVar[Path | None] = ContextVar("bridge_rules_dir", default=None)


@contextmanager
def rules_from(data_dir: Path | None):
    """Read the bridge tables from `data_dir`/rules/bridge inside this block (the bundled tables
    when that folder does not exist)."""
    own = Path(data_dir) / "rules" / "bridge" if data_dir is not None else None
    # a data folder without bridge tables (a JCBL-only office scoring travellers) uses the bundled ones
    token = _RUN_RULES_DIR.set(own if own is not None and own.is_dir() else None)
    try:
        yield
    finally:
        _RUN_RULES_DIR.reset(token)


def _dir(rules_dir: Path | None) -> Path:
    return Path(rules_dir) if rules_dir is not None else (_RUN_RULES_DIR.get() or RULES_DIR)


def rules_dir_in_use() -> Path:
    """The folder the tables are read from here (the run's data folder's, or the bundled one)."""
    return _dir(None)


def _read(name: str, rules_dir: Path | None) -> pd.DataFrame:
    return pd.read_csv(_dir(rules_dir) / name, keep_default_na=False, na_values=[""])


@lru_cache(maxsize=None)
def _cached(name: str, rules_dir: str, stamp: tuple = ()) -> pd.DataFrame:  # stamp: read again when edited
    return _read(name, Path(rules_dir))


def load_imp_table(rules_dir: Path | None = None) -> pd.DataFrame:
    """Law 78B IMP scale: ``diff_min``, ``diff_max`` (empty for the open top band), ``imps``."""
    t = _cached("imp_table.csv", str(_dir(rules_dir)), files_stamp(_dir(rules_dir) / "imp_table.csv")).copy()
    t["diff_max"] = t["diff_max"].astype("Int64")
    return t


def load_board_rotation(rules_dir: Path | None = None) -> pd.DataFrame:
    """Standard 16-board dealer/vulnerability rotation: ``board_mod16``, ``dealer``, ``vulnerable``."""
    return _cached("board_rotation.csv", str(_dir(rules_dir)), files_stamp(_dir(rules_dir) / "board_rotation.csv")).copy()


def load_vp_scales(rules_dir: Path | None = None) -> pd.DataFrame:
    """VP scale definitions: ``scale_id``, ``kind`` (continuous|table), ``max_vp``, ``decimals``,
    ``tau_num``, ``blitz_factor``, ``note``."""
    return _cached("vp_scales.csv", str(_dir(rules_dir)), files_stamp(_dir(rules_dir) / "vp_scales.csv")).copy()


def load_vp_scale_tables(rules_dir: Path | None = None) -> pd.DataFrame:
    """Discrete VP tables: ``scale_id``, ``boards_min``, ``boards_max``, ``imp_min``, ``imp_max``,
    ``vp_winner``, ``vp_loser`` (VP as decimal strings)."""
    t = pd.read_csv(_dir(rules_dir) / "vp_scale_tables.csv", dtype=str, keep_default_na=False)
    return t

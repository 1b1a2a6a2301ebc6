"""Bridge rule tables, read from ``data/rules/bridge/`` (rules are data)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pipelines.core.settings import DATA_DIR, files_stamp  # the bundled rule data (checkout or wheel)
import pandas as pd

RULES_DIR = DATA_DIR / "rules" / "bridge"


def _read(name: str, rules_dir: Path | None) -> pd.DataFrame:
    return pd.read_csv((rules_dir or RULES_DIR) / name, keep_default_na=False, na_values=[""])


@lru_cache(maxsize=None)
def _cached(name: str, rules_dir: str, stamp: tuple = ()) -> pd.DataFrame:  # stamp: read again when edited
    return _read(name, Path(rules_dir))


def load_imp_table(rules_dir: Path | None = None) -> pd.DataFrame:
    """Law 78B IMP scale: ``diff_min``, ``diff_max`` (empty for the open top band), ``imps``."""
    t = _cached("imp_table.csv", str(rules_dir or RULES_DIR), files_stamp(Path(rules_dir or RULES_DIR) / "imp_table.csv")).copy()
    t["diff_max"] = t["diff_max"].astype("Int64")
    return t


def load_board_rotation(rules_dir: Path | None = None) -> pd.DataFrame:
    """Standard 16-board dealer/vulnerability rotation: ``board_mod16``, ``dealer``, ``vulnerable``."""
    return _cached("board_rotation.csv", str(rules_dir or RULES_DIR), files_stamp(Path(rules_dir or RULES_DIR) / "board_rotation.csv")).copy()


def load_vp_scales(rules_dir: Path | None = None) -> pd.DataFrame:
    """VP scale definitions: ``scale_id``, ``kind`` (continuous|table), ``max_vp``, ``decimals``,
    ``tau_num``, ``blitz_factor``, ``note``."""
    return _cached("vp_scales.csv", str(rules_dir or RULES_DIR), files_stamp(Path(rules_dir or RULES_DIR) / "vp_scales.csv")).copy()


def load_vp_scale_tables(rules_dir: Path | None = None) -> pd.DataFrame:
    """Discrete VP tables: ``scale_id``, ``boards_min``, ``boards_max``, ``imp_min``, ``imp_max``,
    ``vp_winner``, ``vp_loser`` (VP as decimal strings)."""
    t = pd.read_csv((rules_dir or RULES_DIR) / "vp_scale_tables.csv", dtype=str, keep_default_na=False)
    return t

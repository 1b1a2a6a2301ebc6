"""Shared helpers: build an inbox in a temp folder, run the pipeline, query the warehouse."""
from __future__ import annotations

import shutil
import sys
from datetime import date
from pathlib import Path

import duckdb
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # tests/mahjong/reference.py etc. import as modules

from office import AS_OF, Office  # noqa: E402,F401 - tests/office.py (several conftest modules share the name)

@pytest.fixture
def office(tmp_path: Path) -> Office:
    return Office(tmp_path)

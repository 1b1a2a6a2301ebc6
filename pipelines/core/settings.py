"""Where things live, and the organisation settings read from data/."""
from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from schemas.organisation import Organisation

PROJECT_ROOT = Path(__file__).resolve().parents[2]
DATA_DIR = PROJECT_ROOT / "data"
SQL_DIR = PROJECT_ROOT / "sql"
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
    def runs(self) -> Path:
        return self.root / "runs"

    @property
    def publications(self) -> Path:
        return self.root / "publications"

    @property
    def lock(self) -> Path:
        return self.root / ".lock"


def read_toml(path: Path) -> dict:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise SettingsError(f"{path}: cannot read settings: {error}") from error


def load_organisations(data_dir: Path = DATA_DIR) -> pd.DataFrame:
    """Every data/organisations/*.toml, validated; indexed by organisation id."""
    rows = []
    for path in sorted((data_dir / "organisations").glob("*.toml")):
        settings = read_toml(path)
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
                "settings_file": path.as_posix(),
            }
        )
    frame = pd.DataFrame(rows, columns=list(Organisation.to_schema().columns))
    try:
        validated = Organisation.validate(frame, lazy=True)
    except Exception as error:  # pandera SchemaErrors: report every problem at once
        raise SettingsError(f"organisation settings under {data_dir / 'organisations'} are invalid:\n{error}") from error
    return validated.set_index("organisation", drop=False)

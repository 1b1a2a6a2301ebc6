"""Load the league's rule, calendar and alias tables from data/ (validated, or the run stops)."""
from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP
from pathlib import Path
from typing import Any

import pandas as pd
from pydantic import BaseModel, ConfigDict, Field

from pipelines.core.config import nearest, read_settings
from pipelines.core.settings import SettingsError, cached_by_content
from pipelines.core.validation import validate_settings
from schemas.mahjong import Alias, PeriodScheme, PlacingPoints, RuleVersion, Season

# The league's one rounding mode: half-up (away from zero) for points shared by tied scores
# (to 0.01) and for the leaderboard average (to `average_decimals`, 3 in the seed's rules).
ROUNDING = ROUND_HALF_UP


class SeasonSettings(BaseModel):
    """The keys of one [[seasons]] table of a calendar; a missing `starts_on` / `ends_on` is
    open-ended. Values are checked with the seasons' schema (schemas/mahjong.py `Season`), which
    names a bad date as the other rule tables do."""

    model_config = ConfigDict(extra="forbid")

    season: Any
    name: Any = None
    starts_on: Any = None
    ends_on: Any = None


class CalendarSettings(BaseModel):
    """The keys of data/calendars/<calendar>.toml: a misspelt or missing key is an error naming
    the nearest one, not a setting silently left out. Values are checked with `PeriodScheme`."""

    model_config = ConfigDict(extra="forbid")

    months_per_period: Any
    anchor: Any
    period_names: list[str] = Field(min_length=1)
    seasons: list[SeasonSettings] = []


@dataclass(frozen=True)
class LeagueRules:
    rule_versions: pd.DataFrame
    placing_points: pd.DataFrame
    seasons: pd.DataFrame
    period_scheme: pd.DataFrame
    aliases: pd.DataFrame


def _read_csv(path: Path) -> pd.DataFrame:
    if not path.exists():
        raise SettingsError(f"missing data file {path}")
    return pd.read_csv(path, dtype="string", keep_default_na=False)


def _named_file(data_dir: Path, folder: str, name: str, suffix: str, organisation: pd.Series, key: str) -> Path:
    """data_dir/folder/<name><suffix>, the file an organisation's setting `key` names; a name with
    no file is a settings error naming the setting and the nearest file there is."""
    path = Path(data_dir) / folder / f"{name}{suffix}"
    if not path.is_file():
        known = sorted(p.stem for p in (Path(data_dir) / folder).glob(f"*{suffix}"))
        raise SettingsError(f"{organisation.get('settings_file', organisation['organisation'])}: {key} = {name!r} names "
                            f"{folder}/{name}{suffix}, which does not exist{nearest(str(name), known)}; "
                            f"the {folder} are {', '.join(known) or 'none'}")
    return path


def load_league_rules(data_dir: Path, organisation: pd.Series) -> LeagueRules:
    # read once per content of the files (not once per stage or per copy of the data); again when edited
    data_dir = Path(data_dir)
    return cached_by_content(
        "mahjong.league_rules", (data_dir / "rules" / "mahjong", data_dir / "calendars", data_dir / "aliases"),
        lambda: _load(data_dir, organisation),
        organisation["ruleset"], organisation["calendar"], organisation["aliases"],
    )


def _load(data_dir: Path, organisation: pd.Series) -> LeagueRules:
    ruleset, calendar = organisation["ruleset"], organisation["calendar"]
    versions = _read_csv(data_dir / "rules" / "mahjong" / "rule_versions.csv")
    versions = validate_settings(RuleVersion, versions[versions["ruleset"] == ruleset], "rules/mahjong/rule_versions.csv")
    if versions.empty:
        raise SettingsError(f"rules/mahjong/rule_versions.csv has no rule version of ruleset {ruleset!r}")
    placing = _read_csv(data_dir / "rules" / "mahjong" / "placing_points.csv")
    placing = validate_settings(PlacingPoints, placing[placing["ruleset"] == ruleset], "rules/mahjong/placing_points.csv")
    missing = set(versions["rule_version"]) - set(placing["rule_version"])
    if missing:
        raise SettingsError(f"rules/mahjong/placing_points.csv has no placing points for {sorted(missing)}")

    settings = read_settings(_named_file(data_dir, "calendars", calendar, ".toml", organisation, "calendar"),
                             CalendarSettings, shown=f"calendars/{calendar}.toml")
    seasons = pd.DataFrame(
        [
            {"calendar": calendar, "season": s.season, "name": s.name or s.season,
             "starts_on": s.starts_on, "ends_on": s.ends_on}
            for s in settings.seasons
        ],
        columns=["calendar", "season", "name", "starts_on", "ends_on"],
    )
    seasons = validate_settings(Season, seasons, f"calendars/{calendar}.toml [[seasons]]", lambda i: f"number {i + 1}")
    scheme = pd.DataFrame(
        [{"calendar": calendar, "months_per_period": settings.months_per_period,
          "anchor": settings.anchor, "period_names": "|".join(settings.period_names)}]
    )
    scheme = validate_settings(PeriodScheme, scheme, f"calendars/{calendar}.toml", None)

    # an alias list named in the settings must exist: a misspelt name would silently split players
    named = pd.notna(organisation["aliases"])
    alias_path = _named_file(data_dir, "aliases", organisation["aliases"], ".csv", organisation, "aliases") if named else None
    aliases = _read_csv(alias_path) if named else pd.DataFrame(columns=["alias", "player_id"])
    aliases = validate_settings(Alias, aliases, f"aliases/{organisation['aliases']}.csv" if named else "aliases")
    return LeagueRules(versions, placing, seasons, scheme, aliases)

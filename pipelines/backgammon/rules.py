"""The rule tables of the Universal Club Master Points System, loaded from data.

``load_rules`` is the only function of the package that reads files. Every award value, every
column range, place row, tie capacity, per-match award and the rounding mode live in
``data/rules/backgammon/*.csv``; a new rule version is a data change.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pipelines.core.rule_tables import as_decimals, checked, read_csv_text
from pipelines.core.settings import DATA_DIR, cached_by_content  # the bundled rule data (checkout or wheel)
import pandas as pd

from schemas import backgammon as sch

DEFAULT_RULES_DIR = DATA_DIR / "rules" / "backgammon"

_TABLES = {
    "versions": ("rule_versions.csv", sch.RuleVersions, ["quantum"]),
    "placing": ("placing_awards.csv", sch.PlacingAwards, ["points"]),
    "per_match": ("match_awards.csv", sch.MatchAwards, ["per_match"]),
    "columns": ("columns.csv", sch.Columns, []),
    "place_rows": ("place_rows.csv", sch.PlaceRows, []),
    "elimination": ("elimination_places.csv", sch.EliminationPlaces, []),
    "level_aliases": ("level_aliases.csv", sch.LevelAliases, []),
}


@dataclass(frozen=True)
class BackgammonRules:
    """The validated rule tables (pandas frames; decimal columns hold ``Decimal`` objects)."""

    versions: pd.DataFrame
    placing: pd.DataFrame
    per_match: pd.DataFrame
    columns: pd.DataFrame
    place_rows: pd.DataFrame
    elimination: pd.DataFrame
    level_aliases: pd.DataFrame

    @property
    def levels(self) -> list[str]:
        return sorted(self.per_match["level"].unique())


def _read_table(directory: Path, name: str) -> pd.DataFrame:
    filename, model, decimal_columns = _TABLES[name]
    label = f"rules/backgammon/{filename}"  # as the office finds it in its data folder
    frame = read_csv_text(directory / filename, label, na_values=[""])
    return checked(model, as_decimals(frame, decimal_columns, label), label)


def _check_references(rules: BackgammonRules) -> BackgammonRules:
    """Cross-table invariants: every version has a complete grid and consistent labels."""
    problems: list[str] = []
    versions = set(rules.versions["rule_version"])
    for name in ("placing", "per_match", "columns", "place_rows", "elimination"):
        unknown = set(getattr(rules, name)["rule_version"]) - versions
        if unknown:
            problems.append(f"{name}: rule versions {sorted(unknown)} are not in rule_versions.csv")
    grid = (
        rules.per_match[["rule_version", "level"]]
        .merge(rules.place_rows[["rule_version", "place_row"]], on="rule_version")
        .merge(rules.columns[["rule_version", "column"]], on="rule_version")
    )
    joined = grid.merge(rules.placing, how="outer", on=["rule_version", "level", "place_row", "column"], indicator=True)
    missing = joined[joined["_merge"] == "left_only"]
    extra = joined[joined["_merge"] == "right_only"]
    if len(missing):
        problems.append(f"placing_awards.csv lacks {len(missing)} cells, e.g. {missing.iloc[0, :4].tolist()}")
    if len(extra):
        problems.append(f"placing_awards.csv has {len(extra)} cells outside the grid, e.g. {extra.iloc[0, :4].tolist()}")
    bad_places = rules.elimination.merge(rules.place_rows, how="left", on=["rule_version", "place_row"], indicator=True)
    if (bad_places["_merge"] == "left_only").any():
        problems.append("elimination_places.csv names a place row that place_rows.csv lacks")
    if not set(rules.level_aliases["level"]) <= set(rules.per_match["level"]):
        problems.append("level_aliases.csv names a level that match_awards.csv lacks")
    if problems:
        raise ValueError("backgammon rule tables are inconsistent: " + "; ".join(problems))
    return rules


def load_rules(directory: str | Path | None = None) -> BackgammonRules:
    """Read and validate the rule tables (default: ``data/rules/backgammon`` of this repository)."""
    directory = Path(directory or DEFAULT_RULES_DIR).resolve()
    return cached_by_content("backgammon.rules", (directory,), lambda: _load(directory))


def _load(path: Path) -> BackgammonRules:  # validated once per content of the tables (read again when edited)
    rules = BackgammonRules(**{name: _read_table(path, name) for name in _TABLES})
    return _check_references(rules)


def version_in_force(dates: pd.Series, versions: pd.DataFrame) -> pd.Series:
    """The rule version in force on each date (``NaN`` before the first effective date)."""
    table = versions[["effective_from", "rule_version"]].sort_values("effective_from")
    probe = pd.DataFrame({"date": pd.to_datetime(dates).astype("datetime64[ns]"), "_pos": range(len(dates))})
    known = probe[probe["date"].notna()].sort_values("date")
    matched = pd.merge_asof(
        known, table.astype({"effective_from": "datetime64[ns]"}), left_on="date", right_on="effective_from"
    )
    out = pd.Series(pd.NA, index=range(len(dates)), dtype="str")
    out.loc[matched["_pos"].to_numpy()] = matched["rule_version"].to_numpy()
    out.index = dates.index
    return out

"""JCBL rule tables, read from ``data/rules/jcbl/`` and validated (rules are data).

``load_rules()`` reads every version; ``JcblRules.for_date(d)`` picks the version in effect on
an event date (the latest ``effective_from`` on or before it) as a ``RuleSet`` of frames.
"""
from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from pipelines.core.rule_tables import as_decimals, checked, read_csv_text
from pipelines.core.settings import DATA_DIR, cached_by_content  # the bundled rule data (checkout or wheel)
import pandas as pd
import pandera.pandas as pa

from schemas import jcbl as S

RULES_DIR = DATA_DIR / "rules" / "jcbl"


class JcblRulesError(ValueError):
    """The rule tables are invalid, or have no answer for an event (a gap in the rules)."""


# file → (model, decimal columns, bool columns)
_TABLES: dict[str, tuple[type[pa.DataFrameModel], list[str], list[str]]] = {
    "versions": (S.RuleVersions, ["cut_fraction"], []),
    "place_ratios": (S.PlaceRatios, ["ratio"], []),
    "class_ratios": (S.ClassRatios, ["numerator", "denominator"], []),
    "coefficients": (S.Coefficients, ["numerator", "denominator"], []),
    "flights": (S.Flights, ["numerator", "denominator"], []),
    "strats": (S.Strats, ["numerator", "denominator"], []),
    "event_kinds": (S.EventKinds, [], ["weekday_applies"]),
    "award_components": (
        S.AwardComponents,
        ["base", "field_offset", "decay", "cap_base", "session_floor", "session_threshold",
         "lower_strat_top_fraction", "vp_reference"],
        ["flight_coefficient", "strat_coefficient", "per_strat"],
    ),
}

_TRUE = {"true": True, "yes": True, "1": True, "false": False, "no": False, "0": False}


def _read_table(rules_dir: Path, name: str) -> pd.DataFrame:
    model, decimals, bools = _TABLES[name]
    path = rules_dir / f"{name}.csv"
    label = f"rules/jcbl/{path.name}"  # as the office finds it in its data folder
    raw = read_csv_text(path, label, error=JcblRulesError)
    df = as_decimals(raw, decimals, label, empty_is_none=True, error=JcblRulesError)
    for col in bools:
        if col in df:
            bad = ~raw[col].str.lower().isin(list(_TRUE))
            if bad.any():
                i = int(bad.idxmax())
                raise JcblRulesError(f"{label} line {i + 2} column {col}: expected true/false, found {raw[col][i]!r}")
            df[col] = raw[col].str.lower().map(_TRUE).astype(bool)
    for col in df.columns:
        if col not in decimals and col not in bools and model.to_schema().columns.get(col) is not None:
            if model.to_schema().columns[col].nullable:
                df[col] = df[col].replace("", None)
    return checked(model, df, label, error=JcblRulesError)


@dataclass(frozen=True)
class RuleSet:
    """The tables of one rule version."""

    rule_version: str
    effective_from: pd.Timestamp
    cut_fraction: Decimal
    place_ratios: pd.DataFrame
    class_ratios: pd.DataFrame
    coefficients: pd.DataFrame
    flights: pd.DataFrame
    strats: pd.DataFrame
    event_kinds: pd.DataFrame
    award_components: pd.DataFrame

    def kind(self, kind: str) -> pd.Series:
        rows = self.event_kinds[self.event_kinds["kind"] == kind]
        if rows.empty:
            known = ", ".join(sorted(self.event_kinds["kind"]))
            raise JcblRulesError(f"rule version {self.rule_version} has no event kind {kind!r} (known: {known})")
        return rows.iloc[0]

    def components(self, kind: str) -> pd.DataFrame:
        self.kind(kind)
        return self.award_components[self.award_components["kind"] == kind].reset_index(drop=True)


@dataclass(frozen=True)
class JcblRules:
    """Every rule version, as validated frames (each carries ``rule_version``)."""

    versions: pd.DataFrame
    tables: dict[str, pd.DataFrame]

    def for_date(self, when) -> RuleSet:
        when = pd.Timestamp(when)
        eligible = self.versions[self.versions["effective_from"] <= when]
        if eligible.empty:
            first = self.versions["effective_from"].min().date()
            raise JcblRulesError(f"no JCBL rule version in effect on {when.date()} (the first takes effect {first})")
        v = eligible.sort_values("effective_from").iloc[-1]
        pick = {name: t[t["rule_version"] == v["rule_version"]].reset_index(drop=True) for name, t in self.tables.items()}
        return RuleSet(rule_version=v["rule_version"], effective_from=v["effective_from"],
                       cut_fraction=v["cut_fraction"], **pick)


def load_rules(rules_dir: str | Path | None = None) -> JcblRules:
    """Read and validate ``data/rules/jcbl/*.csv``; raises JcblRulesError listing every problem.
    Validated once per content of the tables (read again when edited)."""
    rules_dir = Path(rules_dir) if rules_dir is not None else RULES_DIR
    return cached_by_content("jcbl.rules", (rules_dir,), lambda: _load(rules_dir))


def _load(rules_dir: Path) -> JcblRules:
    versions = _read_table(rules_dir, "versions")
    tables = {name: _read_table(rules_dir, name) for name in _TABLES if name != "versions"}
    known = set(versions["rule_version"])
    for name, t in tables.items():
        unknown = set(t["rule_version"]) - known
        if unknown:
            raise JcblRulesError(f"{name}.csv names rule versions not in versions.csv: {sorted(unknown)}")
    # cross-table: every coefficient named by an event kind exists; every component's kind exists
    for v in known:
        coeffs = set(tables["coefficients"].query("rule_version == @v")["coefficient"])
        kinds = tables["event_kinds"].query("rule_version == @v")
        for row in kinds.itertuples():
            for c in filter(None, row.coefficients.split(";")):
                if c not in coeffs:
                    raise JcblRulesError(f"event_kinds.csv: kind {row.kind} ({v}) names coefficient {c!r}, not in coefficients.csv")
        comp_kinds = set(tables["award_components"].query("rule_version == @v")["kind"])
        missing = comp_kinds - set(kinds["kind"])
        if missing:
            raise JcblRulesError(f"award_components.csv ({v}) names kinds not in event_kinds.csv: {sorted(missing)}")
        without = set(kinds["kind"]) - comp_kinds
        if without:
            raise JcblRulesError(f"event_kinds.csv ({v}): kinds without any award component: {sorted(without)}")
    return JcblRules(versions=versions, tables=tables)

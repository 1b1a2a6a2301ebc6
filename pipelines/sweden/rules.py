"""The Swedish rule tables, read from ``data/rules/sweden/`` and validated (rules are data).

``load_rules()`` reads every file with its pandera model (schemas/sweden.py) and returns a
``SwedenRules``; ``rules.for_date(d)`` names the rule version in effect on an event date. Numbers
written as "2/3" or "1.15" become exact ``Fraction`` objects here.
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

from pipelines.core.rule_tables import as_integers, checked, read_csv_text
from pipelines.core.settings import DATA_DIR, cached_by_content  # the bundled rule data (checkout or wheel)
import pandas as pd

from schemas import sweden as S

RULES_DIR = DATA_DIR / "rules" / "sweden"


class SwedenRulesError(ValueError):
    """A rule table is invalid."""


def frac(text) -> Fraction | None:
    text = str(text).strip()
    if text == "" or text.lower() == "nan":
        return None
    return Fraction(text)


def _read(path: Path, model) -> pd.DataFrame:
    label = f"rules/sweden/{path.name}"  # as the office finds it in its data folder
    raw = read_csv_text(path, label, error=SwedenRulesError)
    ints = [c for c, col in model.to_schema().columns.items() if str(col.dtype) in ("int64", "int32")]
    return checked(model, as_integers(raw, ints, label, error=SwedenRulesError), label, error=SwedenRulesError)


@dataclass
class SwedenRules:
    tables: dict[str, pd.DataFrame]
    printed: dict[str, pd.DataFrame]
    rules_dir: Path
    _cache: dict = field(default_factory=dict)

    def for_date(self, when) -> str:
        key = ("for_date", str(when))
        if key not in self._cache:
            self._cache[key] = self._for_date(when)
        return self._cache[key]

    def _for_date(self, when) -> str:
        if "versions" not in self._cache:  # (effective date, version) in date order, read once
            versions = self.tables["rule_versions"]
            self._cache["versions"] = sorted(zip(pd.to_datetime(versions["effective_from"]), versions["rule_version"].astype(str)))
        versions = self._cache["versions"]
        at = bisect.bisect_right([d for d, _ in versions], pd.Timestamp(when))
        if at == 0:
            raise SwedenRulesError(f"no Swedish rule version in effect on {pd.Timestamp(when).date()} "
                                   f"(the first takes effect {versions[0][0].date()})")
        return versions[at - 1][1]

    def param(self, name: str, version: str = "se-2009") -> Fraction:
        p = self.tables["parameters"]
        row = p[(p["rule_version"] == version) & (p["name"] == name)]
        if row.empty:
            raise SwedenRulesError(f"parameters.csv has no {name!r} for {version}")
        return frac(row.iloc[0]["value"])

    def scale(self, scale: str, version: str = "se-2009") -> dict:
        """The scale's row of scales.csv (column -> value). Looked up once per scale: the award
        functions ask for it for every event and size."""
        key = ("scale", scale, version)
        if key not in self._cache:
            s = self.tables["scales"]
            self._cache[key] = s[(s["rule_version"] == version) & (s["scale"] == scale)].iloc[0].to_dict()
        return self._cache[key]

    def ranking_rates(self, version: str, kind: str) -> dict[str, Fraction]:
        """{denomination: ranking points per point} of ranking.csv for an event kind. Looked up
        once per kind: every silver and gold result asks for it."""
        key = ("ranking_rates", version, kind)
        if key not in self._cache:
            t = self.tables["ranking"]
            t = t[(t["rule_version"] == version) & (t["kind"] == kind)]
            self._cache[key] = dict(zip(t["denomination"], (frac(v) for v in t["rp_per_point"])))
        return self._cache[key]

    def printed_rows(self, table: str, version: str = "se-2009") -> dict[int, list[tuple[str, int]]]:
        key = ("printed", table, version)
        if key not in self._cache:
            t = self.printed[table]
            t = t[t["rule_version"] == version].sort_values(["size", "place"])
            self._cache[key] = {int(size): list(zip(g["denomination"], g["points"].astype(int)))
                                for size, g in t.groupby("size")}
        return self._cache[key]


def _load(d: Path) -> SwedenRules:
    tables = {name: _read(d / f"{name}.csv", model) for name, model in S.RULE_TABLES.items()}
    printed = {key: _read(d / f"{file}.csv", model) for key, (file, model) in S.PRINTED_TABLES.items()}
    return SwedenRules(tables, printed, d)


def load_rules(rules_dir: Path | None = None) -> SwedenRules:
    d = Path(rules_dir or RULES_DIR)  # validated once per content of the tables (read again when edited)
    return cached_by_content("sweden.rules", (d,), lambda: _load(d))

"""Swedish master classes (seed page 2, RULES.md §3): holdings (bp, sp, gp) -> class and star.

The levels are data (``data/rules/sweden/master_classes.csv``, model ``schemas.sweden.MasterClasses``),
the exchange rates and the mp value of each denomination too (parameters.csv). A level is met when

- mp held >= ``min_mp`` and bp held >= ``min_bp`` (the bronze-only Klöver stars), and
- where a minimum in sp / gp is given, either sp >= ``min_sp`` or gp >= ``min_gp``, where bp may be
  counted as sp (``bp_to_sp``: 20 bp = 1 sp) and sp as gp (``sp_to_gp``: 20 sp = 1 gp; bp reach gp
  through sp). Exchanged points count at their new value ("varav 1 000 räknas som 50 sp": 2,000 bp are
  10 mp of bronze + 5 mp of silver = 15 mp), so only what the minimum needs is exchanged, in whole
  units, own sp before bp.

A player's level is the highest ``rank`` met on the ``klass`` track; the Klöver stars are a track of
their own (``klöverstjärna``). Everything here is exact (``Decimal``); nothing is rounded.
The warehouse evaluates the same rule in SQL (sql/warehouse/se_levels.sql); the tests hold both to the
seed's table.
"""
from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_CEILING, Decimal

import pandas as pd

from pipelines.sweden.rules import SwedenRules


@dataclass(frozen=True)
class Rates:
    bp_per_mp: Decimal
    sp_per_mp: Decimal
    gp_per_mp: Decimal
    bp_per_sp: Decimal
    sp_per_gp: Decimal


def _dec(value) -> Decimal:
    return Decimal(str(value)) if value not in (None, "") else Decimal(0)


def rates(rules: SwedenRules, version: str = "se-2009") -> Rates:
    def p(name):
        f = rules.param(name, version)
        return Decimal(f.numerator) / Decimal(f.denominator)

    return Rates(p("bp_per_mp"), p("sp_per_mp"), p("gp_per_mp"), p("exchange_bp_per_sp"), p("exchange_sp_per_gp"))


def levels(rules: SwedenRules, version: str = "se-2009") -> pd.DataFrame:
    t = rules.tables["master_classes"]
    return t[t["rule_version"] == version].sort_values(["track", "rank"]).reset_index(drop=True)


def _units(need: Decimal) -> Decimal:
    return max(Decimal(0), need).to_integral_value(rounding=ROUND_CEILING)


def meets(bp, sp, gp, level: pd.Series, r: Rates) -> bool:
    """Whether holdings (bp, sp, gp) meet one level (a row of master_classes.csv)."""
    bp, sp, gp = _dec(bp), _dec(sp), _dec(gp)
    mp = bp / r.bp_per_mp + sp / r.sp_per_mp + gp / r.gp_per_mp
    if level["min_bp"] != "" and bp < _dec(level["min_bp"]):
        return False
    min_mp = _dec(level["min_mp"])
    if level["min_sp"] == "" and level["min_gp"] == "":
        return mp >= min_mp
    bp_to_sp, sp_to_gp = level["bp_to_sp"] == "ja", level["sp_to_gp"] == "ja"
    loss_per_sp = r.bp_per_sp / r.bp_per_mp - 1 / r.sp_per_mp  # 20 bp (0.2 mp) become 1 sp (0.1 mp)
    loss_per_gp = r.sp_per_gp / r.sp_per_mp - 1 / r.gp_per_mp  # 20 sp (2 mp) become 1 gp (1 mp)
    ways = []
    if level["min_sp"] != "":
        x = _units(_dec(level["min_sp"]) - sp)  # sp bought with bp
        if x == 0 or (bp_to_sp and x * r.bp_per_sp <= bp):
            ways.append(mp - x * loss_per_sp)
    if level["min_gp"] != "":
        y = _units(_dec(level["min_gp"]) - gp)  # gp bought with sp
        z = _units(y * r.sp_per_gp - sp)  # sp for that bought with bp
        if y == 0 or (sp_to_gp and (z == 0 or (bp_to_sp and z * r.bp_per_sp <= bp))):
            ways.append(mp - y * loss_per_gp - z * loss_per_sp)
    return any(after >= min_mp for after in ways)


def level_of(bp, sp, gp, table: pd.DataFrame, r: Rates) -> dict[str, str | None]:
    """The level held on each track: {"klass": "ruter", "klöverstjärna": "klöver-2"}, None below the first."""
    out: dict[str, str | None] = {}
    for track, rows in table.groupby("track"):
        met = rows[[meets(bp, sp, gp, row, r) for _, row in rows.iterrows()]]
        out[str(track)] = None if met.empty else str(met.sort_values("rank").iloc[-1]["level"])
    return out


def next_level(bp, sp, gp, table: pd.DataFrame, r: Rates) -> str | None:
    """The lowest-ranked level of the ``klass`` track above the one held (what a member works toward)."""
    held = level_of(bp, sp, gp, table, r)["klass"]
    ladder = table[table["track"] == "klass"].sort_values("rank")
    rank = 0 if held is None else int(ladder.loc[ladder["level"] == held, "rank"].iloc[0])
    above = ladder[ladder["rank"] > rank]
    return None if above.empty else str(above.iloc[0]["level"])


def rates_table(rules: SwedenRules) -> pd.DataFrame:
    """Per rule version, the rates the warehouse's SQL needs, in bronze units (exact decimals as text;
    SQL multiplies only, so nothing becomes a float): the bp value of 1 mp, 1 sp and 1 gp, and the
    exchange rates (bp per sp, sp per gp)."""
    rows = []
    for version in rules.tables["rule_versions"]["rule_version"]:
        r = rates(rules, version)
        rows.append({"rule_version": version, "bp_per_mp": str(r.bp_per_mp), "bp_value_of_sp": str(r.bp_per_mp / r.sp_per_mp),
                     "bp_value_of_gp": str(r.bp_per_mp / r.gp_per_mp), "bp_per_sp": str(r.bp_per_sp), "sp_per_gp": str(r.sp_per_gp)})
    return pd.DataFrame(rows, columns=["rule_version", "bp_per_mp", "bp_value_of_sp", "bp_value_of_gp", "bp_per_sp", "sp_per_gp"])

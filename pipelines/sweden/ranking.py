"""The Swedish national ranking (seed section 7, RULES.md §3): ranking points of one result.

Ranking points come from silver and gold awards only, on the unrounded award ("om man får 22,5 gp
som ger 23 gp, räknas ranking på 22,5 vilket ger 338 rp"): each denomination's unrounded points ×
its rate for the event's kind (ranking.csv), summed, and the result rounded up once (the system's
one rounding mode, ceiling: "Decimaler avrundas uppåt"). The list itself (best 18 of the last 24
months, as of each night) is the warehouse view se_ranking.
"""
from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

from pipelines.core.dates import as_dates
from pipelines.sweden.rules import SwedenRules


def event_kind(ev: dict) -> str:
    """What ranking.csv calls the event: the event file's ``ranking:``, else the open SM pairs final's
    rounds (Tabell H1: "I SM-par final ger varje guldpoäng 9 rankingpoäng"), else a simultaneous heat
    or common list, else its level."""
    if ev.get("ranking"):
        return ev["ranking"]
    if (ev.get("sm_final") or "").startswith("h1"):
        return "sm-parfinal"
    if ev.get("simultan") or ev.get("gemensam_lista"):
        return "simultan"
    return ev["level"]


def kinds(rules: SwedenRules, version: str) -> set[str]:
    t = rules.tables["ranking"]
    return set(t.loc[t["rule_version"] == version, "kind"])


def _text(x: Fraction) -> str:
    if x.denominator == 1:
        return str(x.numerator)
    d = Decimal(x.numerator) / Decimal(x.denominator)
    return format(d.normalize(), "f") if len(str(d)) < 12 else f"{x.numerator}/{x.denominator}"


def ranking_points(exact: dict[str, Fraction], kind: str, rules: SwedenRules, version: str) -> tuple[int, str]:
    """(ranking points, how) of one result: exact = the unrounded award per denomination."""
    rate = rules.ranking_rates(version, kind)
    terms, total = [], Fraction(0)
    for d in ("gp", "sp"):
        x = Fraction(exact.get(d, 0))
        if x == 0:
            continue
        r = rate.get(d, Fraction(0))
        total += x * r
        terms.append(f"{_text(x)} {d} × {_text(r)}")
    if not terms:
        return 0, ""
    rp = math.ceil(total)
    return rp, f"{kind}: {' + '.join(terms)} = {_text(total)}" + ("" if rp == total else f" → {rp}") + " rp"


def parameters_table(rules: SwedenRules) -> "pd.DataFrame":
    """Per rule version, the ranking window and count for the warehouse (se_ranking_results)."""
    import pandas as pd

    v = rules.tables["rule_versions"]
    return pd.DataFrame({
        "rule_version": v["rule_version"].astype(str).to_numpy(),
        "effective_from": as_dates(v["effective_from"]).to_numpy(),
        "months": [str(rules.param("ranking_months", x)) for x in v["rule_version"]],
        "results": [str(rules.param("ranking_results", x)) for x in v["rule_version"]],
    })

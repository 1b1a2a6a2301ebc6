"""Converted foreign points (seed section 8, "Konvertering av utländska mp"): pure steps.

The office writes a conversion file, one row per member and foreign event (``;``-separated, header
required): ``medlemsnummer;tävling;datum;ort;land;nivå;form;antal;mött;brickor;plac;poäng`` and,
where they apply, ``valör`` (the denomination of Danish points), ``final``, ``carry_over``,
``kval_ronder``, ``final_ronder``, ``kval_par``, ``första_plac`` (a final), ``registrering`` (which
registration the row belongs to; the fee is per registration).

* Danish points convert 1:1 (parameters.csv ``conversion_danish_rate``), in their own denomination.
* Others are scored by the Swedish tables for that event: the row's settings become an event file
  (read by the ordinary event reader, so every setting means what it means in an event file) and
  the place is looked up in the award list a Swedish event of that size and kind would give.
* The fee (conversion_fees.csv): 7 / 14 / 50 kr per event by level, summed per registration, at most
  100 kr and at least 15 kr (parameters.csv).

Not yet wired into the nightly run (docs/sweden.md says what is left).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal

import pandas as pd

from pipelines.sweden import awards as A
from pipelines.sweden.parse import parse_event
from pipelines.sweden.rules import SwedenRules, frac

REQUIRED = ["medlemsnummer", "tävling", "datum", "ort", "land", "nivå", "form", "antal", "mött", "brickor", "plac", "poäng"]
OPTIONAL = ["valör", "final", "carry_over", "kval_ronder", "final_ronder", "kval_par", "första_plac", "registrering"]
DANISH = {"danmark", "dk", "denmark", "dänemark"}
_EVENT_KEYS = {"datum": "datum", "nivå": "nivå", "form": "form", "brickor": "brickor", "mött": "mött", "final": "final",
               "carry_over": "carry_over", "kval_ronder": "kval_ronder", "final_ronder": "final_ronder", "kval_par": "kval_par",
               "första_plac": "första_plac"}


@dataclass(frozen=True)
class Converted:
    denomination: str | None  # None: the place gives no points in the Swedish table
    points: int
    basis: str


def _whole(text: str, what: str) -> int:
    if not str(text).strip().isdigit():
        raise ValueError(f"{what}: expected a whole number, found {str(text)[:40]!r}")
    return int(text)


def convert(row: dict, rules: SwedenRules) -> Converted:
    """One conversion row -> the Swedish points it gives (ValueError with a reason the office can act on)."""
    missing = [c for c in REQUIRED if not str(row.get(c, "") or "").strip()]
    if missing:
        raise ValueError(f"missing column value(s): {', '.join(missing)}")
    where = f"{row['tävling']} ({row['ort']}, {row['land']}, {row['datum']})"
    version = rules.for_date(row["datum"])
    if str(row["land"]).strip().lower() in DANISH:
        d = str(row.get("valör", "") or "").strip().lower()
        if d not in ("bp", "sp", "gp"):
            raise ValueError(f"valör: Danish points need their denomination (bp, sp or gp), found {d!r}")
        try:
            given = Decimal(str(row["poäng"]).replace(",", "."))
        except ArithmeticError:
            raise ValueError(f"poäng: expected a number, found {str(row['poäng'])[:40]!r}") from None
        r = frac(rules.param("conversion_danish_rate", version))
        exact = given * r.numerator / r.denominator
        points = math.ceil(exact)
        return Converted(d, points, f"{where}: Danska mästarpoäng konverteras 1:1: {given} {d}"
                         + ("" if points == exact else f" → {points}"))
    text = "".join(f"{key}: {row[col]}\n" for col, key in _EVENT_KEYS.items() if str(row.get(col, "") or "").strip())
    ev, problems = parse_event("konvertering", text.encode("utf-8"))
    if problems or ev is None:
        raise ValueError("; ".join(reason for _, _, reason in problems) or "the event settings cannot be read")
    n, place = _whole(row["antal"], "antal"), _whole(row["plac"], "plac")
    if not 1 <= place <= n:
        raise ValueError(f"plac: expected a place from 1 to {n} (antal), found {place}")
    el = A.event_list(rules, ev, n)
    foreign = f"; utländska poäng {row['poäng']}"
    if place > len(el.places):
        return Converted(None, 0, f"{where}: plac {place} av {n}: inga poäng enligt svenska tabeller ({el.header}){foreign}")
    d, v = el.places[place - 1]
    return Converted(d, int(v), f"{where}: plac {place} av {n}, svenska tabeller: {el.header}: {v} {d}{foreign}")


def convert_rows(rows: pd.DataFrame, rules: SwedenRules) -> pd.DataFrame:
    """Every row converted (a row of a few per member: the loop is over the office's rows, not the
    ledger): the input columns plus denomination, points, basis and problem (the reason, or '')."""
    out = []
    for r in rows.to_dict("records"):
        try:
            c = convert(r, rules)
            out.append((c.denomination or "", c.points, c.basis, ""))
        except (ValueError, KeyError) as error:
            out.append(("", 0, "", str(error)))
    extra = pd.DataFrame(out, columns=["denomination", "points", "basis", "problem"], index=rows.index)
    return rows.assign(**{c: extra[c] for c in extra.columns})


def conversion_fee(levels: list[str], rules: SwedenRules, version: str = "se-2009") -> Decimal:
    """The fee of one registration: the sum of its events' fees by level, at most the maximum and at
    least the minimum (seed section 8)."""
    t = rules.tables["conversion_fees"]
    rate = {lv: Decimal(v) for lv, v in zip(t.loc[t["rule_version"] == version, "level"], t.loc[t["rule_version"] == version, "sek_per_event"])}
    unknown = [lv for lv in levels if lv not in rate]
    if unknown:
        raise ValueError(f"no conversion fee for level {unknown[0]!r} (conversion_fees.csv)")
    top = Decimal(str(rules.param("conversion_fee_max_per_registration", version)))
    least = Decimal(str(rules.param("conversion_fee_min", version)))
    return min(top, max(least, sum((rate[lv] for lv in levels), Decimal(0)))).quantize(Decimal("0.01"))

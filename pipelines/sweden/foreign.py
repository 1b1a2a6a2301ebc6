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

In the nightly run, a file ``<organisation>/<any folder>/<name>.konvertering.csv`` is one registration
(unless rows name their ``registrering``): its rows become ledger lines with their own basis, one event
record each (kind ``se_konvertering_<level>``), and the fee is the warehouse view se_conversion_fees.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal

import pandas as pd

from pipelines.core.dates import as_dates
from pipelines.sweden import awards as A
from pipelines.core.keyvalue import decode
from pipelines.core.text import clip, split_line
from pipelines.sweden.parse import FALLBACKS, parse_event
from pipelines.sweden.rules import SwedenRules, frac

REQUIRED = ["medlemsnummer", "tävling", "datum", "ort", "land", "nivå", "form", "antal", "mött", "brickor", "plac", "poäng"]
OPTIONAL = ["valör", "final", "carry_over", "kval_ronder", "final_ronder", "kval_par", "första_plac", "registrering"]
DANISH = {"danmark", "dk", "denmark", "dänemark"}
_EVENT_KEYS = {"datum": "datum", "nivå": "nivå", "form": "form", "brickor": "brickor", "mött": "mött", "final": "final",
               "carry_over": "carry_over", "kval_ronder": "kval_ronder", "final_ronder": "final_ronder", "kval_par": "kval_par",
               "första_plac": "första_plac"}


SUFFIX = ".konvertering.csv"


def read_file(source_file: str, data: bytes) -> tuple[pd.DataFrame, list[tuple[str, str]]]:
    """A conversion file -> (rows with their location, problems (location, reason)). A bad header
    holds the whole file; a bad line is its own problem."""
    text, _ = decode(data, FALLBACKS)
    lines = [(no, ln) for no, ln in enumerate(text.splitlines(), start=1) if ln.strip() and not ln.lstrip().startswith("#")]
    empty = pd.DataFrame(columns=REQUIRED + OPTIONAL + ["location"])
    if not lines:
        return empty, [("whole file", f"expected a header {';'.join(REQUIRED)} and one line per member and event, found an empty file")]
    header = split_line(lines[0][1], ";")
    if isinstance(header, str):
        return empty, [(f"line {lines[0][0]}", f"header: {header}")]
    header = [h.strip().lower() for h in header]
    missing = [c for c in REQUIRED if c not in header]
    unknown = [h for h in header if h not in REQUIRED + OPTIONAL]
    if missing or unknown:
        return empty, [(f"line {lines[0][0]}", f"header: expected the columns {';'.join(REQUIRED)} (and optionally "
                                               f"{';'.join(OPTIONAL)}); missing {missing}, unknown {[clip(u) for u in unknown]}")]
    rows, problems = [], []
    for no, line in lines[1:]:
        cells = split_line(line, ";")
        if isinstance(cells, str) or len(cells) != len(header):
            problems.append((f"line {no}", cells if isinstance(cells, str) else
                             f"expected {len(header)} fields ({';'.join(header)}), found {len(cells)}"))
            continue
        rows.append({**{c: "" for c in OPTIONAL}, **dict(zip(header, (c.strip() for c in cells))), "location": f"line {no}"})
    return pd.DataFrame(rows, columns=REQUIRED + OPTIONAL + ["location"]), problems


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


def fee_limits_table(rules: SwedenRules) -> pd.DataFrame:
    """Per rule version, the fee's maximum per registration and minimum (for se_conversion_fees)."""
    v = rules.tables["rule_versions"]
    return pd.DataFrame({
        "rule_version": v["rule_version"].astype(str).to_numpy(),
        "effective_from": as_dates(v["effective_from"]).to_numpy(),
        "max_per_registration": [str(Decimal(str(rules.param("conversion_fee_max_per_registration", x)))) for x in v["rule_version"]],
        "min_fee": [str(Decimal(str(rules.param("conversion_fee_min", x)))) for x in v["rule_version"]],
    })

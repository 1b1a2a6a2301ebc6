"""The award rows of every table: printed rows as data, the other sizes by the seed's principle.

RULES.md §3, decided:

* A printed row is the authority ("gå in i tabellen") ... unless it breaks a counting rule
  (winner formula, places = a third of the field, silver places = min(16, ⌈N/4⌉)): then the
  counting rule wins and the row is completed (or cut) by the principle.
* Sizes not printed: within a table's 2/3-chain range (A1, B1, C up to 32) by the chain;
  between printed rows (odd sizes of A2, the gaps of C above 32 and of D, E1, F) each place by
  linear interpolation between the nearest printed rows, rounded up (one missing size = the mean of
  its neighbours), winner and 2nd place by the formula; above the printed range by the A2 principle
  from the half-size row (odd sizes: the mean of the even neighbours); B1 above 32: A2 × 1.5.
* Red bronze in silver tables: printed numbers where the row is printed, else 2 × the bronze
  scale of the same field.

Everything is exact: ``Fraction`` arithmetic, each value rounded up where the seed rounds.
``bronze_row(rules, scale, n)`` and ``silver_row(rules, scale, n)`` give the effective rows;
``irregularities(rules)`` lists every printed value that departs from the principle.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from pipelines.sweden.rules import SwedenRules, frac

TWO_THIRDS = Fraction(2, 3)
BRONZE_COMPANION = {"D": "A", "E1": "B1", "F": "C"}  # the bronze table a silver table's red numbers double


def ceil(x) -> int:
    return math.ceil(Fraction(x))


@dataclass(frozen=True)
class Row:
    """An effective row: silver values (sp) then bronze values (bp), places numbered 1.. in order."""

    silver: tuple[int, ...]
    bronze: tuple[int, ...]
    how: str  # 'printed', 'printed, completed', 'principle: ...'

    @property
    def values(self) -> list[tuple[str, int]]:
        return [("sp", v) for v in self.silver] + [("bp", v) for v in self.bronze]


# --------------------------------------------------------------------------- parameters


def _p(rules: SwedenRules, scale: str):
    return rules.scale("A" if scale in ("A1", "A2") else scale)


def winner(rules: SwedenRules, scale: str, n) -> int:
    return ceil(frac(_p(rules, scale)["winner_per_entrant"]) * n)


def places(rules: SwedenRules, scale: str, n) -> int:
    return ceil(Fraction(n) / int(_p(rules, scale)["places_divisor"]))


def silver_places(rules: SwedenRules, scale: str, n) -> int:
    p = _p(rules, scale)
    return min(int(frac(p["silver_max"])), ceil(Fraction(n) / frac(p["silver_divisor"])))


def _printed_table(scale: str, n: int) -> str:
    if scale == "A":
        return "A1" if n <= 32 else "A2"
    return scale


def printed_sizes(rules: SwedenRules, scale: str) -> list[int]:
    if scale == "A":
        return sorted(set(rules.printed_rows("A1")) | set(rules.printed_rows("A2")))
    return sorted(rules.printed_rows(scale))


# --------------------------------------------------------------------------- principles


def chain(first: int, count: int, minimum: int) -> list[int]:
    """The 2/3 chain: each place ⌈2/3 × the place above⌉, at least `minimum` (at least 1)."""
    out = [first] if count > 0 else []
    while len(out) < count:
        out.append(max(minimum, 1, ceil(TWO_THIRDS * out[-1])))
    return out


def a2(first: int, half: list[int], count: int, minimum: int) -> list[int]:
    """The A2 principle: 2nd = ⌈2/3 × 1st⌉; the (2k+1)th = the half-size row's kth; the (2k)th =
    ⌈mean of its neighbours⌉. The half row continues at the minimum (bronze) or by the chain."""
    half = list(half)

    def h(k: int) -> int:  # the half row's kth place (1-based), continued
        while len(half) < k:
            half.append(max(minimum, 1, ceil(TWO_THIRDS * half[-1])) if minimum == 0 else minimum)
        return half[k - 1]

    v = {1: first, 2: ceil(TWO_THIRDS * first)}
    for pos in range(3, count + 2, 2):
        v[pos] = h((pos - 1) // 2)
    for pos in range(4, count + 1, 2):
        v[pos] = ceil(Fraction(v[pos - 1] + v[pos + 1], 2))
    return [max(minimum, v[pos]) for pos in range(1, count + 1)]


def interpolate(lo: int, lo_row: list[int], hi: int, hi_row: list[int], n: int, first: int, count: int,
                minimum: int) -> list[int]:
    """Each place linearly between the nearest rows, rounded up; winner and 2nd by the formula."""
    def at(row, k):
        if k <= len(row):
            return row[k - 1]
        return minimum if minimum else max(1, ceil(TWO_THIRDS * at(row, k - 1)))

    out = [first, ceil(TWO_THIRDS * first)][:count]
    for k in range(3, count + 1):
        a, b = at(lo_row, k), at(hi_row, k)
        out.append(max(minimum, ceil(a + Fraction((b - a) * (n - lo), hi - lo))))
    return out


# --------------------------------------------------------------------------- bronze tables A, B1, C


def bronze_principle(rules: SwedenRules, scale: str, n: int) -> tuple[list[int], str]:
    """The row the principle gives for `n` entrants (what a printed row is compared with)."""
    p = _p(rules, scale)
    w, k, minimum = winner(rules, scale, n), places(rules, scale, n), int(p["minimum"])
    if n <= int(p["principle_up_to"]):
        return chain(w, k, minimum), f"2/3 chain from {w}"
    if p["above_printed"] == "A2x1.5":
        base = bronze_row(rules, "A", n)
        return [ceil(Fraction(3, 2) * v) for v in base][:k], f"A2 row {n} × 1.5"
    if n % 2:
        lo, hi = bronze_row(rules, scale, n - 1), bronze_row(rules, scale, n + 1)
        return interpolate(n - 1, lo, n + 1, hi, n, w, k, minimum), f"mean of rows {n - 1} and {n + 1}"
    half = bronze_row(rules, scale, n // 2)
    return a2(w, half, k, minimum), f"A2 principle from row {n // 2}"


def bronze_row(rules: SwedenRules, scale: str, n: int) -> list[int]:
    return list(bronze_entry(rules, scale, n).bronze)


def bronze_entry(rules: SwedenRules, scale: str, n: int) -> Row:
    key = ("bronze", scale, n)
    if key in rules._cache:
        return rules._cache[key]
    if n < 1:
        return Row((), (), "no field")
    p = _p(rules, scale)
    printed = rules.printed_rows(_printed_table(scale, n)).get(n)
    w, k, minimum = winner(rules, scale, n), places(rules, scale, n), int(p["minimum"])
    if printed is not None:
        values = [v for _, v in printed]
        if values[0] != w:
            row = Row((), tuple(bronze_principle(rules, scale, n)[0]), f"principle (printed winner {values[0]} ≠ {w})")
        elif len(values) == k:
            row = Row((), tuple(values), "printed")
        elif len(values) > k:
            row = Row((), tuple(values[:k]), f"printed, cut to {k} places")
        else:
            fill = bronze_principle(rules, scale, n)[0]
            row = Row((), tuple(values + fill[len(values):k]), f"printed, completed to {k} places")
    else:
        sizes = [s for s in printed_sizes(rules, scale)]
        inside = sizes and sizes[0] < n < sizes[-1]
        if n <= int(p["principle_up_to"]) or not inside or p["above_printed"] == "A2x1.5":
            values, how = bronze_principle(rules, scale, n)
        else:
            lo = max(s for s in sizes if s < n)
            hi = min(s for s in sizes if s > n)
            values = interpolate(lo, bronze_row(rules, scale, lo), hi, bronze_row(rules, scale, hi), n, w, k, minimum)
            how = f"between rows {lo} and {hi}" if hi - lo > 2 else f"mean of rows {lo} and {hi}"
        row = Row((), tuple(values), f"principle: {how}")
    rules._cache[key] = row
    return row


# --------------------------------------------------------------------------- silver tables D, E1, F


def silver_principle(rules: SwedenRules, scale: str, n: int) -> tuple[list[int], str]:
    p = _p(rules, scale)
    w, s = winner(rules, scale, n), silver_places(rules, scale, n)
    if n <= int(p["principle_up_to"]):
        return chain(w, s, 0), f"2/3 chain from {w}"
    if n % 2:
        lo, hi = silver_entry(rules, scale, n - 1).silver, silver_entry(rules, scale, n + 1).silver
        return interpolate(n - 1, list(lo), n + 1, list(hi), n, w, s, 0), f"mean of rows {n - 1} and {n + 1}"
    half = list(silver_entry(rules, scale, n // 2).silver)
    return a2(w, half, s, 0), f"A2 principle from row {n // 2}"


def red_principle(rules: SwedenRules, scale: str, n: int) -> list[int]:
    """Bronze after the silver places: 2 × the companion bronze table's row (to a third)."""
    s, k = silver_places(rules, scale, n), places(rules, scale, n)
    factor = int(rules.param("silver_bronze_factor"))
    base = bronze_row(rules, BRONZE_COMPANION[scale], n)
    return [factor * v for v in base[s:k]]


def silver_entry(rules: SwedenRules, scale: str, n: int) -> Row:
    key = ("silver", scale, n)
    if key in rules._cache:
        return rules._cache[key]
    p = _p(rules, scale)
    printed = rules.printed_rows(scale).get(n)
    w, s, k = winner(rules, scale, n), silver_places(rules, scale, n), places(rules, scale, n)
    if printed is not None and printed[0][1] == w:
        sp = [v for d, v in printed if d == "sp"]
        bp = [v for d, v in printed if d == "bp"]
        notes = []
        if len(sp) < s:
            sp = sp + silver_principle(rules, scale, n)[0][len(sp):s]
            notes.append(f"silver completed to {s} places")
        elif len(sp) > s:
            sp, notes = sp[:s], notes + [f"silver cut to {s} places"]
        want = k - s
        red = red_principle(rules, scale, n)
        printed_red = [v for d, v in printed if d == "bp"]
        if len(sp) != len([v for d, v in printed if d == "sp"]):
            bp = red  # the silver places moved: the printed red numbers no longer sit on their places
            notes.append("bronze by 2 × the bronze scale")
        elif len(bp) < want:
            bp = bp + red[len(bp):want]
            notes.append(f"bronze completed to place {k}")
        elif len(bp) > want:
            bp = bp[:want]
            notes.append(f"bronze cut to place {k}")
        del printed_red
        row = Row(tuple(sp), tuple(bp), "printed" + (", " + "; ".join(notes) if notes else ""))
    else:
        sizes = printed_sizes(rules, scale)
        inside = sizes and sizes[0] < n < sizes[-1]
        if printed is not None or not inside:
            sp, how = silver_principle(rules, scale, n)
            if printed is not None:
                how += f" (printed winner {printed[0][1]} ≠ {w})"
        else:
            lo = max(x for x in sizes if x < n)
            hi = min(x for x in sizes if x > n)
            sp = interpolate(lo, list(silver_entry(rules, scale, lo).silver), hi, list(silver_entry(rules, scale, hi).silver),
                             n, w, s, 0)
            how = f"between rows {lo} and {hi}" if hi - lo > 2 else f"mean of rows {lo} and {hi}"
        row = Row(tuple(sp), tuple(red_principle(rules, scale, n)), f"principle: {how}")
    rules._cache[key] = row
    return row


# --------------------------------------------------------------------------- irregularities


@dataclass(frozen=True)
class Irregularity:
    table: str
    size: int
    place: int
    printed: str
    principle: str
    decision: str


def irregularities(rules: SwedenRules) -> list[Irregularity]:
    """Every printed value that departs from the seed's own principle, and what we use."""
    out: list[Irregularity] = []
    for table in ("A1", "A2", "B1", "C"):
        scale = "A" if table in ("A1", "A2") else table
        for n, printed in sorted(rules.printed_rows(table).items()):
            if table == "A2" and n == 32:
                continue  # the same row as A1's last
            values = [v for _, v in printed]
            principle, how = bronze_principle(rules, scale, n)
            eff = bronze_row(rules, scale, n)
            for place in range(1, max(len(values), len(principle)) + 1):
                pv = values[place - 1] if place <= len(values) else None
                qv = principle[place - 1] if place <= len(principle) else None
                if pv != qv:
                    used = eff[place - 1] if place <= len(eff) else None
                    decision = ("printed value stands" if used == pv and pv is not None else
                                f"counting rule: {'no points' if used is None else used}")
                    out.append(Irregularity(table, n, place, "-" if pv is None else str(pv),
                                            "-" if qv is None else f"{qv} ({how})", decision))
    for table in ("D", "E1", "F"):
        for n, printed in sorted(rules.printed_rows(table).items()):
            sp = [v for d, v in printed if d == "sp"]
            bp = [v for d, v in printed if d == "bp"]
            s = silver_places(rules, table, n)
            principle, how = silver_principle(rules, table, n)
            eff = silver_entry(rules, table, n)
            for place in range(1, max(len(sp), len(principle)) + 1):
                pv = sp[place - 1] if place <= len(sp) else None
                qv = principle[place - 1] if place <= len(principle) else None
                if pv != qv:
                    used = eff.silver[place - 1] if place <= len(eff.silver) else None
                    decision = ("printed value stands" if used == pv and pv is not None else
                                f"counting rule: {'no silver' if used is None else f'{used} sp'}")
                    out.append(Irregularity(table, n, place, "-" if pv is None else f"{pv} sp",
                                            "-" if qv is None else f"{qv} sp ({how})", decision))
            red = red_principle(rules, table, n)
            k = places(rules, table, n)
            check_values = n <= 32  # above 32 the red numbers are data (RULES.md §3)
            for i in range(max(len(bp), len(red))):
                place = len(sp) + i + 1 if i < len(bp) else s + i + 1
                pv = bp[i] if i < len(bp) else None
                qv = red[i] if i < len(red) else None
                counting = (len(bp) + len(sp)) != k or len(sp) != s
                if (pv != qv and check_values) or (counting and (pv is None or qv is None or len(sp) != s)):
                    used = dict(zip(range(len(eff.silver) + 1, k + 1), eff.bronze)).get(place)
                    decision = ("printed value stands" if used == pv and pv is not None and len(sp) == s else
                                f"counting rule: {'no bronze' if used is None else f'{used} bp'}")
                    out.append(Irregularity(table, n, place, "-" if pv is None else f"{pv} bp (red)",
                                            "-" if qv is None else f"{qv} bp (2 × bronze scale)", decision))
    return out


IRREGULARITIES_BEGIN = "<!-- irregularities: begin (generated by pipelines.sweden.scales.irregularities_markdown) -->"
IRREGULARITIES_END = "<!-- irregularities: end -->"


def irregularities_markdown(rules: SwedenRules) -> str:
    lines = ["| table | row | place | printed | principle | decision |", "|---|---|---|---|---|---|"]
    lines += [f"| {i.table} | {i.size} | {i.place} | {i.printed} | {i.principle} | {i.decision} |" for i in irregularities(rules)]
    return "\n".join(lines)

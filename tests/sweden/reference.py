"""An independent reference for Swedish awards, written from the seed (002_b38bcd2d61619209.txt)
alone: it reads the printed tables from the seed's own text (fixtures/seed_tables.json) and
applies the rules as the seed states them, for the events it covers:

* bronze pairs of 4-32 pairs (Tabell A1, the 2/3 principle: winner 2 per pair, each next place 2/3
  of the place above, rounded up, at least 4, a third of the pairs) and even 34-100 (Tabell A2 as
  printed); bronze individuals of 16-32 players (winner 1.5 per player, 2/3, a third, at least 4);
* silver pairs where not all met: winner = 1 + met + half the others, rounded up; the places of the
  Tabell D row of that many pairs (its silver numbers, a quarter of the row, at most 16); then
  bronze to a third of the starting pairs at 2 × the bronze scale of the starting pairs;
* shared places: the sum of the places shared, divided, rounded up; a shared last bronze place at
  least 4 (× 2 in silver events);
* a silver qualification with finals (p. 4): the A-final winner's sp = rounds (qualification +
  final) + 1 + (pairs − rounds − 1)/2 rounded up; the Tabell D row of that many points gives the
  silver places (a quarter of the row, at most 16), then bronze to a third of all pairs by the
  bronze scale of all pairs, as the seed's example gives it (10, 8, 7, 6, 5, 4, 4, 4, 4 bp are
  Tabell A2 row 60, places 12-20, not doubled); no bronze in the A-final; a B- or C-final with
  carry-over continues that list from its winner's overall place; without carry-over a final is a
  bronze competition of its own pairs.

It shares no code with pipelines/sweden.
"""
from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

_TEXT = json.loads((Path(__file__).parent / "fixtures" / "seed_tables.json").read_text(encoding="utf-8"))


def _rows(name: str, winner) -> dict[int, list[int]]:
    """Split a flattened table: a row starts with its size, followed by the winner's points."""
    t = [int(x) for x in _TEXT[name].split()]
    starts = [0]
    for i in range(1, len(t) - 1):
        prev = t[starts[-1]]
        if t[i] > prev and t[i] - prev <= 10 and t[i + 1] == winner(t[i]):
            starts.append(i)
    starts.append(len(t))
    return {t[a]: t[a + 1:b] for a, b in zip(starts, starts[1:])}


A2 = _rows("A2", lambda n: 2 * n)
D = _rows("D", lambda n: n)


def up(x) -> int:
    return math.ceil(Fraction(x))


def chain(first: int, count: int, minimum: int) -> list[int]:
    out = [first]
    while len(out) < count:
        out.append(max(minimum, up(Fraction(2, 3) * out[-1])))
    return out[:count]


def bronze_pairs(n: int) -> list[int]:
    if n <= 32:
        return chain(2 * n, up(Fraction(n, 3)), 4)
    if n % 2 == 0 and n in A2:
        return A2[n][: up(Fraction(n, 3))]
    raise ValueError("not covered by the reference")


def bronze_individual(n: int) -> list[int]:
    if 8 <= n <= 32:
        return chain(up(Fraction(3, 2) * n), up(Fraction(n, 3)), 4)
    raise ValueError("not covered by the reference")


def silver_pairs_not_all_met(n: int, met: int) -> list[tuple[str, int]]:
    w = up(1 + met + Fraction(n - 1 - met, 2))
    if w > 100 or w not in D:
        raise ValueError("not covered by the reference")
    row = D[w]
    silver = []
    for v in row:  # the silver numbers come first; the red (bronze) ones start where the row rises
        if silver and v > silver[-1]:
            break
        silver.append(v)
    s = min(16, up(Fraction(w, 4)))
    if len(silver) != s:
        raise ValueError("a printed row the reference does not trust")
    bronze = [2 * v for v in bronze_pairs(n)[s:up(Fraction(n, 3))]]
    lowest = 10 * silver[-1]  # "Om antalet bronspoäng för bästa placering överskrider ... lägsta placering"
    return [("sp", v) for v in silver] + [("bp", min(lowest, v)) for v in bronze]


def award(values: list[tuple[str, int]], places: list[int], minimum_bp: int) -> list[dict[str, int]]:
    """Each entrant's points (by the order of `places`, the place numbers as the list gives them)."""
    out = []
    for p in places:
        k = places.count(p)
        got: dict[str, int] = {}
        for den in ("gp", "sp", "bp"):
            total = sum(v for i, (d, v) in enumerate(values, start=1) if d == den and p <= i < p + k)
            if total:
                share = up(Fraction(total, k))
                got[den] = max(minimum_bp, share) if den == "bp" and k > 1 else share
        out.append(got)
    return out


def bronze_barometer(n: int) -> list[int]:
    """Tabell B1's principle: 3 per player for each team, 2/3 of the place above, a third of the teams."""
    if 4 <= n <= 32:
        return chain(3 * n, up(Fraction(n, 3)), 4)
    raise ValueError("not covered by the reference")


def _split(row: list[int]) -> tuple[list[int], list[int]]:
    silver = []
    for v in row:
        if silver and v > silver[-1]:
            break
        silver.append(v)
    return silver, row[len(silver):]


def silver_pairs_all_met(n: int) -> list[tuple[str, int]]:
    """All met all, fewer than 100 boards: the Tabell D row as printed, red numbers as bronze."""
    if n not in D or n == 13:
        raise ValueError("not covered by the reference")
    silver, red = _split(D[n])
    s, k = min(16, up(Fraction(n, 4))), up(Fraction(n, 3))
    if len(silver) != s or len(silver) + len(red) != k:
        raise ValueError("a printed row the reference does not trust")
    return [("sp", v) for v in silver] + [("bp", v) for v in red]


def gold_pairs_all_met(n: int) -> list[tuple[str, int]]:
    """Gold, all met all: the silver scale in gold currency (/10, rounded up) to 3 places (2 below 32
    pairs), then silver to the quarter, then 3 × the bronze scale to a third."""
    if n not in D:
        raise ValueError("not covered by the reference")
    silver, _ = _split(D[n])
    s, k = min(16, up(Fraction(n, 4))), up(Fraction(n, 3))
    if len(silver) != s:
        raise ValueError("a printed row the reference does not trust")
    g = 3 if n >= 32 else 2
    bronze = [3 * v for v in bronze_pairs(n)[s:k]]
    return [("gp", up(Fraction(v, 10))) for v in silver[:g]] + [("sp", v) for v in silver[g:]] + [("bp", v) for v in bronze]


def _d_silver(w: int) -> list[int]:
    if w > 100 or w not in D:
        raise ValueError("not covered by the reference")
    silver, _ = _split(D[w])
    s = min(16, up(Fraction(w, 4)))
    if len(silver) != s:
        raise ValueError("a printed row the reference does not trust")
    return silver


def carry_over_list(pairs: int, qual_rounds: int, final_rounds: int) -> list[tuple[str, int]]:
    """The whole field's list of a silver qualification with finals and carry-over (seed p. 4):
    12 + 12 + 1 + (60 − 25)/2 = 43 -> 43, 29, 21, 18, 14, 12, 10, 9, 7, 5, 4 sp, then bronze to a
    third of the pairs by the pairs' own bronze scale (the example: 10, 8, 7, 6, 5, 4, 4, 4, 4 bp)."""
    r = qual_rounds + final_rounds
    w = r + 1 + up(Fraction(pairs - r - 1, 2))
    silver = _d_silver(w)
    bronze = bronze_pairs(pairs)[len(silver):up(Fraction(pairs, 3))]
    lowest = 10 * silver[-1]  # "Om antalet bronspoäng för bästa placering överskrider ... lägsta placering"
    return [("sp", v) for v in silver] + [("bp", min(lowest, v)) for v in bronze]


def final_list(pairs: int, qual_rounds: int, final_rounds: int, first_place: int) -> list[tuple[str, int]]:
    """What the final whose winner is `first_place` overall gets: the A-final (first_place 1) the
    silver places only; a later final with carry-over the rest of the list from that place."""
    whole = carry_over_list(pairs, qual_rounds, final_rounds)
    if first_place == 1:
        return [(d, v) for d, v in whole if d == "sp"]
    return whole[first_place - 1:]


def final_without_carry_over(pairs_in_final: int) -> list[tuple[str, int]]:
    """'Om man inte har carry-over ... dela ut brons på normalt sätt som ny tävling där alla börjar
    om på noll': 20 pairs -> 40, 27, 18, 12, 8, 6, 4 bp."""
    return [("bp", v) for v in bronze_pairs(pairs_in_final)]

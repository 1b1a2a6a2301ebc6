"""The rally bonus (seed p. 5, "Rallytävlingar"): pure steps.

"Rallytävlingar på distriktsnivå får bonus i guld på följande villkor. Rallyt ska omfatta minst sex
silvertävlingar, det får inte vara april- eller oktobersilvertävlingar. Rallyt är individuellt när det
gäller bonus. [...] Rallybonus vid totalt antal startande par: 1 gp 96-100 par, 2 och 1 gp 101-200 par,
3, 2 och 1 gp över 200 par. Om lagtävling ingår räknas två gånger antal lag [...]. Om en individuell
tävling ingår, delas antalet spelare med två [...]."

A district reports its rally in one file, ``<organisation>/<folder>/<rally>.rally.txt`` (``key: value``,
the shared reader): its name, its district, the silver events it comprised (the event ids the
office already scored) and the rally's first places (member numbers; the district ranks its own
rally). The numbers (bands, at least six events, the team and individual equivalents) are
``rally_bonus.csv`` and ``parameters.csv``; the bonus earns no ranking points (it is not a result
list: seed section 7, "bonus ... ger ej rankingpoäng").
"""
from __future__ import annotations

import decimal
import math
import re
from fractions import Fraction

import pandas as pd

from pipelines.core.keyvalue import read_key_values
from pipelines.core.text import clip
from pipelines.sweden.parse import FALLBACKS
from pipelines.sweden.rules import SwedenRules, frac

SUFFIX = ".rally.txt"
PLACES = ("plac_1", "plac_2", "plac_3", "plac_4")
KNOWN = {
    "namn": "the rally's name",
    "distrikt": "the district that runs the rally (as in clubs.csv)",
    "datum": "the date the bonus is posted on, YYYY-MM-DD (default: the rally's last event)",
    "tävlingar": "the rally's silver events, by event id (<club>/<event>), separated by commas",
    **{k: f"the member number(s) of the rally's {k[-1]}{'st' if k[-1] == '1' else 'nd' if k[-1] == '2' else 'rd' if k[-1] == '3' else 'th'} "
          "place (two or more for a shared place)" for k in PLACES},
}
ALIASES = {"tavlingar": "tävlingar", "events": "tävlingar", "district": "distrikt", "name": "namn", "date": "datum"}
# the ranking kind ranking.csv gives April and October silver: such events do not count in a rally
EXCLUDED_KIND = "april-oktober-silver"


def parse_rally(source_file: str, data: bytes, organisation: str) -> tuple[dict | None, list[tuple[str, str]]]:
    """A rally file -> (rally, problems (location, reason)); the rally is None when it cannot be used."""
    kv = read_key_values(data, KNOWN, ALIASES, FALLBACKS, example="distrikt: Skåne")
    problems = list(kv.problems)
    if any(loc == "whole file" for loc, _ in problems):
        return None, problems
    rally = {"name": (kv.get("namn") or "").strip(), "district": (kv.get("distrikt") or "").strip(), "date": None,
             "events": [], "places": [], "where": {k: kv.where(k) for k in KNOWN}}
    if not rally["district"]:
        problems.append(("distrikt", "distrikt: expected the district that runs the rally (a rally is a district's), found nothing"))
    raw_date = (kv.get("datum") or "").strip()
    if raw_date:
        try:
            rally["date"] = pd.Timestamp(raw_date).date() if re.fullmatch(r"\d{4}-\d{2}-\d{2}", raw_date) else None
        except ValueError:
            rally["date"] = None
        if rally["date"] is None:
            problems.append((kv.where("datum"), f"datum: expected YYYY-MM-DD, found {clip(raw_date)!r}"))
    events = [e.strip().strip("/") for e in re.split(r"[,;\n]", kv.get("tävlingar") or "") if e.strip()]
    prefix = organisation + "/"
    rally["events"] = list(dict.fromkeys(e if e.startswith(prefix) else prefix + e for e in events))
    if not events:
        problems.append(("tävlingar", "tävlingar: expected the rally's silver events by event id (e.g. "
                                      "'bk-lavec/2024-09-14-silver, malmo-bk/2024-10-12-silver'), found nothing"))
    elif len(rally["events"]) < len(events):
        problems.append((kv.where("tävlingar"), "tävlingar: an event is listed twice"))
    place = 1
    for key in (k for k in PLACES if kv.get(k) is not None):
        text = kv.get(key)
        members = [m for m in re.split(r"[\s,;]+", text.strip()) if m]
        if not members or any(not re.fullmatch(r"\d{1,9}", m) for m in members):
            problems.append((kv.where(key), f"{key}: expected member numbers separated by spaces, found {clip(text)!r}"))
            break
        if int(key[-1]) != place:
            problems.append((kv.where(key), f"{key}: expected plac_{place} next (the places before it cover places 1-{place - 1}; "
                                            "a shared place takes the places after it), found " + key))
            break
        rally["places"].append((place, members))
        place += len(members)
    if not rally["places"] and not any(kv.get(k) is not None for k in PLACES):
        problems.append(("plac_1", "plac_1: expected the member number of the rally's winner, found nothing"))
    seen = [m for _, ms in rally["places"] for m in ms]
    if len(seen) != len(set(seen)):
        problems.append(("plac_1", "plac_1 ...: a member is listed at two places"))
    return (None if problems else rally), problems


def equivalent_pairs(form: str, entrants: int, rules: SwedenRules, version: str) -> Fraction:
    """Pairs an event counts for in a rally: teams × 2, players / 2 (parameters.csv)."""
    if form == "lagbarometer":
        return entrants * rules.param("rally_pairs_per_team", version)
    if form == "individuell":
        return Fraction(entrants) / rules.param("rally_players_per_pair", version)
    return Fraction(entrants)


def bonus_places(rules: SwedenRules, version: str, pairs: Fraction) -> list[int]:
    """The bonus of places 1, 2, ... for a rally of `pairs` starting pairs (rally_bonus.csv: the row
    of the largest pairs_from not above it, compared exactly: pairs come in halves, so "över 200"
    is written 200.5); empty below the first row."""
    t = rules.tables["rally_bonus"]
    t = t[t["rule_version"] == version]
    t = t[[frac(v) <= pairs for v in t["pairs_from"]]]
    if t.empty:
        return []
    t = t[t["pairs_from"].map(frac) == max(map(frac, t["pairs_from"]))].sort_values("place")
    return [int(v) for v in t["points"]]


def bonus_lines(places: list[tuple[int, list[str]]], points: list[int]) -> list[tuple[str, int, int, str]]:
    """(member, place, gp, how) of each placed member who gets a bonus: a shared place shares the
    points of the places it covers, rounded up ("Delad placering ... alla decimaler avrundas uppåt")."""
    out = []
    for place, members in places:
        covered = points[place - 1: place - 1 + len(members)]
        if not covered:
            continue
        share = Fraction(sum(covered), len(members))
        gp = math.ceil(share)
        how = (f"place {place}: {points[place - 1]} gp" if len(members) == 1 else
               f"place {place}= of {len(members)}: ({' + '.join(map(str, covered))}) / {len(members)} = {fraction_text(share)} → {gp} gp")
        out += [(m, place, gp, how) for m in members]
    return out


def fraction_text(x: Fraction) -> str:
    """A pair count or share as a reader writes it: exact when whole, else six significant digits."""
    if x.denominator == 1:
        return str(x.numerator)
    with decimal.localcontext() as ctx:
        ctx.prec = 6
        return format((decimal.Decimal(x.numerator) / x.denominator).normalize(), "f")

"""Parsers of the documented Swedish input files (docs/sweden.md). Bad input never raises: each
problem is a quarantine row (source_file, location, reason: what was expected, what was found).

* ``<event>.event.txt``      the event, ``key: value`` lines (the shared reader pipelines/core/keyvalue.py)
* ``<event>.standings.csv``  the result list: place, entrant, member numbers (``;`` or ``,``)
* ``medlemsregister.csv``    the member register: member number, name, home club

Text: UTF-8, or cp1252 / latin-1 as Swedish scoring programs still write it.
"""
from __future__ import annotations

import re
from datetime import date

import numpy as np
import pandas as pd

from pipelines.core.keyvalue import decode, read_key_values
from pipelines.core.ranks import competition_ranks, repeated
from pipelines.core.text import clip, split_line

FALLBACKS = ("cp1252", "latin-1")
LEVELS = {"brons": "brons", "bronze": "brons", "silver": "silver", "guld": "guld", "gold": "guld",
          "förhöjt guld": "förhöjt guld", "förhöjt_guld": "förhöjt guld", "raised gold": "förhöjt guld"}
FORMS = {"par": "par", "pairs": "par", "lagbarometer": "lagbarometer", "barometer": "lagbarometer",
         "team barometer": "lagbarometer", "individuell": "individuell", "individual": "individuell"}
YES = {"ja": True, "yes": True, "j": True, "1": True, "nej": False, "no": False, "n": False, "0": False}

EVENT_KEYS = {
    "datum": "the date, YYYY-MM-DD",
    "klubb": "the organising club's number (default: the club folder's club)",
    "namn": "the event's name",
    "nivå": "brons, silver, guld or förhöjt guld",
    "form": "par, lagbarometer or individuell",
    "brickor": "boards played in all",
    "ronder": "rounds played",
    "mött": "'alla' (all met all) or how many opponents each met",
    "grupper": "groups by strength: number of groups and this group's letter, e.g. '3 B'",
    "mitchell": "ja: a pure Mitchell; the sektion column (NS/ÖV) makes two competitions",
    "handikapp": "ja: the standings carry a hcp_plac column (the handicap list)",
    "orutinerade": "ja: an event for novices (10-17 boards at half scale)",
    "nybörjarträff": "ja: a beginners' meeting",
    "kval_ronder": "rounds of the qualification (a final with carry-over)",
    "final": "A, B, C ...: this list is that final of a qualification (A: with carry-over)",
    "final_ronder": "rounds of the final (with kval_ronder)",
    "carry_over": "ja / nej: whether the final (B, C ...) carries the qualification's score over",
    "kval_par": "pairs that started the qualification (a final with carry-over; default for A: the list's pairs)",
    "första_plac": "the overall place of this final's winner: the pairs of the finals above it + 1 (B- or C-final with carry-over)",
    "tk_tillstånd": "the reference of TK's permission to give silver and bronze in a B- or C-final with carry-over",
    "fördelning": "the distribution TK sanctioned for a B- or C-final with carry-over, e.g. '4 sp, 10 8 7 6 5 4 4 4 4 bp'",
    "kvällar": "two consecutive short evenings counted as one: 'YYYY-MM-DD boards, YYYY-MM-DD boards'",
    "matcher": "matches each team played (a barometer)",
    "divisioner": "ja / 2: a barometer in two divisions (the sektion column is 1 or 2)",
    "mästerskap": "ja: a championship (the openness percentages do not apply; players from at least five clubs still do)",
    "dm": "a district championship (DM) final or SM qualification: lag (teams), par (pairs) or övrig (any other DM "
          "final); places 1-3 get the DM bonus of dm_bonus.csv (implies mästerskap: ja; silver, 12 pairs / 42 boards)",
    "sm_final": "an SM final with its own table (seed p. 16): h1-1, h1-2a, h1-2b (rounds 1, 2A, 2B of the open SM "
                "pairs final, Tabell H1; ranking sm-parfinal unless ranking: says otherwise), h2 (SM pairs final of seniors, women or juniors), h2-mixed "
                "(mixed pairs) or g2 (SM team final of veterans or juniors, a lagbarometer with matcher); nivå: guld",
    "dm_öppen": "ja: an open DM pairs final (every pair gets the bonus); nej or absent: closed (only pairs whose two "
                "players both belong to clubs of the district)",
    "sanktion": "the sanction reference of a silver or gold event",
    "bridgevecka": "the name of the organiser's bridge week the event is part of (at most two silver events, or one gold "
                   "and one silver, per bridge week)",
    "gäster": "ja: non-members may play (they get no points)",
    "avbruten": "ja: the event was aborted or a walkover (no points)",
    "simultan": "ja: one heat of a simultaneous event (silver: at least 8 pairs per heat)",
    "gemensam_lista": "ja: the common list of a simultaneous silver event (the 1/5 bonus to at most 16 pairs)",
    "ranking": "the event's kind for the national ranking where its level does not say it (ranking.csv): sm-parfinal, "
               "allsvenskan-div3, april-oktober-silver, utland or bonus",
}
ALIASES = {"date": "datum", "club": "klubb", "name": "namn", "level": "nivå", "niva": "nivå", "boards": "brickor",
           "rounds": "ronder", "met": "mött", "mott": "mött", "groups": "grupper", "handicap": "handikapp",
           "novices": "orutinerade", "beginners": "nybörjarträff", "qualification_rounds": "kval_ronder",
           "final_rounds": "final_ronder", "matches": "matcher", "divisions": "divisioner",
           "championship": "mästerskap", "sanction": "sanktion", "bridge_week": "bridgevecka", "guests": "gäster", "aborted": "avbruten",
           "walkover": "avbruten", "wo": "avbruten", "simultaneous": "simultan", "heat": "simultan",
           "common_list": "gemensam_lista", "carryover": "carry_over", "overföring": "carry_over",
           "qualification_pairs": "kval_par", "first_place": "första_plac", "forsta_plac": "första_plac",
           "tk_permission": "tk_tillstånd", "tk_tillstand": "tk_tillstånd",
           "distribution": "fördelning", "fordelning": "fördelning", "district_final": "dm", "dm_open": "dm_öppen",
           "dm_oppen": "dm_öppen", "sm-final": "sm_final", "smfinal": "sm_final", "evenings": "kvällar", "kvallar": "kvällar"}

STANDINGS_COLUMNS = {"plac": "place", "place": "place", "placering": "place", "par": "entrant", "lag": "entrant",
                     "entrant": "entrant", "nr": "entrant", "spelare": "entrant", "medlemmar": "members",
                     "members": "members", "medlemsnummer": "members", "spelat": "played", "played": "played",
                     "sektion": "section", "section": "section", "riktning": "section",
                     "hcp_plac": "hcp_place", "hcp_place": "hcp_place", "poäng": "score", "score": "score",
                     "namn": "names", "names": "names",
                     "kväll1": "evening1", "kväll_1": "evening1", "kvall1": "evening1", "evening1": "evening1",
                     "kväll2": "evening2", "kväll_2": "evening2", "kvall2": "evening2", "evening2": "evening2"}
REQUIRED = ["place", "entrant", "members"]
PLAYERS = {"par": (2, 2), "lagbarometer": (4, 6), "individuell": (1, 1)}


def _q(rows, source_file, location, reason):
    rows.append((source_file, location, reason))


def parse_event(source_file: str, data: bytes, as_of: date | None = None) -> tuple[dict | None, list[tuple[str, str, str]]]:
    """The event file's settings (None with the problems when any). With `as_of` (the run's date),
    an event dated after it is a problem: results are sent after the event, so it is a typo."""
    kv = read_key_values(data, EVENT_KEYS, ALIASES, FALLBACKS, example="datum: 2024-09-03")
    problems = [(source_file, loc, reason) for loc, reason in kv.problems]

    def need(key):
        v = kv.get(key)
        if not v:
            _q(problems, source_file, kv.where(key), f"missing setting '{key}': {EVENT_KEYS[key]}")
        return v

    def whole(key, lo=0, hi=100000):
        v = kv.get(key)
        if v is None or v == "":
            return None
        if not re.fullmatch(r"\d{1,9}", v) or not lo <= int(v) <= hi:
            _q(problems, source_file, kv.where(key), f"{key}: expected a whole number {lo}-{hi}, found {clip(v)!r}")
            return None
        return int(v)

    def yes(key):
        v = kv.get(key)
        if v is None or v == "":
            return False
        if v.lower() not in YES:
            _q(problems, source_file, kv.where(key), f"{key}: expected ja or nej, found {clip(v)!r}")
            return False
        return YES[v.lower()]

    ev: dict = {"source_file": source_file, "encoding": kv.encoding}
    _evenings(kv, ev, problems, source_file)
    d = kv.get("datum") if kv.get("kvällar") else need("datum")
    ev["date"] = None
    if d:
        try:
            ev["date"] = date.fromisoformat(d)
        except ValueError:
            _q(problems, source_file, kv.where("datum"), f"datum: expected a date YYYY-MM-DD, found {clip(d)!r}")
    lvl = need("nivå")
    ev["level"] = LEVELS.get((lvl or "").lower())
    if lvl and ev["level"] is None:
        _q(problems, source_file, kv.where("nivå"), f"nivå: expected brons, silver, guld or förhöjt guld, found {clip(lvl)!r}")
    form = need("form")
    ev["form"] = FORMS.get((form or "").lower())
    if form and ev["form"] is None:
        _q(problems, source_file, kv.where("form"), f"form: expected par, lagbarometer or individuell, found {clip(form)!r}")
    ev["boards"] = whole("brickor", 1, 2000)
    if kv.get("brickor") is None and not kv.get("kvällar"):
        need("brickor")
    ev["rounds"] = whole("ronder", 1, 500)
    met = kv.get("mött")
    ev["met"] = None
    if met and met.lower() not in ("alla", "all"):
        if re.fullmatch(r"\d{1,4}", met):
            ev["met"] = int(met)
        else:
            _q(problems, source_file, kv.where("mött"), f"mött: expected 'alla' or the number of opponents each met, found {clip(met)!r}")
    groups = kv.get("grupper")
    ev["groups"], ev["group"] = None, None
    if groups:
        m = re.fullmatch(r"(\d)\s*[,/ ]?\s*([A-Ea-e])", groups)
        if not m or not 2 <= int(m.group(1)) <= 5 or ord(m.group(2).upper()) - 64 > int(m.group(1)):
            _q(problems, source_file, kv.where("grupper"),
               f"grupper: expected the number of groups (2-5) and this group's letter, e.g. '3 B', found {clip(groups)!r}")
        else:
            ev["groups"], ev["group"] = int(m.group(1)), m.group(2).upper()
    for key in ("mitchell", "handikapp", "orutinerade", "nybörjarträff", "mästerskap", "gäster", "avbruten", "simultan",
                "gemensam_lista"):
        ev[key] = yes(key)
    div = kv.get("divisioner")
    ev["divisions"] = bool(div) and div.lower() in ("ja", "yes", "2")
    if div and div.lower() not in ("ja", "yes", "2", "nej", "no"):
        _q(problems, source_file, kv.where("divisioner"), f"divisioner: expected ja (two divisions) or nej, found {clip(div)!r}")
    ev["qual_rounds"] = whole("kval_ronder", 1, 500)
    ev["final_rounds"] = whole("final_ronder", 1, 500)
    _finals(kv, ev, problems, source_file, whole, yes)
    _district_final(kv, ev, problems, source_file, yes)
    _sm_final(kv, ev, problems, source_file)
    ev["matches"] = whole("matcher", 1, 200)
    ev["club"] = kv.get("klubb") or None
    if ev["club"] and not re.fullmatch(r"\d{1,9}", ev["club"]):
        _q(problems, source_file, kv.where("klubb"), f"klubb: expected the club number, found {clip(ev['club'])!r}")
    ev["name"] = kv.get("namn") or ""
    ev["sanction"] = kv.get("sanktion") or ""
    ev["bridge_week"] = " ".join((kv.get("bridgevecka") or "").split())
    if ev["bridge_week"] and len(ev["bridge_week"]) > 80:
        _q(problems, source_file, kv.where("bridgevecka"), f"bridgevecka: expected the bridge week's name (at most 80 characters), "
           f"found {clip(ev['bridge_week'])!r}")
    ev["ranking"] = (kv.get("ranking") or "").strip().lower()
    if ev["ranking"] and not re.fullmatch(r"[a-zåäö0-9-]{1,40}", ev["ranking"]):
        _q(problems, source_file, kv.where("ranking"), f"ranking: expected a kind of ranking.csv (e.g. sm-parfinal), found {clip(ev['ranking'])!r}")
    if ev["handikapp"] and ev["level"] not in (None, "brons"):
        _q(problems, source_file, kv.where("handikapp"), "handikapp: handicap events can only be played for bronze points (nivå: brons)")
    if ev["gemensam_lista"] and ev["level"] != "silver":
        _q(problems, source_file, kv.where("gemensam_lista"), "gemensam_lista: the common-list bonus is for simultaneous silver "
           "events; a bronze simultaneous event is scored as one event over all heats (send its common list as nivå: brons)")
    if ev["evenings"]:
        _evening_totals(kv, ev, problems, source_file)
    if as_of is not None and ev["date"] is not None and ev["date"] > as_of:
        where = kv.where("datum") if kv.get("datum") else ev.get("evenings_where", "datum")
        _q(problems, source_file, where, f"datum: {ev['date']} is after the date of this run ({as_of}); results are sent "
           "after the event: check the year, month and day")
    return (None if problems else ev), problems


DM_KINDS = {"lag": "lag", "team": "lag", "teams": "lag", "par": "par", "pairs": "par", "övrig": "övrig",
            "övriga": "övrig", "ovrig": "övrig", "other": "övrig"}
DM_FORMS = {"lag": "lagbarometer", "par": "par"}  # the form a DM kind is played in (övrig: any)


def _district_final(kv, ev: dict, problems: list, source_file: str, yes) -> None:
    """dm, dm_öppen (docs/sweden.md, 'DM finals'): the bonus table's kind and whether a pairs DM is open."""
    raw = (kv.get("dm") or "").strip()
    ev["dm"] = DM_KINDS.get(raw.lower()) if raw else None
    ev["dm_open"] = yes("dm_öppen")
    if raw and ev["dm"] is None:
        _q(problems, source_file, kv.where("dm"), f"dm: expected lag, par or övrig (the kind of DM final), found {clip(raw)!r}")
        return
    if ev["dm"] is None:
        if kv.get("dm_öppen"):
            _q(problems, source_file, kv.where("dm_öppen"), "dm_öppen: only for a DM final (add 'dm: par')")
        return
    ev["mästerskap"] = True  # a DM final is a championship: the openness percentages do not apply
    if ev["level"] == "brons":
        _q(problems, source_file, kv.where("dm"), "dm: a DM final is a silver event (its bonus is silver, and the silver "
           "requirements on boards apply, seed p. 15); write nivå: silver")
    want = DM_FORMS.get(ev["dm"])
    if want and ev["form"] and ev["form"] != want:
        _q(problems, source_file, kv.where("dm"), f"dm: {ev['dm']} is a {want} final, but form is {ev['form']}; "
           "for any other DM final write dm: övrig")
    if ev["dm_open"] and ev["form"] and ev["form"] != "par":
        _q(problems, source_file, kv.where("dm_öppen"), "dm_öppen: open or closed is said of a pairs DM (form: par)")


SM_FINAL_FORMS = {"h1-1": "par", "h1-2a": "par", "h1-2b": "par", "h2": "par", "h2-mixed": "par", "g2": "lagbarometer"}


def _sm_final(kv, ev: dict, problems: list, source_file: str) -> None:
    """sm_final (docs/sweden.md, 'SM finals'): H1, H2 and G2 replace the level's table."""
    raw = (kv.get("sm_final") or "").strip().lower()
    ev["sm_final"] = raw if raw in SM_FINAL_FORMS else None
    if not raw:
        return
    if ev["sm_final"] is None:
        _q(problems, source_file, kv.where("sm_final"), f"sm_final: expected h1-1, h1-2a, h1-2b (the open SM pairs final's rounds), h2, h2-mixed "
           f"or g2 (seed p. 16), found {clip(raw)!r}")
        return
    ev["mästerskap"] = True
    want = SM_FINAL_FORMS[raw]
    if ev["form"] and ev["form"] != want:
        _q(problems, source_file, kv.where("sm_final"), f"sm_final: {raw} is a {want} final, but form is {ev['form']}")
    if ev["level"] and ev["level"] != "guld":
        _q(problems, source_file, kv.where("sm_final"), f"sm_final: an SM final gives gold points (Tabell {raw[:2].upper()}); "
           f"write nivå: guld, found {ev['level']}")
    if ev.get("dm") or ev.get("final"):
        _q(problems, source_file, kv.where("sm_final"), "sm_final: an SM final is neither a DM final (dm) nor a final of a "
           "qualification with carry-over (final)")


def _finals(kv, ev: dict, problems: list, source_file: str, whole, yes) -> None:
    """final, carry_over, kval_par, första_plac, tk_tillstånd (docs/sweden.md, 'Finals')."""
    final = kv.get("final")
    ev["final"] = (final or "").strip().upper() or None
    ev["carry_over"] = None
    ev["field"] = whole("kval_par", 1, 5000)
    ev["first_place"] = whole("första_plac", 1, 5000)
    ev["tk_permission"] = kv.get("tk_tillstånd") or ""
    ev["distribution"] = _distribution(kv, problems, source_file)
    if ev["final"] is None:
        for key in ("carry_over", "kval_par", "första_plac", "tk_tillstånd", "fördelning"):
            if kv.get(key):
                _q(problems, source_file, kv.where(key), f"{key}: only for a final (add 'final: A', 'final: B' ...)")
        return
    if not re.fullmatch(r"[A-H]", ev["final"]):
        _q(problems, source_file, kv.where("final"), f"final: expected the final's letter A, B, C ... (A: the A-final), found {clip(final)!r}")
        return
    ev["carry_over"] = True if ev["final"] == "A" else (yes("carry_over") if kv.get("carry_over") else None)
    if kv.get("fördelning") and (ev["final"] == "A" or ev["carry_over"] is False):
        _q(problems, source_file, kv.where("fördelning"), "fördelning: a sanctioned distribution is for a B-, C- ... final with "
           "carry-over (the A-final and a final without carry-over are scored by the tables)")
    if ev["final"] == "A":
        if kv.get("carry_over") and not yes("carry_over"):
            _q(problems, source_file, kv.where("carry_over"), "carry_over: an A-final is scored with carry-over (seed p. 4); "
               "without it, send the final as an ordinary event (no final key)")
        if ev["first_place"] not in (None, 1):
            _q(problems, source_file, kv.where("första_plac"), f"första_plac: the A-final's winner is 1st overall, found {ev['first_place']}")
        if ev["qual_rounds"] is None or ev["final_rounds"] is None:
            _q(problems, source_file, kv.where("final"), "final: A needs kval_ronder and final_ronder (the rounds of the qualification and of the A-final)")
        return
    if ev["carry_over"] is None:
        _q(problems, source_file, kv.where("final"), f"final: {ev['final']} needs 'carry_over: ja' (silver and bronze continue the "
           "whole field's list, with TK's permission) or 'carry_over: nej' (bronze as a new competition from zero)")
        return
    if not ev["carry_over"]:
        return
    if ev["level"] == "brons":
        _q(problems, source_file, kv.where("carry_over"), f"carry_over: a {ev['final']}-final with carry-over gives silver and "
           "bronze of a silver or gold event (seed p. 4); a bronze event's final is its own competition: 'carry_over: nej'")
    missing = [k for k, v in (("kval_ronder", ev["qual_rounds"]), ("final_ronder", ev["final_rounds"]), ("kval_par", ev["field"]),
                              ("första_plac", ev["first_place"])) if v is None]
    if missing:
        _q(problems, source_file, kv.where("final"), f"final: {ev['final']} with carry-over needs {', '.join(missing)} "
           "(the rounds of the qualification and of the final, the pairs that started the qualification, and the overall "
           "place of this final's winner, e.g. 11 after a 10-pair A-final)")
    if ev["first_place"] == 1:
        _q(problems, source_file, kv.where("första_plac"), f"första_plac: the {ev['final']}-final's winner comes after the "
           "finals above it (e.g. 11 after a 10-pair A-final), found 1")
    if not ev["tk_permission"]:
        _q(problems, source_file, kv.where("final"), f"final: {ev['final']} with carry-over gives silver and bronze only with TK's "
           "permission, asked for in advance (seed p. 4: 'Ansökan ... måste göras på förhand'): add 'tk_tillstånd: <reference>', "
           "or report the final as 'carry_over: nej' (bronze from zero)")


# one character class then a literal: linear (the nested form '(?:\d+\s*)+' backtracked
# exponentially on a long run of digits); the numbers are checked one by one below
_DISTRIBUTION = re.compile(r"([\d\s]+)(sp|bp|gp)")
_POINTS = re.compile(r"\d{1,4}")


def _distribution(kv, problems: list, source_file: str) -> tuple | None:
    """fördelning: '4 sp, 10 8 7 6 5 4 4 4 4 bp' -> (('sp', 4), ('bp', 10), ...), place 1 first."""
    raw = kv.get("fördelning")
    if not raw:
        return None
    out = []
    for part in (p.strip() for p in raw.split(",")):
        m = _DISTRIBUTION.fullmatch(part.lower())
        if not m or not m.group(1).split() or not all(_POINTS.fullmatch(v) for v in m.group(1).split()):
            _q(problems, source_file, kv.where("fördelning"), "fördelning: expected the points of each place from the final's "
               f"winner, grouped by denomination, e.g. '4 sp, 10 8 7 6 5 4 4 4 4 bp', found {clip(raw)!r}")
            return None
        if m.group(2) == "gp":
            _q(problems, source_file, kv.where("fördelning"), "fördelning: gold is given only in the A-final (seed p. 4: "
               f"'guld delas bara ut i A-final'), found {clip(part)!r}")
            return None
        out += [(m.group(2), int(v)) for v in m.group(1).split()]
    if any(v < 1 for _, v in out):
        _q(problems, source_file, kv.where("fördelning"), f"fördelning: every listed place gets at least 1 point, found {clip(raw)!r}")
        return None
    return tuple(out)


_EVENING = re.compile(r"(\d{4}-\d{2}-\d{2})\s+(\d{1,3})")


def _evenings(kv, ev: dict, problems: list, source_file: str) -> None:
    """kvällar: two consecutive short evenings with the same pairs counted as one (seed p. 6)."""
    ev["evenings"] = None
    raw = kv.get("kvällar")
    if not raw:
        return
    where = kv.where("kvällar")
    ev["evenings_where"] = where
    parts = [p.strip() for p in re.split(r"[,;]", raw) if p.strip()]
    found = [_EVENING.fullmatch(p) for p in parts]
    if len(parts) != 2 or not all(found):
        _q(problems, source_file, where, "kvällar: expected two evenings as 'YYYY-MM-DD boards, YYYY-MM-DD boards' "
           f"(e.g. '2024-10-01 12, 2024-10-08 12'), found {clip(raw)!r}")
        return
    try:
        evenings = [(date.fromisoformat(m.group(1)), int(m.group(2))) for m in found]
    except ValueError:
        _q(problems, source_file, where, f"kvällar: expected real dates YYYY-MM-DD, found {clip(raw)!r}")
        return
    (d1, b1), (d2, b2) = evenings
    bad = False
    if d2 <= d1:
        _q(problems, source_file, where, f"kvällar: expected the first evening before the second, found {d1} then {d2}")
        bad = True
    for d, b in evenings:
        if b >= 18:
            _q(problems, source_file, where, f"kvällar: each evening must have fewer than 18 boards, found {b} on {d}; an evening of "
               "18 boards or more is a competition of its own: send it as its own event")
            bad = True
    if b1 + b2 < 18:
        _q(problems, source_file, where, f"kvällar: the two evenings together must have at least 18 boards, found {b1} + {b2} = {b1 + b2}")
        bad = True
    ev["evenings"] = None if bad else evenings


def _evening_totals(kv, ev: dict, problems: list, source_file: str) -> None:
    """With kvällar, datum is the second evening (the default) and brickor the two evenings' sum."""
    (d1, b1), (d2, b2) = ev["evenings"]
    if ev["date"] is None and kv.get("datum") is None:
        ev["date"] = d2
    elif ev["date"] is not None and ev["date"] != d2:
        _q(problems, source_file, kv.where("datum"), f"datum: two evenings counted as one are dated by the second evening, "
           f"expected {d2} (or leave datum out), found {ev['date']}")
    if ev["boards"] is None and kv.get("brickor") is None:
        ev["boards"] = b1 + b2
    elif ev["boards"] is not None and ev["boards"] != b1 + b2:
        _q(problems, source_file, kv.where("brickor"), f"brickor: expected the two evenings' boards together, "
           f"{b1} + {b2} = {b1 + b2} (or leave brickor out), found {ev['boards']}")
    if ev["level"] not in (None, "brons") or ev["form"] not in (None, "par"):
        _q(problems, source_file, ev["evenings_where"], "kvällar: two short evenings count as one bronze pairs competition "
           f"(nivå: brons, form: par; seed p. 6), found nivå: {ev['level']}, form: {ev['form']}")
    if ev.get("orutinerade"):
        _q(problems, source_file, ev["evenings_where"], "kvällar: a novices' event (orutinerade) may be played with 10-17 boards "
           "on its own; do not combine its evenings")


def _cells(text: str) -> tuple[list[list[str]], str]:
    first = next((l for l in text.splitlines() if l.strip() and not l.lstrip().startswith("#")), "")
    delim = ";" if first.count(";") >= first.count(",") and ";" in first else ("\t" if "\t" in first else ",")
    return delim


_split = split_line  # pipelines/core/text.py
# a result list's fields, compiled once (a history reads 90,000 lists)
_PLACE = re.compile(r"(\d{1,6})\s*(=)?")
_HCP_PLACE = re.compile(r"(\d{1,6})\s*=?")
_MEMBER_SEPARATORS = re.compile(r"[\s,/+&-]+")
_MEMBER = re.compile(r"\d{1,12}")
_COUNT = re.compile(r"\d{1,6}")


def parse_standings(source_file: str, data: bytes, form: str | None) -> tuple[pd.DataFrame | None, list]:
    """The result list → one row per entrant: location, place, tied, entrant, members (list),
    played (list or None), section, hcp_place. Any bad line holds back the whole file."""
    text, _ = decode(data, FALLBACKS)
    problems: list = []
    lines = [(no, l) for no, l in enumerate(text.splitlines(), start=1) if l.strip() and not l.lstrip().startswith("#")]
    if not lines:
        return None, [(source_file, "whole file", "expected a header line (plac;par;medlemmar) and one line per pair, team or player, found an empty file")]
    delim = _cells(text)
    header_no, header_line = lines[0]
    raw_header = _split(header_line, delim)
    if isinstance(raw_header, str):
        return None, [(source_file, f"line {header_no}", f"header: {raw_header}")]
    raw_header = [h.strip() for h in raw_header]
    header = [STANDINGS_COLUMNS.get(h.lower().replace(" ", "_")) for h in raw_header]
    unknown = [r for r, h in zip(raw_header, header) if h is None]
    missing = [c for c in REQUIRED if c not in header]
    if unknown or missing:
        what = ([f"unknown column(s) {', '.join(unknown)}"] if unknown else []) + ([f"missing column(s) {', '.join(missing)}"] if missing else [])
        return None, [(source_file, f"line {header_no}", f"header: {'; '.join(what)}; expected plac, par, medlemmar "
                       "(and optionally spelat, sektion, hcp_plac, poäng, namn, kväll1, kväll2), separated by semicolons, "
                       "commas or tabs")]
    rows = []
    lo, hi = PLAYERS.get(form or "", (1, 6))
    for no, line in lines[1:]:
        loc = f"line {no}"
        cells = _split(line, delim)
        if isinstance(cells, str):
            _q(problems, source_file, loc, cells)
            continue
        if len(cells) != len(header):
            _q(problems, source_file, loc, f"expected {len(header)} fields separated by {delim!r} ({', '.join(raw_header)}), found {len(cells)}")
            continue
        r = {h: c.strip() for h, c in zip(header, cells)}
        bad = []
        m = _PLACE.fullmatch(r["place"])
        if not m or int(m.group(1)) < 1:
            bad.append(f"plac: expected a place such as 3 or 3=, found {clip(r['place'])!r}")
        members = [x for x in _MEMBER_SEPARATORS.split(r["members"]) if x]
        if not all(_MEMBER.fullmatch(x) for x in members):
            bad.append(f"medlemmar: expected member numbers separated by spaces, found {clip(r['members'])!r}")
        elif not lo <= len(members) <= hi:
            want = f"{lo}" if lo == hi else f"{lo} to {hi}"
            bad.append(f"medlemmar: expected {want} member number(s) for a {form or 'entrant'}, found {len(members)} ({clip(r['members'])!r})")
        elif len(set(members)) != len(members):
            bad.append(f"medlemmar: a member number is listed twice ({clip(r['members'])!r})")
        played = None
        if r.get("played"):
            parts = r["played"].split()
            if not all(_COUNT.fullmatch(p) for p in parts) or len(parts) != len(members):
                bad.append(f"spelat: expected one number per member ({len(members)}), found {clip(r['played'])!r}")
            else:
                played = [int(p) for p in parts]
        hcp = None
        if r.get("hcp_place"):
            mh = _HCP_PLACE.fullmatch(r["hcp_place"])
            if not mh:
                bad.append(f"hcp_plac: expected a place such as 3 or 3=, found {clip(r['hcp_place'])!r}")
            else:
                hcp = int(mh.group(1))
        if not r["entrant"]:
            bad.append("par: expected the pair, team or player number, found nothing")
        if bad:
            for b in bad:
                _q(problems, source_file, loc, b)
            continue
        rows.append({"location": loc, "line": no, "place": int(m.group(1)), "tied": bool(m.group(2)),
                     "entrant": r["entrant"], "members": members, "played": played,
                     "section": (r.get("section") or "").upper().replace("EW", "ÖV").replace("OV", "ÖV"),
                     "hcp_place": hcp, "names": r.get("names", ""),
                     **{k: r[k] for k in ("evening1", "evening2") if k in r}})
    if not rows and not problems:
        problems.append((source_file, "whole file", "expected one line per pair, team or player after the header, found none"))
    if problems:
        return None, problems
    # places must be competition ranks in each section: 1, 2, 2, 4 ... (a tie takes the places after it).
    # Checked on the rows' values (a frame is made only for a list that stands: pandas' per-column
    # costs were most of a short list's parsing), and only the offending lines are visited
    places = np.fromiter((r["place"] for r in rows), dtype=np.int64, count=len(rows))
    sections = [r["section"] for r in rows]
    expected = competition_ranks(places, sections)
    for i in np.flatnonzero(places != expected):
        r, want = rows[i], expected[i]
        _q(problems, source_file, r["location"], f"plac: expected {want} ({want - 1} entrant(s) placed before it"
                                                 f"{' in ' + r['section'] if r['section'] else ''}), found {r['place']}; tied "
                                                 "entrants share a place and the next one is placed after all of them (1, 2=, 2=, 4)")
    handicap = [i for i, r in enumerate(rows) if r["hcp_place"] is not None]
    if handicap:
        hcp = np.array([rows[i]["hcp_place"] for i in handicap], dtype=np.int64)
        hexp = competition_ranks(hcp, [sections[i] for i in handicap])
        for j in np.flatnonzero(hcp != hexp):
            _q(problems, source_file, rows[handicap[j]]["location"], f"hcp_plac: expected {hexp[j]}, found {hcp[j]} (places on "
                                                                     "the handicap list are ranks: 1, 2=, 2=, 4)")
    for i in np.flatnonzero(repeated(sections, [r["entrant"] for r in rows])):
        _q(problems, source_file, rows[i]["location"], f"par: entrant {rows[i]['entrant']!r} is listed twice")
    return (None, problems) if problems else (pd.DataFrame(rows), problems)


def parse_members(source_file: str, data: bytes) -> tuple[pd.DataFrame, list]:
    """medlemsregister.csv: medlemsnummer;namn;klubb (one member per line)."""
    text, _ = decode(data, FALLBACKS)
    problems: list = []
    lines = [(no, l) for no, l in enumerate(text.splitlines(), start=1) if l.strip() and not l.lstrip().startswith("#")]
    empty = pd.DataFrame(columns=["member", "name", "club"])
    if not lines:
        return empty, [(source_file, "whole file", "expected a header medlemsnummer;namn;klubb and one line per member, found an empty file")]
    delim = _cells(text)
    header = _split(lines[0][1], delim)
    if isinstance(header, str):
        return empty, [(source_file, f"line {lines[0][0]}", f"header: {header}")]
    header = [h.strip().lower() for h in header]
    names = {"medlemsnummer": "member", "member": "member", "medlem": "member", "namn": "name", "name": "name",
             "klubb": "club", "club": "club", "hemmaklubb": "club"}
    cols = [names.get(h) for h in header]
    if sorted(c for c in cols if c) != ["club", "member", "name"] or None in cols:
        return empty, [(source_file, f"line {lines[0][0]}", f"header: expected medlemsnummer;namn;klubb, found {clip(lines[0][1].strip())!r}")]
    rows = []
    for no, line in lines[1:]:
        cells = _split(line, delim)
        if isinstance(cells, str):
            problems.append((source_file, f"line {no}", cells))
            continue
        cells = [c.strip() for c in cells]
        if len(cells) != 3:
            problems.append((source_file, f"line {no}", f"expected 3 fields (medlemsnummer;namn;klubb), found {len(cells)}"))
            continue
        r = dict(zip(cols, cells))
        if not re.fullmatch(r"\d{1,12}", r["member"]) or not r["name"] or not re.fullmatch(r"\d{1,9}", r["club"]):
            problems.append((source_file, f"line {no}", f"expected a member number, a name and a club number, found {clip(line.strip())!r}"))
            continue
        rows.append({**r, "location": f"line {no}"})
    if not rows and not problems:
        problems.append((source_file, "whole file", "expected one line per member (medlemsnummer;namn;klubb) after the header, "
                                                    "found none; send the whole register"))
    df = pd.DataFrame(rows, columns=["member", "name", "club", "location"])
    dup = df[df.duplicated("member", keep="first")]
    for r in dup.itertuples():
        problems.append((source_file, r.location, f"member {r.member} is listed twice; the first line is used"))
    return df.drop_duplicates("member").reset_index(drop=True), problems

"""Parsers of the documented Swedish input files (docs/sweden.md). Bad input never raises: each
problem is a quarantine row (source_file, location, reason: what was expected, what was found).

* ``<event>.event.txt``      the event, ``key: value`` lines (the shared reader pipelines/core/keyvalue.py)
* ``<event>.standings.csv``  the result list: place, entrant, member numbers (``;`` or ``,``)
* ``medlemsregister.csv``    the member register: member number, name, home club

Text: UTF-8, or cp1252 / latin-1 as Swedish scoring programs still write it.
"""
from __future__ import annotations

import csv
import io
import re
from datetime import date

import pandas as pd

from pipelines.core.keyvalue import decode, read_key_values
from pipelines.core.text import clip, too_long

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
    "kval_ronder": "rounds of the qualification (an A-final with carry-over)",
    "final": "A: this list is the A-final with carry-over of a qualification",
    "final_ronder": "rounds of the A-final (with kval_ronder)",
    "matcher": "matches each team played (a barometer)",
    "divisioner": "ja / 2: a barometer in two divisions (the sektion column is 1 or 2)",
    "mästerskap": "ja: a championship (the openness percentages do not apply)",
    "sanktion": "the sanction reference of a silver or gold event",
    "gäster": "ja: non-members may play (they get no points)",
    "avbruten": "ja: the event was aborted or a walkover (no points)",
    "simultan": "ja: one heat of a simultaneous event (silver: at least 8 pairs per heat)",
    "gemensam_lista": "ja: the common list of a simultaneous silver event (the 1/5 bonus to at most 16 pairs)",
}
ALIASES = {"date": "datum", "club": "klubb", "name": "namn", "level": "nivå", "niva": "nivå", "boards": "brickor",
           "rounds": "ronder", "met": "mött", "mott": "mött", "groups": "grupper", "handicap": "handikapp",
           "novices": "orutinerade", "beginners": "nybörjarträff", "qualification_rounds": "kval_ronder",
           "final_rounds": "final_ronder", "matches": "matcher", "divisions": "divisioner",
           "championship": "mästerskap", "sanction": "sanktion", "guests": "gäster", "aborted": "avbruten",
           "walkover": "avbruten", "wo": "avbruten", "simultaneous": "simultan", "heat": "simultan",
           "common_list": "gemensam_lista"}

STANDINGS_COLUMNS = {"plac": "place", "place": "place", "placering": "place", "par": "entrant", "lag": "entrant",
                     "entrant": "entrant", "nr": "entrant", "spelare": "entrant", "medlemmar": "members",
                     "members": "members", "medlemsnummer": "members", "spelat": "played", "played": "played",
                     "sektion": "section", "section": "section", "riktning": "section",
                     "hcp_plac": "hcp_place", "hcp_place": "hcp_place", "poäng": "score", "score": "score",
                     "namn": "names", "names": "names"}
REQUIRED = ["place", "entrant", "members"]
PLAYERS = {"par": (2, 2), "lagbarometer": (4, 6), "individuell": (1, 1)}


def _q(rows, source_file, location, reason):
    rows.append((source_file, location, reason))


def parse_event(source_file: str, data: bytes) -> tuple[dict | None, list[tuple[str, str, str]]]:
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
    d = need("datum")
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
    if kv.get("brickor") is None:
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
    final = kv.get("final")
    ev["final"] = (final or "").upper() or None
    if ev["final"] not in (None, "A"):
        _q(problems, source_file, kv.where("final"), f"final: only 'A' (an A-final with carry-over) is scored, found {clip(final)!r}")
    if ev["final"] == "A" and (ev["qual_rounds"] is None or ev["final_rounds"] is None):
        _q(problems, source_file, kv.where("final"), "final: A needs kval_ronder and final_ronder (the rounds of the qualification and of the A-final)")
    ev["matches"] = whole("matcher", 1, 200)
    ev["club"] = kv.get("klubb") or None
    if ev["club"] and not re.fullmatch(r"\d{1,9}", ev["club"]):
        _q(problems, source_file, kv.where("klubb"), f"klubb: expected the club number, found {clip(ev['club'])!r}")
    ev["name"] = kv.get("namn") or ""
    ev["sanction"] = kv.get("sanktion") or ""
    if ev["handikapp"] and ev["level"] not in (None, "brons"):
        _q(problems, source_file, kv.where("handikapp"), "handikapp: handicap events can only be played for bronze points (nivå: brons)")
    if ev["gemensam_lista"] and ev["level"] != "silver":
        _q(problems, source_file, kv.where("gemensam_lista"), "gemensam_lista: the common-list bonus is for simultaneous silver "
           "events; a bronze simultaneous event is scored as one event over all heats (send its common list as nivå: brons)")
    return (None if problems else ev), problems


def _cells(text: str) -> tuple[list[list[str]], str]:
    first = next((l for l in text.splitlines() if l.strip() and not l.lstrip().startswith("#")), "")
    delim = ";" if first.count(";") >= first.count(",") and ";" in first else ("\t" if "\t" in first else ",")
    return delim


def _split(line: str, delim: str) -> list[str] | str:
    """The cells of one line, or the reason it has none (too long, or quotes the csv reader refuses)."""
    reason = too_long(line)
    if reason:
        return reason
    try:
        return next(csv.reader([line], delimiter=delim), [])
    except csv.Error as error:
        return f"expected fields separated by {delim!r}, found a line the CSV reader cannot split ({error})"


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
                       "(and optionally spelat, sektion, hcp_plac, poäng, namn), separated by ; or ,")]
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
        m = re.fullmatch(r"(\d{1,6})\s*(=)?", r["place"])
        if not m or int(m.group(1)) < 1:
            bad.append(f"plac: expected a place such as 3 or 3=, found {clip(r['place'])!r}")
        members = [x for x in re.split(r"[\s,/+&-]+", r["members"]) if x]
        if not all(re.fullmatch(r"\d{1,12}", x) for x in members):
            bad.append(f"medlemmar: expected member numbers separated by spaces, found {clip(r['members'])!r}")
        elif not lo <= len(members) <= hi:
            want = f"{lo}" if lo == hi else f"{lo} to {hi}"
            bad.append(f"medlemmar: expected {want} member number(s) for a {form or 'entrant'}, found {len(members)} ({clip(r['members'])!r})")
        elif len(set(members)) != len(members):
            bad.append(f"medlemmar: a member number is listed twice ({clip(r['members'])!r})")
        played = None
        if r.get("played"):
            parts = r["played"].split()
            if not all(re.fullmatch(r"\d{1,6}", p) for p in parts) or len(parts) != len(members):
                bad.append(f"spelat: expected one number per member ({len(members)}), found {clip(r['played'])!r}")
            else:
                played = [int(p) for p in parts]
        hcp = None
        if r.get("hcp_place"):
            mh = re.fullmatch(r"(\d{1,6})\s*=?", r["hcp_place"])
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
                     "hcp_place": hcp, "names": r.get("names", "")})
    if not rows and not problems:
        problems.append((source_file, "whole file", "expected one line per pair, team or player after the header, found none"))
    if problems:
        return None, problems
    st = pd.DataFrame(rows)
    # places must be competition ranks in each section: 1, 2, 2, 4 ... (a tie takes the places after it)
    expected = st.groupby("section")["place"].rank(method="min").astype(int)
    wrong = (st["place"] != expected).to_numpy()
    # only the offending lines are visited (usually none)
    for r, want in zip(st[wrong].itertuples(), expected[wrong]) if wrong.any() else ():
        if r.place != want:
            _q(problems, source_file, r.location, f"plac: expected {want} ({want - 1} entrant(s) placed before it"
                                                  f"{' in ' + r.section if r.section else ''}), found {r.place}; tied entrants "
                                                  "share a place and the next one is placed after all of them (1, 2=, 2=, 4)")
    if st["hcp_place"].notna().any():
        h = st[st["hcp_place"].notna()]
        hexp = h.groupby("section")["hcp_place"].rank(method="min").astype(int)
        for r, want in zip(h.itertuples(), hexp):
            if int(r.hcp_place) != want:
                _q(problems, source_file, r.location, f"hcp_plac: expected {want}, found {int(r.hcp_place)} (places on the "
                                                      "handicap list are ranks: 1, 2=, 2=, 4)")
    twice = st.duplicated(["section", "entrant"], keep=False).to_numpy()
    for r in st[twice].itertuples() if twice.any() else ():
        _q(problems, source_file, r.location, f"par: entrant {r.entrant!r} is listed twice")
    return (None if problems else st), problems


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

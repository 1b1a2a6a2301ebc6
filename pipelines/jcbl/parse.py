"""Parsers of the documented JCBL input files (docs/jcbl.md). Bad input never raises: every
problem becomes a quarantine row (source_file, location "line 7", reason: expected vs found).

- ``<event_id>.event.txt``      event settings, ``key: value`` lines
- ``<event_id>.standings.csv``  final standings, one line per pair or team
- ``opening_balances.csv``      masterpoints players brought when they joined the ledger
- ``members.csv``               the member register: member id and name (read by pipelines/core/register.py)

Text is decoded as UTF-8 (a BOM is fine; Shift_JIS is tried when UTF-8 fails) and NFKC-normalised,
so full-width digits, colons and percent signs typed in Japanese input modes are accepted.
"""
from __future__ import annotations

import csv
import functools
import re
import unicodedata
from decimal import Decimal, InvalidOperation
from pathlib import PurePosixPath

import pandas as pd

from pipelines.core.keyvalue import decode, read_key_values
from pipelines.core.ranks import competition_ranks
from pipelines.core.register import read_register, shown_names
from pipelines.core.text import physical_lines
from pipelines.jcbl.awards import make_event, quarantine_frame
from pipelines.core.validation import validate_frame
from schemas import jcbl as S

EVENT_KEYS = {
    "organisation": "the organisation (defaults to the inbox folder)",
    "name": "the event's name, free text",
    "date": "the event date, YYYY-MM-DD",
    "kind": "the kind of event, e.g. weekly_pairs, ccg_pairs, stf_pairs",
    "class": "the class of a weekly game or CCG, 1-5",
    "day": "weekday or weekend/holiday (default: from the date, Monday-Friday = weekday)",
    "sessions": "number of sessions, 1 or 2",
    "boards_per_session": "boards per session (session-score BP)",
    "boards_per_match": "boards per team match (winning-VP BP)",
    "vp_scale": "the VP scale of a team match, e.g. 20 or 30",
    "team_flights": "number of team flights (e.g. 2 or 6)",
    "pair_flights": "number of pair flights (e.g. 2)",
    "strats": "strats, open first: A=open, B=1000, C=500 (△1000 means under 1000 MP)",
}
DAY_WORDS = {"weekday": True, "平日": True, "weekend": False, "holiday": False, "weekend/holiday": False, "土休日": False, "土日": False, "休日": False}
STANDINGS_COLUMNS = ["rank", "entrant", "unit", "flight", "players", "session_1", "session_2", "match_vps", "winning_vp"]
REQUIRED_STANDINGS = ["rank", "entrant", "players"]


# Bounds: what a club can plausibly send and what the lake's integers and decimals hold
# (docs/jcbl.md, "Bounds"). Each has its own quarantine reason.
MAX_LINE_CHARS = 4_000  # one line of any JCBL file
MAX_NAME_CHARS = 200  # event name, entrant, note
MAX_ID_CHARS = 40  # a player id
MAX_DIGITS = 9  # whole numbers (rank, class, boards, flights, strat limits) have at most 9 digits
MAX_RANK = 100_000
MAX_BOARDS = 200  # boards_per_session, boards_per_match
MAX_VP_SCALE = Decimal(1000)
MAX_MATCH_VP = Decimal(1000)  # one match's VPs (the event's vp_scale bounds it further)
MAX_MATCHES = 200  # matches of one team
MAX_WINNING_VP = MAX_MATCH_VP * MAX_MATCHES  # fits decimal(12, 4) of the lake
MAX_STRAT_LIMIT = 10**9
MAX_BALANCE = Decimal("99999999.99")  # an opening balance (points are decimal(12, 2))
EARLIEST_BALANCE = "1900-01-01"
SHOW_CHARS = 60  # how much of a bad value a reason quotes
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def _show(value: str) -> str:
    """A value as a reason quotes it: repr, cut to SHOW_CHARS characters."""
    value = str(value)
    if len(value) > SHOW_CHARS:
        return repr(value[:SHOW_CHARS]) + f"… ({len(value):,} characters)"
    return repr(value)


def _too_long(source_file: str, no: int, line: str) -> tuple[str, str, str] | None:
    if len(line) <= MAX_LINE_CHARS:
        return None
    return (source_file, f"line {no}", f"the line is {len(line):,} characters long; a line of a JCBL file is at most "
                                       f"{MAX_LINE_CHARS:,} characters (is a line break missing?), found {_show(line)}")


def _cells(line: str) -> list[str] | None:
    """One physical line as CSV cells (a quote never continues onto the next line); None when
    the csv module refuses it."""
    try:
        return next(csv.reader([line]), [])
    except csv.Error:
        return None


def parse_date(text: str):
    """'YYYY-MM-DD' (ASCII digits after NFKC) → datetime.date, or None."""
    import datetime as dt

    if not _DATE.fullmatch(text):
        return None
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        return None


def first_rule_date(rules):
    """The effective date of the first JCBL rule version of `rules`: no event can be older."""
    return pd.Timestamp(rules.versions["effective_from"].min()).date()


def date_window_problem(value, rules, as_of=None) -> str | None:
    """Why an event date is implausible (before the first rule version, after the run date)."""
    first = first_rule_date(rules)
    if value < first:
        return (f"date {value:%Y-%m-%d} is before the first JCBL rule version ({first:%Y-%m-%d}); no rule scores it: "
                "check the year")
    if as_of is not None and value > as_of:
        return (f"date {value:%Y-%m-%d} is after the date of this run ({as_of:%Y-%m-%d}); results are sent after the "
                "event: check the year, month and day")
    return None


def _text(data: bytes) -> str:
    """UTF-8 (a BOM is fine), else Shift_JIS, NFKC-normalised: the shared decoder (core/keyvalue)."""
    return decode(data, ("shift_jis",))[0]


def event_id_of(source_file: str) -> str:
    """The event id is the file name up to its first dot: 2024-06-02-stf.event.txt → 2024-06-02-stf."""
    return PurePosixPath(source_file.replace("\\", "/")).name.split(".")[0]


def _int(value: str, lo: int, hi: int | None = None) -> int | None:
    if not re.fullmatch(r"[0-9]{1,%d}" % MAX_DIGITS, value):
        return None
    v = int(value)
    return v if v >= lo and (hi is None or v <= hi) else None


def _decimal(value: str) -> Decimal | None:
    value = value.strip().rstrip("%").strip()
    if not re.fullmatch(r"[0-9]+(\.[0-9]+)?", value):
        return None
    try:
        return Decimal(value)
    except InvalidOperation:  # pragma: no cover - the regex admits only valid decimals
        return None


def _empty_event_frames() -> dict[str, pd.DataFrame]:
    return {name: frame.copy() for name, frame in _validated_empty_event_frames().items()}


@functools.cache
def _validated_empty_event_frames() -> dict[str, pd.DataFrame]:
    ev = pd.DataFrame(columns=list(S.EventFrame.to_schema().columns))
    st = pd.DataFrame(columns=["event_id", "strat", "position", "strat_limit"])
    return {"event": validate_frame(S.EventFrame, ev.astype({"event_date": "datetime64[ns]", "weekday": bool})),
            "strats": validate_frame(S.StratFrame, st.astype({"position": int}))}


def parse_event(source_file: str, data: bytes, organisation: str | None = None, as_of=None, rules=None):
    """Event settings file → ({"event": 1 row (0 when rejected), "strats": ...}, quarantine).

    ``as_of`` (the run date): an event dated after it is rejected as a likely typo in the date.
    ``rules``: the office's JCBL rules (JcblRules, its data folder's; default the bundled ones),
    whose event kinds and first rule version the file is checked against."""
    if rules is None:
        from pipelines.jcbl.rules import load_rules

        rules = load_rules()
    # the shared `key: value` reader (core/keyvalue: comments, unknown and repeated keys, binary
    # files, over-long lines), with Shift_JIS as the Japanese fallback encoding
    settings = read_key_values(data, EVENT_KEYS, fallbacks=("shift_jis",), example="date: 2024-06-02")
    problems: list[tuple[str, str, str]] = [(source_file, where, reason) for where, reason in settings.problems]
    values: dict[str, tuple[int, str]] = settings.values

    def where(key: str) -> str:
        return f"line {values[key][0]}" if key in values else key

    def need(key: str) -> str | None:
        if key not in values or not values[key][1]:
            problems.append((source_file, where(key), f"missing setting '{key}': {EVENT_KEYS[key]}"))
            return None
        return values[key][1]

    date = need("date")
    event_date = None
    if date is not None:
        day = parse_date(date)
        if day is None:
            problems.append((source_file, where("date"), f"expected a date YYYY-MM-DD, found {_show(date)}"))
        else:
            implausible = date_window_problem(day, rules, as_of)
            if implausible:
                problems.append((source_file, where("date"), implausible))
            else:
                event_date = pd.Timestamp(day)
    kind = need("kind")
    if kind is not None:
        kinds = frozenset(rules.tables["event_kinds"]["kind"])
        if kind not in kinds:
            problems.append((source_file, where("kind"), f"unknown kind {_show(kind)}; expected one of: {', '.join(sorted(kinds))}"))
    if len(values.get("name", (0, ""))[1]) > MAX_NAME_CHARS:
        problems.append((source_file, where("name"), f"name: expected at most {MAX_NAME_CHARS} characters, found "
                                                     f"{_show(values['name'][1])}"))
    if len(values.get("organisation", (0, ""))[1]) > MAX_NAME_CHARS:
        problems.append((source_file, where("organisation"), f"organisation: expected at most {MAX_NAME_CHARS} characters, "
                                                             f"found {_show(values['organisation'][1])}"))
    ints: dict[str, int | None] = {}
    for key, lo, hi in (("class", 1, 9), ("sessions", 1, 2), ("boards_per_session", 1, MAX_BOARDS),
                        ("boards_per_match", 1, MAX_BOARDS), ("team_flights", 1, 26), ("pair_flights", 1, 26)):
        ints[key] = None
        if key in values and values[key][1]:
            ints[key] = _int(values[key][1], lo, hi)
            if ints[key] is None:
                rng = f"{lo}-{hi}" if hi else f"at least {lo}"
                problems.append((source_file, where(key), f"{key}: expected a whole number {rng}, found {_show(values[key][1])}"))
    vp_scale = None
    if "vp_scale" in values and values["vp_scale"][1]:
        vp_scale = _decimal(values["vp_scale"][1])
        if vp_scale is None or not 1 <= vp_scale <= MAX_VP_SCALE or vp_scale.as_tuple().exponent < -2:
            problems.append((source_file, where("vp_scale"), f"vp_scale: expected a number of VPs from 1 to {MAX_VP_SCALE} "
                                                             f"such as 20 or 30, found {_show(values['vp_scale'][1])}"))
            vp_scale = None
    weekday = None
    if "day" in values:
        word = values["day"][1].lower()
        if word not in DAY_WORDS:
            problems.append((source_file, where("day"), f"day: expected weekday or weekend/holiday, found {_show(values['day'][1])}"))
        else:
            weekday = DAY_WORDS[word]
    elif event_date is not None:
        weekday = event_date.day_of_week < 5
    strats: list[tuple[str, int | None]] = []
    if "strats" in values and values["strats"][1]:
        for i, item in enumerate(re.split(r"[,、]\s*", values["strats"][1])):
            m = re.fullmatch(r"([A-Z])\s*=\s*(open|OPEN|△?\s*[0-9]{1,%d})" % MAX_DIGITS, item.strip())
            if not m:
                problems.append((source_file, where("strats"), f"strats: expected items like 'A=open, B=1000, C=500' "
                                                               f"(limits up to {MAX_STRAT_LIMIT:,}), found {_show(item.strip())}"))
                continue
            limit = None if m.group(2).lower() == "open" else int(m.group(2).lstrip("△").strip())
            strats.append((m.group(1), limit))
        if strats and (strats[0][1] is not None or any(l is None for _, l in strats[1:])):
            problems.append((source_file, where("strats"), "strats: the first strat must be open and the others must have a limit (A=open, B=1000, C=500)"))
        lim = [l for _, l in strats[1:] if l is not None]
        if 0 in lim:  # "under 0 MP" takes in no one
            problems.append((source_file, where("strats"), f"strats: a limit is a number of masterpoints of at least 1 "
                                                           f"(B=1000 means under 1000 MP), found {lim}"))
        if any(b >= a for a, b in zip(lim, lim[1:])):
            problems.append((source_file, where("strats"), f"strats: limits must decrease (e.g. 1000 then 500), found {lim}"))
    org = organisation or (values.get("organisation", (0, ""))[1]) or (
        PurePosixPath(source_file).parts[0] if len(PurePosixPath(source_file).parts) > 1 else "")
    if not org:
        problems.append((source_file, "organisation", "missing setting 'organisation' (or put the file in the organisation's inbox folder)"))
    event_id = event_id_of(source_file)
    if not event_id:
        problems.append((source_file, "file name", "expected a file name such as 2024-06-02-stf.event.txt"))
    if problems:
        return _empty_event_frames(), quarantine_frame(problems)
    frames = make_event(
        event_id=event_id, event_date=event_date, kind=kind, organisation=org, name=values.get("name", (0, ""))[1],
        class_level=ints["class"], weekday=bool(weekday), sessions=ints["sessions"],
        boards_per_session=ints["boards_per_session"], boards_per_match=ints["boards_per_match"], vp_scale=vp_scale,
        team_flights=ints["team_flights"], pair_flights=ints["pair_flights"], strats=strats, source_file=source_file,
    )
    return frames, quarantine_frame()


def _empty_standings() -> pd.DataFrame:
    return _validated_empty_standings().copy()


@functools.cache
def _validated_empty_standings() -> pd.DataFrame:
    cols = list(S.StandingsFrame.to_schema().columns)
    return validate_frame(S.StandingsFrame, pd.DataFrame(columns=cols).astype({"rank": int}))


def parse_standings(source_file: str, data: bytes):
    """Standings file → ({"standings": StandingsFrame rows}, quarantine).

    Any bad line holds back the whole file (the field size decides every award): the frame is
    then empty and the quarantine lists each problem plus one line saying the file is held.
    """
    problems: list[tuple[str, str, str]] = []
    text = _text(data)
    # every physical line is blank, a '#' comment, the header, an entrant line, or a problem
    lines = [(no, l) for no, l in enumerate(physical_lines(text), start=1) if l.strip() and not l.lstrip().startswith("#")]
    if not lines:
        return {"standings": _empty_standings()}, quarantine_frame([(source_file, "file", "expected a header line and one line per entrant, found an empty file")])
    header_no, header_line = lines[0]
    cells = None if len(header_line) > MAX_LINE_CHARS else _cells(header_line)
    if cells is None:
        return {"standings": _empty_standings()}, quarantine_frame([(source_file, f"line {header_no}",
            f"header: expected the columns {', '.join(STANDINGS_COLUMNS)} (rank, entrant, players required), found "
            f"{_show(header_line)}")])
    header = [h.strip().lower().replace(" ", "_") for h in cells]
    header = ["session_1" if h in ("session_1_pct", "s1") else "session_2" if h in ("session_2_pct", "s2") else h for h in header]
    unknown = [h for h in header if h not in STANDINGS_COLUMNS]
    missing = [h for h in REQUIRED_STANDINGS if h not in header]
    if unknown or missing or len(set(header)) != len(header):
        what = []
        if missing:
            what.append(f"missing column(s) {', '.join(missing)}")
        if unknown:
            more = f" and {len(unknown) - 10} more" if len(unknown) > 10 else ""
            what.append(f"unknown column(s) {', '.join(h[:SHOW_CHARS] for h in unknown[:10])}{more}")
        if len(set(header)) != len(header):
            what.append("a column named twice")
        return {"standings": _empty_standings()}, quarantine_frame([(source_file, f"line {header_no}",
            f"header: {'; '.join(what)}; expected columns {', '.join(STANDINGS_COLUMNS)} (rank, entrant, players required)")])
    event_id = event_id_of(source_file)
    rows = []
    for no, line in lines[1:]:
        loc = f"line {no}"
        long = _too_long(source_file, no, line)
        if long:
            problems.append(long)
            continue
        cells = _cells(line)
        if cells is None:
            problems.append((source_file, loc, f"expected {len(header)} comma-separated fields ({', '.join(header)}), "
                                               f"found a line the CSV reader cannot split: {_show(line)}"))
            continue
        if len(cells) != len(header):
            problems.append((source_file, loc, f"expected {len(header)} comma-separated fields ({', '.join(header)}), found {len(cells)}"
                                               + (" (a '\"' opens a quoted field: is a quote stray?)" if '"' in line else "")))
            continue
        r = {h: c.strip() for h, c in zip(header, cells)}
        bad = []
        m = re.fullmatch(r"([0-9]{1,%d})\s*(=|T)?" % MAX_DIGITS, r["rank"])
        rank = int(m.group(1)) if m and 1 <= int(m.group(1)) <= MAX_RANK else None
        if rank is None:
            bad.append(f"rank: expected a place such as 3 or 3=, found {_show(r['rank'])} (a place is 1 to {MAX_RANK:,})")
        if not r["entrant"]:
            bad.append("entrant: expected the pair or team number, found nothing")
        elif len(r["entrant"]) > MAX_NAME_CHARS:
            bad.append(f"entrant: expected at most {MAX_NAME_CHARS} characters, found {_show(r['entrant'])}")
        players = r["players"].replace(",", " ").replace(";", " ").split()
        unit = r.get("unit", "").lower()
        if unit and unit not in ("pair", "team"):
            bad.append(f"unit: expected pair or team, found {_show(r['unit'])}")
        if not unit:
            unit = "pair" if len(players) == 2 else "team" if 4 <= len(players) <= 6 else ""
        if unit == "pair" and len(players) != 2:
            bad.append(f"players: expected 2 player ids for a pair, found {len(players)} ({_show(r['players'])})")
        elif unit == "team" and not 4 <= len(players) <= 6:
            bad.append(f"players: expected 4 to 6 player ids for a team, found {len(players)} ({_show(r['players'])})")
        elif not unit:
            bad.append(f"players: expected 2 player ids (pair) or 4 to 6 (team), found {len(players)} ({_show(r['players'])})")
        if len(set(players)) != len(players):
            bad.append(f"players: a player id is listed twice ({_show(r['players'])})")
        for pid in players:
            if len(pid) > MAX_ID_CHARS:
                bad.append(f"players: a player id has at most {MAX_ID_CHARS} characters, found {_show(pid)}")
        flight = r.get("flight", "").upper()
        if flight and not re.fullmatch(r"[A-Z]", flight):
            bad.append(f"flight: expected one letter A-Z, found {_show(r['flight'])}")
        pcts = {}
        for i in (1, 2):
            v = r.get(f"session_{i}", "")
            pcts[i] = None
            if v:
                pcts[i] = _decimal(v)
                if pcts[i] is None or pcts[i] > 100:
                    bad.append(f"session_{i}: expected a percentage 0-100 such as 56.25, found {_show(v)}")
                    pcts[i] = None
        vps = r.get("match_vps", "").replace(",", " ").split()
        if len(vps) > MAX_MATCHES:
            bad.append(f"match_vps: expected the VPs of at most {MAX_MATCHES} matches, found {len(vps):,}")
            vps = []
        for v in vps:
            d = _decimal(v)
            if d is None:
                bad.append(f"match_vps: expected VPs separated by spaces such as '15.20 4.80 12', found {_show(v)}")
                break
            if d > MAX_MATCH_VP:
                bad.append(f"match_vps: a match gives at most {MAX_MATCH_VP} VP (the largest VP scale), found {_show(v)}")
                break
        wvp = None
        if r.get("winning_vp", ""):
            wvp = _decimal(r["winning_vp"])
            if wvp is None:
                bad.append(f"winning_vp: expected a number of VPs, found {_show(r['winning_vp'])}")
            elif wvp > MAX_WINNING_VP:
                bad.append(f"winning_vp: expected at most {MAX_WINNING_VP} VP ({MAX_MATCHES} matches of at most "
                           f"{MAX_MATCH_VP} VP), found {_show(r['winning_vp'])}")
                wvp = None
        if bad:
            problems.extend((source_file, loc, b) for b in bad)
            continue
        rows.append(dict(event_id=event_id, unit=unit, flight=flight, entrant=r["entrant"], rank=rank,
                         players=" ".join(players), session_1_pct=pcts[1], session_2_pct=pcts[2], winning_vp=wvp,
                         match_vps=" ".join(vps), source_file=source_file, location=loc))
    st = pd.DataFrame(rows, columns=list(S.StandingsFrame.to_schema().columns))
    line_problems = bool(problems)
    if len(st):
        for (unit, ent), g in st[st.duplicated(["unit", "entrant"], keep=False)].groupby(["unit", "entrant"]):
            problems.append((source_file, ", ".join(g["location"]), f"{unit} {ent} is listed more than once"))
        ex = st.assign(pid=st["players"].str.split(" ")).explode("pid")
        for (unit, pid), g in ex[ex.duplicated(["unit", "pid"], keep=False)].groupby(["unit", "pid"]):
            problems.append((source_file, ", ".join(g["location"]), f"player {pid} is in more than one {unit}"))
        # a spreadsheet stores 63.40 % as 0.634: a session where no score exceeds 1 % is such a
        # column, not a field that all scored under 1 % (it would pay no session BP, silently)
        for i in (1, 2):
            scores = st[f"session_{i}_pct"].dropna()
            highest = max(scores, default=None)  # Decimals, compared exactly
            if len(scores) >= 2 and 0 < highest <= 1:
                top = st.loc[scores.index[list(scores).index(highest)]]
                as_percent = f"{highest * 100:f}".rstrip("0").rstrip(".")
                problems.append((source_file, top["location"],
                                 f"session_{i}: expected percentages such as 63.40, found {_show(str(highest))} as the "
                                 f"highest score of {len(scores)}: these look like fractions ({highest} = {as_percent} %), "
                                 "as a spreadsheet stores percentages; write them as percentages"))
        # ranks within each field (unit, flight) must be competition ranks: 1, 2, 3=, 3=, 5 ...
        if not line_problems:
            expected = competition_ranks(st["rank"], st["unit"], st["flight"])
            off = st.assign(expected=expected)[st["rank"].to_numpy() != expected]
            # the first wrong rank of each field, in rank order
            for r0 in off.sort_values(["unit", "flight", "rank"], kind="stable").drop_duplicates(["unit", "flight"]).itertuples():
                problems.append((source_file, r0.location,
                                 f"{r0.unit}s{' of flight ' + r0.flight if r0.flight else ''}: expected rank {r0.expected} here "
                                 f"(ties share a rank and the next rank skips: 1, 2, 3=, 3=, 5), found {r0.rank}; is an entrant missing?"))
    if problems:
        n_bad = len({p[1] for p in problems})
        problems.append((source_file, "file", f"standings held back: {n_bad} problem line(s) among {len(lines) - 1}; "
                                              "the field size decides every award, so nothing from this file is posted until it is corrected"))
        return {"standings": _empty_standings()}, quarantine_frame(problems)
    return {"standings": validate_frame(S.StandingsFrame, st)}, quarantine_frame()


def parse_opening_balances(source_file: str, data: bytes, organisation: str | None = None, as_of=None):
    """opening_balances.csv (player_id, as_of, rp, bp[, note]) → ({"opening_balances": ...}, quarantine).
    Bad lines are quarantined one by one; good lines are kept. Each physical line is read on its
    own (a quote never joins lines), so line numbers are the editor's. ``as_of`` (the run date):
    a balance dated after it is rejected."""
    import datetime as dt

    problems: list[tuple[str, str, str]] = []
    org = organisation or (PurePosixPath(source_file).parts[0] if len(PurePosixPath(source_file).parts) > 1 else "")
    cols = list(S.OpeningBalanceFrame.to_schema().columns)
    empty = validate_frame(S.OpeningBalanceFrame, pd.DataFrame(columns=cols).astype({"as_of": "datetime64[ns]"}))
    # blank lines and '#' comment lines are skipped (also above the header)
    lines = [(no, l) for no, l in enumerate(physical_lines(_text(data)), start=1) if l.strip() and not l.lstrip().startswith("#")]
    rows = []
    if not lines:
        return {"opening_balances": empty}, \
            quarantine_frame([(source_file, "file", "expected a header 'player_id,as_of,rp,bp,note', found an empty file")])
    header_no, header_line = lines[0]
    cells = None if len(header_line) > MAX_LINE_CHARS else _cells(header_line)
    header = [h.strip().lower() for h in cells] if cells is not None else []
    if not {"player_id", "as_of", "rp", "bp"} <= set(header) or len(set(header)) != len(header):
        return {"opening_balances": empty}, \
            quarantine_frame([(source_file, f"line {header_no}", f"expected header columns player_id, as_of, rp, bp (note optional), "
                                                                 f"found {_show(header_line)}; none of the "
                                                                 f"{len(lines) - 1} line(s) below it is read")])
    earliest = dt.date.fromisoformat(EARLIEST_BALANCE)
    seen: dict[str, int] = {}
    for no, line in lines[1:]:
        long = _too_long(source_file, no, line)
        if long:
            problems.append(long)
            continue
        cells = _cells(line)
        if cells is not None and not any(c.strip() for c in cells):
            continue  # a line of empty cells, as spreadsheets write them
        if cells is None or len(cells) != len(header):
            problems.append((source_file, f"line {no}", f"expected {len(header)} fields ({', '.join(header)}), found "
                                                        + (f"{len(cells)}" if cells is not None else _show(line))))
            continue
        r = {h: c.strip() for h, c in zip(header, cells)}
        bad = []
        when = parse_date(r["as_of"])
        if when is None:
            bad.append(f"as_of: expected a date YYYY-MM-DD, found {_show(r['as_of'])}")
        elif when < earliest or (as_of is not None and when > as_of):
            bad.append(f"as_of: expected a date from {EARLIEST_BALANCE} to the date of this run"
                       + (f" ({as_of:%Y-%m-%d})" if as_of is not None else "") + f", found {when:%Y-%m-%d}: check the year")
            when = None
        pts = {}
        for k in ("rp", "bp"):
            v = _decimal(r[k]) if re.fullmatch(r"[0-9]+(\.[0-9]{1,2})?", r[k]) else None
            if v is None:
                bad.append(f"{k}: expected points with at most 2 decimals such as 12.34, found {_show(r[k])}")
            elif v > MAX_BALANCE:
                bad.append(f"{k}: expected at most {MAX_BALANCE} points, found {_show(r[k])}")
                v = None
            pts[k] = v
        if not r["player_id"]:
            bad.append("player_id: expected the player's id, found nothing")
        elif len(r["player_id"]) > MAX_ID_CHARS or " " in r["player_id"]:
            bad.append(f"player_id: expected an id of at most {MAX_ID_CHARS} characters without blanks, found {_show(r['player_id'])}")
        elif r["player_id"] in seen:
            bad.append(f"player {r['player_id']} already has an opening balance on line {seen[r['player_id']]}")
        if len(r.get("note", "")) > MAX_NAME_CHARS:
            bad.append(f"note: expected at most {MAX_NAME_CHARS} characters, found {_show(r['note'])}")
        if bad:
            problems.extend((source_file, f"line {no}", b) for b in bad)
            continue
        seen[r["player_id"]] = no
        rows.append(dict(organisation=org, player_id=r["player_id"], as_of=pd.Timestamp(when),
                         rp=pts["rp"].quantize(Decimal("0.01")), bp=pts["bp"].quantize(Decimal("0.01")),
                         note=r.get("note", ""), source_file=source_file, location=f"line {no}"))
    frame = pd.DataFrame(rows, columns=cols)
    if frame.empty:
        frame = frame.astype({"as_of": "datetime64[ns]"})
    return {"opening_balances": validate_frame(S.OpeningBalanceFrame, frame)}, quarantine_frame(problems)


REGISTER_NAME = "members.csv"  # the member register, in the organisation folder only (one per organisation)
# the header words of a member register: English as documented, and the Japanese a secretary's
# spreadsheet may carry (NFKC-normalised, lower case)
MEMBER_COLUMNS = {"member_id": "member_id", "player_id": "member_id", "id": "member_id", "会員番号": "member_id",
                  "name": "name", "氏名": "name", "名前": "name"}


def parse_members(source_file: str, data: bytes, organisation: str | None = None):
    """members.csv (member_id, name) → ({"members": MemberFrame}, quarantine). Decoded and
    bounded as every JCBL file (UTF-8 with or without BOM, Shift_JIS, NFKC; lines of at most
    4,000 characters, ids of 40, names of 200); the reading itself is the shared register reader
    (pipelines/core/register.py): bad lines are quarantined one by one, the others kept."""
    org = organisation or (PurePosixPath(source_file).parts[0] if len(PurePosixPath(source_file).parts) > 1 else "")
    members, problems = read_register(
        source_file, _text(data), MEMBER_COLUMNS, max_id=MAX_ID_CHARS, max_name=MAX_NAME_CHARS,
        line_problem=lambda line: (_too_long(source_file, 0, line) or ("", "", None))[2])
    frame = pd.DataFrame({"organisation": org, "member_id": members["member_id"], "name": members["name"],
                          "shown_as": shown_names(members), "source_file": source_file,
                          "location": members["location"]}, index=members.index)
    return {"members": validate_frame(S.MemberFrame, frame)}, quarantine_frame(problems)


def holdings_as_of(awards: pd.DataFrame | None, opening_balances: pd.DataFrame | None, as_of) -> pd.DataFrame:
    """Masterpoints (RP + BP) each player holds before ``as_of``: award lines dated earlier
    (reversal lines included, they are negative) plus opening balances dated on or before it."""
    as_of = pd.Timestamp(as_of)
    parts = []
    if awards is not None and len(awards):
        a = awards[pd.to_datetime(awards["event_date"]) < as_of]
        parts.append(pd.DataFrame({"player_id": a["player_id"].astype(str),
                                   "masterpoints": [Decimal(str(p)) for p in a["points"]]}))
    if opening_balances is not None and len(opening_balances):
        o = opening_balances[pd.to_datetime(opening_balances["as_of"]) <= as_of]
        parts.append(pd.DataFrame({"player_id": o["player_id"].astype(str),
                                   "masterpoints": [Decimal(r) + Decimal(b) for r, b in zip(o["rp"], o["bp"])]}))
    if not parts:
        return validate_frame(S.HoldingsFrame, pd.DataFrame({"player_id": pd.Series(dtype=str), "masterpoints": pd.Series(dtype=object)}))
    allp = pd.concat(parts, ignore_index=True)
    h = allp.groupby("player_id")["masterpoints"].agg(lambda s: max(sum(s, Decimal("0.00")), Decimal("0.00"))).reset_index()
    return validate_frame(S.HoldingsFrame, h)

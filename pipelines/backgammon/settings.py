"""Event settings: the ``# key: value`` lines at the top of a results file or match log."""

from __future__ import annotations

import datetime as dt
import difflib
import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

import pandas as pd

from . import quarantine as q
from .reading import RawFile, norm_key
from .rules import BackgammonRules, version_in_force

# Spellings a secretary may use for a key (normalised by reading.norm_key).
KEY_ALIASES = {
    "organisation": "club",
    "organization": "club",
    "club_id": "club",
    "event_name": "event",
    "tournament": "event",
    "name": "event",
    "event_level": "level",
    "calculation_method": "method",
    "master_point_calculation_method": "method",
    "mp_bonus_multiplier": "multiplier",
    "bonus_multiplier": "multiplier",
    "number_of_rounds": "rounds",
}
INFORMATIONAL = {"director", "venue", "note", "notes", "contact"}
METHOD_ALIASES = {"players": "players", "rounds": "rounds", "max": "max", "maximum": "max", "higher": "max"}
_CLUB = re.compile(r"^[a-z0-9][a-z0-9-]*$")
_DATE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")
_INT = re.compile(r"^[0-9]{1,9}$")
MAX_ROUNDS = 99  # rounds of one event (a 7+ round event uses the last column)
MAX_SETTING_CHARS = 200
EARLIEST_YEAR, LATEST_YEAR = 1900, 2199  # a date outside is a typo (and beyond what the lake's dates hold safely)


@dataclass(frozen=True)
class Spec:
    required: tuple[str, ...]
    optional: dict[str, str]  # key -> default text
    repeatable: tuple[str, ...] = ()


RESULTS = Spec(
    required=("club", "date", "event", "level", "method", "rounds"),
    optional={"bracket": "main", "multiplier": "1"},
)
MATCH_LOG = Spec(
    required=("club", "event", "level", "method"),
    optional={"multiplier": "1"},
    repeatable=("place",),
)


@dataclass
class Settings:
    values: dict[str, object] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)
    repeated: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=["line", "key", "value"]))
    quarantine: pd.DataFrame = field(default_factory=q.empty)
    ok: bool = True

    def where(self, key: str) -> str:
        return f"line {self.lines[key]}" if key in self.lines else "settings"


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.casefold()).strip("-")


def event_id(organisation: str, event_date: pd.Timestamp, event_name: str, bracket: str) -> str:
    """Stable id of an event: organisation/date/event-name/bracket (names as lower-case slugs)."""
    return f"{organisation}/{event_date:%Y-%m-%d}/{slug(event_name)}/{slug(bracket)}"


def parse_date(text: str) -> pd.Timestamp | None:
    """'YYYY-MM-DD' from EARLIEST_YEAR to LATEST_YEAR, else None."""
    if not _DATE.match(text or ""):
        return None
    try:
        day = dt.date.fromisoformat(text)
    except ValueError:
        return None
    if not EARLIEST_YEAR <= day.year <= LATEST_YEAR:
        return None
    return pd.Timestamp(day)


def date_problem(text: str) -> str:
    """Why a date text is not a tournament date."""
    if _DATE.match(text or "") and not EARLIEST_YEAR <= int(text[:4]) <= LATEST_YEAR:
        return f"date '{text}' has the year {text[:4]}, not a plausible tournament date; check the year"
    return f"date '{text}' is not a date like 2025-03-04 (year-month-day)"


def read_settings(
    raw: RawFile, spec: Spec, rules: BackgammonRules, organisation: str | None
) -> Settings:
    """Validate the settings lines. Blocking problems set ``ok`` to False."""
    out = Settings()
    src = raw.source_file
    frame = raw.settings.assign(key=raw.settings["key"].map(lambda k: KEY_ALIASES.get(k, k)))
    known = set(spec.required) | set(spec.optional) | set(spec.repeatable)
    problems: list[tuple[str, str, bool]] = []  # (location, reason, blocking)

    # a '# word: text' line whose word is close to a setting is a misspelt setting; others are comments
    vocabulary = sorted(known | set(KEY_ALIASES))
    unknown = frame[~frame["key"].isin(known | INFORMATIONAL)]
    for rec in unknown.itertuples():
        close = difflib.get_close_matches(rec.key, vocabulary, n=1, cutoff=0.75)
        if close:
            meant = KEY_ALIASES.get(close[0], close[0])
            problems.append(
                # blocking: the setting it was meant to be would otherwise keep its default (a
                # misspelt multiplier posts every award at half), and the awards post wrong
                (f"line {rec.line}", f"unknown setting '{rec.key}' (did you mean '{meant}'?); the settings are: "
                 f"{', '.join(sorted(known))}; the event is held back until the line is corrected, as the setting "
                 "it stands for would keep its default", True)
            )
    frame = frame[frame["key"].isin(known | INFORMATIONAL)]
    too_long = frame[frame["value"].str.len() > MAX_SETTING_CHARS]
    for rec in too_long.itertuples():
        problems.append((f"line {rec.line}", f"setting '{rec.key}' is {len(rec.value):,} characters long; a setting is at "
                         f"most {MAX_SETTING_CHARS} characters" + ("" if rec.key in known else "; this line is ignored"),
                         rec.key in known))
    frame = frame[frame["value"].str.len() <= MAX_SETTING_CHARS]
    single = frame[frame["key"].isin(known - set(spec.repeatable))]
    for key, group in single.groupby("key", sort=True):
        if group["value"].str.strip().nunique() > 1:
            problems.append(
                (q.lines_label(group["line"]), f"setting '{key}' is given {len(group)} times with different values "
                 f"({', '.join(repr(v) for v in group['value'])}); keep one", True)
            )
        out.lines[key] = int(group["line"].iloc[0])
        out.values[key] = str(group["value"].iloc[0]).strip()
    out.repeated = frame[frame["key"].isin(spec.repeatable)].reset_index(drop=True)

    if "club" not in out.values and organisation:
        out.values["club"] = organisation
    for key in spec.required:
        if not out.values.get(key) and key not in set(too_long["key"]):
            problems.append(("settings", f"missing setting '{key}': add a line '# {key}: ...' above the table "
                             f"({_HINTS[key]})", True))
    for key, default in spec.optional.items():
        if not out.values.get(key):
            out.values[key] = default

    def check(key: str, ok: bool, reason: str) -> None:
        if not ok:
            problems.append((out.where(key), reason, True))

    v = out.values
    if v.get("club"):
        check("club", bool(_CLUB.match(v["club"])),
              f"club '{v['club']}' is not a club id; write the id of the club's inbox folder (lower-case letters, digits and -)")
        if organisation and _CLUB.match(v["club"]) and v["club"] != organisation:
            check("club", False, f"the file says club '{v['club']}' but it was sent to the inbox of '{organisation}'")
    if "date" in spec.required and v.get("date"):
        date = parse_date(v["date"])
        check("date", date is not None, date_problem(v["date"]))
        v["date"] = date
        if date is not None:
            version = version_in_force(pd.Series([date]), rules.versions).iloc[0]
            first = rules.versions["effective_from"].min()
            check("date", not pd.isna(version),
                  f"no rule version is in force on {date:%Y-%m-%d}; the first takes effect on {first:%Y-%m-%d}")
            v["rule_version"] = version
    if v.get("event"):
        check("event", bool(slug(v["event"])), f"event name '{v['event']}' needs at least one letter or digit")
    if v.get("bracket"):
        check("bracket", bool(slug(v["bracket"])), f"bracket '{v['bracket']}' needs at least one letter or digit")
        v["bracket"] = slug(v["bracket"])
    if v.get("level"):
        aliases = dict(zip(rules.level_aliases["alias"], rules.level_aliases["level"]))
        level = aliases.get(re.sub(r"\s+", " ", v["level"].casefold()).replace(" / ", "/"))
        check("level", level is not None,
              f"level '{v['level']}' is not a level of the table; expected one of: {', '.join(rules.levels)}")
        v["level"] = level
    if v.get("method"):
        method = METHOD_ALIASES.get(v["method"].casefold())
        check("method", method is not None,
              f"method '{v['method']}' is not one of: players, rounds, max (the higher of the two)")
        v["method"] = method
    if v.get("multiplier"):
        text = v["multiplier"].lstrip("x×X ").strip()
        try:
            multiplier = Decimal(text)
            good = multiplier.is_finite() and multiplier > 0
        except InvalidOperation:
            multiplier, good = None, False
        check("multiplier", good, f"MP bonus multiplier '{v['multiplier']}' is not a number above 0 such as 1, 1.5 or 2")
        v["multiplier"] = multiplier
    if "rounds" in spec.required and v.get("rounds"):
        good = bool(_INT.match(v["rounds"])) and 1 <= int(v["rounds"]) <= MAX_ROUNDS
        check("rounds", good, f"rounds '{v['rounds']}' is not a whole number from 1 to {MAX_ROUNDS}")
        v["rounds"] = int(v["rounds"]) if good else None

    out.quarantine = q.rows(src, [p[0] for p in problems], [p[1] for p in problems])
    out.ok = not any(p[2] for p in problems)
    return out


_HINTS = {
    "club": "the club's id, e.g. ukbgclub",
    "date": "e.g. 2025-03-04",
    "event": "the event's name, e.g. Tuesday Night Tournament",
    "level": "Advanced/Open, Intermediate or Novice",
    "method": "players, rounds or max",
    "rounds": "the number of rounds played, e.g. 4",
}

"""Match files of a Swedish team series (docs/sweden-series.md): ``key: value`` lines read by
pipelines/core/keyvalue.py. One file per match; a corrected match arrives under the same path.

``parse_match(source_file, data)`` returns (match row dict or None, appearances DataFrame,
problems) where each problem is (file, location, reason) a club secretary can act on. Bad input
never raises; a match with any problem is not returned (it is quarantined whole).
"""
from __future__ import annotations

import re
from datetime import date
from fractions import Fraction

import pandas as pd

from pipelines.core.keyvalue import read_key_values
from pipelines.core.text import clip
from schemas.sweden_series import TABLES

KNOWN = {
    "series": "series id", "round": "round number (1, 2, ...)", "date": "match date YYYY-MM-DD",
    "table": "table " + "/".join(TABLES), "divisions": "number of divisions of the series (1 if none)",
    "division": "this match's division (1 if none)", "boards": "boards of the match",
    "boards_played": "boards actually played, only for an interrupted match",
    "scale": "VP scale: total VP of a match (30, 20, 8, 6, 4 or 2)",
    "home": "home team", "away": "away team",
    "home_vp": "home VP after penalties", "away_vp": "away VP after penalties",
    "home_penalty": "VP deducted from home (already in home_vp)",
    "away_penalty": "VP deducted from away (already in away_vp)",
    "walkover": "yes / no",
    "uppgiven": "the side that gave the match up: hemma or borta (empty or absent: nobody)",
    "home_first_half": "home players of the first half, comma separated",
    "home_second_half": "home players of the second half", "away_first_half": "away players of the first half",
    "away_second_half": "away players of the second half",
}
REQUIRED = ["series", "round", "date", "table", "boards", "scale", "home", "away", "home_vp", "away_vp"]
_INT = re.compile(r"\d{1,4}")  # rounds, boards, scale, divisions: a longer number is a typing error
INT_WHAT = "a whole number (at most 4 digits)"
# a series id names its file <series>.series.txt in the club folder and its page folder serie-<series>:
# letters, digits, '-' and '_' only (no '/', '..' or a name too long for the file system)
SERIES_ID = re.compile(r"\w[\w-]{0,99}")
SERIES_ID_WHAT = "a series id: the name of its file <series>.series.txt, of letters, digits, '-' and '_' (at most 100)"
_VP = re.compile(r"\d+([.,]\d+)?")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
EXAMPLE = "home_vp: 18"
_CONCEDED = {"hemma": "home", "borta": "away", "home": "home", "away": "away", "": ""}


SERIES_DEFAULTS = ("table", "divisions", "division", "boards", "scale")


def parse_match(source_file: str, data: bytes, defaults: dict[str, tuple[str, str]] | None = None,
                as_of: date | None = None):
    """``defaults``: key -> (where, value) from the series file (table, divisions, division,
    boards, scale), used where the match file does not say; a match that says otherwise is refused."""
    kv = read_key_values(data, KNOWN, example=EXAMPLE)
    problems = [(source_file, loc, reason) for loc, reason in kv.problems]
    for key, (where, value) in (defaults or {}).items():
        if key not in kv.values:
            kv.values[key] = (where, value)
        elif kv.values[key][1] != value:
            problems.append((source_file, kv.where(key), f"{key}: expected {value!r} as in the series file {where}, "
                                                         f"found {clip(kv.values[key][1])!r}"))

    def need(key, pattern, what):
        value = kv.get(key)
        if value is None:
            problems.append((source_file, key, f"missing setting {key!r}: expected {KNOWN[key]}"))
            return None
        if pattern is not None and not pattern.fullmatch(value):
            problems.append((source_file, kv.where(key), f"{key}: expected {what}, found {clip(value)!r}"))
            return None
        return value

    row = {"match_id": source_file, "source_file": source_file}
    row["series_id"] = need("series", SERIES_ID, SERIES_ID_WHAT)
    for key in ("home", "away"):
        row[key] = need(key, re.compile(r".*\S.*"), KNOWN[key])
    row["date"] = need("date", _DATE, "a date YYYY-MM-DD")
    if row["date"] is not None:
        try:
            played = date.fromisoformat(row["date"])
        except ValueError:
            problems.append((source_file, kv.where("date"), f"date: expected a real date YYYY-MM-DD, found {row['date']!r}"))
            row["date"] = None
        else:
            if as_of is not None and played > as_of:
                # results are sent after the match: a date after the run's is a typo
                problems.append((source_file, kv.where("date"), f"date: {played} is after the date of this run ({as_of}); "
                                                                "check the year, month and day"))
    row["table"] = need("table", re.compile("|".join(TABLES)), "one of " + ", ".join(TABLES))
    for key in ("round", "boards", "scale"):
        v = need(key, _INT, INT_WHAT)
        row[key if key != "scale" else "scale_total"] = int(v) if v is not None else None
    for key, default in (("divisions", "1"), ("division", "1")):
        v = kv.get(key, default)
        if not _INT.fullmatch(v):
            problems.append((source_file, kv.where(key), f"{key}: expected {INT_WHAT}, found {clip(v)!r}"))
        row[key] = int(v) if _INT.fullmatch(v) else None
    played = kv.get("boards_played")
    if played is not None and not _INT.fullmatch(played):
        problems.append((source_file, kv.where("boards_played"), f"boards_played: expected {INT_WHAT}, found {clip(played)!r}"))
    row["boards_played"] = int(played) if played is not None and _INT.fullmatch(played) else None
    for key in ("home_vp", "away_vp", "home_penalty", "away_penalty"):
        v = need(key, _VP, "VP as a number (e.g. 17 or 17.5)") if key in REQUIRED else kv.get(key, "0")
        if v is not None and not _VP.fullmatch(v):
            problems.append((source_file, kv.where(key), f"{key}: expected VP as a number, found {clip(v)!r}"))
            v = None
        row[key] = Fraction(v.replace(",", ".")) if v is not None else None
    wo = kv.get("walkover", "no").lower()
    if wo not in ("yes", "no", "ja", "nej"):
        problems.append((source_file, kv.where("walkover"), f"walkover: expected yes or no, found {clip(wo)!r}"))
    row["walkover"] = wo in ("yes", "ja")
    # a given-up match (seed section 5: "Vid uppgiven cupmatch erhåller vinnande lag sina mp"): the
    # side that gave up; the other side won, whatever the boards played
    gave_up = (kv.get("uppgiven") or "").strip().lower()
    row["conceded"] = _CONCEDED.get(gave_up, "")
    if gave_up not in _CONCEDED and gave_up:
        problems.append((source_file, kv.where("uppgiven"), f"uppgiven: expected hemma or borta (the side that gave the "
                                                            f"match up), found {clip(gave_up)!r}"))
    elif row["conceded"] and row["walkover"]:
        problems.append((source_file, kv.where("uppgiven"), "uppgiven: a walkover is not a conceded match (no mp for a "
                                                            "walkover, the winner's mp for a conceded match): give one of "
                                                            "'walkover: ja' and 'uppgiven: ...'"))
    if row["home"] is not None and row["home"] == row["away"]:
        problems.append((source_file, kv.where("away"), f"away: expected a team other than the home team, found {clip(row['away'])!r}"))
    if None not in (row["home_vp"], row["away_vp"], row["scale_total"]) and \
            row["home_vp"] + row["away_vp"] + row["home_penalty"] + row["away_penalty"] > row["scale_total"]:
        problems.append((source_file, kv.where("home_vp"), f"VP: expected home_vp + away_vp + penalties at most the "
                         f"scale {row['scale_total']}, found {row['home_vp']}-{row['away_vp']}"))
    if row["boards_played"] is not None and row["boards"] is not None and row["boards_played"] > row["boards"]:
        problems.append((source_file, kv.where("boards_played"), f"boards_played: expected at most boards "
                         f"({row['boards']}), found {row['boards_played']}"))
    apps = []
    for side in ("home", "away"):
        for half, key in ((1, f"{side}_first_half"), (2, f"{side}_second_half")):
            names = [n.strip() for n in (kv.get(key) or "").split(",") if n.strip()]
            if not names and not row["walkover"]:
                problems.append((source_file, key, f"missing setting {key!r}: expected {KNOWN[key]}"))
            if len(set(names)) != len(names):
                problems.append((source_file, kv.where(key), f"{key}: a player is named twice in one half: {', '.join(names)}"))
            apps += [{"match_id": source_file, "side": side, "player": n, "half": half} for n in names]
    appearances = pd.DataFrame(apps, columns=["match_id", "side", "player", "half"])
    if problems:
        return None, appearances.iloc[0:0], problems
    return row, appearances, []


def matches_frame(rows: list[dict]) -> pd.DataFrame:
    """The parsed match rows as a DataFrame (a corrected file replaces its earlier version: last wins)."""
    cols = ["match_id", "source_file", "series_id", "round", "date", "table", "divisions", "division", "boards",
            "boards_played", "scale_total", "home", "away", "home_vp", "away_vp", "home_penalty", "away_penalty",
            "walkover", "conceded"]
    df = pd.DataFrame(rows, columns=cols).drop_duplicates("match_id", keep="last")
    return df.assign(boards_played=df["boards_played"].astype("Float64"), conceded=df["conceded"].astype(object).where(df["conceded"].notna(), "").astype(str))


def latest_versions(parsed: list[tuple[dict, pd.DataFrame]]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Matches and appearances in arrival order, keeping only the last version of each match (a
    correction replaces the match's row AND its line-ups, so a player only in the old version drops)."""
    if not parsed:
        return matches_frame([]), pd.DataFrame(columns=["match_id", "side", "player", "half"])
    rows = [{**row, "_version": i} for i, (row, _) in enumerate(parsed)]
    apps = pd.concat([a.assign(_version=i) for i, (_, a) in enumerate(parsed)], ignore_index=True)
    matches = pd.DataFrame(rows).drop_duplicates("match_id", keep="last")
    keep = apps.merge(matches[["match_id", "_version"]], on=["match_id", "_version"], how="inner")
    return matches_frame(matches.drop(columns="_version").to_dict("records")), keep.drop(columns="_version")

"""Swedish team series in the nightly run (docs/sweden-series.md; seed 002 tables B2-B4, E2-E7, G1, G3).

Files in ``inbox/svensk-bridge/<club>/`` (any sub-folder of the club folder):

    <series>.series.txt       the series (table, divisions, boards, scale, double, swiss_rounds ...)
    <anything>.match.txt      one match (series: <series> names its series file in the club folder)
    <series>.final.csv        the final standings (plac;lag), sent when the series has ended

The series key is ``<org>/<club>/<series>``. Ledger lines:

- per match file, per player: the exact share (team points × own halves / the team's halves)
  truncated to 2 decimals, event ``<series key>#<match path in the club folder>``; a corrected match
  is reversed by the core (its lines carry its path) and reposted alone;
- per final standings file: bonus lines (``#=bonus``: B2/B3; ``#=place``: G1, G3 20 %, E7 to gold)
  and one closing line per player and denomination (``#=total``) that brings the series total to
  the exact total (matches + bonus) rounded up once.

Set-based over the night's matches; every problem is quarantined with (file, location, reason).
"""
from __future__ import annotations

import csv
import io
import math
from decimal import Decimal
from fractions import Fraction
from pathlib import Path, PurePosixPath

import numpy as np
import pandas as pd

from pipelines.core.inbox import InboxFile, read_partner
from pipelines.core.keyvalue import decode, read_key_values
from pipelines.core.text import clip, physical_lines, split_line
from pipelines.sweden import series as SR
from pipelines.sweden.series_parse import (
    INT_WHAT, KNOWN as MATCH_KNOWN, SERIES_DEFAULTS, SERIES_ID, SERIES_ID_WHAT, _INT, latest_versions, parse_match,
)
from schemas.common import DATE, INT, POINTS, TEXT
from schemas.ledger import AwardDraft
from schemas.sweden_series import TABLES, SeSeriesFinal, SeSeriesMatch, SeSeriesRanking

MATCH_SUFFIX = ".match.txt"
SERIES_SUFFIX = ".series.txt"
FINAL_SUFFIX = ".final.csv"
RULE_VERSION = "se-2009"
LAKE_TABLES = {"se_series_matches": SeSeriesMatch, "se_series_finals": SeSeriesFinal, "se_series_ranking": SeSeriesRanking}
WAREHOUSE_SQL = ["warehouse/se_series_matches", "warehouse/se_series_standings", "warehouse/se_series_final_places"]
_AWARD_COLUMNS = list(AwardDraft.to_schema().columns)
_LAKE_COLUMNS = list(SeSeriesMatch.to_schema().columns)

SERIES_KNOWN = {
    "series": "series id (the file name without .series.txt)", "name": "the series' name for its page",
    "table": "table " + "/".join(TABLES), "divisions": "number of divisions (1 if none)",
    "division": "this series' division (1 if none)", "boards": "boards per match", "scale": "VP scale (30, 20, 8, 6, 4 or 2)",
    "double": "double round robin: yes / no", "swiss_rounds": "rounds of a Swiss series (empty if not Swiss)",
    "teams": "number of teams (informative)",
}
_YES = {"yes": True, "ja": True, "no": False, "nej": False}


def role(source_file: str) -> str | None:
    name = PurePosixPath(source_file).name.lower()
    for suffix, r in ((MATCH_SUFFIX, "series_match"), (SERIES_SUFFIX, "series_file"), (FINAL_SUFFIX, "series_final")):
        if name.endswith(suffix) and len(name) > len(suffix):
            return r
    return None


def trunc2(value: Fraction) -> Decimal:
    """Toward zero to a whole hundredth (the remainder goes to the series' closing line)."""
    cents = math.floor(abs(value) * 100) * (1 if value >= 0 else -1)
    return Decimal(cents).scaleb(-2).quantize(Decimal("0.01"))


def _text(f: Fraction) -> str:
    return str(f.numerator) if f.denominator == 1 else f"{f.numerator}/{f.denominator}"


def _club_dir(source_file: str) -> str:
    parts = PurePosixPath(source_file).parts
    return "/".join(parts[:2])


def parse_series(f: InboxFile) -> tuple[dict | None, list[tuple[str, str, str]]]:
    kv = read_key_values(f.data, SERIES_KNOWN, example="table: B2")
    problems = [(f.source_file, loc, r) for loc, r in kv.problems]
    stem = PurePosixPath(f.source_file).name[: -len(SERIES_SUFFIX)]
    sid = kv.get("series", stem)
    if not SERIES_ID.fullmatch(stem):
        problems.append((f.source_file, "file name", f"the file name: expected {SERIES_ID_WHAT}, found {clip(stem)!r}; "
                         "rename the file (and name it so in the match files)"))
    elif sid != stem:
        problems.append((f.source_file, kv.where("series"), f"series: expected the file name's series id {stem!r}, found {sid!r}"))
    out = {"series_id": stem, "name": kv.get("name", stem), "where": {}}
    table = kv.get("table")
    if table is None:
        problems.append((f.source_file, "table", "missing setting 'table': expected " + SERIES_KNOWN["table"]))
    elif table not in TABLES:
        problems.append((f.source_file, kv.where("table"), f"table: expected one of {', '.join(TABLES)}, found {table!r}"))
    for key in ("divisions", "division", "boards", "scale", "swiss_rounds", "teams"):
        v = kv.get(key)
        if v is not None and not _INT.fullmatch(v):
            problems.append((f.source_file, kv.where(key), f"{key}: expected {INT_WHAT}, found {clip(v)!r}"))
    for key in ("double",):
        v = kv.get(key, "no").lower()
        if v not in _YES:
            problems.append((f.source_file, kv.where(key), f"{key}: expected yes or no, found {v!r}"))
        out[key] = _YES.get(v, False)
    if problems:
        return None, problems
    out.update(table=table, divisions=int(kv.get("divisions", "1")), division=int(kv.get("division", "1")),
               swiss_rounds=int(kv.get("swiss_rounds")) if kv.get("swiss_rounds") else None)
    out["defaults"] = {k if k != "scale" else "scale": (f"{kv.values[k][0]} of {f.source_file}", kv.values[k][1])
                       for k in SERIES_DEFAULTS if k in kv.values}
    return out, []


def parse_final(f: InboxFile, teams: set[str]) -> tuple[pd.DataFrame | None, list[tuple[str, str, str]]]:
    text, _ = decode(f.data)
    # each physical line split on its own (a stray quote never joins lines; a line the CSV reader
    # refuses, or one too long to be a result, is a problem with its line number)
    numbered, problems = [], []
    for no, line in enumerate(physical_lines(text), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue  # blank and comment lines skipped
        cells = split_line(line, ";")
        if isinstance(cells, str):
            problems.append((f.source_file, f"line {no}", cells))
            continue
        numbered.append((no, cells))
    if problems:
        return None, problems
    head = [c.strip().lower() for c in numbered[0][1]] if numbered else []
    if head[:2] not in (["plac", "lag"], ["place", "team"]):
        return None, [(f.source_file, f"line {numbered[0][0] if numbered else 1}",
                       f"expected the header 'plac;lag', found {';'.join(head)[:80]!r}")]
    out = []
    for no, r in numbered[1:]:
        if len(r) < 2 or not _INT.fullmatch(r[0].strip()):
            problems.append((f.source_file, f"line {no}", f"expected 'place;team' (e.g. '1;Lag Ek'), found {';'.join(r)[:80]!r}"))
            continue
        if int(r[0]) < 1:  # a place is counted from 1 (found by the fuzz campaign: 0 failed the output check)
            problems.append((f.source_file, f"line {no}", f"plac: expected a place from 1 up, found {r[0].strip()!r}"))
            continue
        team = r[1].strip()
        if team not in teams:
            problems.append((f.source_file, f"line {no}", f"lag: expected a team of the series' matches "
                                                          f"({clip(', '.join(sorted(teams)))}), found {clip(team)!r}"))
        out.append({"place": int(r[0]), "team": team, "line": no})
    df = pd.DataFrame(out, columns=["place", "team", "line"])
    for col, what in (("place", "place"), ("team", "team")):
        for r in df[df.duplicated(col, keep="first")].itertuples():
            problems.append((f.source_file, f"line {r.line}", f"{what} {getattr(r, col)} is given twice; in team events ties "
                                                              "are always broken: give each team its own place"))
    missing = sorted(teams - set(df["team"]))
    if missing and not problems:
        problems.append((f.source_file, "whole file", f"expected every team of the series, missing: {', '.join(missing)}"))
    return (None, problems) if problems else (df, [])


class SeriesNight:
    """The series files of one night of one organisation (matches, series files, final standings)."""

    def __init__(self, ctx, organisation: str, root: Path, members: pd.DataFrame | None, season_of, rules_dir: Path,
                 printed_b2: pd.DataFrame, held: list[str], retry_all_held: bool = False):
        self.ctx, self.organisation, self.root, self.members = ctx, organisation, root, members
        self.season_of, self.printed_b2, self.held = season_of, printed_b2, held
        self.retry_all_held = retry_all_held
        self.rules = SR.load_series_rules(rules_dir)
        self.quarantine: list[tuple[str, str, str]] = []
        self.posted: dict[str, int] = {}
        self.events: list[dict] = []
        self.awards: list[pd.DataFrame] = []
        self.lake: list[pd.DataFrame] = []
        self.finals: list[pd.DataFrame] = []
        self.played: list[pd.DataFrame] = []  # per player of each finished series: the exact points played
        self._series: dict[str, tuple[dict | None, InboxFile | None]] = {}
        self.tonight: dict[str, InboxFile] = {}

    # -- series files ------------------------------------------------------------------------
    def series_of(self, club: str, series_id: str) -> tuple[dict | None, InboxFile | None]:
        path = f"{club}/{series_id}{SERIES_SUFFIX}"
        if not SERIES_ID.fullmatch(series_id):
            return None, None  # not a file name (its match file is quarantined for its 'series:' line)
        if path not in self._series:
            f = self.tonight.get(path) or read_partner(self.root, path)
            if f is None:
                self._series[path] = (None, None)
            else:
                info, problems = parse_series(f)
                if f.in_batch:
                    self.quarantine.extend(problems)
                    self.posted[f.source_file] = 0 if problems else 1
                self._series[path] = (info, f)
        return self._series[path]

    def run(self, files: list[InboxFile]) -> None:
        by_role = {"series_file": [], "series_match": [], "series_final": []}
        for f in files:
            by_role[role(f.source_file)].append(f)
            self.tonight[f.source_file] = f
        for f in by_role["series_file"]:
            info, _ = self.series_of(_club_dir(f.source_file), PurePosixPath(f.source_file).name[: -len(SERIES_SUFFIX)])
            if info is not None:  # matches held back for want of this series file are read again
                club = _club_dir(f.source_file)
                for path in self.held:
                    if path.startswith(club + "/") and path not in self.tonight and role(path) == "series_match":
                        g = read_partner(self.root, path)
                        if g is not None and self._series_id(g) == info["series_id"]:
                            by_role["series_match"].append(g)
        if self.retry_all_held:  # a new member register: every held match is read again
            queued = {f.source_file for f in by_role["series_match"]}
            for path in self.held:
                if path not in self.tonight and path not in queued and role(path) == "series_match":
                    g = read_partner(self.root, path)
                    if g is not None:
                        by_role["series_match"].append(g)
        parsed = [p for p in (self._parse_match(f) for f in by_role["series_match"]) if p is not None]
        if parsed:
            self._post_matches(parsed)
        for f in by_role["series_final"]:
            self._final(f)

    @staticmethod
    def _series_id(f: InboxFile) -> str | None:
        return read_key_values(f.data, MATCH_KNOWN).get("series")

    def _parse_match(self, f: InboxFile, check_members: bool = True):
        club = _club_dir(f.source_file)
        sid = self._series_id(f)
        info, sfile = self.series_of(club, sid) if sid else (None, None)
        if sfile is not None and info is None:
            if f.in_batch:
                self.quarantine.append((f.source_file, "whole file", f"held back until the series file {sfile.source_file} is "
                                        "corrected (see its own problems); this match file need not be sent again"))
            return None
        row, apps, problems = parse_match(f.source_file, f.data, info["defaults"] if info else None, self.ctx.as_of)
        if sid and info is None and problems and any(p[1] in SERIES_DEFAULTS for p in problems):
            problems.append((f.source_file, "whole file", f"no series file {club}/{sid}{SERIES_SUFFIX} gives the missing "
                                                          "settings; send it (docs/sweden-series.md) and this match is read again"))
        both = set(apps.loc[apps["side"] == "home", "player"]) & set(apps.loc[apps["side"] == "away", "player"])
        if both:
            problems.append((f.source_file, "players", f"a player is named for both teams: {', '.join(sorted(both))}"))
        if not problems and check_members:
            if self.members is None:
                problems.append((f.source_file, "whole file", "no member register (medlemsregister.csv) to check the players against"))
            else:
                unknown = apps[~apps["player"].isin(self.members.index)]
                for p in unknown["player"].drop_duplicates():
                    problems.append((f.source_file, "players", f"member number {p} is not in the member register; "
                                                               "name the players of each half by member number"))
        if problems:
            if f.in_batch:
                self.quarantine.extend(problems)
            return None
        row = dict(row, series_key=f"{club}/{row['series_id']}", sha256=f.sha256, in_batch=f.in_batch,
                   stem=f.source_file[len(club) + 1: -len(MATCH_SUFFIX)])
        return row, apps

    # -- matches -----------------------------------------------------------------------------
    def _score(self, parsed):
        matches, apps = latest_versions(parsed)
        extra = pd.DataFrame([r for r, _ in parsed]).drop_duplicates("match_id", keep="last")[
            ["match_id", "series_key", "sha256", "in_batch", "stem"]]
        matches = matches.merge(extra, on="match_id")
        teams = SR.team_points(matches, self.rules, RULE_VERSION)
        return matches, apps, teams

    def _post_matches(self, parsed) -> None:
        matches, apps, teams = self._score(parsed)
        bad = teams[teams["problem"] != ""].drop_duplicates("match_id")
        for r in bad.itertuples():
            if r.in_batch:
                self.quarantine.append((r.match_id, "table", r.problem))
        ok = matches[~matches["match_id"].isin(bad["match_id"])]
        teams = teams[teams["match_id"].isin(ok["match_id"])]
        if ok.empty:
            return
        lines = SR.member_lines(teams, apps)
        lines = lines.merge(ok[["match_id", "series_key", "sha256", "stem", "date"]], on="match_id")
        posted = lines["share"].map(trunc2)
        lines = lines.assign(posted=posted)[posted > 0]
        exact = lines["share"].map(_text)
        basis = np.where(lines["share"].map(lambda s: s * 100 == int(s * 100)),
                         lines["basis"] + " = " + lines["posted"].astype(str),
                         lines["basis"] + " = " + exact + ", posted " + lines["posted"].astype(str)
                         + " (the rest is carried to the series' closing line)")
        self.awards.append(self._drafts(
            event_id=lines["series_key"] + "#" + lines["stem"], date=lines["date"], player=lines["player"],
            denomination=lines["denomination"], points=lines["posted"], basis=pd.Series(basis, index=lines.index),
            source_file=lines["match_id"], sha=lines["sha256"], location=lines["side"] + " team " + lines["team"]))
        # lake rows and event records: one per match (a walkover too: recorded, no lines)
        wide = teams.pivot_table(index="match_id", columns="side", values=["result", "points", "denomination"], aggfunc="first")
        m = ok.set_index("match_id").join(pd.DataFrame({
            "home_result": wide[("result", "home")], "away_result": wide[("result", "away")],
            "home_points": wide[("points", "home")], "away_points": wide[("points", "away")],
            "denomination": wide[("denomination", "home")]})).reset_index()
        result = np.where(m["walkover"], "walkover", m["home_result"])
        played = _players_per_side(apps, m)
        self.lake.append(pd.DataFrame({
            "match_id": m["series_key"] + "#" + m["stem"], "organisation": self.organisation, "series": m["series_key"],
            "series_id": m["series_id"], "event_date": pd.Series(pd.to_datetime(m["date"]).dt.date, dtype=DATE),
            "round": m["round"].astype("int64"), "table": m["table"], "division": m["division"].astype("int64"),
            "boards": m["boards"].astype("int64"), "home": m["home"], "away": m["away"],
            "home_vp": m["home_vp"].map(lambda v: Decimal(v.numerator) / Decimal(v.denominator)).map(lambda d: d.quantize(Decimal("0.01"))),
            "away_vp": m["away_vp"].map(lambda v: Decimal(v.numerator) / Decimal(v.denominator)).map(lambda d: d.quantize(Decimal("0.01"))),
            "result": result, "away_result": np.where(m["walkover"], "walkover", m["away_result"]),
            "home_points": m["home_points"].map(trunc2), "away_points": m["away_points"].map(trunc2),
            "denomination": m["denomination"], "home_players": played["home"].to_numpy(),
            "away_players": played["away"].to_numpy(), "source_file": m["match_id"], "source_sha256": m["sha256"],
            "run_id": self.ctx.run_id,
        }).astype({"home_vp": POINTS, "away_vp": POINTS, "home_points": POINTS, "away_points": POINTS,
                   "home_players": INT, "away_players": INT})[_LAKE_COLUMNS])
        for r in m.itertuples():  # one record per match file (few per night)
            self.events.append({"event_id": f"{r.series_key}#{r.stem}", "organisation": self.organisation, "system": "sweden",
                                "event_date": pd.Timestamp(r.date).date(), "kind": "se_series_match",
                                "source_file": r.match_id, "source_sha256": r.sha256,
                                "location": f"round {r.round}, {r.home} – {r.away}" + (" (walkover: no points)" if r.walkover else "")})
            if r.in_batch:
                self.posted[r.match_id] = 1

    def _drafts(self, *, event_id, date, player, denomination, points, basis, source_file, sha, location) -> pd.DataFrame:
        dates = pd.to_datetime(pd.Series(list(date), index=event_id.index)).dt.date
        frame = pd.DataFrame({
            "organisation": self.organisation, "system": "sweden", "event_id": event_id,
            "event_date": pd.Series(list(dates), index=event_id.index, dtype=DATE), "player_id": player,
            "denomination": denomination, "points": pd.Series(list(points), index=event_id.index, dtype=POINTS),
            "rule_version": RULE_VERSION, "basis": basis, "season": dates.map(self.season_of),
            "source_file": source_file, "source_sha256": sha, "location": location,
        })
        return frame[_AWARD_COLUMNS].astype({c: TEXT for c in _AWARD_COLUMNS if c not in ("event_date", "points")})

    # -- the final standings -----------------------------------------------------------------
    def _final(self, f: InboxFile) -> None:
        club = _club_dir(f.source_file)
        sid = PurePosixPath(f.source_file).name[: -len(FINAL_SUFFIX)]
        beside = f"{club}/{sid}{FINAL_SUFFIX}"
        if f.source_file != beside:
            # the final's awards are the series' (one event per series): a second final of the
            # same series in a sub-folder would award its bonuses twice, so it is never read
            self.quarantine.append((f.source_file, "whole file", f"the final standings of series {sid!r} are read only "
                                    f"beside its series file, as {beside}; move this file there (or remove it if "
                                    "it is a copy)"))
            return
        info, sfile = self.series_of(club, sid)
        if info is None:
            why = (f"waiting for the series file {club}/{sid}{SERIES_SUFFIX} (table, divisions, double ...; docs/sweden-series.md)"
                   if sfile is None else f"held back until the series file {sfile.source_file} is corrected")
            self.quarantine.append((f.source_file, "whole file", why))
            return
        dups = self.ctx.duplicate_paths(self.organisation)
        paths = sorted(p.relative_to(self.root).as_posix() for p in (self.root / club).rglob(f"*{MATCH_SUFFIX}"))
        files = [self.tonight.get(p) or read_partner(self.root, p) for p in paths if p not in dups]
        parsed = [p for p in (self._parse_match(InboxFile(g.source_file, g.path, g.sha256, g.data, False)) for g in files if g is not None
                              and self._series_id(g) == sid) if p is not None]
        if not parsed:
            self.quarantine.append((f.source_file, "whole file", f"no readable match file of series {sid!r} in {club}/"))
            return
        matches, apps, teams = self._score(parsed)
        teams = teams[teams["problem"] == ""]
        standings, problems = parse_final(f, set(teams["team"]))
        if problems:
            self.quarantine.extend(problems)
            return
        key = f"{club}/{sid}"
        standings = standings.assign(series_id=sid)
        lines = SR.member_lines(teams, apps)
        kw = dict(table=info["table"], division=info["division"], rule_version=RULE_VERSION)
        bonus = SR.series_bonus(standings, lines, self.rules, self.printed_b2, divisions=info["divisions"],
                                double=info["double"], swiss_rounds=info["swiss_rounds"], **kw)
        place = SR.place_bonus(standings, lines, matches, self.rules, **kw)
        bonus = pd.concat([bonus.assign(event="=bonus"), place.assign(event="=place")], ignore_index=True)
        bonus = bonus[bonus["share"].map(lambda s: s != 0)] if len(bonus) else bonus
        date = max(matches["date"])
        if len(bonus):
            bonus = bonus.assign(posted=bonus["share"].map(trunc2))
            b_basis = key + " " + bonus["basis"] + " = " + bonus["share"].map(_text) + ", posted " + bonus["posted"].astype(str)
            self.awards.append(self._drafts(
                event_id=key + "#" + bonus["event"], date=[date] * len(bonus), player=bonus["player"],
                denomination=bonus["denomination"], points=bonus["posted"], basis=b_basis, source_file=pd.Series(f.source_file, index=bonus.index),
                sha=pd.Series(f.sha256, index=bonus.index), location="team " + bonus["team"] + ", place " + bonus["place"].astype(str)))
        # closing line: the exact total (matches + bonus) rounded up once, less what was posted
        parts = [lines.assign(posted=lines["share"].map(trunc2))[["player", "denomination", "share", "posted"]]]
        if len(bonus):
            parts.append(bonus[["player", "denomination", "share", "posted"]])
        allp = pd.concat(parts, ignore_index=True)
        tot = allp.groupby(["player", "denomination"], as_index=False).agg(
            exact=("share", lambda s: sum(s, Fraction(0))), posted=("posted", lambda s: sum(s, Decimal("0.00"))))
        tot = tot.assign(final=tot["exact"].map(math.ceil))
        tot = tot.assign(closing=[Decimal(fin) - p for fin, p in zip(tot["final"], tot["posted"])])
        close = tot[tot["closing"] != 0]
        if len(close):
            basis = (key + " total: exact " + close["exact"].map(_text) + " rounded up to " + close["final"].astype(str)
                     + " (decimals rounded up once, at the end of the series); lines posted " + close["posted"].astype(str)
                     + ", closing " + close["closing"].astype(str))
            self.awards.append(self._drafts(
                event_id=pd.Series(key + "#=total", index=close.index), date=[date] * len(close), player=close["player"],
                denomination=close["denomination"], points=close["closing"], basis=basis,
                source_file=pd.Series(f.source_file, index=close.index), sha=pd.Series(f.sha256, index=close.index),
                location=pd.Series("whole file", index=close.index)))
        self.finals.append(self._final_rows(key, sid, info, date, standings, bonus, f, _players_per_team(apps, teams, matches)))
        self.played.append(self._played(key, sid, info, date, standings, lines, f))
        # one event record per kind of line of the final (bonus, place bonus, closing), and the final itself
        what = {"=final": "final standings", "=bonus": "bonus by final place", "=place": "final-place award (G1, G3, E7)",
                "=total": "closing lines: the series total rounded up"}
        used = ["=final"] + ([e for e in ("=bonus", "=place") if len(bonus) and (bonus["event"] == e).any()]) + (["=total"] if len(close) else [])
        for e in used:
            self.events.append({"event_id": f"{key}#{e}", "organisation": self.organisation, "system": "sweden",
                                "event_date": pd.Timestamp(date).date(), "kind": "se_series_final", "source_file": f.source_file,
                                "source_sha256": f.sha256,
                                "location": f"{what[e]}: final standings of {len(standings)} teams, table {info['table']}"})
        self.posted[f.source_file] = len(standings)


    def _played(self, key: str, sid: str, info: dict, date, standings: pd.DataFrame, lines: pd.DataFrame, f: InboxFile) -> pd.DataFrame:
        """Each player's exact match points of a finished series (no bonus: "Bonus i Allsvenskan, SM-
        eller DM-finaler ger ej rankingpoäng"), per denomination, with the team of most halves."""
        if lines.empty:
            return pd.DataFrame()
        exact = lines.groupby(["player", "denomination"])["share"].agg(lambda s: sum(s, Fraction(0))).unstack("denomination")
        team = (lines.groupby(["player", "team"], as_index=False)["halves"].sum().sort_values(["halves", "team"], ascending=[False, True])
                .drop_duplicates("player").set_index("player")["team"])
        place = dict(zip(standings["team"], standings["place"].astype(int)))
        return pd.DataFrame({
            "series": key, "series_id": sid, "table": info["table"], "event_date": pd.Timestamp(date).date(),
            "member": exact.index.astype(str), "team": team.reindex(exact.index).to_numpy(),
            "place": [place.get(t, 0) for t in team.reindex(exact.index)],
            "exact_sp": [v if isinstance(v, Fraction) else Fraction(0) for v in exact.get("sp", pd.Series(index=exact.index))],
            "exact_gp": [v if isinstance(v, Fraction) else Fraction(0) for v in exact.get("gp", pd.Series(index=exact.index))],
            "source_file": f.source_file, "source_sha256": f.sha256,
        })

    def _final_rows(self, key: str, sid: str, info: dict, date, standings: pd.DataFrame, bonus: pd.DataFrame, f: InboxFile,
                    players: dict[str, int]) -> pd.DataFrame:
        """Lake rows se_series_finals: each team's final place and its players' final-place awards
        (exact shares summed per denomination, truncated to hundredths like the lines)."""
        per = {}
        if len(bonus):
            sums = bonus.groupby(["team", "denomination"])["share"].agg(lambda s: sum(s, Fraction(0)))
            per = {k: trunc2(v) for k, v in sums.items()}
        zero = Decimal("0.00")
        teams = list(standings["team"])
        return pd.DataFrame({
            "series": key, "organisation": self.organisation, "series_id": sid,
            "event_date": pd.Series([pd.Timestamp(date).date()] * len(teams), dtype=DATE),
            "table": info["table"], "division": int(info["division"] or 1), "place": standings["place"].astype(int).to_numpy(),
            "team": teams,
            **{f"bonus_{d}": pd.Series([per.get((t, d), zero) for t in teams], dtype=POINTS) for d in ("bp", "sp", "gp")},
            "players": [players.get(t, 0) for t in teams],
            "source_file": f.source_file, "source_sha256": f.sha256, "run_id": self.ctx.run_id,
        }).astype({"division": INT, "place": INT, "players": INT})

def _players_per_side(apps: pd.DataFrame, matches: pd.DataFrame) -> pd.DataFrame:
    """Per match (rows of `matches`, by match_id): the members of each side who played at least one
    half ("home", "away"; 0 in a walkover, which is not played): the club fee's players (seed
    section 3, "per spelare och speltillfälle")."""
    count = (apps.drop_duplicates(["match_id", "side", "player"]).groupby(["match_id", "side"]).size()
             .unstack("side", fill_value=0).reindex(columns=list(SR.SIDES), fill_value=0))
    out = count.reindex(matches["match_id"].to_numpy(), fill_value=0).astype("int64").reset_index(drop=True)
    walkover = matches["walkover"].astype(bool).to_numpy()
    return out.assign(home=np.where(walkover, 0, out["home"]), away=np.where(walkover, 0, out["away"]))


def _players_per_team(apps: pd.DataFrame, teams: pd.DataFrame, matches: pd.DataFrame) -> dict[str, int]:
    """{team: its members who played at least one half of the series' matches} (walkovers are not
    played): a gold series' club fee, "En guldtävling är ett speltillfälle" (seed section 3)."""
    played = matches.loc[~matches["walkover"].astype(bool), "match_id"]
    a = apps[apps["match_id"].isin(played)].merge(teams[["match_id", "side", "team"]].drop_duplicates(),
                                                  on=["match_id", "side"])
    return {str(t): int(n) for t, n in a.drop_duplicates(["team", "player"]).groupby("team").size().items()}


# -- the hook of the nightly run (pipelines/sweden/system.py) -------------------------------------
def _held_matches(ctx, organisation: str) -> list[str]:
    """Match files whose latest version was quarantined (e.g. waiting for their series file)."""
    from schemas.ledger import SourceRecord

    sources = ctx.lake.read("sources", SourceRecord, organisation)
    if sources.empty:
        return []
    latest = sources.sort_values(["run_id", "source_file"]).drop_duplicates("source_file", keep="last")
    held = latest[(latest["status"] == "quarantined") & latest["source_file"].astype(str).str.lower().str.endswith(MATCH_SUFFIX)]
    return sorted(str(f) for f in held["source_file"])


def run_night(batch, files: list, register_tonight: bool = False) -> dict[str, pd.DataFrame]:
    """Scores the series files of a Swedish batch (system._Batch) and adds its ledger lines, event
    records, quarantine and counts to it; returns the lake tables. `register_tonight`: a new
    member register came tonight, so matches held back (e.g. for a member number it did not
    know yet) are read again."""
    from pipelines.sweden.system import season_label
    from schemas.common import empty_frame

    retry = register_tonight or any(role(f.source_file) == "series_file" for f in files)
    held = _held_matches(batch.ctx, batch.organisation) if retry else []
    if not files and not held:
        return {"se_series_matches": empty_frame(SeSeriesMatch), "se_series_finals": empty_frame(SeSeriesFinal),
                "se_series_ranking": empty_frame(SeSeriesRanking)}
    night = SeriesNight(batch.ctx, batch.organisation, batch.root, batch.members,
                        lambda d: season_label(d, batch.start_month), Path(batch.ctx.data_dir) / "rules" / "sweden",
                        batch.rules.printed["B2bonus"], held, retry_all_held=register_tonight)
    night.run([InboxFile(f.source_file, f.path, f.sha256, f.data, True) for f in files])
    batch.quarantine.extend(night.quarantine)
    batch.posted.update(night.posted)
    batch.events.extend(night.events)
    batch.awards.extend(night.awards)
    lake = [x for x in night.lake if len(x)]
    finals = [x for x in night.finals if len(x)]
    return {"se_series_matches": pd.concat(lake, ignore_index=True) if lake else empty_frame(SeSeriesMatch),
            "se_series_finals": pd.concat(finals, ignore_index=True) if finals else empty_frame(SeSeriesFinal),
            "se_series_ranking": series_ranking(night, batch)}


def series_ranking(night: SeriesNight, batch) -> pd.DataFrame:
    """Lake rows se_series_ranking: the ranking points of each player of each series finished tonight
    (seed section 7: the unrounded points played × the rate of the table's kind, series_ranking.csv,
    rounded up once; pipelines/sweden/ranking.py). A series is one result, dated at its last match."""
    from pipelines.sweden import ranking as R
    from schemas.common import empty_frame

    played = [x for x in night.played if len(x)]
    if not played:
        return empty_frame(SeSeriesRanking)
    p = pd.concat(played, ignore_index=True)
    kinds = night.rules["series_ranking"]
    kind_of = dict(zip(kinds.loc[kinds["rule_version"] == RULE_VERSION, "table"], kinds.loc[kinds["rule_version"] == RULE_VERSION, "kind"]))
    p = p[p["table"].isin(list(kind_of))]
    if p.empty:
        return empty_frame(SeSeriesRanking)
    rp = [R.ranking_points({"sp": sp, "gp": gp}, kind_of[t], batch.rules, RULE_VERSION)
          for sp, gp, t in zip(p["exact_sp"], p["exact_gp"], p["table"])]
    slug_to_club = dict(zip(batch.clubs["slug"].astype(str), batch.clubs["club"].astype(str)))
    out = pd.DataFrame({
        "series": p["series"], "organisation": batch.organisation, "series_id": p["series_id"],
        "event_date": pd.Series(list(p["event_date"]), dtype=DATE),
        "club": [slug_to_club.get(PurePosixPath(k).parts[1], "") if len(PurePosixPath(k).parts) > 2 else "" for k in p["series"]],
        "table": p["table"], "member": p["member"], "team": p["team"], "place": p["place"].astype(int),
        "sp": pd.Series([trunc2(v) for v in p["exact_sp"]], dtype=POINTS), "gp": pd.Series([trunc2(v) for v in p["exact_gp"]], dtype=POINTS),
        "rp": pd.Series([Decimal(r).quantize(Decimal("0.01")) for r, _ in rp], dtype=POINTS),
        "rp_basis": [f"{how} (points played in the series, no bonus)" if how else "" for _, how in rp],
        "source_file": p["source_file"], "source_sha256": p["source_sha256"], "run_id": batch.ctx.run_id,
    })
    return out[out["rp"] > 0].reset_index(drop=True)


# -- publication ---------------------------------------------------------------------------------
_PAGE = """<!doctype html>
<html lang="sv"><head><meta charset="utf-8"><title>{{ title }}</title></head>
<body>
<h1>{{ title }}</h1>
<p>{{ organisation_name }} – {{ club }}</p>
{% if final %}
<h2>Slutställning</h2>
<table>
<tr><th>Plac</th><th>Lag</th><th>Matcher</th><th>VP</th><th>Poäng ({{ denomination }})</th><th>Placeringsbonus (lagets spelare)</th></tr>
{% for r in final %}<tr><td>{{ r.place }}</td><td>{{ r.team }}</td><td>{{ r.matches }}</td><td>{{ r.vp }}</td><td>{{ r.points }}</td><td>{{ r.bonus }}</td></tr>
{% endfor %}</table>
{% endif %}
{% for night in nights %}
<h2>Ställning efter {{ night.night }}</h2>
<table>
<tr><th>Plac</th><th>Lag</th><th>Matcher</th><th>VP</th><th>Poäng ({{ denomination }})</th></tr>
{% for r in night.rows %}<tr><td>{{ r.place }}</td><td>{{ r.team }}</td><td>{{ r.matches }}</td><td>{{ r.vp }}</td><td>{{ r.points }}</td></tr>
{% endfor %}</table>
{% endfor %}
<h2>Spelarnas poäng</h2>
<table>
<tr><th>Medlem</th><th>Namn</th><th>bp</th><th>sp</th><th>gp</th></tr>
{% for p in players %}<tr><td>{{ p.member }}</td><td>{{ p.name }}</td><td>{{ p.bp }}</td><td>{{ p.sp }}</td><td>{{ p.gp }}</td></tr>
{% endfor %}</table>
{% include "enhance_tables.html.j2" %}
</body></html>
"""


def publish_series(con, org: pd.Series, out_dir: Path) -> list[Path]:
    """A page per series: the standings after each evening and each player's accumulated points
    (match lines, bonus and closing lines), HTML escaped; plus spelare.csv (spreadsheet-safe)."""
    from pipelines.core.templating import template_env

    from pipelines.core.publishing import folder_holds, replace_folder, spreadsheet_safe
    from pipelines.core.sql import fetch

    organisation = org["organisation"]
    standings = fetch(con, "select * from se_series_standings where series like ? order by series, night, place, team",
                      [organisation + "/%"])
    if standings.empty:
        _remove_withdrawn_series(out_dir, [])
        return []
    players = fetch(con, """
        select split_part(a.event_id, '#', 1) as series, a.player_id as member, coalesce(m.name, '') as name,
               sum(a.points) filter (where a.denomination = 'bp') as bp, sum(a.points) filter (where a.denomination = 'sp') as sp,
               sum(a.points) filter (where a.denomination = 'gp') as gp
        from awards a left join se_members m on m.member = a.player_id and m.organisation = a.organisation
        where a.system = 'sweden' and a.organisation = ? and split_part(a.event_id, '#', 1) in (select series from se_series_matches)
        group by all order by series, member""", [organisation])
    finals = fetch(con, "select * from se_series_final_places where series like ? order by series, place", [organisation + "/%"])
    env = template_env(Path(__file__).parent / "templates")
    page = env.from_string(_PAGE)
    written, standing = [], []
    for series, g in standings.groupby("series", sort=True):
        mine = players[players["series"] == series]
        fmt = (lambda v: "" if v is None or pd.isna(v) else str(v))
        nights = [{"night": str(n), "rows": [{"place": int(r.place), "team": r.team, "matches": int(r.matches), "vp": fmt(r.vp),
                                              "points": fmt(r.points)} for r in h.itertuples()]}
                  for n, h in g.groupby("night", sort=True)]
        final = [{"place": int(r.place), "team": r.team, "matches": fmt(r.matches), "vp": fmt(r.vp), "points": fmt(r.match_points),
                  "bonus": " ".join(f"{v} {d}" for d, v in (("bp", r.bonus_bp), ("sp", r.bonus_sp), ("gp", r.bonus_gp)) if v)}
                 for r in finals[finals["series"] == series].itertuples()]
        people = [{"member": r.member, "name": r.name, "bp": fmt(r.bp), "sp": fmt(r.sp), "gp": fmt(r.gp)} for r in mine.itertuples()]
        html = page.render(title=str(series).split("/")[-1], organisation_name=org.get("display_name", organisation),
                           club=str(series).split("/")[1] if str(series).count("/") >= 2 else "", nights=nights,
                           denomination=str(g["denomination"].iloc[0]), players=people, final=final)
        buf = io.StringIO()
        w = csv.writer(buf, delimiter=";", lineterminator="\n")
        w.writerow(["medlem", "namn", "bp", "sp", "gp"])
        w.writerows([p["member"], spreadsheet_safe(p["name"]), p["bp"], p["sp"], p["gp"]] for p in people)
        rel = str(series)[len(organisation) + 1:]
        club, _, sid = rel.rpartition("/")
        target = out_dir / club / f"serie-{sid}"
        standing.append(target)
        files = {"index.html": html, "spelare.csv": buf.getvalue()}
        if folder_holds(target, files):
            continue  # a night that changes nothing of a series writes nothing of it
        replace_folder(target, files)
        written.append(target)
    _remove_withdrawn_series(out_dir, standing)
    return written


def _remove_withdrawn_series(out_dir: Path, standing: list[Path]) -> None:
    """The page of a series with no standing match left (its files withdrawn, corrected away or
    quarantined) goes, as a fresh run would not write it. `con` is the whole warehouse, so every
    series that still stands is in `standing`."""
    import shutil

    for folder in out_dir.glob("*/serie-*"):
        if folder not in standing and (folder / "index.html").is_file():
            shutil.rmtree(folder)

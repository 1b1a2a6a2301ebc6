"""The national ranking publication (seed section 7): the list as of the last run, in Swedish,
sortable and searchable by name and club (a little inline script; the list reads without it), each
player's counted and not counted results one click away (`<details>`), stamped with the as-of date
and the rule version; and its CSV.

    var/publications/svensk-bridge/ranking/index.html, ranking.csv

`render_ranking` is pure (frames in, files out); `publish_ranking` reads the warehouse and writes.
"""
from __future__ import annotations

import csv
import hashlib
import io
from collections import Counter
from pathlib import Path

import duckdb
import pandas as pd
from pipelines.core.templating import template_env

from pipelines.core.publishing import folder_holds, replace_folder, spreadsheet_safe
from pipelines.core.sql import fetch

_TEMPLATES = template_env(Path(__file__).parent / "templates")
FOLDER = "ranking"
CSV_COLUMNS = ["plac", "medlemsnummer", "namn", "klubb", "klubbnamn", "rankingpoäng", "antal_resultat", "äldsta_resultat", "per"]


def _points(v) -> str:
    return "" if v is None or pd.isna(v) else format(v.normalize(), "f") if hasattr(v, "normalize") else str(v)


def _t(v) -> str:
    return "" if v is None or v is pd.NA or (isinstance(v, float) and pd.isna(v)) else str(v)


def render_ranking(ranking: pd.DataFrame, results: pd.DataFrame, as_of: str, rule_version: str, months: int, best_of: int,
                   organisation_name: str) -> dict[str, str]:
    ranking = ranking.sort_values(["rank", "name", "member"], kind="stable")
    results = results.sort_values(["member", "counted", "rp", "event_date"], ascending=[True, False, False, False], kind="stable")
    # each ranked member's results as Python values, from the columns zipped once (the values
    # itertuples gives): a pandas group and its itertuples per member cost about 1.5 ms, and a
    # federation ranks thousands every night
    by_member: dict = {}
    for member, event_date, event_name, event_id, place_label, rp, counted, reason in zip(
            results["member"], results["event_date"], results["event_name"], results["event_id"], results["place_label"],
            results["rp"], results["counted"], results["not_counted_reason"]):
        by_member.setdefault(member, []).append({
            "date": str(event_date), "event": _t(event_name) or _t(event_id), "place": place_label, "rp": _points(rp),
            "counted": counted is True or (counted is not pd.NA and bool(counted)), "reason": _t(reason)})
    players = []
    for rank, member, name, club, club_name, points, counted, oldest in zip(
            ranking["rank"], ranking["member"], ranking["name"], ranking["club"], ranking["club_name"],
            ranking["ranking_points"], ranking["results_counted"], ranking["oldest_counted"]):
        name, club_name = _t(name), _t(club_name) or _t(club)
        players.append({
            "rank": int(rank), "member": member, "name": name, "club_name": club_name, "points": _points(points),
            "counted": int(counted), "oldest": str(oldest), "search": f"{name} {club_name}".lower(),
            "results": by_member.get(member, []), "club": _t(club),
        })
    shared = Counter(p["rank"] for p in players)
    for p in players:  # equal points share a place: 3= as on every other list
        p["rank_label"] = f"{p['rank']}=" if shared[p["rank"]] > 1 else str(p["rank"])
    html = _TEMPLATES.get_template("ranking.html.j2").render(players=players, as_of=as_of, rule_version=rule_version, months=months,
                                                            best_of=best_of, organisation_name=organisation_name)
    buf = io.StringIO()
    w = csv.writer(buf, delimiter=";", lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    w.writerows([p["rank_label"], p["member"], spreadsheet_safe(p["name"]), p["club"], spreadsheet_safe(p["club_name"]), p["points"],
                 p["counted"], p["oldest"], as_of] for p in players)
    return {"index.html": html, "ranking.csv": buf.getvalue()}


_TONIGHT = ("se_ranking", "se_ranking_results", "se_level_changes")


def tonight(con: duckdb.DuckDBPyConnection, relation: str, organisation: str) -> str:
    """The name of a temporary table of `con` holding the organisation's rows of `relation` (the
    national ranking, its results, or the master-class level changes), made at its first use.
    The night's publications read these several times (the ranking page, the pins list, the player
    pages due, the player notes), and each reading of the views ranks the federation's whole
    window, or sums every member's holdings night by night, again. `con` is the night's read-only
    warehouse connection: one warehouse state for all of publishing, and its temporary tables go
    with it."""
    if relation not in _TONIGHT:
        raise ValueError(f"not a relation kept for the night: {relation}")
    name = f"tonight_{relation}_{hashlib.sha1(organisation.encode('utf-8')).hexdigest()[:12]}"
    # looked up first: `create ... if not exists ... as select` binds the ranking view (about 10 ms)
    # even when the table is there, and a night asks for it four or five times
    made = con.execute("select count(*) from duckdb_tables() where temporary and table_name = ?", [name]).fetchall()[0][0]
    if not made:
        con.execute(f"create temp table {name} as select * from {relation} where organisation = ?", [organisation])
    return name


def publish_ranking(con: duckdb.DuckDBPyConnection, org: pd.Series, out_dir: Path) -> list[Path]:
    organisation = org["organisation"]
    ranking = fetch(con, f"select * from {tonight(con, 'se_ranking', organisation)}")
    results = fetch(con, f"select * from {tonight(con, 'se_ranking_results', organisation)}")
    as_of = fetch(con, "select cast(cast(arg_max(as_of, run_id) as date) as varchar) as as_of from runs")["as_of"][0]
    if as_of is None or pd.isna(as_of):
        return []
    rule = fetch(con, "select rule_version, months, results from se_ranking_parameters where cast(effective_from as date) <= ? "
                      "order by cast(effective_from as date) desc limit 1", [as_of])
    if rule.empty:
        return []
    if ranking.empty and results.empty and not (out_dir / FOLDER).exists():
        return []  # no silver or gold result yet: no ranking page
    files = render_ranking(ranking, results, str(as_of), str(rule["rule_version"][0]), int(rule["months"][0]),
                           int(rule["results"][0]), str(org.get("display_name", organisation)))
    if folder_holds(out_dir / FOLDER, files):
        return []
    replace_folder(out_dir / FOLDER, files)
    return [out_dir / FOLDER]

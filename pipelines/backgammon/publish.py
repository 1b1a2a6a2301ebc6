"""The monthly points-race publication (HTML, CSV, Markdown) and `explain` lines of a club.

One folder per month-end snapshot of ``backgammon_standings``:
``<publications>/<club>/<season>/<YYYY-MM>/{index.html, standings.csv, standings.md}``.
A snapshot is (re)written when the run touched a month of its season up to its own month (a
correction in March changes every later snapshot of the season), and whenever it is missing.
Folders of months that no longer have a snapshot (their only events were corrected away) are
removed. Each folder is written into a temporary folder and swapped in.
"""
from __future__ import annotations

import csv
import io
import re
import shutil
from pathlib import Path

import duckdb
import pandas as pd
from pipelines.core.templating import template_env

from pipelines.core.sql import fetch
from pipelines.core.publishing import markdown_safe, replace_folder, spreadsheet_safe

_TEMPLATES = template_env(Path(__file__).parent / "templates")
CSV_COLUMNS = ["club", "season", "as_of", "rank", "player", "events", "matches_won", "points"]
_MONTH = re.compile(r"^\d{4}-\d{2}$")


def _month_label(as_of) -> str:
    return pd.Timestamp(as_of).strftime("%B %Y")


def render_month(race: pd.DataFrame, org: pd.Series, season: str, as_of, months: list[str]) -> dict[str, str]:
    """The three files of one snapshot. `race`: its rows of backgammon_standings; `months`: every
    snapshot month of the season (for the previous / next links)."""
    rows = race.sort_values(["rank", "player"], kind="stable")
    month = str(as_of)[:7]
    at = months.index(month) if month in months else -1
    context = {
        "club": org["display_name"],
        "club_id": org["organisation"],
        "season": season,
        "as_of": as_of,
        "month_label": _month_label(as_of),
        "rows": rows.to_dict("records"),
        "previous": months[at - 1] if at > 0 else None,
        "next": months[at + 1] if 0 <= at < len(months) - 1 else None,
    }
    html = _TEMPLATES.get_template("standings.html.j2").render(**context)

    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for r in rows.itertuples():
        writer.writerow([
            spreadsheet_safe(str(r.club)), spreadsheet_safe(str(r.season)), r.as_of, r.rank_label,
            spreadsheet_safe(str(r.player)), r.events, r.matches_won, r.points,
        ])

    md = [
        f"# {markdown_safe(str(org['display_name']))}: club master points {markdown_safe(season)}",
        "",
        f"Points race as of {as_of} (events up to the end of {_month_label(as_of)}). "
        "Ties share a rank (3=).",
        "",
        "| Rank | Player | Events | Matches won | Points | This month |",
        "|---:|---|---:|---:|---:|---:|",
    ]
    md += [
        f"| {r.rank_label} | {markdown_safe(str(r.player))} | {r.events} | {r.matches_won} | {r.points} | {r.points_this_month} |"
        for r in rows.itertuples()
    ]
    return {"index.html": html, "standings.csv": buffer.getvalue(), "standings.md": "\n".join(md) + "\n"}


def _season_of_month(month: str, start_month: int) -> str:
    year, mon = int(month[:4]), int(month[5:7])
    first = year - (1 if mon < start_month else 0)
    return str(first) if start_month == 1 else f"{first}-{(first + 1) % 100:02d}"


def publish_points_race(con: duckdb.DuckDBPyConnection, org: pd.Series, affected_months: set[str], out_dir: Path) -> list[Path]:
    """(Re)write the snapshots the run touched and any that are missing; drop stale ones."""
    from pipelines.backgammon.system import season_start_month

    club = org["organisation"]
    start = season_start_month(org)
    race = fetch(con, "select * from backgammon_standings where organisation = ? order by season, as_of, rank, player_id",
                 [club]).rename(columns={"organisation": "club", "player_id": "player"})  # the page's columns
    race = race.assign(month=race["as_of"].astype("string").str.slice(0, 7))
    touched = {(_season_of_month(m, start), m) for m in affected_months if _MONTH.match(m)}
    written = []
    wanted: set[Path] = set()
    for season, of_season in race.groupby("season", sort=True):
        months = sorted(of_season["month"].unique())
        for month, snapshot in of_season.groupby("month", sort=True):
            target = out_dir / str(season) / month
            wanted.add(target)
            if target.exists() and not any(s == season and m <= month for s, m in touched):
                continue
            replace_folder(target, render_month(snapshot, org, str(season), snapshot["as_of"].iloc[0], months))
            written.append(target)
    if out_dir.exists():
        for stale in out_dir.glob("*/*"):
            if stale.is_dir() and _MONTH.match(stale.name) and stale not in wanted:
                shutil.rmtree(stale)
    return written


def explain_points_race(con: duckdb.DuckDBPyConnection, player_id: str) -> list[str]:
    """The player's place in each season's race, as of the latest snapshot."""
    rows = fetch(
        con,
        """
        with latest as (
            select *, count(*) over (partition by organisation, season, as_of) as field
            from backgammon_standings
            qualify as_of = max(as_of) over (partition by organisation, season)
        )
        select * from latest where player_id = ? order by organisation, season
        """,
        [player_id],
    )
    return [
        f"{r.club_name} club master points race {r.season} (as of {r.as_of}): rank {r.rank_label} of {r.field}, "
        f"{r.events} event(s), {r.matches_won} match(es) won, {r.points} club_mp in total"
        for r in rows.itertuples()
    ]

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
from pipelines.core.templating import rendering_code, template_env

from pipelines.core.sql import fetch
from pipelines.core.publishing import markdown_safe, replace_folder, spreadsheet_safe

_TEMPLATE_DIR = Path(__file__).parent / "templates"
_TEMPLATES = template_env(_TEMPLATE_DIR)
CSV_COLUMNS = ["club", "season", "as_of", "rank", "player", "events", "matches_won", "points"]
_MONTH = re.compile(r"^\d{4}-\d{2}$")


def texts(data_dir: Path | None, org: pd.Series) -> dict[str, str]:
    """The organisation's fixed texts (data/site/messages.csv) in its `language`, with `lang`."""
    from pipelines.core.settings import DATA_DIR
    from pipelines.core.site import messages

    lang = org.get("language") or "en"
    return {**messages(data_dir or DATA_DIR, lang), "lang": lang}


def _month_label(as_of, t: dict[str, str]) -> str:
    """'March 2025', 'mars 2025', '2025年3月'."""
    day = pd.Timestamp(as_of)
    name = t["month_" + day.strftime("%B").lower()]  # the English name is only the key (%B of the C locale)
    return t["month_label"].replace("{year}", str(day.year)).replace("{month_name}", name).replace("{month}", str(day.month))


def render_month(race: pd.DataFrame, org: pd.Series, season: str, as_of, months: list[str],
                 t: dict[str, str] | None = None) -> dict[str, str]:
    """The three files of one snapshot. `race`: its rows of backgammon_standings; `months`: every
    snapshot month of the season (for the previous / next links); `t`: the organisation's fixed
    texts (`texts`; the bundled ones in its language if not given). The CSV's columns are the same
    in every language."""
    t = t if t is not None else texts(None, org)
    rows = race.sort_values(["rank", "player"], kind="stable")
    month = str(as_of)[:7]
    at = months.index(month) if month in months else -1
    context = {
        "club": org["display_name"],
        "club_id": org["organisation"],
        "season": season,
        "as_of": as_of,
        "month_label": _month_label(as_of, t),
        "t": t,
        "rendering": rendering_code(_TEMPLATE_DIR, __file__, t),
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

    title = t["bg_title"].replace("{club}", markdown_safe(str(org["display_name"]))).replace("{season}", markdown_safe(season))
    meta = t["bg_meta"].replace("{as_of}", str(as_of)).replace("{month}", _month_label(as_of, t))
    meta = meta.replace("{players}", str(len(rows)))
    columns = " | ".join(t[k] for k in ("bg_col_rank", "bg_col_player", "bg_col_events", "bg_col_matches_won",
                                        "bg_col_points", "bg_col_this_month"))
    md = [f"# {title}", "", f"{meta}. {t['bg_ties']}", "", f"| {columns} |", "|---:|---|---:|---:|---:|---:|"]
    md += [
        f"| {r.rank_label} | {markdown_safe(str(r.player))} | {r.events} | {r.matches_won} | {r.points} | {r.points_this_month} |"
        for r in rows.itertuples()
    ]
    return {"index.html": html, "standings.csv": buffer.getvalue(), "standings.md": "\n".join(md) + "\n"}


def _season_of_month(month: str, start_month: int) -> str:
    year, mon = int(month[:4]), int(month[5:7])
    first = year - (1 if mon < start_month else 0)
    return str(first) if start_month == 1 else f"{first}-{(first + 1) % 100:02d}"


def publish_points_race(con: duckdb.DuckDBPyConnection, org: pd.Series, affected_months: set[str], out_dir: Path,
                        data_dir: Path | None = None) -> list[Path]:
    """(Re)write the snapshots the run touched, any that are missing and any rendered with other
    templates or texts (a release, a change of the organisation's language); drop stale ones."""
    from pipelines.backgammon.system import season_start_month

    club = org["organisation"]
    start = season_start_month(org)
    race = fetch(con, "select * from backgammon_standings where organisation = ? order by season, as_of, rank, player_id",
                 [club]).rename(columns={"organisation": "club", "player_id": "player"})  # the page's columns
    race = race.assign(month=race["as_of"].astype("string").str.slice(0, 7))
    touched = {(_season_of_month(m, start), m) for m in affected_months if _MONTH.match(m)}
    t = texts(data_dir, org)
    rendering = rendering_code(_TEMPLATE_DIR, __file__, t)
    written = []
    wanted: set[Path] = set()
    for season, of_season in race.groupby("season", sort=True):
        months = sorted(of_season["month"].unique())
        for month, snapshot in of_season.groupby("month", sort=True):
            target = out_dir / str(season) / month
            wanted.add(target)
            if (target.exists() and not any(s == season and m <= month for s, m in touched)
                    and _rendered_with(target / "index.html") == rendering):
                continue
            replace_folder(target, render_month(snapshot, org, str(season), snapshot["as_of"].iloc[0], months, t))
            written.append(target)
    if out_dir.exists():
        for stale in out_dir.glob("*/*"):
            if stale.is_dir() and _MONTH.match(stale.name) and stale not in wanted:
                shutil.rmtree(stale)
    return written


_RENDERED_WITH = re.compile(r'<meta name="pointledger-rendering" content="([^"]*)">')


def _rendered_with(page: Path) -> str | None:
    """The rendering code (core.templating.rendering_code) a snapshot's page was made with."""
    try:
        with open(page, encoding="utf-8") as f:
            found = _RENDERED_WITH.search(f.read(2000))
    except FileNotFoundError:
        return None
    return found.group(1) if found else None


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

"""Swedish publications: a result list per event (Plac, Par, Namn, Klubb, poäng in bp/sp/gp) as
HTML (escaped by Jinja's autoescape) and CSV (spreadsheet-safe), a monthly page per club, and the
`explain` lines of a member.

    var/publications/svensk-bridge/<club>/<event>/index.html, resultat.csv
    var/publications/svensk-bridge/<club>/månad-<YYYY-MM>/index.md, index.html (the same, for a browser), avgifter.csv
"""
from __future__ import annotations

import csv
import io
import itertools
import shutil
from pathlib import Path
from urllib.parse import quote

import duckdb
import numpy as np
import pandas as pd
import pyarrow as pa
from pipelines.core.templating import template_env

from pipelines.core.dates import month_keys
from pipelines.core.parallel import chunk_ranges, map_streamed, serves_workers, workers
from pipelines.core.publishing import (existing_names, folder_holds, markdown_safe, remove_withdrawn_events, replace_folder,
                                        spreadsheet_safe)
from pipelines.core.sql import fetch
from pipelines.sweden.ranking_page import tonight

_TEMPLATES = template_env(Path(__file__).parent / "templates")
_ENTRANT = {"par": "Par", "lagbarometer": "Lag", "individuell": "Spelare"}
_SECTION = {"NS": "Nord–Syd", "ÖV": "Öst–Väst", "1": "Division 1", "2": "Division 2", "": "Resultat"}
_DENOMINATION = {"gp": "guldpoäng", "sp": "silverpoäng", "bp": "bronspoäng"}
CSV_COLUMNS = ["plac", "par", "namn", "medlemmar", "klubb", "bp", "sp", "gp"]


def _num(v) -> str:
    return "" if v is None or pd.isna(v) or v == 0 else str(int(v))


def _num_column(values: pd.Series) -> pd.Series:
    """Points as page text for a whole column at once: '' for none or 0, else the whole number."""
    v = pd.to_numeric(values, errors="coerce").fillna(0).astype("int64")
    return v.astype(str).where(v != 0, "")


def page_rows(rows: pd.DataFrame, home: dict) -> pd.DataFrame:
    """Every column a result page shows, computed once over all events (set-based), in page order."""
    rows = rows.sort_values(["event_id", "competition", "place", "entrant"], kind="stable").reset_index(drop=True)
    return rows.assign(club_text=rows["first_member"].map(home).fillna(""),
                       bp_text=_num_column(rows["bp"]), sp_text=_num_column(rows["sp"]), gp_text=_num_column(rows["gp"]))


def final_note(rows: list[dict]) -> str:
    """Which places of the whole field a final's list covers (seed p. 4, finals with carry-over), or
    that a final without carry-over is a new competition; '' for any other event (and for rows
    written before finals were recorded)."""
    first = rows[0]
    letter = first.get("final") or ""
    if not letter:
        return ""
    start = first.get("overall_first_place")
    if start is None or pd.isna(start):
        return f"{letter}-final utan carry-over: en ny tävling där alla börjar om på noll"
    last = int(start) + len({r["entrant"] for r in rows}) - 1
    return f"{letter}-final med carry-over: plac {int(start)}–{last} i hela fältet"


def render_event(rows: list[dict], org: pd.Series) -> dict[str, str]:
    """One event's pages from its precomputed rows (page_rows), already in page order."""
    first = rows[0]
    comps, by_section = [], {}
    for r in rows:
        by_section.setdefault(r["competition"], []).append(r)
    for section in sorted(by_section):
        g = by_section[section]
        comps.append({"heading": f"{_SECTION.get(section, section)} ({int(g[0]['field_size'])})",
                      "entrant_label": _ENTRANT.get(first["form"], "Par"),
                      "rows": [{"place_label": r["place_label"], "entrant": r["entrant"], "players": r["names"],
                                "club": r["club_text"], "bp": r["bp_text"], "sp": r["sp_text"], "gp": r["gp_text"],
                                "scored": bool(r["bp_text"] or r["sp_text"] or r["gp_text"])} for r in g]})
    # the page shows the denominations the event gives (all three in a gold event), bronze at least
    shown = [d for d in ("gp", "sp", "bp") if any(r[f"{d}_text"] for r in rows)] or ["bp"]
    html = _TEMPLATES.get_template("event.html.j2").render(
        title=first["event_name"] or first["event_id"], organisation_name=org["display_name"],
        club_name=first["club_name"] or "", event_date=first["event_date"], level=first["level"], form=first["form"],
        boards=first["boards"], rule_version=first["rule_version"], competitions=comps, final_note=final_note(rows),
        denominations=shown, denomination_names=_DENOMINATION)
    buf = io.StringIO()
    w = csv.writer(buf, delimiter=";", lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    w.writerows([r["place_label"], spreadsheet_safe(r["entrant"]), spreadsheet_safe(" – ".join(r["names"])), r["members"],
                 spreadsheet_safe(r["club_text"]), r["bp_text"], r["sp_text"], r["gp_text"]] for r in rows)
    return {"index.html": html, "resultat.csv": buf.getvalue()}


# From this many event pages on, they are written by worker processes (pipelines/core/parallel.py):
# a worker's start costs about as much as a thousand pages.
PARALLEL_FROM_EVENTS = 2000
PAGES_PER_CHUNK = 2000  # a worker holds one chunk's rows as Python values, not a history's
EVENTS_PER_READ = 4000  # the run holds the page rows of this many events at a time
serves_workers(__name__)  # run_job


def _event_chunks(table: pa.Table, processes: int) -> list[pa.Table]:
    """`table` (page rows in event order) cut at event boundaries (parallel.chunk_ranges)."""
    keys = table.column("event_id").to_numpy(zero_copy_only=False)
    return [table.slice(a, b - a) for a, b in chunk_ranges(keys, processes, PAGES_PER_CHUNK)]


def write_event_pages(chunk: tuple[pa.Table, pd.Series, Path]) -> list[Path]:
    """The result pages of the events of one slice of page rows (page_rows, in event order), each
    written where its text changed; returns the folders written. Runs in a worker process for a
    history (map_streamed): it reads nothing but its arguments and the templates."""
    table, org, out_dir = chunk
    organisation = org["organisation"]
    written = []
    # (Arrow's to_pylist: the same Python values as to_dict, without a pandas call per cell)
    for event_id, group in itertools.groupby(table.to_pylist(), key=lambda r: r["event_id"]):
        rel = event_id[len(organisation) + 1:] if event_id.startswith(organisation + "/") else event_id
        target = out_dir / rel
        files = render_event(list(group), org)
        # an event of a touched month whose page would be the same is not written again: its
        # workbook (the costliest part) is made from the same CSV (folder_holds)
        if folder_holds(target, files):
            continue
        replace_folder(target, files)
        written.append(target)
    return written


def _home_clubs(con) -> dict:
    m = fetch(con, "select members.member, coalesce(clubs.name, members.club) as club from se_members members "
                   "left join se_clubs clubs on clubs.club = members.club")
    return dict(zip(m["member"], m["club"]))


def publish_events(con: duckdb.DuckDBPyConnection, org: pd.Series, affected_months: set[str], out_dir: Path,
                   every_event: bool = False, runs: frozenset | None = None, scoped=None) -> list[Path]:
    """The result page of each event this run posted (`runs`: the runs whose rows are new
    tonight; without it, every event of the months this run touched), of every event with
    `every_event` (a new member register), and of any other whose page is missing, written only
    where its text changed; the club month pages of the touched months. With `scoped` (a factory
    of warehouses limited to some months: RunContext.scoped), the rows of tonight's pages are read
    from their months only: `se_results` names the members of every row it reads, and a
    federation's history has millions."""
    organisation = org["organisation"]
    # members and names are lists in the warehouse: the page lists the names, the export writes the
    # numbers as the clubs' files do (space-separated)
    # the events that stand, and of them the ones to render: those this run posted (an event's
    # page shows only its own rows), and any other whose page is missing; only their rows are
    # read (a federation's history has a million)
    standing = fetch(con, "select distinct event_id, event_date from se_result_rows where organisation = ?", [organisation])
    standing = standing.assign(event_id=standing["event_id"].astype(str))
    in_month = standing["event_date"].astype(str).str[:7].isin(affected_months)
    posted_ids = None  # every event of the touched months is tonight's
    if runs is not None and not every_event:
        posted = fetch(con, "select distinct event_id from internal.lake_se_results where organisation = ? "
                            "and run_id in (select unnest(?::varchar[]))", [organisation, sorted(runs)])
        posted_ids = set(posted["event_id"].astype(str))
        in_month &= standing["event_id"].isin(posted_ids)
    in_month = (in_month | every_event).groupby(standing["event_id"]).any()
    # a page missing: one listing of each club's folder, not one look per event of the history
    listings: dict[str, set[str]] = {}
    missing = []
    for e in in_month.index[~in_month.to_numpy()]:
        parent, _, name = (e[len(organisation) + 1:] if e.startswith(organisation + "/") else e).rpartition("/")
        if parent not in listings:
            listings[parent] = existing_names(out_dir / parent)
        if name not in listings[parent]:
            missing.append(e)
    due_ids = list(in_month.index[in_month.to_numpy()]) + missing
    due = pa.table({"event_id": pa.array(due_ids, type=pa.string())})
    due_months = set(standing.loc[standing["event_id"].isin(due_ids), "event_date"].astype(str).str[:7])
    source = (scoped(organisation, due_months | set(affected_months), reads={"se_results", "se_club_fees", "se_series_matches"})
              if scoped is not None and not every_event else con)
    try:
        return _render_events(con, source, org, affected_months, out_dir, standing, due, posted_ids)
    finally:
        if source is not con:
            source.close()


def _club_month(event_id, event_date) -> tuple[str, str] | None:
    """The club month page an event is listed on: (the club's folder, 'YYYY-MM'); None for an
    event outside a club's folder."""
    parts = str(event_id).split("/")
    return (parts[1], str(event_date)[:7]) if len(parts) >= 3 else None


def _render_events(con, source, org: pd.Series, affected_months: set[str], out_dir: Path, standing: pd.DataFrame,
                   due: pa.Table, posted_ids: set[str] | None = None) -> list[Path]:
    """publish_events' pages: the rows of the `due` events and of the touched months' club month
    pages read from `source` (the warehouse `con`, or one limited to their months). `posted_ids`:
    the events whose rows are new tonight (None: every event of the touched months); a club month
    page lists its own club's events only, so only the pages of those events' clubs, of clubs that
    lost an event tonight, and pages missing are rendered (a federation's month has 300)."""
    organisation = org["organisation"]
    # events whose list no longer stands (corrected away, fully quarantined): no page, as in a fresh run.
    # Only the touched months can lose an event or a club month page: the events ever posted are
    # read for those months, and the standing ones taken from those months (not the history's)
    ever = fetch(con, "select distinct event_id, event_date from internal.lake_se_results where organisation = ? "
                      "and strftime(event_date, '%Y-%m') in (select unnest(?::varchar[]))", [organisation, sorted(affected_months)])
    standing = standing[month_keys(standing["event_date"]).isin(affected_months).fillna(False).to_numpy(dtype=bool)]
    remove_withdrawn_events(out_dir, organisation, ever, set(standing["event_id"].astype(str)), affected_months)
    # a monthly page per club (and none for a club month whose every event was withdrawn)
    ever_months = {_club_month(e, d) for e, d in zip(ever["event_id"], ever["event_date"])} - {None}
    # the month's team-series matches: listed on the club's month page, and charged on its fee
    # statement (se_club_fees), so a month with matches only has its page too
    matches = _series_match_rows(source, organisation, affected_months)
    match_months = {_club_month(e, d) for e, d in zip(matches["event_id"], matches["event_date"])} - {None}
    standing_months = ({_club_month(e, d) for e, d in zip(standing["event_id"], standing["event_date"])} | match_months) - {None}
    for slug, month in ever_months - standing_months:
        folder = out_dir / slug / f"månad-{month}"
        if folder.is_dir():
            shutil.rmtree(folder)
    # a club's month page lists every event of the club in the month: one row per event, summed in SQL
    summary = fetch(source, "select event_id, event_date, event_name, level, form, club, club_name, count(*) as entrants, "
                         "sum(bp) as bp, sum(sp) as sp, sum(gp) as gp from se_results where organisation = ? "
                         "and strftime(event_date, '%Y-%m') in (select unnest(?::varchar[])) "
                         "group by all order by event_id", [organisation, sorted(affected_months)])
    summary = pd.concat([summary.assign(href=None), matches], ignore_index=True) if len(matches) else summary.assign(href=None)
    if posted_ids is not None and len(summary):
        standing_ids = set(standing["event_id"].astype(str))
        changed = posted_ids | set(due.column("event_id").to_pylist()) | (set(ever["event_id"].astype(str)) - standing_ids)
        pages_due = {_club_month(e, d) for e, d in zip(ever["event_id"], ever["event_date"]) if str(e) in changed}
        pages_due |= {_club_month(e, d) for e, d in zip(standing["event_id"], standing["event_date"]) if str(e) in changed}
        pages = [_club_month(e, d) for e, d in zip(summary["event_id"], summary["event_date"])]
        pages_due |= {p for p in set(pages) - {None} if not (out_dir / p[0] / f"månad-{p[1]}" / "index.html").is_file()}
        pages_due |= match_months  # (a page whose text is the same is not written again)
        summary = summary.loc[np.array([p in pages_due for p in pages], dtype=bool)]
    fees = fetch(source, "select * from se_club_fees where organisation = ? and month in (select unnest(?::varchar[])) "
                         "order by club, month, level, form", [organisation, sorted(affected_months)])
    # a history's tens of thousands of pages are written by both cores; a night's few in this process
    processes = workers() if len(due) >= PARALLEL_FROM_EVENTS else 1
    home = _home_clubs(con)

    def jobs():
        # the due events' rows read a slice of events at a time, each slice's pages handed to the
        # workers while the next is read: a history holds the rows of a few thousand events as
        # Python values, not all of them. The slice's first and last event bound the query too:
        # DuckDB takes that range down to the rows it scans (before naming the members), not the
        # list of events (a 60 x 24 history's slice: 0.30 -> 0.14 s)
        due_ids = due.sort_by("event_id")
        for start in range(0, len(due_ids), EVENTS_PER_READ):
            ids = due_ids.slice(start, EVENTS_PER_READ)
            source.register("se_events_due", ids)
            try:
                rows = fetch(source, "select * replace (array_to_string(members, ' ') as members), members[1] as first_member "
                                     "from se_results where organisation = ? and event_id between ? and ? "
                                     "and event_id in (select event_id from se_events_due) order by event_id, competition, place",
                             [organisation, ids.column("event_id")[0].as_py(), ids.column("event_id")[-1].as_py()])
            finally:
                source.unregister("se_events_due")
            if len(rows):
                table = pa.Table.from_pandas(page_rows(rows, home), preserve_index=False)
                del rows
                yield from ((write_event_pages, (chunk, org, out_dir)) for chunk in _event_chunks(table, processes))
        if len(summary):
            pages = [_club_month(e, d) or ("", str(d)[:7]) for e, d in zip(summary["event_id"], summary["event_date"])]
            months = summary.assign(slug=[slug for slug, _ in pages], month=[month for _, month in pages])
            yield from ((write_month_pages, (part, fees, out_dir)) for part in _month_chunks(months, processes))

    return [target for part in map_streamed(run_job, jobs(), processes) for target in part]


def _series_match_rows(source, organisation: str, months: set[str]) -> pd.DataFrame:
    """The team-series matches of these months as rows of a club's month page (the summary's
    columns): '<series> omg <round>: home – away', the level of its table, form 'lag', 2 teams, the
    teams' match points summed in the series' denomination, linked to the series' page."""
    rows = fetch(source, """
        select m.match_id as event_id, m.date as event_date,
               m.series_id || ' omg ' || m.round || ': ' || m.home || ' – ' || m.away as event_name,
               l.level, 'lag' as form, coalesce(c.club, split_part(m.series, '/', 2)) as club, c.name as club_name,
               2 as entrants,
               coalesce(m.home_points, 0) + coalesce(m.away_points, 0) as points, m.denomination, m.series_id
        from se_series_matches m
        asof join (select rule_version, cast(effective_from as date) as effective_from from se_rule_versions) v
            on m.date >= v.effective_from
        left join se_series_levels l on l.rule_version = v.rule_version and l."table" = m."table"
        left join se_clubs c on c.organisation = m.organisation and c.slug = split_part(m.series, '/', 2)
        where m.organisation = ? and strftime(m.date, '%Y-%m') in (select unnest(?::varchar[]))
        order by m.match_id""", [organisation, sorted(months)])
    for d in ("bp", "sp", "gp"):
        rows[d] = [p if den == d else 0 for p, den in zip(rows["points"], rows["denomination"])]
    rows["href"] = ["../" + quote(f"serie-{sid}") + "/index.html" for sid in rows["series_id"]]
    return rows.drop(columns=["points", "denomination", "series_id"])


def _figure(value) -> str:
    """A points cell of the month page: whole points as an integer, a series' half or quarter as a decimal."""
    if value is None or pd.isna(value):
        return "0"
    return str(int(value)) if value == int(value) else str(value)


def run_job(job: tuple) -> list[Path]:
    """One chunk of pages (write_event_pages or write_month_pages with its arguments), wherever it runs."""
    function, chunk = job
    return function(chunk)


def _month_chunks(summary: pd.DataFrame, processes: int) -> list[pd.DataFrame]:
    """The club month pages' rows (one per event) cut at page boundaries (parallel.chunk_ranges)."""
    summary = summary.sort_values(["slug", "month"], kind="stable").reset_index(drop=True)
    keys = (summary["slug"] + "\x00" + summary["month"]).to_numpy()
    return [summary.iloc[a:b] for a, b in chunk_ranges(keys, processes, PAGES_PER_CHUNK)]


def _month_page(row: dict) -> tuple[str, str]:
    """The club month page a summary row is listed on: (the club's folder, 'YYYY-MM')."""
    return row["slug"], row["month"]


def write_month_pages(chunk: tuple[pd.DataFrame, pd.DataFrame, Path]) -> list[Path]:
    """The club month pages of one slice of the month summary (one row per event, in page order:
    _month_chunks; with every fee row of the touched months), each written where its text
    changed; returns the folders written."""
    summary, fees, out_dir = chunk
    # the rows as Python values once (a pandas group and its itertuples per page cost about 2 ms)
    fees_of: dict[tuple, list[dict]] = {}
    for r in fees.to_dict("records"):
        fees_of.setdefault((r["club"], r["month"]), []).append(r)
    written = []
    # (sorted by page as pandas sorts the keys: each page's rows together, in their own order)
    for (slug, month), group in itertools.groupby(sorted(summary.to_dict("records"), key=_month_page), key=_month_page):
        # by date: the month's events and its series matches (which come after them in the summary)
        g = sorted(group, key=lambda e: (str(e["event_date"]), str(e["event_id"])))
        club_name = str(g[0]["club_name"] or slug)
        lines = [f"# {markdown_safe(club_name)} – {month}", "",
                 "| datum | tävling | nivå | form | antal | bp | sp | gp |", "|---|---|---|---|---|---|---|---|"]
        events = []
        for e in g:
            name = str(e["event_name"] or e["event_id"])
            href = e.get("href")
            href = href if isinstance(href, str) else "../" + quote("/".join(str(e["event_id"]).split("/")[2:])) + "/index.html"
            events.append({"date": str(e["event_date"]), "name": name, "href": href, "level": e["level"],
                           "form": e["form"], "entrants": int(e["entrants"]), "bp": _figure(e["bp"]), "sp": _figure(e["sp"]),
                           "gp": _figure(e["gp"])})
            lines.append(f"| {e['event_date']} | {markdown_safe(name)} | {e['level']} | "
                         f"{e['form']} | {int(e['entrants'])} | {_figure(e['bp'])} | {_figure(e['sp'])} | {_figure(e['gp'])} |")
        f = fees_of.get((g[0]["club"], month), [])
        lines += ["", "| avgift: nivå | form | speltillfällen | spelartillfällen | kr |", "|---|---|---|---|---|"]
        lines += [f"| {r['level']} | {r['form']} | {r['sessions']} | {r['player_sessions']} | {r['amount_sek']} |" for r in f]
        html = _TEMPLATES.get_template("month.html.j2").render(club_name=club_name, month=month, events=events, fees=f)
        buf = io.StringIO()
        w = csv.writer(buf, delimiter=";", lineterminator="\n")
        w.writerow(["klubb", "månad", "nivå", "form", "speltillfällen", "spelartillfällen", "kr"])
        w.writerows([r["club"], r["month"], r["level"], r["form"], r["sessions"], r["player_sessions"], r["amount_sek"]] for r in f)
        target = out_dir / slug / f"månad-{month}"
        files = {"index.md": "\n".join(lines) + "\n", "index.html": html, "avgifter.csv": buf.getvalue()}
        if folder_holds(target, files):
            continue  # the month of a club with nothing new tonight: not written again
        replace_folder(target, files)
        written.append(target)
    return written


def explain_player(con: duckdb.DuckDBPyConnection, player_id: str, event_id: str | None = None) -> list[str]:
    lines = []
    h = fetch(con, "select * from se_holdings where member = ?", [player_id])
    for r in h.itertuples():
        lines.append(f"Sverige {r.member} {r.name or ''} ({r.club_name or r.club or '?'}): {r.bp} bp, {r.sp} sp, {r.gp} gp = {r.mp} mp")
    r = fetch(con, "select * from se_results where list_contains(members, ?) and (? is null or event_id = ?) "
                   "order by event_date, event_id", [player_id, event_id, event_id])
    for e in r.itertuples():
        section = f" {e.competition}" if e.competition else ""
        lines.append(f"Sverige {e.event_date} {e.event_id} ({e.level} {e.form}{section}): place {e.place_label} of {e.field_size}, "
                     f"entrant {e.entrant}: {int(e.bp)} bp, {int(e.sp)} sp, {int(e.gp)} gp")
    return lines + _class_and_ranking(con, player_id)


def class_notes(con: duckdb.DuckDBPyConnection, organisation: str, members: set[str]) -> dict[str, list[str]]:
    """For the site's player pages: each member's master class and Klöver star now, what the next
    class needs, and the promotions with their dates (all from the member's own lines, so a page
    a night leaves untouched stays true), and the national ranking position with the counted
    results (it moves with everyone's results, so every ranked member's page is due each night:
    ranked_members). Five queries for all the members at once."""
    if not members:
        return {}
    wanted = sorted(members)
    now = fetch(con, "select member, track, level, rule_version, bp, sp, gp from se_levels where organisation = ? "
                     "and member in (select unnest(?)) "
                     "qualify row_number() over (partition by member, track order by run_id desc) = 1", [organisation, wanted])
    classes = fetch(con, "select * from se_master_classes")
    # the promotions (se_promotions) from the level changes the pins list read tonight
    promoted = fetch(con, "select member, reached_on, title, first_time "
                          f"from {tonight(con, 'se_level_changes', organisation)} where change = 'befordran' "
                          "and member in (select unnest(?)) order by member, run_id, track", [wanted])
    notes: dict[str, list[str]] = {}
    # the class text depends on the member's levels and rule version only: made once per
    # combination (a federation's thousands of members share a few), the holdings added per member
    prefixes: dict[tuple, str] = {}
    held: dict[str, dict] = {}
    # the rows' values zipped column by column (the values itertuples gives, without a tuple per
    # row: a night's pages at 300 clubs have tens of thousands of rows here)
    for member, track, level, version, bp, sp, gp in zip(now["member"], now["track"], now["level"], now["rule_version"],
                                                          now["bp"], now["sp"], now["gp"]):  # one row per member and track
        mine = held.setdefault(str(member), {"version": str(version), "levels": {}, "holdings": (bp, sp, gp)})
        mine["levels"][track] = level
    for member in sorted(held):
        mine = held[member]
        key = (mine["version"], mine["levels"].get("klass"), mine["levels"].get("klöverstjärna"))
        if key not in prefixes:
            prefixes[key] = _class_text(key[1], key[2], classes[classes["rule_version"] == key[0]])
        bp, sp, gp = mine["holdings"]
        notes[member] = [prefixes[key] + f"; innehav {bp} bp, {sp} sp, {gp} gp"]
    # in the query's order (member, run, track): each member's promotions in turn, without a frame per member
    for member, reached_on, title, first_time in zip(promoted["member"], promoted["reached_on"], promoted["title"],
                                                     promoted["first_time"]):
        notes.setdefault(str(member), []).append(f"befordran {reached_on}: {title}" + ("" if first_time else " (igen; ingen ny nål)"))
    # the count over the organisation's ranking before the members are picked: the ranking is
    # computed once (a correlated count computed it twice: 1.5 s against 0.7 s at 90,000 events)
    # (the organisation's ranking of tonight, computed once for the night's publications: tonight())
    ranked = fetch(con, "select member, rank, ranking_points, results_counted, ranked from ("
                        "select member, rank, ranking_points, results_counted, count(*) over () as ranked "
                        f"from {tonight(con, 'se_ranking', organisation)}) where member in (select unnest(?))", [wanted])
    counted = fetch(con, "select member, event_date, event_name, place_label, rp "
                         f"from {tonight(con, 'se_ranking_results', organisation)} "
                         "where counted and member in (select unnest(?)) order by member, rp desc, event_date desc, event_id",
                    [wanted])
    results: dict[str, list[str]] = {}
    for member, event_date, event_name, place_label, rp in zip(counted["member"], counted["event_date"], counted["event_name"],
                                                             counted["place_label"], counted["rp"]):
        results.setdefault(str(member), []).append(f"{event_date} {event_name or '–'} (plac {place_label}) {int(rp)} rp")
    for r in ranked.itertuples():
        mine = results.get(str(r.member))
        listed = "" if mine is None else "; räknade resultat: " + ", ".join(mine)
        notes.setdefault(str(r.member), []).append(
            f"nationell ranking: plats {int(r.rank)} av {int(r.ranked)}, {int(r.ranking_points)} rp "
            f"({int(r.results_counted)} resultat räknas){listed}")
    return notes


def ranked_members(con: duckdb.DuckDBPyConnection, organisation: str) -> set[str]:
    """The members whose page shows a ranking position tonight or showed one after the previous run
    (a result in the window as of either date): their position moves without lines of their own.
    Members whose results all expired before the previous run have pages without one already."""
    rows = fetch(con, f"""
        with recent as (select as_of from runs order by run_id desc limit 2)
        select distinct member from {tonight(con, 'se_ranking_results', organisation)}
        where event_date >= cast((select min(cast(as_of as date)) from recent)
                                 - to_months((select max(cast(months as integer)) from se_ranking_parameters)) as date)""")
    return set(rows["member"].astype(str))


def _class_line(now: pd.DataFrame, classes: pd.DataFrame) -> str:
    """'mästarklass: ...; nästa: ...; innehav ...' for one member's latest levels (one row per track)."""
    held = dict(zip(now["track"], now["level"]))
    r = now.iloc[0]
    return _class_text(held.get("klass"), held.get("klöverstjärna"), classes) + f"; innehav {r['bp']} bp, {r['sp']} sp, {r['gp']} gp"


def _class_text(klass, star, classes: pd.DataFrame) -> str:
    """'mästarklass: ...; nästa: ...' for a master class and a Klöver star (either may be missing)."""
    title = dict(zip(classes["level"], classes["title"]))
    text = f"mästarklass: {title.get(klass, 'ingen ännu') if isinstance(klass, str) else 'ingen ännu'}"
    if isinstance(star, str):
        text += f"; {title.get(star, star)}"
    ladder = classes[classes["track"] == "klass"].assign(rank=lambda d: d["rank"].astype(int)).sort_values("rank")
    rank = int(ladder.loc[ladder["level"] == klass, "rank"].iloc[0]) if isinstance(klass, str) else 0
    above = ladder[ladder["rank"] > rank]
    if len(above):
        nxt = above.iloc[0]
        need = [f"minst {nxt['min_mp']} mp"]
        either = [f"{nxt[c]} {c[4:]}" for c in ("min_sp", "min_gp") if nxt[c]]
        if either:
            need.append("varav " + " eller ".join(either))
        swaps = [t for t, c in (("20 bp räknas som 1 sp", "bp_to_sp"), ("20 sp som 1 gp", "sp_to_gp")) if nxt[c] == "ja"]
        text += f"; nästa: {nxt['title']}: {', '.join(need)}" + (f" ({', '.join(swaps)})" if swaps else "")
    return text


def _class_and_ranking(con: duckdb.DuckDBPyConnection, player_id: str) -> list[str]:
    """The member's master class and Klöver star now (se_levels after the member's last run), what the
    next class needs (master_classes.csv), the ranking position, and the promotions with their dates."""
    lines = []
    now = fetch(con, "select track, level, rule_version, bp, sp, gp from se_levels where member = ? "
                     "qualify row_number() over (partition by track order by run_id desc) = 1", [player_id])
    if len(now):
        classes = fetch(con, "select * from se_master_classes where rule_version = ?", [str(now["rule_version"][0])])
        lines.append(f"Sverige {player_id} " + _class_line(now, classes))
    rank = fetch(con, "select * from se_ranking where member = ?", [player_id])
    for r in rank.itertuples():
        lines.append(f"Sverige {player_id} ranking per {r.as_of}: plats {r.rank}, {r.ranking_points} rp, "
                     f"{r.results_counted} resultat räknade, äldsta {r.oldest_counted}")
    promoted = fetch(con, "select reached_on, title, first_time from se_promotions where member = ? order by run_id, track", [player_id])
    for p in promoted.itertuples():
        lines.append(f"Sverige {player_id} befordran {p.reached_on}: {p.title}" + ("" if p.first_time else " (igen; ingen ny nål)"))
    return lines

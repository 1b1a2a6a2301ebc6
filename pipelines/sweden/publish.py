"""Swedish publications: a result list per event (Plac, Par, Namn, Klubb, poäng in bp/sp/gp) as
HTML (escaped by Jinja's autoescape) and CSV (spreadsheet-safe), a monthly page per club, and the
`explain` lines of a member.

    var/publications/svensk-bridge/<club>/<event>/index.html, resultat.csv
    var/publications/svensk-bridge/<club>/månad-<YYYY-MM>/index.md
"""
from __future__ import annotations

import csv
import io
import os
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup, escape

from pipelines.core.publishing import (_FORMULA_START, markdown_safe, replace_folder, spreadsheet_safe, table_exports,
                                       write_folder)
from pipelines.core.sql import fetch

_TEMPLATES = Environment(loader=FileSystemLoader(Path(__file__).parent / "templates"),
                         autoescape=select_autoescape(["html", "j2"]), keep_trailing_newline=True)
_ENTRANT = {"par": "Par", "lagbarometer": "Lag", "individuell": "Spelare"}
_SECTION = {"NS": "Nord–Syd", "ÖV": "Öst–Väst", "1": "Division 1", "2": "Division 2", "": "Resultat"}
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
    first_member = rows["members"].astype(str).str.split(" ", n=1).str[0]
    return rows.assign(names=rows["names"].fillna("").astype(str), club_text=first_member.map(home).fillna(""),
                       bp_text=_num_column(rows["bp"]), sp_text=_num_column(rows["sp"]), gp_text=_num_column(rows["gp"]))


_PAGE_COLUMNS = ["event_id", "event_date", "event_name", "club_name", "level", "form", "competition", "field_size", "boards",
                 "place", "place_label", "entrant", "members", "names", "bp", "sp", "gp", "rule_version"]
_EVENTS_PER_SLICE = 4000


def _home_clubs(con) -> dict:
    m = fetch(con, "select members.member, coalesce(clubs.name, members.club) as club from se_members members "
                   "left join se_clubs clubs on clubs.club = members.club")
    return dict(zip(m["member"], m["club"]))


def _escaped(values: pd.Series) -> np.ndarray:
    """Text as Jinja's autoescape writes it (markupsafe.escape), escaping only the cells that need it."""
    text = values.astype(str)
    out = text.to_numpy(dtype=object).copy()
    need = text.str.contains(r"[&<>\"']", regex=True).to_numpy(dtype=bool)
    if need.any():
        out[need] = [str(escape(v)) for v in out[need]]
    return out


def _safe_cells(values: pd.Series) -> np.ndarray:
    """spreadsheet_safe over a column."""
    text = values.astype(str)
    return text.where(~text.str.startswith(_FORMULA_START), "'" + text).to_numpy(dtype=object)


def _event_pages(pages: pd.DataFrame, org: pd.Series, organisation: str, out_dir: Path) -> list[Path]:
    """Every event's index.html and resultat.csv (+ .xlsx) from columns computed once over all
    its rows: the table rows as HTML and CSV cells column-wise, then one folder per event."""
    if not len(pages):
        return []
    html_rows = ("<tr><td>" + _escaped(pages["place_label"]) + "</td><td>" + _escaped(pages["entrant"]) + "</td><td>"
                 + _escaped(pages["names"]) + "</td><td>" + _escaped(pages["club_text"]) + "</td><td>" + _escaped(pages["bp_text"])
                 + "</td><td>" + _escaped(pages["sp_text"]) + "</td><td>" + _escaped(pages["gp_text"]) + "</td></tr>\n")
    cells = list(zip(pages["place_label"].astype(str), _safe_cells(pages["entrant"]), _safe_cells(pages["names"]),
                     pages["members"].astype(str), _safe_cells(pages["club_text"]), pages["bp_text"], pages["sp_text"], pages["gp_text"]))
    event = pages["event_id"].to_numpy(dtype=object)
    competition = pages["competition"].to_numpy(dtype=object)
    starts = np.flatnonzero(np.r_[True, event[1:] != event[:-1]])
    stops = np.r_[starts[1:], len(event)]
    template = _TEMPLATES.get_template("event.html.j2")
    field_size, form, event_name, club_name, event_date, level, boards, rule_version = (
        pages[c].tolist() for c in ("field_size", "form", "event_name", "club_name", "event_date", "level", "boards", "rule_version"))
    written = []
    for start, stop in zip(starts.tolist(), stops.tolist()):
        comps = []
        at = start
        while at < stop:  # the competitions of the event, sorted (rows are in page order)
            end = at + 1
            while end < stop and competition[end] == competition[at]:
                end += 1
            comps.append({"heading": f"{_SECTION.get(competition[at], competition[at])} ({int(field_size[at])})",
                          "entrant_label": _ENTRANT.get(form[start], "Par"), "rows_html": Markup("".join(html_rows[at:end]))})
            at = end
        html = template.render(
            title=event_name[start] or event[start], organisation_name=org["display_name"], club_name=club_name[start] or "",
            event_date=event_date[start], level=level[start], form=form[start], boards=boards[start],
            rule_version=rule_version[start], competitions=comps)
        event_id = event[start]
        rel = event_id[len(organisation) + 1:] if event_id.startswith(organisation + "/") else event_id
        target = out_dir / rel
        write_folder(target, {"index.html": html, **table_exports("resultat.csv", ";", CSV_COLUMNS, [list(r) for r in cells[start:stop]])})
        written.append(target)
    return written


def publish_events(con: duckdb.DuckDBPyConnection, org: pd.Series, affected_months: set[str], out_dir: Path,
                   scoped=None) -> list[Path]:
    """The pages of the events of the affected months (and any page found missing), the monthly
    pages of those months. With `scoped` (a factory of warehouses over some months' lake files),
    the rows of the affected months are read from those months only, so a night's cost does not
    follow the size of the history."""
    organisation = org["organisation"]
    # the events of the current result lists (se_results' own current_results, without its names)
    events = fetch(con, "select distinct r.event_id, strftime(r.event_date, '%Y-%m') as month from lake_se_results r "
                        "join sources s on s.organisation = r.organisation and s.source_file = r.source_file "
                        "and s.sha256 = r.source_sha256 where s.is_current and r.organisation = ?", [organisation])
    written = []
    if not len(events):
        return written
    affected = events["month"].isin(affected_months).groupby(events["event_id"]).transform("any")
    # events of other months are written only when their page is missing (one listing per folder)
    others = events.loc[~affected, "event_id"].drop_duplicates().astype(str)
    rel = others.map(lambda e: e[len(organisation) + 1:] if e.startswith(organisation + "/") else e)
    listed: dict[str, set] = {}
    missing = []
    for event_id, path in zip(others, rel):
        folder, _, name = path.rpartition("/")
        if folder not in listed:
            where = out_dir / folder if folder else out_dir
            listed[folder] = set(os.listdir(where)) if where.is_dir() else set()
        if name not in listed[folder]:
            missing.append(event_id)
    wanted = sorted(set(events.loc[affected, "event_id"].astype(str)) | set(missing))
    if not wanted:
        return written
    # the page rows once as Arrow (compact), then pages a slice of events at a time: a first run
    # publishes every event, and Python objects for all their rows at once would need gigabytes
    source = scoped(organisation, set(affected_months)) if scoped and affected_months and not missing else con
    table = source.sql(f"select {', '.join(_PAGE_COLUMNS)} from se_results where organisation = ? "
                       "and event_id in (select unnest(?)) order by event_id, competition, place",
                       params=[organisation, wanted]).to_arrow_table()
    home = _home_clubs(con)
    event = table.column("event_id").to_numpy(zero_copy_only=False)
    starts = np.flatnonzero(np.r_[True, event[1:] != event[:-1]]) if len(event) else np.array([], dtype="int64")
    del event
    for first in range(0, len(starts), _EVENTS_PER_SLICE):
        begin = int(starts[first])
        end = int(starts[first + _EVENTS_PER_SLICE]) if first + _EVENTS_PER_SLICE < len(starts) else table.num_rows
        rows = table.slice(begin, end - begin).to_pandas(types_mapper=pd.ArrowDtype)
        written += _event_pages(page_rows(rows, home), org, organisation, out_dir)
        del rows
    del table
    # a monthly page per club (the affected months): one row per event, aggregated in SQL
    if affected_months:
        per_event = fetch(source, "select event_id, any_value(event_date) as event_date, any_value(event_name) as event_name, "
                               "any_value(level) as level, any_value(form) as form, count(*) as entrants, sum(bp) as bp, "
                               "sum(sp) as sp, sum(gp) as gp, any_value(club_name) as club_name, any_value(club) as club "
                               "from se_results where organisation = ? and strftime(event_date, '%Y-%m') in (select unnest(?)) "
                               "group by event_id", [organisation, sorted(affected_months)])
    else:
        per_event = pd.DataFrame()
    if len(per_event):
        parts = per_event["event_id"].astype(str).str.split("/")
        per_event = per_event.assign(month=per_event["event_date"].astype(str).str[:7],
                                     slug=parts.str[1].where(parts.str.len() >= 3, ""))
        per_event = per_event.sort_values(["slug", "month", "event_id"], ignore_index=True)
        fees = fetch(source, "select * from se_club_fees where organisation = ? and month in (select unnest(?)) "
                             "order by club, month, level, form", [organisation, sorted(affected_months)])
        fee_rows: dict[tuple, list] = {}
        for r in fees.itertuples():
            fee_rows.setdefault((r.club, r.month), []).append(r)
        records = list(zip(*(per_event[c].tolist() for c in ("slug", "month", "event_id", "event_date", "event_name", "level",
                                                                "form", "entrants", "bp", "sp", "gp", "club_name", "club"))))
        pages_of = {}
        for r in records:  # per_event is sorted by club folder, month, event
            pages_of.setdefault((r[0], r[1]), []).append(r)
        for (slug, month), g in pages_of.items():
            lines = [f"# {markdown_safe(str(g[0][11] or slug))} – {month}", "",
                     "| datum | tävling | nivå | form | antal | bp | sp | gp |", "|---|---|---|---|---|---|---|---|"]
            for _, _, event_id, event_date, event_name, level, form, entrants, bp, sp, gp, _, _ in g:
                lines.append(f"| {event_date} | {markdown_safe(str(event_name or event_id))} | {level} | "
                             f"{form} | {entrants} | {int(bp)} | {int(sp)} | {int(gp)} |")
            f = fee_rows.get((g[0][12], month), [])
            lines += ["", "| avgift: nivå | form | speltillfällen | spelartillfällen | kr |", "|---|---|---|---|---|"]
            lines += [f"| {r.level} | {r.form} | {r.sessions} | {r.player_sessions} | {r.amount_sek} |" for r in f]
            buf = io.StringIO()
            w = csv.writer(buf, delimiter=";", lineterminator="\n")
            w.writerow(["klubb", "månad", "nivå", "form", "speltillfällen", "spelartillfällen", "kr"])
            for r in f:
                w.writerow([r.club, r.month, r.level, r.form, r.sessions, r.player_sessions, r.amount_sek])
            target = out_dir / slug / f"månad-{month}"
            replace_folder(target, {"index.md": "\n".join(lines) + "\n", "avgifter.csv": buf.getvalue()})
            written.append(target)
    if source is not con:
        source.close()
    return written


def explain_player(con: duckdb.DuckDBPyConnection, player_id: str, event_id: str | None = None) -> list[str]:
    lines = []
    h = fetch(con, "select * from se_holdings where member = ?", [player_id])
    for r in h.itertuples():
        lines.append(f"Sverige {r.member} {r.name or ''} ({r.club_name or r.club or '?'}): {r.bp} bp, {r.sp} sp, {r.gp} gp = {r.mp} mp")
    r = fetch(con, "select * from se_results where list_contains(string_split(members, ' '), ?) and (? is null or event_id = ?) "
                   "order by event_date, event_id", [player_id, event_id, event_id])
    for e in r.itertuples():
        section = f" {e.competition}" if e.competition else ""
        lines.append(f"Sverige {e.event_date} {e.event_id} ({e.level} {e.form}{section}): place {e.place_label} of {e.field_size}, "
                     f"entrant {e.entrant}: {int(e.bp)} bp, {int(e.sp)} sp, {int(e.gp)} gp")
    return lines

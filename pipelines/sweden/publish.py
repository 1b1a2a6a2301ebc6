"""Swedish publications: a result list per event (Plac, Par, Namn, Klubb, poäng in bp/sp/gp) as
HTML (escaped by Jinja's autoescape) and CSV (spreadsheet-safe), a monthly page per club, and the
`explain` lines of a member.

    var/publications/svensk-bridge/<club>/<event>/index.html, resultat.csv
    var/publications/svensk-bridge/<club>/månad-<YYYY-MM>/index.md
"""
from __future__ import annotations

import csv
import io
from pathlib import Path

import duckdb
import pandas as pd
from jinja2 import Environment, FileSystemLoader, select_autoescape

from pipelines.core.publishing import markdown_safe, replace_folder, spreadsheet_safe
from pipelines.core.sql import fetch

_TEMPLATES = Environment(loader=FileSystemLoader(Path(__file__).parent / "templates"),
                         autoescape=select_autoescape(["html", "j2"]), keep_trailing_newline=True)
_ENTRANT = {"par": "Par", "lagbarometer": "Lag", "individuell": "Spelare"}
_SECTION = {"NS": "Nord–Syd", "ÖV": "Öst–Väst", "1": "Division 1", "2": "Division 2", "": "Resultat"}
CSV_COLUMNS = ["plac", "par", "namn", "medlemmar", "klubb", "bp", "sp", "gp"]


def _num(v) -> str:
    return "" if v is None or pd.isna(v) or v == 0 else str(int(v))


def render_event(rows: pd.DataFrame, org: pd.Series, home: dict) -> dict[str, str]:
    first = rows.iloc[0]
    comps = []
    for section, g in rows.groupby("competition", sort=True):
        comps.append({"heading": f"{_SECTION.get(section, section)} ({int(g['field_size'].iloc[0])})",
                      "entrant_label": _ENTRANT.get(first["form"], "Par"),
                      "rows": [{"place_label": r.place_label, "entrant": r.entrant, "names": r.names or "",
                                "club": home.get(r.members.split()[0], ""), "bp": _num(r.bp), "sp": _num(r.sp), "gp": _num(r.gp)}
                               for r in g.sort_values(["place", "entrant"]).itertuples()]})
    html = _TEMPLATES.get_template("event.html.j2").render(
        title=first["event_name"] or first["event_id"], organisation_name=org["display_name"],
        club_name=first["club_name"] or "", event_date=first["event_date"], level=first["level"], form=first["form"],
        boards=first["boards"], rule_version=first["rule_version"], competitions=comps)
    buf = io.StringIO()
    w = csv.writer(buf, delimiter=";", lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for r in rows.sort_values(["competition", "place", "entrant"]).itertuples():
        w.writerow([r.place_label, spreadsheet_safe(r.entrant), spreadsheet_safe(r.names or ""), r.members,
                    spreadsheet_safe(home.get(r.members.split()[0], "")), _num(r.bp), _num(r.sp), _num(r.gp)])
    return {"index.html": html, "resultat.csv": buf.getvalue()}


def _home_clubs(con) -> dict:
    m = fetch(con, "select members.member, coalesce(clubs.name, members.club) as club from se_members members "
                   "left join se_clubs clubs on clubs.club = members.club")
    return dict(zip(m["member"], m["club"]))


def publish_events(con: duckdb.DuckDBPyConnection, org: pd.Series, affected_months: set[str], out_dir: Path) -> list[Path]:
    organisation = org["organisation"]
    rows = fetch(con, "select * from se_results where organisation = ? order by event_id, competition, place", [organisation])
    home = _home_clubs(con)
    written = []
    for event_id, g in rows.groupby("event_id", sort=True):
        rel = event_id[len(organisation) + 1:] if event_id.startswith(organisation + "/") else event_id
        target = out_dir / rel
        if str(g["event_date"].iloc[0])[:7] not in affected_months and target.exists():
            continue
        replace_folder(target, render_event(g.reset_index(drop=True), org, home))
        written.append(target)
    # a monthly page per club
    if len(rows):
        rows = rows.assign(month=rows["event_date"].astype(str).str[:7],
                           slug=rows["event_id"].map(lambda e: str(e).split("/")[1] if str(e).count("/") >= 2 else ""))
        fees = fetch(con, "select * from se_club_fees where organisation = ?", [organisation])
        for (slug, month), g in rows.groupby(["slug", "month"]):
            if month not in affected_months:
                continue
            lines = [f"# {markdown_safe(str(g['club_name'].iloc[0] or slug))} – {month}", "",
                     "| datum | tävling | nivå | form | antal | bp | sp | gp |", "|---|---|---|---|---|---|---|---|"]
            for eid, e in g.groupby("event_id", sort=True):
                lines.append(f"| {e['event_date'].iloc[0]} | {markdown_safe(str(e['event_name'].iloc[0] or eid))} | {e['level'].iloc[0]} | "
                             f"{e['form'].iloc[0]} | {len(e)} | {int(e['bp'].sum())} | {int(e['sp'].sum())} | {int(e['gp'].sum())} |")
            f = fees[(fees["club"] == g["club"].iloc[0]) & (fees["month"] == month)]
            lines += ["", "| avgift: nivå | form | speltillfällen | spelartillfällen | kr |", "|---|---|---|---|---|"]
            lines += [f"| {r.level} | {r.form} | {r.sessions} | {r.player_sessions} | {r.amount_sek} |" for r in f.itertuples()]
            buf = io.StringIO()
            w = csv.writer(buf, delimiter=";", lineterminator="\n")
            w.writerow(["klubb", "månad", "nivå", "form", "speltillfällen", "spelartillfällen", "kr"])
            for r in f.itertuples():
                w.writerow([r.club, r.month, r.level, r.form, r.sessions, r.player_sessions, r.amount_sek])
            target = out_dir / slug / f"månad-{month}"
            replace_folder(target, {"index.md": "\n".join(lines) + "\n", "avgifter.csv": buf.getvalue()})
            written.append(target)
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

"""The monthly pins list (seed page 1: "Mästarnål och mästarbevis skickas till spelarens klubb per
automatik"): each month, per club, the members who reached a master class or star for the first time
(se_promotions, first_time), and the reversals of that month (se_level_reversals) for the office to
decide on. A printable HTML page (one page per club when printed) and a CSV.

    var/publications/svensk-bridge/nålar/<YYYY-MM>/index.html, nålar.csv

Pure steps (`pin_rows`, `reversal_rows`, `render_month`) and one I/O function (`publish_pins`).
"""
from __future__ import annotations

import csv
import hashlib
import io
import re
import shutil
from pathlib import Path

import duckdb
import pandas as pd
from pipelines.core.templating import rendering_code, template_env

from pipelines.core.pager import without_nav
from pipelines.core.publishing import folder_holds, replace_file, replace_folder, spreadsheet_safe
from pipelines.core.sql import fetch
from pipelines.sweden.ranking_page import tonight

_TEMPLATES = template_env(Path(__file__).parent / "templates")
# the code a month's list is made with (its templates and this module): part of its rows' digest
_CODE = rendering_code(Path(__file__).parent / "templates", __file__, {})
FOLDER = "nålar"
CSV_COLUMNS = ["månad", "klubb", "klubbnamn", "medlemsnummer", "namn", "nivå", "mästarvärdighet", "uppnådd", "körning"]


def pin_rows(promotions: pd.DataFrame) -> pd.DataFrame:
    """The pins due: first-time promotions, with their month, in club, date, name order."""
    p = promotions[promotions["first_time"].astype(bool)]
    return (p.assign(month=p["reached_on"].astype(str).str[:7], club=p["club"].fillna("").astype(str),
                     club_name=p["club_name"].fillna(p["club"]).fillna("").astype(str), name=p["name"].fillna("").astype(str),
                     reached_on=p["reached_on"].astype(str))
             .sort_values(["month", "club", "reached_on", "name", "member", "level"], kind="stable")
             .reset_index(drop=True))


def reversal_rows(reversals: pd.DataFrame) -> pd.DataFrame:
    return (reversals.assign(month=reversals["changed_on"].astype(str).str[:7], club=reversals["club"].fillna("").astype(str),
                             club_name=reversals["club_name"].fillna(reversals["club"]).fillna("").astype(str),
                             name=reversals["name"].fillna("").astype(str), changed_on=reversals["changed_on"].astype(str))
            .sort_values(["month", "club", "changed_on", "member"], kind="stable").reset_index(drop=True))


def render_month(month: str, pins: pd.DataFrame, reversals: pd.DataFrame, titles: dict, organisation_name: str,
                 as_of: str, rows: str | None = None) -> dict[str, str]:
    """One month's files from its rows (pin_rows / reversal_rows of that month); `rows`: their
    digest (rows_digest), kept in the page for the next night."""
    clubs = sorted(set(pins["club"]) | set(reversals["club"]))
    names = {**dict(zip(reversals["club"], reversals["club_name"])), **dict(zip(pins["club"], pins["club_name"]))}
    # one pass over the month's rows (in club order already), not one filter per club
    promotions: dict[str, list[dict]] = {}
    for r in pins.itertuples():
        promotions.setdefault(r.club, []).append({"member": r.member, "name": r.name, "title": r.title,
                                                  "reached_on": r.reached_on})
    lost: dict[str, list[dict]] = {}
    for r in reversals.itertuples():
        lost.setdefault(r.club, []).append({"member": r.member, "name": r.name, "lost": titles.get(r.level_lost, r.level_lost),
                                            "now": titles.get(r.level_now, r.level_now) if isinstance(r.level_now, str) else "ingen",
                                            "changed_on": r.changed_on})
    sections = [{"club": c, "name": names.get(c) or c or "(okänd klubb)", "promotions": promotions.get(c, []),
                 "reversals": lost.get(c, [])} for c in clubs]
    versions = ", ".join(sorted(set(pins["rule_version"]) | set(reversals["rule_version"])))
    html = _TEMPLATES.get_template("pins.html.j2").render(month=month, clubs=sections, organisation_name=organisation_name,
                                                         rule_versions=versions, as_of=as_of, rows=rows)
    return {"index.html": html, "nålar.csv": month_csv(month, pins)}


def month_csv(month: str, pins: pd.DataFrame) -> str:
    """The month's pins as CSV (the same rows as its page's promotions)."""
    buf = io.StringIO()
    w = csv.writer(buf, delimiter=";", lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    w.writerows([month, r.club, spreadsheet_safe(r.club_name), r.member, spreadsheet_safe(r.name), r.level, r.title,
                 r.reached_on, r.run_id] for r in pins.itertuples())
    return buf.getvalue()


_MADE_ON = re.compile(r"listan gjord (\d{4}-\d{2}-\d{2})")
_ROWS = re.compile(r'<meta name="pointledger-rows" content="([0-9a-f]*)">\n?')


def rows_digest(month: str, pins: pd.DataFrame, reversals: pd.DataFrame, titles: dict, organisation_name: str) -> str:
    """Everything a month's list is made from but its date, as one SHA-256: the month's rows (a
    64-bit hash of each, in order, with the columns' names), the titles, the organisation's name
    and the code (_CODE). Equal digests: the list would be made again as it stands."""
    digest = hashlib.sha256(repr((month, sorted(titles.items()), organisation_name, _CODE)).encode("utf-8"))
    for frame in (pins, reversals):
        digest.update(repr(list(frame.columns)).encode("utf-8"))
        digest.update(pd.util.hash_pandas_object(frame, index=False).to_numpy().tobytes())
    return digest.hexdigest()[:32]


def _held(folder: Path) -> tuple[str | None, str | None, str | None]:
    """(the month's page as published, the date it says it was made on, its rows' digest)."""
    page = folder / "index.html"
    if not page.is_file():
        return None, None, None
    text = page.read_text(encoding="utf-8")
    made, rows = _MADE_ON.search(text), _ROWS.search(text)
    return text, made.group(1) if made else None, rows.group(1) if rows else None


def publish_pins(con: duckdb.DuckDBPyConnection, org: pd.Series, out_dir: Path, as_of: str) -> list[Path]:
    """Every month's pins list; a month with none left is removed. A month's list says the date it
    was made on (`as_of` of the night its rows last changed)."""
    organisation = org["organisation"]
    # se_promotions and se_level_reversals are the two kinds of se_level_changes: read once (the
    # player notes read the promotions again), split here with the reversal view's column names
    changes = fetch(con, f"select * from {tonight(con, 'se_level_changes', organisation)}")
    pins = pin_rows(changes[changes["change"] == "befordran"])
    reversals = reversal_rows(changes[changes["change"] == "återgång"].rename(
        columns={"previous_level": "level_lost", "level": "level_now", "reached_on": "changed_on"}))
    levels = fetch(con, "select level, title from se_master_classes")
    titles = dict(zip(levels["level"], levels["title"]))
    months = sorted(set(pins["month"]) | set(reversals["month"]))
    root = out_dir / FOLDER
    written = []
    # plain Python values: the months' rows are iterated row by row to build their pages
    pins, reversals = pins.astype(object), reversals.astype(object)
    name = str(org.get("display_name", organisation))
    for month in months:
        mine, lost = pins[pins["month"] == month], reversals[reversals["month"] == month]
        # a list keeps the date it was made on while its rows stand as they are: a night that
        # changes nothing in a month rewrites nothing of it (its workbook is the costly part).
        # Its page keeps the digest of its rows: equal, nothing is made (a history's first month
        # holds every promotion posted by the first run: 36,058 rows rendered and compared again
        # each night took about 2 s); else the CSV is compared, then the page
        folder = root / month
        digest = rows_digest(month, mine, lost, titles, name)
        held, made, held_digest = _held(folder)
        if made is not None and held_digest == digest and (folder / "nålar.csv").is_file() and (folder / "nålar.xlsx").is_file():
            continue
        if made is not None and folder_holds(folder, {"nålar.csv": month_csv(month, mine)}):
            as_made = render_month(month, mine, lost, titles, name, made, digest)
            if _ROWS.sub("", without_nav(held)) == _ROWS.sub("", as_made["index.html"]):
                # the same list made before its page kept a digest (or of rows that show the same):
                # the page takes tonight's digest, its date and its CSV and workbook stay
                replace_file(folder / "index.html", as_made["index.html"].encode("utf-8"))
                written.append(folder)
                continue
        replace_folder(folder, render_month(month, mine, lost, titles, name, as_of, digest))
        written.append(folder)
    if root.is_dir():
        for stale in root.iterdir():
            if stale.is_dir() and not stale.name.startswith(".") and stale.name not in months:
                shutil.rmtree(stale)
    return written


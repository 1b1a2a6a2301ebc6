"""JCBL publications: one folder per event with its awards table as the JCBL page shows them
(place, players, RP, BP), and the `explain` lines of a JCBL player.

Players are shown by name where the organisation's member register (members.csv, the warehouse
table jcbl_members) knows their id: the name, "name (id)" where two members share it, the plain
id where the register does not know it (pipelines/core/register.py).

    var/publications/<organisation>/<event>/index.html   players who received points, per field
    var/publications/<organisation>/<event>/awards.csv    every entrant of the standings with its RP/BP

<event> is the event's path in the organisation's inbox folder without its suffix
(jcbl-tokyo/2024-06-16-stf.standings.csv → var/publications/jcbl-tokyo/2024-06-16-stf/).
"""
from __future__ import annotations

import csv
import io
from decimal import Decimal
from pathlib import Path

import duckdb
import pandas as pd
from pipelines.core.templating import template_env

from pipelines.core.sql import fetch
from pipelines.core.publishing import event_folder, remove_withdrawn_events, replace_folder, spreadsheet_safe
from pipelines.core.register import label_players
from pipelines.jcbl.parse import REGISTER_NAME

_TEMPLATES = template_env(Path(__file__).parent / "templates")
_UNIT_LABEL = {"pair": ("ペア", "ペア", "組"), "team": ("チーム", "チーム", "チーム")}
CSV_COLUMNS = ["event_id", "event_date", "event_name", "kind", "unit", "flight", "rank", "entrant", "players",
               "rp", "bp", "mp", "session_1_pct", "session_2_pct", "winning_vp", "player_names"]


def _standings(con: duckdb.DuckDBPyConnection, organisation: str) -> pd.DataFrame:
    return fetch(
        con,
        """
        -- the players as the standings file writes them (the warehouse's list, space-joined)
        select * replace (array_to_string(players, ' ') as players) from jcbl_standings
        where organisation = ?
        order by event_id, case unit when 'team' then 0 else 1 end, flight, rank, entrant
        """,
        [organisation],
    )


def shown_names(con: duckdb.DuckDBPyConnection, organisation: str) -> dict[str, str]:
    """{member_id: how pages show the member} from the organisation's register."""
    members = fetch(con, "select member_id, shown_as from jcbl_members where organisation = ?", [organisation])
    return dict(zip(members["member_id"].astype(str), members["shown_as"].astype(str)))


def register_changed(con: duckdb.DuckDBPyConnection, organisation: str) -> bool:
    """Whether the latest run read a new version of the organisation's member register."""
    from pipelines.core.register import register_changed as changed

    return changed(con, organisation, f"{organisation}/{REGISTER_NAME}")


def _text(value) -> str:
    return "" if value is None or pd.isna(value) else str(value)


def _score(value) -> str:
    """A stored percentage or VP (4 decimals) as written: 63.4000 → 63.40, 12.3450 → 12.345."""
    if value is None or pd.isna(value):
        return ""
    two = value.quantize(Decimal("0.01"))
    return str(two) if two == value else str(value.normalize())


def render_event(rows: pd.DataFrame, org: pd.Series, names: dict[str, str] | None = None) -> dict[str, str]:
    """The publication files of one event (rows: its jcbl_standings rows, in order; names: how
    each member of the register is shown)."""
    first = rows.iloc[0]
    rows = rows.assign(player_names=label_players(rows["players"], names or {}))
    fields = []
    for (unit, flight), g in rows.groupby(["unit", "flight"], sort=False):
        name, entrant_label, counter = _UNIT_LABEL.get(unit, (unit, unit, ""))
        fields.append({
            "heading": name + (f" フライト{flight}" if flight else ""),
            "unit_label": counter,
            "entrant_label": entrant_label,
            "size": int(g["field_size"].iloc[0]),
            "rows": [
                {"rank_label": r.rank_label, "entrant": r.entrant, "players": r.player_names,
                 # each player's shown name kept whole on a phone (the line breaks between players)
                 "player_list": [(names or {}).get(p, p) for p in str(r.players or "").split()],
                 "rp": r.rp, "bp": r.bp, "mp": r.mp, "earned": r.rp > 0 or r.bp > 0}
                for r in g.itertuples()  # every entrant: "10 組" above the table is the rows below it
            ],
        })
    html = _TEMPLATES.get_template("event.html.j2").render(
        title=first["event_name"] or first["kind_label"],
        organisation_name=org["display_name"],
        event_id=first["event_id"],
        event_date=first["event_date"],
        kind_label=first["kind_label"],
        rule_version=first["rule_version"],
        fields=fields,
    )
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for r in rows.itertuples():
        writer.writerow([
            spreadsheet_safe(r.event_id), r.event_date, spreadsheet_safe(_text(r.event_name)), r.kind, r.unit, r.flight,
            r.rank_label, spreadsheet_safe(r.entrant), spreadsheet_safe(r.players), r.rp, r.bp, r.mp,
            _score(r.session_1_pct), _score(r.session_2_pct), _score(r.winning_vp),
            spreadsheet_safe(r.player_names),
        ])
    return {"index.html": html, "awards.csv": buffer.getvalue()}


_folder = event_folder


def publish_events(con: duckdb.DuckDBPyConnection, org: pd.Series, affected_months: set[str], out_dir: Path,
                   every_event: bool = False) -> list[Path]:
    """(Re)write the publication of every event in a month touched by this run, and of any event
    missing one (`every_event`: of every event, as the night a new register arrives); remove the
    publication of an event whose standings no longer stand."""
    organisation = org["organisation"]
    rows = _standings(con, organisation)
    names = shown_names(con, organisation)
    written = []
    current = set()
    for event_id, g in rows.groupby("event_id", sort=True):
        target = _folder(out_dir, organisation, event_id)
        current.add(event_id)
        if not every_event and str(g["event_date"].iloc[0])[:7] not in affected_months and target.exists():
            continue
        replace_folder(target, render_event(g.reset_index(drop=True), org, names))
        written.append(target)
    ever = fetch(con, "select distinct event_id, event_date from internal.lake_jcbl_standings where organisation = ?", [organisation])
    remove_withdrawn_events(out_dir, organisation, ever, current, affected_months)
    return written


def explain_player(con: duckdb.DuckDBPyConnection, player_id: str, event_id: str | None = None) -> list[str]:
    """Season RP/BP/MP of a JCBL player, then each entry of the player with its place and award."""
    lines = []
    seasons = fetch(
        con,
        "select * from jcbl_masterpoints where player_id = ? order by organisation, season",
        [player_id],
    )
    for r in seasons.itertuples():
        lines.append(f"JCBL {r.organisation} season {r.season}: RP {r.rp} + BP {r.bp} = MP {r.mp}; "
                     f"lifetime MP {r.lifetime_mp}")
    entries = fetch(
        con,
        """
        select * from jcbl_standings
        where list_contains(players, ?) and (? is null or event_id = ?)
        order by organisation, event_date, event_id, unit desc, entrant
        """,
        [player_id, event_id, event_id],
    )
    for r in entries.itertuples():
        where = f"{r.unit} {r.entrant}" + (f" (flight {r.flight})" if r.flight else "")
        lines.append(f"JCBL {r.event_date} {r.event_id} {r.kind_label}: {where} place {r.rank_label} of {r.field_size}: "
                     f"RP {r.rp}, BP {r.bp} [{r.source_file} {r.location}]")
    return lines

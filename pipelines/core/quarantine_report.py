"""The quarantine report a club secretary works from: per organisation, the problems that are
still open (the quarantined file version is still the current one), with what was found where.

    var/publications/<organisation>/quarantine/{index.html, quarantine.csv, quarantine.xlsx}
"""
from __future__ import annotations

from pathlib import Path

import duckdb
import pandas as pd
from jinja2 import Environment, FileSystemLoader, select_autoescape

from pipelines.core.publishing import replace_folder, spreadsheet_safe, write_table

TEMPLATES = Path(__file__).parent / "templates"
# no run ids: the same open problems give the same report however many runs it took
COLUMNS = ["source_file", "location", "reason", "record"]

_environment = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(["html"]))

OPEN_PROBLEMS = """
select source_file, location, reason, coalesce(record, '') as record
from quarantine
where organisation = ? and is_open
order by source_file, location, reason
"""


def open_problems(con: duckdb.DuckDBPyConnection, organisation: str) -> pd.DataFrame:
    return con.execute(OPEN_PROBLEMS, [organisation]).df().reindex(columns=COLUMNS).fillna("").astype(str)


def render(problems: pd.DataFrame, organisation: str, as_of: str) -> dict[str, str]:
    """The report's files: the page and the spreadsheet (replace_folder adds the .xlsx)."""
    rows = [[spreadsheet_safe(str(v)) for v in row] for row in problems[COLUMNS].itertuples(index=False)]
    page = _environment.get_template("quarantine.html").render(
        organisation=organisation, as_of=as_of,
        rows=problems.to_dict("records"), files=problems["source_file"].nunique())
    return {"index.html": page, "quarantine.csv": write_table(",", COLUMNS, rows)}


def publish(con: duckdb.DuckDBPyConnection, organisation: str, out_dir: Path, as_of: str) -> Path:
    target = out_dir / "quarantine"
    replace_folder(target, render(open_problems(con, organisation), organisation, as_of))
    return target

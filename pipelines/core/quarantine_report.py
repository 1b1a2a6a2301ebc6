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
from pipelines.core.templating import FIXED_TEMPLATES

TEMPLATES = Path(__file__).parent / "templates"
# no run ids: the same open problems give the same report however many runs it took
COLUMNS = ["source_file", "location", "reason", "record"]

_environment = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(["html"]), **FIXED_TEMPLATES)

# The problems of the latest read of each current file version: a version read again (its partner
# file arrived) is described by that read, not by every earlier one.
OPEN_PROBLEMS = """
with

open_rows as (
    select * from quarantine where organisation = ? and is_open
),

latest_read as (
    select *, max(run_id) over (partition by source_file) as latest_run_id from open_rows
)

select distinct source_file, location, reason, coalesce(record, '') as record
from latest_read
where run_id = latest_run_id
order by source_file, location, reason, record
"""


def open_problems(con: duckdb.DuckDBPyConnection, organisation: str) -> pd.DataFrame:
    return con.execute(OPEN_PROBLEMS, [organisation]).df().reindex(columns=COLUMNS).fillna("").astype(str)


def render(problems: pd.DataFrame, organisation: str, delimiter: str = ",", texts: dict[str, str] | None = None,
           lang: str = "en") -> dict[str, str]:
    """The report's files: the page, in the organisation's language (`texts`: its fixed texts from
    data/site/messages.csv, English if not given), and the spreadsheet (replace_folder adds the
    .xlsx); the CSV with the separator of the organisation's other tables (`;` for a Swedish
    federation) and the same column names in every language (the problems are the pipeline's)."""
    if texts is None:
        from pipelines.core.site import messages
        from pipelines.core.settings import DATA_DIR

        texts, lang = messages(DATA_DIR, "en"), "en"
    rows = [[spreadsheet_safe(str(v)) for v in row] for row in problems[COLUMNS].itertuples(index=False)]
    page = _environment.get_template("quarantine.html").render(
        organisation=organisation, t=texts, lang=lang,
        rows=problems.to_dict("records"), files=problems["source_file"].nunique())
    return {"index.html": page, "quarantine.csv": write_table(delimiter, COLUMNS, rows)}


def publish(con: duckdb.DuckDBPyConnection, organisation: str, out_dir: Path,
            problems: pd.DataFrame | None = None, delimiter: str = ",", texts: dict[str, str] | None = None,
            lang: str = "en") -> Path | None:
    """Rewrite the report when its list or its page changed (None when neither did: a night with
    the same open problems publishes nothing; a change of the organisation's language rewrites
    it), and an organisation that never had one has no report. `problems`:
    open_problems(con, organisation) when the caller has it already."""
    target = out_dir / "quarantine"
    problems = open_problems(con, organisation) if problems is None else problems
    files = render(problems, organisation, delimiter, texts, lang)
    previous, page = target / "quarantine.csv", target / "index.html"
    if (not target.exists() and problems.empty) or (
            previous.exists() and previous.read_bytes().decode("utf-8-sig") == files["quarantine.csv"]
            and page.exists() and page.read_text(encoding="utf-8") == files["index.html"]):
        return None
    replace_folder(target, files)
    return target

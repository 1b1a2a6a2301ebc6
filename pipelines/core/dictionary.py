"""The analysts' data dictionary (sql/warehouse/dictionary.toml): one source for the warehouse's
COMMENT ON, the browsable dictionary `pointledger docs` writes, and the README's table of views.

Types are never written in the dictionary: they come from the warehouse itself (duckdb_columns),
so what the pages say is what the database holds.
"""
from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path

import duckdb
import pandas as pd
from jinja2 import Environment, FileSystemLoader, select_autoescape

from pipelines.core.settings import SQL_DIR
from pipelines.core.sql import literal, open_database
from pipelines.core.templating import FIXED_TEMPLATES

DICTIONARY = SQL_DIR / "warehouse" / "dictionary.toml"
README_START = "<!-- data dictionary: generated from sql/warehouse/dictionary.toml by `make docs`; do not edit -->"
README_END = "<!-- end of the data dictionary -->"
SYSTEM_DOCS = {"mahjong": "#mahjong-league", "bridge": "docs/bridge.md", "jcbl": "docs/jcbl.md",
               "backgammon": "docs/backgammon.md", "sweden": "docs/sweden.md"}

_TEMPLATES = Environment(loader=FileSystemLoader(Path(__file__).parent / "templates"),
                         autoescape=select_autoescape(["html", "j2"]), trim_blocks=True, lstrip_blocks=True,
                         **FIXED_TEMPLATES)


@cache
def load(path: Path = DICTIONARY) -> dict:
    with open(path, "rb") as f:
        return tomllib.load(f)


def relations(dictionary: dict | None = None) -> dict[str, dict]:
    return (dictionary or load())["relation"]


def describe(relation: str, column: str, dictionary: dict | None = None) -> str | None:
    """The column's description: the relation's own, else the common one, else None."""
    d = dictionary or load()
    own = d["relation"].get(relation, {}).get("columns", {})
    return own.get(column) or d["common"].get(column)


def warehouse_columns(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Every analyst-facing relation and column of the main schema (lake_* and _* are internal)."""
    return con.execute(
        "select table_name as relation, column_name as column, data_type as type, column_index "
        "from duckdb_columns() where not internal and schema_name = 'main' and database_name = current_database() "
        "and table_name not like 'lake\\_%' escape '\\' and table_name not like '\\_%' escape '\\' "
        "order by table_name, column_index").df()


def gaps(con: duckdb.DuckDBPyConnection, dictionary: dict | None = None) -> list[str]:
    """What the warehouse holds that the dictionary does not describe (and the reverse)."""
    d = dictionary or load()
    cols = warehouse_columns(con)
    problems = []
    held = set(cols["relation"])
    for relation in sorted(held - set(d["relation"])):
        problems.append(f"relation {relation}: not in {DICTIONARY.name}")
    for relation in sorted(set(d["relation"]) - held):
        problems.append(f"relation {relation}: in {DICTIONARY.name} but not in the warehouse")
    for row in cols.itertuples():
        if row.relation in d["relation"] and not describe(row.relation, row.column, d):
            problems.append(f"column {row.relation}.{row.column}: no description")
    for relation, spec in d["relation"].items():
        for column in spec.get("columns", {}):
            if relation in held and column not in set(cols.loc[cols["relation"] == relation, "column"]):
                problems.append(f"column {relation}.{column}: described but not in the warehouse")
    return problems


def _name(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def apply_comments(con: duckdb.DuckDBPyConnection, dictionary: dict | None = None, relations: set[str] | None = None) -> int:
    """COMMENT ON every described relation and column of the warehouse (of `relations` only, when
    given: the ones just made); returns the comments set. The catalog is read for those relations
    only: a night that remade one table asks about its columns, not the warehouse's 600."""
    d = dictionary or load()
    wanted = "" if relations is None else "and c.table_name in (select unnest(?::varchar[])) "
    rows = con.execute(
        "select c.table_name, c.column_name, coalesce(v.kind, 'table') from duckdb_columns() c "
        "left join (select view_name as name, 'view' as kind from duckdb_views() where not internal "
        "           and schema_name = 'main' and database_name = current_database()) v on v.name = c.table_name "
        "where not c.internal and c.schema_name = 'main' and c.database_name = current_database() "
        "and c.table_name not like 'lake\\_%' escape '\\' and c.table_name not like '\\_%' escape '\\' "
        + wanted + "order by c.table_name, c.column_index",
        [] if relations is None else [sorted(relations)]).fetchall()
    statements, commented = [], set()
    for relation, column, kind in rows:
        spec = d["relation"].get(relation)
        if spec is None:
            continue
        if relation not in commented:
            commented.add(relation)
            statements.append(f"comment on {kind} main.{_name(relation)} is {literal(spec['grain'])}")
        text = describe(relation, column, d)
        if text:
            statements.append(f"comment on column main.{_name(relation)}.{_name(column)} is {literal(text)}")
    if statements:  # one call: a few hundred statements cost one round trip
        con.execute(";\n".join(statements))
    return len(statements)


def entries(con: duckdb.DuckDBPyConnection, dictionary: dict | None = None) -> list[dict]:
    """The dictionary as the pages show it: each relation with its columns, types and descriptions."""
    d = dictionary or load()
    cols = warehouse_columns(con)
    out = []
    order = {"all": 0, "mahjong": 1, "bridge": 2, "jcbl": 3, "backgammon": 4, "sweden": 5}
    for relation, spec in sorted(d["relation"].items(), key=lambda kv: (order.get(kv[1]["system"], 9), kv[1]["kind"] != "view", kv[0])):
        here = cols[cols["relation"] == relation]
        out.append({"name": relation, "kind": spec["kind"], "system": spec["system"], "grain": spec["grain"],
                    "example": spec.get("example", ""),
                    "columns": [{"name": c, "type": t, "description": describe(relation, c, d) or ""}
                                for c, t in zip(here["column"], here["type"])]})
    return out


def readme_table(dictionary: dict | None = None) -> str:
    """The README's table of relations, between its markers."""
    d = dictionary or load()
    order = {"all": 0, "mahjong": 1, "bridge": 2, "jcbl": 3, "backgammon": 4, "sweden": 5}
    rows = ["| relation | system | grain |", "|---|---|---|"]
    for relation, spec in sorted(d["relation"].items(), key=lambda kv: (order.get(kv[1]["system"], 9), kv[1]["kind"] != "view", kv[0])):
        system = spec["system"]
        label = f"[{system}]({SYSTEM_DOCS[system]})" if system in SYSTEM_DOCS else system
        kind = "" if spec["kind"] == "view" else " (table)"
        rows.append(f"| `{relation}`{kind} | {label} | {spec['grain'].replace('|', '/')} |")
    return "\n".join([README_START, *rows, README_END])


def rewrite_readme(readme: Path, dictionary: dict | None = None) -> bool:
    """Replace the README's generated table; True when it changed."""
    text = readme.read_text(encoding="utf-8")
    start, end = text.index(README_START), text.index(README_END) + len(README_END)
    new = text[:start] + readme_table(dictionary) + text[end:]
    if new != text:
        readme.write_text(new, encoding="utf-8")
    return new != text


def write_docs(warehouse: Path, out_dir: Path, dictionary: dict | None = None) -> list[Path]:
    """index.html (browsable, searchable) and dictionary.md, from the warehouse's own types."""
    con = open_database(warehouse, read_only=True)
    try:
        items = entries(con, dictionary)
    finally:
        con.close()
    out_dir.mkdir(parents=True, exist_ok=True)
    html = out_dir / "index.html"
    html.write_text(_TEMPLATES.get_template("dictionary.html.j2").render(relations=items), encoding="utf-8")
    lines = ["# pointledger warehouse: data dictionary", "",
             "Generated by `pointledger docs` from the warehouse and sql/warehouse/dictionary.toml.", ""]
    for r in items:
        lines += [f"## `{r['name']}` ({r['kind']}, {r['system']})", "", r["grain"], "",
                  "| column | type | description |", "|---|---|---|"]
        lines += [f"| `{c['name']}` | {c['type']} | {c['description'].replace('|', '/')} |" for c in r["columns"]]
        if r["example"]:
            lines += ["", "```sql", r["example"], "```"]
        lines.append("")
    md = out_dir / "dictionary.md"
    md.write_text("\n".join(lines), encoding="utf-8")
    return [html, md]


if __name__ == "__main__":  # `make docs`: the README's table from the dictionary
    import sys

    readme = Path(__file__).resolve().parents[2] / "README.md"
    print("README.md table " + ("rewritten" if rewrite_readme(readme) else "already up to date"))
    sys.exit(0)

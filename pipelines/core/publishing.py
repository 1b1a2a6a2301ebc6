"""What every publication needs: a folder replaced in one step, input made harmless, and
tables a secretary can open in Excel.

Every CSV a system publishes passes through `replace_folder`, which makes it Excel-safe in one
place for all systems: UTF-8 with a byte-order mark (Excel on a Japanese or Swedish Windows
otherwise reads it as the local code page), a numeric rank column with the printed label (`3=`)
beside it as `<rank>_label`, and an `.xlsx` workbook of the same table beside it (typed columns,
frozen header, auto-filter).
"""
from __future__ import annotations

import csv
import datetime as dt
import io
import os
import re
import shutil
import unicodedata
from pathlib import Path

import xlsxwriter

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def replace_folder(target: Path, files: dict[str, str]) -> None:
    """Write `files` (name → text) as the folder `target`, swapped in by rename: a reader sees
    the old publication or the new one, never half of one."""
    tmp = target.with_name(f".{target.name}.tmp")
    old = target.with_name(f".{target.name}.old")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    for name, content in with_spreadsheet_exports(files).items():
        if isinstance(content, bytes):
            (tmp / name).write_bytes(content)
        else:
            (tmp / name).write_text(content, encoding="utf-8-sig" if name.endswith(".csv") else "utf-8")
    shutil.rmtree(old, ignore_errors=True)
    if target.exists():
        os.replace(target, old)
    os.replace(tmp, target)
    shutil.rmtree(old, ignore_errors=True)


def replace_file(path: Path, data: bytes) -> None:
    """One file written beside and renamed into place: a run killed while writing leaves the old
    file whole, and a reader sees the old file or the new one."""
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        tmp.write_bytes(data)
    except FileNotFoundError:  # the first file of its folder
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_bytes(data)
    os.replace(tmp, path)


def folder_holds(target: Path, files: dict[str, str]) -> bool:
    """`target` already holds exactly these texts: a night that changes nothing rewrites nothing
    (its workbooks are made from its CSV files, so they are as they would be written). A page's
    pager, put in by the site after the publisher wrote it, is not part of the comparison."""
    from pipelines.core.pager import without_nav

    for name, content in files.items():
        path = target / name
        if isinstance(content, bytes) or not path.is_file():
            return False
        if name.endswith(".csv"):
            content = _excel_csv(content)  # as replace_folder writes it
        held = path.read_text(encoding="utf-8-sig" if name.endswith(".csv") else "utf-8")
        if held != content and not (name.endswith(".html") and without_nav(held) == content):
            return False
        if name.endswith(".csv") and not path.with_suffix(".xlsx").is_file():
            return False
    return True


def event_folder(out_dir: Path, organisation: str, event_id: str) -> Path:
    """An event's publication folder: its id without the organisation prefix, under `out_dir`."""
    rel = event_id[len(organisation) + 1:] if event_id.startswith(organisation + "/") else event_id
    return out_dir / rel


def remove_withdrawn_events(out_dir: Path, organisation: str, ever, current: set[str], affected_months: set[str]) -> None:
    """Remove the publication of each event that was once published (`ever`: rows with event_id
    and event_date) but no longer stands (not in `current`: its list was corrected away or fully
    quarantined), in the months this run touched, as a fresh run would not have it."""
    event_ids = ever["event_id"].astype(str)
    gone = ever[~event_ids.isin(current) & ever["event_date"].astype(str).str[:7].isin(affected_months)]
    for event_id in gone["event_id"].astype(str):
        target = event_folder(out_dir, organisation, event_id)
        if (target / "index.html").exists():
            shutil.rmtree(target)


def existing_names(folder: Path) -> set[str]:
    """The names in `folder` (empty when it is missing): one listing where a night would ask
    about each of thousands of pages."""
    try:
        with os.scandir(folder) as entries:
            return {entry.name for entry in entries}
    except FileNotFoundError:
        return set()


def spreadsheet_safe(text: str) -> str:
    """A text cell that a spreadsheet will not run as a formula (OWASP CSV injection advice)."""
    return "'" + text if text.startswith(_FORMULA_START) else text


def markdown_safe(text: str) -> str:
    """Text for a Markdown table cell: no table breaks, no inline HTML, no links."""
    for char in "\\|`*_[]<>#":
        text = text.replace(char, "\\" + char)
    return text.replace("\n", " ")


# --- Excel-safe exports -------------------------------------------------------------------------

# The columns that hold a place: the systems print ties as "3=", a spreadsheet must sort numbers.
RANK_COLUMNS = ("rank", "plac")
_TIED_RANK = re.compile(r"^(\d+)=?$")
# A number a spreadsheet may treat as one: no leading zeros (member numbers such as 0123 stay text).
_NUMBER = re.compile(r"^-?(?:0|[1-9]\d*)(?:\.(\d+))?$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
# The workbook's stamp is fixed so that the same table gives the same bytes from run to run.
_WORKBOOK_CREATED = dt.datetime(2000, 1, 1)


def with_spreadsheet_exports(files: dict[str, str | bytes]) -> dict[str, str | bytes]:
    """Each CSV with numeric ranks and its `.xlsx` twin; other files unchanged."""
    out: dict[str, str | bytes] = {}
    for name, content in files.items():
        if not (name.endswith(".csv") and isinstance(content, str)):
            out[name] = content
            continue
        delimiter, header, rows = read_table(content)
        header, rows = split_rank_labels(header, rows)
        out[name] = write_table(delimiter, header, _decimal_commas(rows) if delimiter == ";" else rows)
        out[name[: -len(".csv")] + ".xlsx"] = workbook(header, rows, sheet=Path(name).stem)
    return out


def _excel_csv(text: str) -> str:
    """A CSV as with_spreadsheet_exports writes it (numeric ranks beside their labels)."""
    delimiter, header, rows = read_table(text)
    header, rows = split_rank_labels(header, rows)
    return write_table(delimiter, header, _decimal_commas(rows) if delimiter == ";" else rows)


def _decimal_commas(rows: list[list[str]]) -> list[list[str]]:
    """A `;` table's decimals written with a comma (170,50): the Excel that takes `;` for its list
    separator (a Swedish Windows) takes the comma for the decimal one, and reads 170.50 as text."""
    return [[cell.replace(".", ",") if "." in cell and _NUMBER.match(cell) else cell for cell in row] for row in rows]


def read_table(text: str) -> tuple[str, list[str], list[list[str]]]:
    """A published CSV as (delimiter, header, rows); Swedish tables use ';'."""
    first = text.split("\n", 1)[0]
    delimiter = ";" if first.count(";") > first.count(",") else ","
    table = list(csv.reader(io.StringIO(text), delimiter=delimiter))
    return delimiter, (table[0] if table else []), table[1:]


def write_table(delimiter: str, header: list[str], rows: list[list[str]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=delimiter, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue()


def split_rank_labels(header: list[str], rows: list[list[str]]) -> tuple[list[str], list[list[str]]]:
    """`rank` "3=" becomes `rank` 3 and `rank_label` "3=" (added once, right after the rank)."""
    for column in RANK_COLUMNS:
        if column not in header or f"{column}_label" in header:
            continue
        at = header.index(column)
        header = header[: at + 1] + [f"{column}_label"] + header[at + 1:]
        rows = [row[: at] + [_rank_number(row[at]), row[at]] + row[at + 1:] if len(row) > at else row for row in rows]
    return header, rows


def _rank_number(label: str) -> str:
    match = _TIED_RANK.match(label.strip())
    return match.group(1) if match else label


def _column_kind(values: list[str]) -> tuple[str, int]:
    """("number", decimals) / ("date", 0) / ("bool", 0) / ("text", 0) for a column's cells."""
    present = [v for v in values if v != ""]
    if not present:
        return "text", 0
    numbers = [_NUMBER.match(v) for v in present]
    if all(numbers):
        return "number", max(len(m.group(1) or "") for m in numbers)
    if all(_DATE.match(v) for v in present):
        return "date", 0
    if all(v in ("true", "false") for v in present):
        return "bool", 0
    return "text", 0


def _unescape_formula(text: str) -> str:
    """The CSV's protective apostrophe is not needed in a workbook, where text is never run."""
    return text[1:] if text.startswith("'") and text[1:].startswith(_FORMULA_START) else text


# No code point below U+0378 is wide (East Asian Width W or F; from there on Python's unicodedata
# counts unassigned ones as wide): Latin text, Swedish letters included, is as wide as it is long
_FIRST_WIDE = "\u0378"


def _display_width(text: str) -> int:
    if not text or max(text) < _FIRST_WIDE:
        return len(text)
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def workbook(header: list[str], rows: list[list[str]], sheet: str) -> bytes:
    """One sheet: typed columns, frozen header row, auto-filter, columns wide enough to read."""
    buffer = io.BytesIO()
    book = xlsxwriter.Workbook(buffer, {"in_memory": True, "strings_to_numbers": False,
                                        "strings_to_formulas": False, "strings_to_urls": False})
    book.set_properties({"created": _WORKBOOK_CREATED})
    bold = book.add_format({"bold": True})
    date_format = book.add_format({"num_format": "yyyy-mm-dd"})
    number_formats: dict[int, object] = {}
    ws = book.add_worksheet(sheet[:31] or "table")
    for c, name in enumerate(header):
        ws.write_string(0, c, name, bold)
    for c in range(len(header)):
        column = [row[c] if c < len(row) else "" for row in rows]
        # a label is printed text ("3="), even where every label of this table happens to be a number
        kind, decimals = ("text", 0) if header[c].endswith("_label") else _column_kind(column)
        if kind == "number" and decimals not in number_formats:
            number_formats[decimals] = book.add_format({"num_format": "0." + "0" * decimals if decimals else "0"})
        # a column's dates are few and repeat (a month's list: one date per night): each parsed once
        days = {v: dt.datetime.strptime(v, "%Y-%m-%d") for v in set(column) if v != ""} if kind == "date" else {}
        for r, value in enumerate(column, start=1):
            if value == "":
                continue
            if kind == "number":
                ws.write_number(r, c, float(value), number_formats[decimals])
            elif kind == "date":
                ws.write_datetime(r, c, days[value], date_format)
            elif kind == "bool":
                ws.write_boolean(r, c, value == "true")
            else:
                ws.write_string(r, c, _unescape_formula(value))
        width = max([_display_width(header[c])] + [_display_width(v) for v in column[:500]])
        ws.set_column(c, c, min(max(width + 2, 6), 60))
    ws.freeze_panes(1, 0)
    if header:
        ws.autofilter(0, 0, max(len(rows), 1), len(header) - 1)
    book.close()
    return buffer.getvalue()

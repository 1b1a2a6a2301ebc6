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

import struct
import zlib
from functools import lru_cache

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def replace_folder(target: Path, files: dict[str, str]) -> None:
    """Write `files` (name → text) as the folder `target`, swapped in by rename: a reader sees
    the old publication or the new one, never half of one."""
    write_folder(target, with_spreadsheet_exports(files))


def write_folder(target: Path, files: dict[str, str | bytes]) -> None:
    """`replace_folder` for files already made Excel-safe (`table_exports`)."""
    tmp = target.with_name(f".{target.name}.tmp")
    old = target.with_name(f".{target.name}.old")
    if os.path.lexists(tmp):
        shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    for name, content in files.items():
        if isinstance(content, bytes):
            (tmp / name).write_bytes(content)
        else:
            (tmp / name).write_text(content, encoding="utf-8-sig" if name.endswith(".csv") else "utf-8")
    if os.path.lexists(old):
        shutil.rmtree(old, ignore_errors=True)
    if target.exists():
        os.replace(target, old)
        os.replace(tmp, target)
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.replace(tmp, target)


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
        out[name] = write_table(delimiter, header, rows)
        out[name[: -len(".csv")] + ".xlsx"] = workbook(header, rows, sheet=Path(name).stem)
    return out


def table_exports(name: str, delimiter: str, header: list[str], rows: list[list[str]]) -> dict[str, str | bytes]:
    """A table given as cells: its CSV and `.xlsx` twin exactly as `with_spreadsheet_exports` makes
    them from the CSV text (without writing and reading the text back first)."""
    header, rows = split_rank_labels(header, rows)
    return {name: write_table(delimiter, header, rows), name[: -len(".csv")] + ".xlsx": workbook(header, rows, sheet=Path(name).stem)}


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


def _display_width(text: str) -> int:
    if text.isascii():
        return len(text)
    # nothing below U+1100 is wide
    return len(text) + sum(1 for c in text if c >= "\u1100" and unicodedata.east_asian_width(c) in "WF")


# --- the workbook: SpreadsheetML written directly (one sheet, inline strings) --------------------
# XlsxWriter cost ~4 ms a workbook, most of it packaging a dozen parts; a night of the Swedish
# federation publishes tens of thousands of result lists, each with its workbook. The parts below
# are what a one-table workbook needs (Excel, LibreOffice and openpyxl read it); only the sheet and
# its number formats change from table to table.

_ZIP_DATE = (2000, 1, 1, 0, 0, 0)  # fixed: the same table gives the same bytes
_EXCEL_EPOCH = dt.date(1899, 12, 30)
_XML_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
_CONTENT_TYPES = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/docProps/app.xml" ContentType="application/vnd.openxmlformats-officedocument.extended-properties+xml"/>'
    '<Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/>'
    '<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>'
    '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
    '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
    '</Types>')
_ROOT_RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/>'
    '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/>'
    '<Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/extended-properties" Target="docProps/app.xml"/>'
    '</Relationships>')
_APP = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    '<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties" '
    'xmlns:vt="http://schemas.openxmlformats.org/officeDocument/2006/docPropsVTypes"><Application>pointledger</Application></Properties>')
_CORE = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    '<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" '
    'xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" '
    'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">'
    '<dcterms:created xsi:type="dcterms:W3CDTF">2000-01-01T00:00:00Z</dcterms:created>'
    '<dcterms:modified xsi:type="dcterms:W3CDTF">2000-01-01T00:00:00Z</dcterms:modified></cp:coreProperties>')
_WORKBOOK_RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>'
    '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>'
    '</Relationships>')
_MAIN = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'
_RELS = 'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"'


def _xml(text: str) -> str:
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    if _XML_ILLEGAL.search(text):
        text = _XML_ILLEGAL.sub(lambda m: f"_x{ord(m.group()):04X}_", text)
    return text


def _column_name(c: int) -> str:
    name = ""
    c += 1
    while c:
        c, rest = divmod(c - 1, 26)
        name = chr(65 + rest) + name
    return name


@lru_cache(maxsize=64)
def _styles(decimals: tuple[int, ...]) -> str:
    """Style 0 plain, 1 bold (the header), 2 a date, 3.. a number with each table's decimals."""
    formats = ['<numFmt numFmtId="164" formatCode="yyyy-mm-dd"/>'] + [
        f'<numFmt numFmtId="{165 + i}" formatCode="{"0." + "0" * d if d else "0"}"/>' for i, d in enumerate(decimals)]
    xfs = ['<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>',
           '<xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/>',
           '<xf numFmtId="164" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>'] + [
        f'<xf numFmtId="{165 + i}" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>' for i in range(len(decimals))]
    return ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
            f'<styleSheet {_MAIN}><numFmts count="{len(formats)}">{"".join(formats)}</numFmts>'
            '<fonts count="2"><font><sz val="11"/><name val="Calibri"/><family val="2"/></font>'
            '<font><b/><sz val="11"/><name val="Calibri"/><family val="2"/></font></fonts>'
            '<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>'
            '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>'
            '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>'
            f'<cellXfs count="{len(xfs)}">{"".join(xfs)}</cellXfs>'
            '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>')


def _number(value: str) -> str:
    number = float(value)
    return str(int(number)) if number.is_integer() and abs(number) < 1e15 else repr(number)


def workbook(header: list[str], rows: list[list[str]], sheet: str) -> bytes:
    """One sheet: typed columns, frozen header row, auto-filter, columns wide enough to read."""
    width = len(header)
    names = [_column_name(c) for c in range(width)]
    kinds, decimals, widths = [], [], []
    for c in range(width):
        column = [row[c] if c < len(row) else "" for row in rows]
        # a label is printed text ("3="), even where every label of this table happens to be a number
        kind, d = ("text", 0) if header[c].endswith("_label") else _column_kind(column)
        if kind == "number" and d not in decimals:
            decimals.append(d)
        kinds.append((kind, 3 + decimals.index(d) if kind == "number" else 0))
        w = max([_display_width(header[c])] + [_display_width(v) for v in column[:500]])
        widths.append(min(max(w + 2, 6), 60))
    out = [f'<row r="1">' + "".join(f'<c r="{names[c]}1" s="1" t="inlineStr"><is><t xml:space="preserve">{_xml(h)}</t></is></c>'
                                    for c, h in enumerate(header)) + "</row>"]
    for r, row in enumerate(rows, start=2):
        cells = []
        for c in range(width):
            value = row[c] if c < len(row) else ""
            if value == "":
                continue
            kind, style = kinds[c]
            ref = f"{names[c]}{r}"
            if kind == "number":
                cells.append(f'<c r="{ref}" s="{style}"><v>{_number(value)}</v></c>')
            elif kind == "date":
                serial = (dt.date.fromisoformat(value) - _EXCEL_EPOCH).days
                cells.append(f'<c r="{ref}" s="2"><v>{serial}</v></c>')
            elif kind == "bool":
                cells.append(f'<c r="{ref}" t="b"><v>{1 if value == "true" else 0}</v></c>')
            else:
                cells.append(f'<c r="{ref}" t="inlineStr"><is><t xml:space="preserve">{_xml(_unescape_formula(value))}</t></is></c>')
        out.append(f'<row r="{r}">' + "".join(cells) + "</row>")
    last_row = max(len(rows), 1) + 1
    last = f"{names[-1]}{last_row}" if header else "A1"
    filter_ref = f"A1:{names[-1]}{last_row}" if header else ""
    cols = "".join(f'<col min="{c + 1}" max="{c + 1}" width="{w + 0.7109375}" customWidth="1"/>' for c, w in enumerate(widths))
    worksheet = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
                 f'<worksheet {_MAIN} {_RELS}><dimension ref="A1:{last}"/>'
                 '<sheetViews><sheetView tabSelected="1" workbookViewId="0">'
                 '<pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/>'
                 '<selection pane="bottomLeft" activeCell="A2" sqref="A2"/></sheetView></sheetViews>'
                 '<sheetFormatPr defaultRowHeight="15"/>' + (f"<cols>{cols}</cols>" if cols else "")
                 + "<sheetData>" + "".join(out) + "</sheetData>"
                 + (f'<autoFilter ref="{filter_ref}"/>' if filter_ref else "")
                 + '<pageMargins left="0.7" right="0.7" top="0.75" bottom="0.75" header="0.3" footer="0.3"/></worksheet>')
    title = (sheet[:31] or "table")
    quoted = "'" + title.replace("'", "''") + "'"
    defined = (f'<definedNames><definedName name="_xlnm._FilterDatabase" localSheetId="0" hidden="1">'
               f'{_xml(quoted)}!$A$1:${names[-1]}${last_row}</definedName></definedNames>') if header else ""
    book = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
            f'<workbook {_MAIN} {_RELS}><bookViews><workbookView/></bookViews>'
            f'<sheets><sheet name="{_xml(title).replace(chr(34), "&quot;")}" sheetId="1" r:id="rId1"/></sheets>{defined}</workbook>')
    return _zip([("[Content_Types].xml", _CONTENT_TYPES), ("_rels/.rels", _ROOT_RELS), ("docProps/app.xml", _APP),
                 ("docProps/core.xml", _CORE), ("xl/workbook.xml", book), ("xl/_rels/workbook.xml.rels", _WORKBOOK_RELS),
                 ("xl/styles.xml", _styles(tuple(decimals))), ("xl/worksheets/sheet1.xml", worksheet)])


_DOS_DATE = ((_ZIP_DATE[0] - 1980) << 9) | (_ZIP_DATE[1] << 5) | _ZIP_DATE[2]
_FIXED_PARTS: dict[str, tuple] = {}


def _zip_part(name: str, text: str) -> tuple:
    """(name, method, crc, compressed size, size, data): the fixed parts once, stored; the others deflated."""
    fixed = text in (_CONTENT_TYPES, _ROOT_RELS, _APP, _CORE, _WORKBOOK_RELS)
    if fixed and name in _FIXED_PARTS:
        return _FIXED_PARTS[name]
    raw = text.encode("utf-8")
    if fixed:
        part = (name.encode(), 0, zlib.crc32(raw), len(raw), len(raw), raw)
        _FIXED_PARTS[name] = part
        return part
    packer = zlib.compressobj(6, zlib.DEFLATED, -15)
    data = packer.compress(raw) + packer.flush()
    return (name.encode(), 8, zlib.crc32(raw), len(data), len(raw), data)


def _zip(parts: list[tuple[str, str]]) -> bytes:
    """A zip archive (PKZIP 2.0, what every xlsx reader reads), written in one pass: a workbook has
    eight small parts and zipfile's per-entry bookkeeping cost more than compressing them."""
    body, directory = [], []
    offset = 0
    for name, text in parts:
        encoded, method, crc, size_c, size, data = _zip_part(name, text)
        header = struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, method, 0, _DOS_DATE, crc, size_c, size, len(encoded), 0) + encoded
        body += [header, data]
        directory.append(struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, method, 0, _DOS_DATE, crc, size_c, size,
                                     len(encoded), 0, 0, 0, 0, 0o600 << 16, offset) + encoded)
        offset += len(header) + len(data)
    central = b"".join(directory)
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(parts), len(parts), len(central), offset, 0)
    return b"".join(body) + central + end

"""Turn the bytes of a results file or match log into frames of raw text, keeping line numbers.

Both formats are a CSV table under a header of ``# key: value`` settings (see docs/backgammon.md).
Nothing here interprets a value: settings and cells stay text; ``parse`` validates them.
"""

from __future__ import annotations

import csv
import re
import unicodedata
from dataclasses import dataclass, field

import pandas as pd

from pipelines.core.text import unicode_marked

from . import quarantine as q

# possessive quantifiers and a greedy value (stripped afterwards): linear in the line's length; the
# lazy form backtracked quadratically on a '#' line of many spaces (fuzz campaign, 30 s of CPU)
_SETTING = re.compile(r"^#\s*+([A-Za-z][A-Za-z _-]*+)\s*+:(.*)$")
_DELIMITERS = (",", ";", "\t")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
# Bounds (docs/backgammon.md, "Bounds"): a line, a cell or a setting longer than this is a problem
MAX_LINE_CHARS = 4_000
MAX_CELL_CHARS = 200
SHOW_CHARS = 60


def show(text: str) -> str:
    """A found value as a reason quotes it: cut to SHOW_CHARS characters."""
    text = str(text)
    return text if len(text) <= SHOW_CHARS else f"{text[:SHOW_CHARS]}… ({len(text):,} characters)"


def physical_lines(text: str) -> list[str]:
    """The lines as an editor numbers them: CR LF, CR or LF end a line (str.splitlines would
    also split at form feeds, U+2028 ... and shift every later line number)."""
    lines = _LINE_BREAK.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def norm_key(text: str) -> str:
    """Normalise a setting key or column name: lower case, single underscores."""
    return re.sub(r"[\s_-]+", "_", text.strip().lower())


def clean_text(values: pd.Series) -> pd.Series:
    """Strip and collapse whitespace; blank cells become missing."""
    out = values.astype("str").str.strip().str.replace(r"\s+", " ", regex=True)
    return out.where(out.str.len() > 0)


@dataclass
class RawFile:
    """The text of one file, cut into settings, header and rows (cells are text)."""

    source_file: str
    settings: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=["line", "key", "value"]))
    header_line: int | None = None
    rows: pd.DataFrame = field(default_factory=pd.DataFrame)
    data_lines: list[int] = field(default_factory=list)
    bad_lines: list[int] = field(default_factory=list)
    quarantine: pd.DataFrame = field(default_factory=q.empty)

    def add(self, frame: pd.DataFrame) -> None:
        self.quarantine = q.concat(self.quarantine, frame)


def lenient_text(data: bytes) -> str:
    """The file's text as `decode` reads it, any undecodable byte replaced (for quoting its lines)."""
    marked = unicode_marked(data)
    return marked[0] if marked is not None else data.decode("utf-8-sig", errors="replace")


def decode(source_file: str, data: bytes) -> tuple[str | None, pd.DataFrame]:
    """UTF-8 (with or without BOM), or UTF-16 with its byte order mark (Windows' "Unicode"),
    NFKC-normalised (full-width digits, letters and punctuation become ASCII: '１' is 1). Anything
    else is quarantined as a whole."""
    marked = unicode_marked(data)
    if marked is not None:
        return unicodedata.normalize("NFKC", marked[0]), q.empty()
    try:
        return unicodedata.normalize("NFKC", data.decode("utf-8-sig")), q.empty()
    except UnicodeDecodeError as err:
        reason = (
            f"the file is not UTF-8 text (byte 0x{data[err.start]:02x} at position {err.start}); "
            "save it again as 'CSV UTF-8' and send it again"
        )
        return None, q.rows(source_file, ["file"], [reason])


def _split_cells(text: str, delimiter: str) -> list[str] | None:
    """One physical line as cells (a quote never continues onto the next line); None when the
    csv module refuses the line."""
    try:
        return next(csv.reader([text], delimiter=delimiter, skipinitialspace=True), [])
    except csv.Error:
        return None


def read(
    source_file: str,
    data: bytes,
    *,
    columns: list[str],
    optional_columns: list[str] = (),
    column_aliases: dict[str, str] | None = None,
    what: str,
) -> RawFile:
    """Cut the file into settings, header and rows. Structural problems go to quarantine."""
    raw = RawFile(source_file)
    text, problems = decode(source_file, data)
    raw.add(problems)
    if text is None:
        return raw
    aliases = column_aliases or {}
    lines = pd.DataFrame({"text": pd.Series(physical_lines(text), dtype="str")})
    lines["line"] = lines.index + 1
    stripped = lines["text"].str.strip()
    is_hash = stripped.str.startswith("#")
    is_blank = stripped.str.len() == 0
    setting = stripped.str.extract(_SETTING)
    raw.settings = pd.DataFrame(
        {
            "line": lines.loc[is_hash & setting[0].notna(), "line"],
            "key": setting.loc[is_hash & setting[0].notna(), 0].map(norm_key),
            "value": setting.loc[is_hash & setting[0].notna(), 1].str.strip(),
        }
    ).reset_index(drop=True)
    data_lines = lines[~is_hash & ~is_blank]
    if data_lines.empty:
        raw.add(q.rows(source_file, ["file"], [f"the file has no table: expected a header line '{','.join(columns)}' and one line per {what}"]))
        return raw
    header = data_lines.iloc[0]
    raw.header_line = int(header["line"])
    body = data_lines.iloc[1:]
    raw.data_lines = body["line"].tolist()

    names = None
    for delimiter in _DELIMITERS:
        if len(header["text"]) > MAX_LINE_CHARS:
            break
        cells = [norm_key(c) for c in _split_cells(header["text"], delimiter) or []]
        cells = [aliases.get(c, c) for c in cells]
        if set(columns) <= set(cells):
            names = cells
            break
    if names is None:
        found = show(header["text"].strip())
        raw.add(
            q.rows(
                source_file,
                [f"line {raw.header_line}"],
                [f"expected the header line '{','.join(columns)}' (optional: {', '.join(optional_columns) or 'none'}); found '{found}'"],
            )
        )
        if len(body):
            raw.add(q.rows(source_file, [q.lines_label(raw.data_lines)], [f"{len(body)} {what} lines not read because the header line is not recognised"]))
        return raw

    width = len(names)
    keep = [i for i, name in enumerate(names) if name in set(columns) | set(optional_columns)]
    records, lines_ok, bad_loc, bad_reason = [], [], [], []
    for line_no, line_text in zip(body["line"], body["text"]):
        if len(line_text) > MAX_LINE_CHARS:
            bad_loc.append(f"line {line_no}")
            bad_reason.append(
                f"the line is {len(line_text):,} characters long; a line is at most {MAX_LINE_CHARS:,} characters "
                f"(is a line break missing?): '{show(line_text.strip())}'"
            )
            continue
        cells = _split_cells(line_text, delimiter)
        if cells is None:
            bad_loc.append(f"line {line_no}")
            bad_reason.append(f"the line cannot be split into fields ({', '.join(names)}): '{show(line_text.strip())}'")
            continue
        if len(cells) > width and not any(c.strip() for c in cells[width:]):
            cells = cells[:width]
        if not any(c.strip() for c in cells):
            continue  # a line of empty cells, as spreadsheets write them
        if len(cells) != width:
            bad_loc.append(f"line {line_no}")
            bad_reason.append(
                f"expected {width} fields ({', '.join(names)}), found {len(cells)}: '{show(line_text.strip())}'; "
                f"put a name that contains '{delimiter}' in double quotes"
                + ("; a '\"' opens a quoted field: is a quote stray?" if '"' in line_text else "")
            )
            continue
        long = [(names[i], c) for i, c in enumerate(cells) if len(c.strip()) > MAX_CELL_CHARS]
        if long:
            bad_loc.append(f"line {line_no}")
            bad_reason.append(
                f"field {long[0][0]} is {len(long[0][1].strip()):,} characters long; a field is at most "
                f"{MAX_CELL_CHARS} characters: '{show(long[0][1].strip())}'"
            )
            continue
        records.append([cells[i] for i in keep])
        lines_ok.append(line_no)
    raw.add(q.rows(source_file, bad_loc, bad_reason))
    raw.bad_lines = [int(loc.split()[1]) for loc in bad_loc]
    rows = pd.DataFrame(records, columns=[names[i] for i in keep], dtype="str")
    for name in optional_columns:
        if name not in rows.columns:
            rows[name] = pd.Series(pd.NA, index=rows.index, dtype="str")
    rows.insert(0, "line", pd.Series(lines_ok, dtype="int64"))
    raw.rows = rows[["line", *columns, *optional_columns]]
    return raw

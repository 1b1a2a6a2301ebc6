"""Text helpers every reader shares: vectorised text building in Arrow (pandas builds strings row
by row in Python); bad values quoted in a quarantine reason kept short; a line too long to be a
record reported as a problem of its own rather than handed to a parser."""
from __future__ import annotations

import codecs
import csv
import re

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

# The byte order marks of UTF-32 and UTF-16 (UTF-32's little-endian mark begins with UTF-16's, so
# it is looked for first). UTF-8's mark is read by each reader's own 'utf-8-sig'.
_UNICODE_MARKS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
                  (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))

MAX_LINE_CHARS = 4_000  # one line of a key: value or result file (longer: a line break is missing)
SHOWN = 60  # characters of a bad value quoted in a reason


def unicode_marked(data: bytes) -> tuple[str, str] | None:
    """(text, encoding) of a file that begins with a UTF-16 or UTF-32 byte order mark, as Windows
    saves "Unicode" text (Notepad, Excel's "Unicode Text": UTF-16 little-endian with its mark);
    None for any other file, or one that does not decode as its mark says (each reader then reads
    it as it reads any file). Every reader of a text file asks this first."""
    for mark, encoding in _UNICODE_MARKS:
        if data.startswith(mark):
            try:
                return data.decode(encoding), encoding
            except UnicodeDecodeError:
                return None
    return None


def concat(*parts, index: pd.Index | None = None) -> pd.Series:
    """Row-wise concatenation of Series (any dtype, cast to text) and constant strings."""
    series = [p for p in parts if isinstance(p, pd.Series)]
    index = index if index is not None else series[0].index
    arrays = []
    for part in parts:
        if isinstance(part, pd.Series):
            arrays.append(pc.cast(pa.array(part, from_pandas=True), pa.string()))
        else:
            arrays.append(pa.scalar(str(part), pa.string()))
    joined = pc.binary_join_element_wise(*arrays, "")
    return pd.Series(joined, index=index, dtype=pd.ArrowDtype(pa.string()))



def rewrite_where_found(texts: pa.Array, pattern: str, rewrite) -> pa.Array:
    """`rewrite(texts)` (an Arrow function of the texts, giving as many) applied only to the texts
    the regex `pattern` is found in, the others left as they are: one search over a column costs a
    third of a rewrite of it, and most texts hold nothing to rewrite (a minus sign to normalise, a
    character to escape)."""
    found = pc.match_substring_regex(texts, pattern).fill_null(False)
    if not pc.any(found).as_py():
        return texts
    return pc.replace_with_mask(texts, found, rewrite(texts.filter(found)))

def clip(text, limit: int = SHOWN) -> str:
    """A value quoted in a reason: at most ``limit`` characters (the rest as "… (N characters)")."""
    t = str(text)
    return t if len(t) <= limit else f"{t[:limit]}… ({len(t):,} characters)"


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def visible_controls(texts: pd.Series) -> pd.Series:
    """Texts with their control characters written out as ``\\xNN`` (a tab and a line break kept):
    a reason quoting a value with a NUL or a stray carriage return in it shows what the file
    holds, where the character itself would be invisible (or cut the line) in the report."""
    texts = texts.astype("object")
    marked = texts.notna() & texts.astype("string").str.contains(_CONTROL.pattern, regex=True).fillna(False).astype(bool)
    if not marked.any():
        return texts
    out = texts.copy()
    out.loc[marked] = texts[marked].map(lambda t: _CONTROL.sub(_escaped, t))
    return out


def _escaped(match: re.Match) -> str:
    return f"\\x{ord(match.group()):02x}"


def too_long(line: str, limit: int = MAX_LINE_CHARS) -> str | None:
    """The reason for a line over the limit, or None."""
    if len(line) <= limit:
        return None
    return f"expected a line of at most {limit:,} characters (is a line break missing?), found {clip(line.strip())}"


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def physical_lines(text: str) -> list[str]:
    """The file's lines as an editor numbers them: split at CR LF, CR or LF only (not at the other
    characters ``str.splitlines`` treats as line breaks, such as form feed or U+2028, which would
    shift every later line number). A final line break does not start another line."""
    lines = _LINE_BREAK.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def split_line(line: str, delimiter: str) -> list[str] | str:
    """The CSV cells of one physical line (a quote never continues onto the next line), or the
    reason it has none: too long to be a record, or quotes the CSV reader refuses."""
    reason = too_long(line)
    if reason:
        return reason
    try:
        return next(csv.reader([line], delimiter=delimiter), [])
    except csv.Error as error:
        return f"expected fields separated by {delimiter!r}, found a line the CSV reader cannot split ({error})"

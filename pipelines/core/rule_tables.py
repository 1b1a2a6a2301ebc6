"""Rule and settings tables (data/rules/<system>/*.csv, a calendar's seasons, an alias list): read,
typed and checked the same way for every rule system.

A mistake in one of them is the office's, not a club's: the run stops before it reads anything
(`SettingsError`, exit 5) and says, for each problem, the file, the line, the column, what was
expected and what was found, e.g. ``placing_awards.csv line 3 column points: expected a decimal
number, found 'abc'``. pandera reports a problem in its own terms (``coerce_dtype('decimal128(12,
2)')``, ``isin([1, 2, 3, 4])``, every row of a column it could not convert, the uniqueness of every
row when a column is missing); `problems` turns those into the office's terms and leaves out what
only follows from another problem.
"""
from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Callable

import pandas as pd
import pandera.pandas as pa
from pandera.errors import SchemaError, SchemaErrors

from pipelines.core.config import nearest
from pipelines.core.settings import SettingsError

MAX_PROBLEMS = 12  # problems listed per table (then "... and N more")

# A row of a CSV table is a line of the file: the header is line 1
LineOf = Callable[[int], str]


def csv_line(index: int) -> str:
    return f"line {int(index) + 2}"


def check_settings(data_dir: Path, organisations: pd.DataFrame) -> None:
    """Every enabled organisation's settings and its rule system's tables, before anything is read:
    a mistake there is the office's, so the run stops (SettingsError, exit 5) and names the file,
    line, column, what was expected and what was found, rather than holding every club's file as
    an internal error. The tables are read and validated once per content (kept for the night)."""
    from pipelines.core.site import messages  # the site's fixed texts (data/site/messages.csv)

    for _, org in organisations.iterrows():
        messages(Path(data_dir), org["language"])
        check = getattr(_system(org["system"]), "check_settings", None)
        if check is None:
            continue
        try:
            check(Path(data_dir), org)
        except SettingsError:
            raise
        except ValueError as error:  # a rule system's own rule-table error (it names its tables)
            raise SettingsError(str(error)) from error


def _system(name: str):
    from pipelines.core.system import get_system  # (the systems import this module)

    return get_system(name)


def read_csv_text(path: Path, label: str | None = None, error: type[Exception] = SettingsError, **read) -> pd.DataFrame:
    """The table with every cell as text ('' for an empty cell; `read`: other pandas.read_csv
    arguments). A missing or unreadable file is a settings error."""
    label = label or Path(path).name
    try:
        frame = pd.read_csv(path, **{"dtype": str, "keep_default_na": False, "encoding": "utf-8", **read})
        if not isinstance(frame.index, pd.RangeIndex):  # pandas took a first line longer than the header as an index
            raise error(f"{label}: line 2 has more values than the header line has columns "
                        f"({', '.join(map(str, frame.columns))}); each line holds one value per column")
        return frame
    except FileNotFoundError:
        raise error(f"{label}: the table {path} is missing") from None
    except (OSError, UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError) as problem:
        raise error(f"{label}: cannot read the table ({str(problem).strip()}); "
                    "it must be a UTF-8 CSV file with a header line") from None


def as_decimals(frame: pd.DataFrame, columns: list[str], label: str, empty_is_none: bool = False,
                line_of: LineOf = csv_line, error: type[Exception] = SettingsError) -> pd.DataFrame:
    """The columns' cells as exact `Decimal`s; every cell that is not a finite decimal number is a
    settings error (all of them listed; `error`: a rule system's own subclass of it). With
    `empty_is_none`, an empty cell is None."""
    converted, bad = {}, []
    for column in (c for c in columns if c in frame.columns):
        values = []
        for index, text in frame[column].items():
            text = "" if text is None or (not isinstance(text, str) and pd.isna(text)) else str(text).strip()
            if text == "" and empty_is_none:
                values.append(None)
                continue
            try:
                value = Decimal(text)
            except InvalidOperation:
                value = None
            if value is None or not value.is_finite():
                bad.append(f"{label} {line_of(index)} column {column}: expected a decimal number, found {text!r}")
            values.append(value)
        converted[column] = pd.Series(values, index=frame.index, dtype=object)
    _raise(label, bad, error)
    return frame.assign(**converted)


def as_integers(frame: pd.DataFrame, columns: list[str], label: str, line_of: LineOf = csv_line,
                error: type[Exception] = SettingsError) -> pd.DataFrame:
    """The columns' cells as int64; every cell that is not a whole number is a settings error."""
    converted, bad = {}, []
    for column in (c for c in columns if c in frame.columns):
        text = frame[column].astype(str).str.strip()
        whole = text.str.fullmatch(r"-?\d{1,18}")
        bad += [f"{label} {line_of(i)} column {column}: expected a whole number, found {t!r}"
                for i, t in text[~whole].items()]
        converted[column] = text.where(whole, "0").astype("int64")
    _raise(label, bad, error)
    return frame.assign(**converted)


def checked(model: type[pa.DataFrameModel], frame: pd.DataFrame, label: str, line_of: LineOf | None = csv_line,
            error: type[Exception] = SettingsError, field: str = "column") -> pd.DataFrame:
    """`model.validate(frame, lazy=True)`, or a settings error listing every problem in the office's
    terms (`problems`). `line_of` names a row (None: the table has one row, named by `label`);
    `field` what a column is to the office ("key" in a TOML file)."""
    try:
        return model.validate(frame, lazy=True)
    except SchemaErrors as errors:
        cases = errors.failure_cases
    except SchemaError as first:  # (a schema that stops at its first error)
        cases = pd.DataFrame([{"schema_context": "DataFrameSchema", "column": None, "check": str(first),
                               "failure_case": None, "index": None}])
    _raise(label, problems(cases, model, frame, label, line_of, field), error)
    return frame  # not reached: a failure case is always a problem


def problems(cases: pd.DataFrame, model: type[pa.DataFrameModel], frame: pd.DataFrame, label: str,
             line_of: LineOf | None = csv_line, field: str = "column") -> list[str]:
    """pandera's failure cases as lines an office can act on: the file, the line, the column, what
    was expected, what was found. A missing or unknown column is reported alone (every other
    failure follows from it); a column pandera could not convert is reported at the cells that
    cannot be converted only; a table-wide check that only failed because of those is left out."""
    schema = model.to_schema()
    known = list(schema.columns)
    cases = cases.astype({"index": object}).where(cases.notna(), None)
    header = []
    for case in cases.itertuples():
        if case.check == "column_in_dataframe":
            header.append(f"{label}: the column {case.failure_case!r} is missing (the header line names the columns "
                          f"{', '.join(known)})")
        elif case.check == "column_in_schema":
            header.append(f"{label}: unknown column {case.failure_case!r}{nearest(str(case.failure_case), known)}; "
                          f"the columns are {', '.join(known)}")
    if header:
        # a misspelt column is both missing and unknown; pandera names only the missing one
        named = {str(c.failure_case) for c in cases.itertuples() if c.check == "column_in_schema"}
        header += [f"{label}: unknown column {extra!r}{nearest(extra, known)}; the columns are {', '.join(known)}"
                   for extra in map(str, frame.columns) if extra not in known and extra not in named]
        return list(dict.fromkeys(header))

    def where(index) -> str:
        return label if index is None or line_of is None else f"{label} {line_of(index)}"

    cells: list[tuple[int, str]] = []  # problems of a cell or a line
    unique = _unique_columns(schema)
    repeated: dict[object, dict[str, object]] = {}
    table_wide: dict[tuple, list[str]] = {}
    for case in cases.itertuples():
        check, column, found, index = str(case.check), case.column, case.failure_case, case.index
        order = -1 if index is None else int(index)
        if isinstance(found, str) and re.match(r"^[A-Za-z]+Error\(", found):
            continue  # the check could not run on a cell reported below (text where a number belongs)
        if check.startswith(("coerce_dtype(", "dtype(")):
            if index is None or _converts(found, check):
                continue  # a good cell of a column that had a bad one
            cells.append((order, f"{where(index)} {field} {column}: expected {_expected(check)}, found {found!r}"))
        elif check in ("multiple_fields_uniqueness", "field_uniqueness") and index is not None:
            repeated.setdefault(index, {})[str(column)] = found
        elif case.schema_context == "Column":
            cells.append((order, f"{where(index)} {field} {column}: expected {_expected(check)}, found {found!r}"))
        else:  # a check of the whole table (the schema's own words), at the lines it names
            table_wide.setdefault((order, check), []).append(
                f"{column} {found!r}" if column and column != schema.name else repr(found))
    for index, found_cells in repeated.items():
        columns = [c for c in unique if c in found_cells] or list(found_cells)
        values = ", ".join(f"{c} {found_cells[c]!r}" for c in columns)
        cells.append((int(index), f"{where(index)}: expected a line no other line repeats ({', '.join(columns)}), "
                                  f"found a second line with {values}"))
    if cells:  # the table's own checks read the cells: they are judged once the cells are right
        return list(dict.fromkeys(text for _, text in sorted(cells, key=lambda item: item[0])))
    out = []
    for (order, check), found in sorted(table_wide.items(), key=lambda item: item[0][0]):
        detail = f" (found {', '.join(dict.fromkeys(found))})" if found and found != ["None"] else ""
        out.append(f"{where(None if order < 0 else order)}: expected {check}{detail}")
    if not out and len(cases):  # only checks that could not run: say which
        out = [f"{label}: {case.check} could not be checked ({case.failure_case})"
               for case in cases.head(MAX_PROBLEMS).itertuples()]
    return list(dict.fromkeys(out))


def _unique_columns(schema) -> list[str]:
    unique = schema.unique or []
    return [unique] if isinstance(unique, str) else list(unique)


def _raise(label: str, found: list[str], error: type[Exception] = SettingsError) -> None:
    if not found:
        return
    shown = found[:MAX_PROBLEMS]
    more = f"\n  ... and {len(found) - MAX_PROBLEMS} more" if len(found) > MAX_PROBLEMS else ""
    raise error(f"{label} is invalid:\n  " + "\n  ".join(shown) + more)


# pandera's names of its built-in checks, in the office's words
_KINDS = [("decimal", "a decimal number"), ("int", "a whole number"), ("float", "a number"), ("bool", "true or false"),
          ("datetime", "a date (2026-04-01)"), ("date", "a date (2026-04-01)"), ("timestamp", "a date (2026-04-01)"),
          ("str", "text"), ("string", "text")]


def _kind(dtype: str) -> str:
    dtype = dtype.lower()
    return next((words for key, words in _KINDS if key in dtype), f"a value of type {dtype}")


def _converts(value, check: str) -> bool:
    """Whether a cell pandera reported under a column's conversion converts on its own."""
    if value is None or (not isinstance(value, str) and pd.isna(value)):
        return True  # an empty cell: whether it may be empty is a check of its own (not_nullable)
    kind = _kind(check)
    text = str(value).strip()
    try:
        if kind in ("a decimal number", "a number"):  # (a number column's cell is read as a Decimal here)
            return Decimal(text).is_finite()
        if kind == "a whole number":
            return re.fullmatch(r"-?\d+", text) is not None
        if kind.startswith("a date"):
            return pd.notna(pd.to_datetime(text, format="%Y-%m-%d", errors="coerce"))
    except (InvalidOperation, ValueError):
        return False
    return False


def _expected(check: str) -> str:
    m = re.fullmatch(r"(\w+)\((.*)\)", check, flags=re.S)
    if not m:
        return {"not_nullable": "a value (the cell is empty)"}.get(check, check)
    name, args = m.groups()
    if name in ("coerce_dtype", "dtype"):
        return _kind(args.strip("'\""))
    if name in ("isin", "notin"):
        items = args.strip("[]{}() ")
        return ("one of " if name == "isin" else "none of ") + items
    if name == "str_matches":
        return f"text of the form {args}"
    if name == "in_range":
        low, _, high = args.partition(",")
        return f"a number from {low.strip()} to {high.strip()}"
    words = {"greater_than": "more than", "greater_than_or_equal_to": "at least", "ge": "at least", "gt": "more than",
             "less_than": "less than", "less_than_or_equal_to": "at most", "le": "at most", "lt": "less than",
             "equal_to": "equal to", "eq": "equal to", "not_equal_to": "other than", "ne": "other than"}
    if name in words:
        return f"{words[name]} {args}"
    if name == "str_length":
        low, _, high = (a.strip() for a in args.partition(","))
        if high in ("None", ""):
            return f"text of at least {low} character" + ("s" if low != "1" else "")
        return f"text of {low} to {high} characters"
    return check

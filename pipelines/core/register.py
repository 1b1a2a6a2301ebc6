"""A member register: the names behind the ids a rule system's files carry (issue 15). Shared by
every rule system whose players are ids (JCBL member numbers today): reading an `id,name` CSV
register line by line, and the one rule for how a page shows a member.

How a page shows a member (`shown_names`): the name where the register knows the id; the name
and the id, ``山田太郎 (JT0101)``, where two members of the register share the name (a reader
must be able to tell them apart); the plain id where the register does not know it.

Bad input never raises: each problem is (source_file, location, reason) with the line, what was
expected and what was found. Every physical line is accounted for: blank, a ``#`` comment, the
header, a member, or a problem.
"""
from __future__ import annotations

from typing import Callable

import pandas as pd

from pipelines.core.names import normalise_names
from pipelines.core.text import clip, physical_lines, split_line, too_long

MAX_ID_CHARS = 40
MAX_NAME_CHARS = 200


def _is_control(text: str) -> bool:
    # a tab or a control byte in a name would print as nothing or break a page's layout
    return any(ord(c) < 32 or 127 <= ord(c) < 160 for c in text)


def read_register(source_file: str, text: str, columns: dict[str, str], *, max_id: int = MAX_ID_CHARS,
                  max_name: int = MAX_NAME_CHARS,
                  line_problem: Callable[[str], str | None] = too_long) -> tuple[pd.DataFrame, list[tuple[str, str, str]]]:
    """An `id,name` register (text already decoded) → (frame member_id, name, location; problems).

    `columns`: header word → "member_id" or "name" (the words a system accepts, lower case).
    A header with a missing, repeated or unknown column reads nothing (the columns of the lines
    below cannot be trusted); a bad line is quarantined alone and the other lines are kept. A
    member listed twice keeps its first line."""
    empty = pd.DataFrame({"member_id": pd.Series(dtype=str), "name": pd.Series(dtype=str),
                          "location": pd.Series(dtype=str)})
    expected = "member_id,name"
    if "\x00" in text:
        # a spreadsheet's binary file (.xls, .numbers) saved under the CSV name: one reason, not one per line
        return empty, [(source_file, "whole file",
                        f"expected a text file (CSV) with the header '{expected}' and one line per member, found binary "
                        f"data ({text.count(chr(0)):,} NUL characters): save the register as CSV (UTF-8 or Shift_JIS)")]
    lines = [(no, line) for no, line in enumerate(physical_lines(text), start=1)
             if line.strip() and not line.lstrip().startswith("#")]
    if not lines:
        return empty, [(source_file, "whole file",
                        f"expected a header '{expected}' and one line per member, found an empty file")]
    header_no, header_line = lines[0]
    cells = split_line(header_line, ",")
    below = f"none of the {len(lines) - 1} line(s) below it is read"
    if isinstance(cells, str):
        return empty, [(source_file, f"line {header_no}", f"header: {cells}; {below}")]
    words = [c.strip().lower() for c in cells]
    roles = [columns.get(w) for w in words]
    unknown = [c.strip() for c, r in zip(cells, roles) if r is None]
    if unknown:
        return empty, [(source_file, f"line {header_no}",
                        f"header: expected the columns {expected}, found the unknown column(s) "
                        + ", ".join(repr(clip(u)) for u in unknown) + f"; {below}: remove or rename the column(s)")]
    if sorted(roles) != ["member_id", "name"]:
        return empty, [(source_file, f"line {header_no}",
                        f"header: expected the columns {expected} (each once, in any order), found "
                        f"{clip(header_line.strip())!r}; {below}")]
    rows, problems = [], []
    seen: dict[str, int] = {}
    for no, line in lines[1:]:
        where = f"line {no}"
        long = line_problem(line)
        if long:
            problems.append((source_file, where, long))
            continue
        cells = split_line(line, ",")
        if isinstance(cells, str):
            problems.append((source_file, where, cells))
            continue
        if not any(c.strip() for c in cells):
            continue  # a line of empty cells, as spreadsheets write them: no member on it
        if len(cells) != 2:
            problems.append((source_file, where, f"expected 2 fields ({', '.join(w for w in words)}), found {len(cells)}"
                                                 + (" (a name with a comma must be in quotes)" if len(cells) > 2 else "")))
            continue
        r = {role: c.strip() for role, c in zip(roles, cells)}
        member, name = r["member_id"], " ".join(r["name"].split())
        bad = []
        if not member:
            bad.append("member_id: expected the member's id, found nothing")
        elif len(member) > max_id or any(c.isspace() for c in member) or _is_control(member):
            bad.append(f"member_id: expected an id of at most {max_id} characters without blanks, found {clip(member)!r}")
        if not name:
            bad.append("name: expected the member's name, found nothing (leave a member without a name out of the "
                       "register: pages then show the id)")
        elif len(name) > max_name:
            bad.append(f"name: expected at most {max_name} characters, found {clip(name)!r}")
        elif _is_control(name):
            bad.append(f"name: expected printable text, found a control character in {clip(name)!r}")
        if not bad and member in seen:
            bad.append(f"member {member} is already listed on line {seen[member]}: a member has one line; "
                       f"remove one of the two (line {seen[member]} is used)")
        if bad:
            problems.extend((source_file, where, b) for b in bad)
            continue
        seen[member] = no
        rows.append({"member_id": member, "name": name, "location": where})
    if not rows and not problems:
        problems.append((source_file, "whole file", f"expected one line per member ({expected}) after the header, found "
                                                    "none; send the whole register"))
    frame = pd.DataFrame(rows, columns=list(empty.columns)) if rows else empty
    return frame.reset_index(drop=True), problems


def shown_names(register: pd.DataFrame) -> pd.Series:
    """How pages show each member of `register` (member_id, name): the name, or "name (id)"
    where another member of the register has the same name. Names are compared without case,
    width or blanks (山田 太郎 and 山田太郎 could be told apart by nobody reading a page)."""
    if register.empty:
        return pd.Series([], index=register.index, dtype=str)
    key = normalise_names(register["name"]).str.replace(" ", "", regex=False).str.casefold()
    shared = key.duplicated(keep=False)
    name = register["name"].astype(str)
    return name.where(~shared, name + " (" + register["member_id"].astype(str) + ")").astype(str)


def label_players(players: pd.Series, shown: dict[str, str], separator: str = "・") -> pd.Series:
    """Space-separated player ids → the shown names joined by `separator` (ids the register does
    not know stay ids)."""
    return players.fillna("").astype(str).map(
        lambda text: separator.join(shown.get(p, p) for p in text.split()))


def register_changed(con, organisation: str, register_file: str) -> bool:
    """Whether the latest run read a new version of the organisation's member register (its path
    relative to the inbox, any case): the names on every page may have changed, whatever month
    the run posted (JCBL, Sweden)."""
    from pipelines.core.sql import fetch

    found = fetch(con, """
        select count(*) as n from sources
        where organisation = ? and lower(source_file) = lower(?) and status <> 'duplicate'
          and run_id = (select max(run_id) from runs)
        """, [organisation, register_file])
    return bool(found["n"].iloc[0])

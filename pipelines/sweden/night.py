"""Every result list of a night read into one frame (the set-based path of pipelines/sweden/system.py).

A list is read by plain line splitting when it is *regular*: no quote character, no NUL, a known
header without repeats, and every line well formed (ASCII digits for places and member numbers,
the right number of members, ranks that are ranks, no entrant twice). The checks that need the
whole field (ranks per section, entrants listed twice) run once over the night's frame. Anything
else, including every list with a problem, is read by the documented parser
(`pipelines.sweden.parse.parse_standings`), so its quarantine rows are exactly that parser's and
the regular path only ever decides "no problem" where the parser would.

`read_lists(items)` returns a `NightLists`: `rows` (one row per entrant of every list that was
read without a problem, in item order; columns as the parser's frame plus `unit`, the item's
number, and `members_text`), the parser's problems per item, and which items were read.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from pipelines.core.keyvalue import decode
from pipelines.sweden.parse import FALLBACKS, PLAYERS, REQUIRED, STANDINGS_COLUMNS, parse_standings

ROW_COLUMNS = ["unit", "location", "line", "place", "tied", "entrant", "members", "members_text", "played", "section",
               "hcp_place", "names"]
_CSV_FIELD_LIMIT = 100_000  # the csv module refuses fields over 131,072 characters: such files go to the parser


@dataclass
class NightLists:
    rows: pd.DataFrame
    problems: dict[int, list] = field(default_factory=dict)  # item → the parser's quarantine rows
    read: set[int] = field(default_factory=set)  # items with a frame (no problem)
    bounds: dict[int, tuple[int, int]] = field(default_factory=dict)  # item → its rows [start, stop)

    def frame(self, unit: int) -> pd.DataFrame:
        """One list's rows as the parser returns them (for the rare per-list checks)."""
        start, stop = self.bounds[unit]
        frame = self.rows.iloc[start:stop].reset_index(drop=True)
        if "members" not in frame:
            frame.insert(5, "members", frame["members_text"].str.split(" "))
        return frame

    def drop_member_lists(self) -> None:
        """The member lists once the players are drawn from them (members_text stays)."""
        self.rows = self.rows.drop(columns=["members"])


def _place(text: str) -> tuple[int, bool] | None:
    """'3' → (3, False), '3=' → (3, True); anything else (also '3 =', '0', non-ASCII digits) → None."""
    tied = text.endswith("=")
    digits = text[:-1] if tied else text
    if digits.isascii() and digits.isdigit():
        value = int(digits)
        return (value, tied) if value >= 1 else None
    return None


def _regular(text: str, form: str | None, cols: dict) -> bool:
    """Fill `cols` with the list's rows if it is regular (see the module doc); False otherwise."""
    if '"' in text or "\x00" in text:
        return False
    lines = [(no, l) for no, l in enumerate(text.splitlines(), start=1) if l.strip() and not l.lstrip().startswith("#")]
    if len(lines) < 2:
        return False
    header_line = lines[0][1]
    if len(header_line) > _CSV_FIELD_LIMIT:
        return False
    delim = ";" if header_line.count(";") >= header_line.count(",") and ";" in header_line else ("\t" if "\t" in header_line else ",")
    header = [STANDINGS_COLUMNS.get(h.strip().lower().replace(" ", "_")) for h in header_line.split(delim)]
    if None in header or len(set(header)) != len(header) or any(c not in header for c in REQUIRED):
        return False
    width = len(header)
    at = {h: i for i, h in enumerate(header)}
    i_place, i_entrant, i_members = at["place"], at["entrant"], at["members"]
    i_played, i_section, i_hcp, i_names = at.get("played"), at.get("section"), at.get("hcp_place"), at.get("names")
    lo, hi = PLAYERS.get(form or "", (1, 6))
    out = []
    for no, line in lines[1:]:
        if len(line) > _CSV_FIELD_LIMIT:
            return False
        cells = line.split(delim)
        if len(cells) != width:
            return False
        place = _place(cells[i_place].strip())
        entrant = cells[i_entrant].strip()
        text_members = cells[i_members].strip()
        if place is None or not entrant or not text_members.replace(" ", "").isdigit() or not text_members.isascii():
            return False
        members = text_members.split()
        if not lo <= len(members) <= hi or len(set(members)) != len(members):
            return False
        played = None
        if i_played is not None:
            p = cells[i_played].strip()
            if p:
                parts = p.split()
                if len(parts) != len(members) or not all(x.isascii() and x.isdigit() for x in parts):
                    return False
                played = [int(x) for x in parts]
        hcp = None
        if i_hcp is not None:
            h = cells[i_hcp].strip()
            if h:
                hp = _place(h)
                if hp is None:
                    return False
                hcp = hp[0]
        section = (cells[i_section].strip() if i_section is not None else "").upper().replace("EW", "ÖV").replace("OV", "ÖV")
        names = cells[i_names].strip() if i_names is not None else ""
        out.append((f"line {no}", no, place[0], place[1], entrant, members, " ".join(members), played, section, hcp, names))
    for column, values in zip(ROW_COLUMNS[1:], zip(*out)):
        cols[column].extend(values)
    cols["unit"].extend([None] * len(out))  # numbered by the caller
    return True


def _append_frame(cols: dict, st: pd.DataFrame) -> int:
    """A list read by the parser (or scored from travellers), appended to the night's columns."""
    n = len(st)
    cols["location"].extend(st["location"])
    cols["line"].extend(int(v) for v in st["line"])
    cols["place"].extend(int(v) for v in st["place"])
    cols["tied"].extend(bool(v) for v in st["tied"])
    cols["entrant"].extend(st["entrant"])
    cols["members"].extend(list(m) for m in st["members"])
    cols["members_text"].extend(" ".join(m) for m in st["members"])
    cols["played"].extend(None if p is None or (not isinstance(p, list) and pd.isna(p)) else list(p) for p in st["played"])
    cols["section"].extend(st["section"])
    cols["hcp_place"].extend(None if pd.isna(h) else int(h) for h in st["hcp_place"])
    cols["names"].extend(st["names"] if "names" in st else [""] * n)
    cols["unit"].extend([None] * n)
    return n


def read_lists(items: list[tuple[int, str, bytes, str | None]], others: dict[int, tuple] | None = None) -> NightLists:
    """items: (unit, source_file, data, form) of each result list to read. `others`: unit →
    (frame or None, problems) read elsewhere (travellers), appended in unit order."""
    cols: dict[str, list] = {c: [] for c in ROW_COLUMNS}
    problems: dict[int, list] = {}
    read: set[int] = set()
    bounds: dict[int, tuple[int, int]] = {}
    units: list[tuple[int, int]] = []  # (unit, rows) in row order
    parser: list[tuple[int, str, bytes, str | None]] = []
    others = dict(others or {})
    for unit, source_file, data, form in items:
        text, _ = decode(data, FALLBACKS)
        before = len(cols["location"])
        if _regular(text, form, cols):
            units.append((unit, len(cols["location"]) - before))
        else:
            parser.append((unit, source_file, data, form))
    rows = _frame(cols, units)
    # the whole-field checks over the night at once: places are ranks per section, hcp places too,
    # no entrant twice; a list that fails any of them is read again by the parser for its messages
    if len(rows):
        bad = set(rows.loc[_irregular_fields(rows), "unit"].unique().tolist())
        if bad:
            parser += [it for it in items if it[0] in bad]
            rows = rows[~rows["unit"].isin(bad)]
    frames = [rows] if len(rows) else []
    read |= set(rows["unit"].unique().tolist()) if len(rows) else set()
    for unit, source_file, data, form in sorted(parser, key=lambda it: it[0]):
        others[unit] = parse_standings(source_file, data, form)
    extra: dict[str, list] = {c: [] for c in ROW_COLUMNS}
    extra_units = []
    for unit in sorted(others):
        st, sq = others[unit]
        if sq:
            problems[unit] = sq
        if st is not None:
            extra_units.append((unit, _append_frame(extra, st)))
            read.add(unit)
    if extra_units:
        frames.append(_frame(extra, extra_units))
    if not frames:
        rows = _frame({c: [] for c in ROW_COLUMNS}, [])
    else:
        rows = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0].reset_index(drop=True)
    if len(rows):
        rows = rows.sort_values("unit", kind="stable", ignore_index=True)
        unit = rows["unit"].to_numpy()
        starts = np.flatnonzero(np.r_[True, unit[1:] != unit[:-1]])
        stops = np.r_[starts[1:], len(unit)]
        bounds = {int(unit[s]): (int(s), int(e)) for s, e in zip(starts, stops)}
    return NightLists(rows, problems, read, bounds)


def _frame(cols: dict, units: list[tuple[int, int]]) -> pd.DataFrame:
    unit = np.repeat(np.array([u for u, _ in units], dtype="int64"), [n for _, n in units]) if units else np.array([], dtype="int64")
    data = {c: (unit if c == "unit" else cols[c]) for c in ROW_COLUMNS}
    frame = pd.DataFrame(data, columns=ROW_COLUMNS)
    return frame.astype({"line": "int64", "place": "int64", "tied": bool, "hcp_place": "float64"})


def _irregular_fields(rows: pd.DataFrame) -> np.ndarray:
    """Rows of lists whose places are not ranks per section (1, 2=, 2=, 4), whose handicap places
    are not ranks, or that list an entrant twice (the parser's whole-field checks)."""
    expected = rows.groupby(["unit", "section"], sort=False)["place"].rank(method="min").astype("int64")
    bad = (rows["place"] != expected).to_numpy().copy()
    has_hcp = rows["hcp_place"].notna()
    if has_hcp.any():
        h = rows[has_hcp]
        hexp = h.groupby(["unit", "section"], sort=False)["hcp_place"].rank(method="min").astype("int64")
        bad[np.flatnonzero(has_hcp.to_numpy())] |= (h["hcp_place"].astype("int64") != hexp).to_numpy()
    bad |= rows.duplicated(["unit", "section", "entrant"], keep=False).to_numpy()
    return bad

"""Quarantine rows: where the rejected input is and why, in words a club secretary can act on.

The input checks of ``schemas.backgammon`` carry reason codes as their ``error``; ``from_checks``
runs a check model lazily and turns each failure case into a quarantine row, filling the reason
template of its code with the values of the failing row.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import pandas as pd
import pandera.errors

COLUMNS = ["source_file", "location", "reason"]

# One sentence per reason code: what was expected, what was found, what to do.
REASONS: dict[str, str] = {
    # results-file player rows (and the player rows derived from a match log)
    "player_missing": "the player is blank; write the player's name or member id",
    "place_unknown": (
        "place '{place_raw}' is not a place row of the table (expected one of: {expected_places}, or blank); "
        "players below the 5-8 tie get the per-match award only: leave their place blank"
    ),
    "wins_unreadable": (
        "matches won '{won_raw}' is not a whole number from 0 to 999999; write the number of matches "
        "{player_raw} won (0 if none; byes and forfeits do not count)"
    ),
    "wins_above_rounds": (
        "{player_raw} won {won_raw} matches but the event had {rounds} round(s); matches won cannot be more "
        "than the rounds played (byes and forfeits do not count as matches won)"
    ),
    "player_twice": "{player_raw} is listed {duplicates} times ({duplicate_lines}); list each player once",
    "tie_over_capacity": (
        "{row_count} players have place '{place_row}' ({row_lines}); the table's '{place_row}' row "
        "allows at most {capacity}"
    ),
    "places_overlap": (
        "place '{place_row}' of {player_raw} overlaps '{overlaps_with}' given to another player; "
        "each place can be held once: use one tie row for tied players"
    ),
    "place_beyond_field": (
        "place '{place_row}' of {player_raw} needs at least {first_place} players, but the event has {players}"
    ),
    # match-log rows
    "date_unreadable": "date '{date_raw}' is not a date like 2025-03-04 (year-month-day)",
    "date_implausible": "date '{date_raw}' is not a plausible tournament date (years 1900 to 2199); check the year",
    "bracket_missing": "the bracket is blank; write main, consolation or the bracket's name",
    "round_unreadable": "round '{round_raw}' is not a round number (1, 2, 3, ... up to 99)",
    "winner_missing": "the winner is blank; write the winner's name or member id",
    "length_unreadable": "match length '{length_raw}' is not a number of points from 1 to 9999 such as 7 (blank is allowed)",
    "result_unknown": "result '{result_raw}' is not one of: blank (played), bye, forfeit",
    "loser_missing": "the loser is blank but the result is not a bye; write the loser, or 'bye' in the result column",
    "bye_with_loser": "the result is a bye but a loser ('{loser_raw}') is named; a bye has no opponent",
    "winner_is_loser": "'{winner_raw}' is both winner and loser",
    # match-log brackets
    "twice_in_round": "{player} plays {times_in_round} times in round {round} of bracket '{bracket}'",
    "round_missing": "bracket '{bracket}' has no match in round {round_gap}; rounds must run 1, 2, 3, ... without gaps",
    "played_after_losing": (
        "{player} plays in round {round} of bracket '{bracket}' after losing in round {lost_earlier_in}; "
        "a single-elimination bracket drops the loser (check the spelling of the names, or state the places "
        "with '# place:' lines)"
    ),
    "came_from_nowhere": (
        "{player} plays in round {round} of bracket '{bracket}' but did not win (or have a bye) in round {previous_round}; "
        "check the spelling of the name, or log the bye"
    ),
    "winner_vanished": (
        "{player} won in round {round} of bracket '{bracket}' but has no match in round {next_round}; "
        "check the spelling of the name, or log the missing match"
    ),
    "final_not_single": (
        "the last round ({round}) of bracket '{bracket}' must be the final, one played or forfeited match; "
        "found {final_rows} line(s){final_note}; log the final, or state the places with '# place:' lines"
    ),
}


def plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


_EMPTY = pd.DataFrame({c: pd.Series(dtype="str") for c in COLUMNS})


def empty() -> pd.DataFrame:
    return _EMPTY.copy()


def rows(source_file: str, locations: Sequence[str], reasons: Sequence[str]) -> pd.DataFrame:
    if len(locations) == 0:
        return empty()
    return pd.DataFrame(
        {"source_file": source_file, "location": list(locations), "reason": list(reasons)}
    ).astype("str")


def concat(*frames: pd.DataFrame) -> pd.DataFrame:
    frames = [f for f in frames if f is not None and len(f)]
    if not frames:
        return empty()
    return pd.concat(frames, ignore_index=True)[COLUMNS].astype("str")


def lines_label(lines: Iterable[int], max_runs: int | None = None) -> str:
    """'line 7', 'lines 9, 14', 'lines 10–25' (runs of consecutive lines shown as ranges).
    ``max_runs``: show at most that many runs, then '... and N more lines' (for reasons repeated
    on many rows: a full label on each would be quadratic in the file)."""
    ordered = sorted({int(n) for n in lines})
    if not ordered:
        return "file"
    runs: list[list[int]] = []
    for n in ordered:
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    shown = runs if max_runs is None else runs[:max_runs]
    parts = [f"{a}" if a == b else (f"{a}, {b}" if b == a + 1 else f"{a}–{b}") for a, b in shown]
    label = ("line " if len(ordered) == 1 else "lines ") + ", ".join(parts)
    if len(shown) < len(runs):
        rest = sum(b - a + 1 for a, b in runs[len(shown):])
        label += f" and {rest:,} more line{'s' if rest != 1 else ''}"
    return label


def failures(model, staged: pd.DataFrame) -> pd.DataFrame:
    """Run a check model lazily; return (row index, code) of every failing row and check."""
    try:
        model.validate(staged, lazy=True)
    except pandera.errors.SchemaErrors as err:
        cases = err.failure_cases
        unexpected = cases[cases["index"].isna() | ~cases["check"].isin(REASONS)]
        if len(unexpected):  # a staging bug, not bad input: fail loudly
            raise RuntimeError(f"{model.__name__}: unexpected validation failure:\n{unexpected}") from err
        found = cases[["index", "check"]].drop_duplicates()
        return pd.DataFrame({"index": found["index"].astype("int64"), "code": found["check"].astype("str")})
    return pd.DataFrame({"index": pd.Series(dtype="int64"), "code": pd.Series(dtype="str")})


def from_failures(
    source_file: str, found: pd.DataFrame, staged: pd.DataFrame, *, location: str = "location", **fill: object
) -> pd.DataFrame:
    """Quarantine rows for failures: reason template of the code, filled from the failing row."""
    if found.empty:
        return empty()
    failing = found.merge(staged, left_on="index", right_index=True).sort_values(["index", "code"])
    reasons = [
        REASONS[rec["code"]].format_map(_Blank({**fill, **rec})) for rec in failing.to_dict("records")
    ]
    return rows(source_file, failing[location].tolist(), reasons)


class _Blank(dict):
    """Missing values print as an empty string rather than 'nan' or '<NA>'."""

    def __getitem__(self, key):
        value = super().__getitem__(key)
        return "" if value is None or (not isinstance(value, str) and pd.isna(value)) else value

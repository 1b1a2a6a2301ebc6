"""Builders of synthetic JCBL events for the tests: a field of n entrants in rank order,
each with its own players, scored through the public API."""
from __future__ import annotations

from decimal import Decimal
from functools import lru_cache

import pandas as pd

from pipelines.jcbl import award_components, compute_awards, load_rules, make_event

D = Decimal


@lru_cache(maxsize=1)
def rules():
    return load_rules()


def parse_table(text: str) -> tuple[list[str], list[tuple[str, list[str | None]]]]:
    """A table transcribed from the seed: a header row, then rows; '-' marks a blank cell."""
    lines = [l.split() for l in text.strip().splitlines()]
    header = lines[0][1:]
    rows = [(r[0], [None if c == "-" else c for c in r[1:]]) for r in lines[1:]]
    for key, cells in rows:
        assert len(cells) == len(header), f"row {key}: {len(cells)} cells for {len(header)} columns"
    return header, rows


def table_cases(text: str, name: str):
    """(name, column, row, expected) for every printed value."""
    header, rows = parse_table(text)
    return [(name, col, key, D(v)) for key, cells in rows for col, v in zip(header, cells) if v is not None]


def team(i: int, size: int = 4, prefix: str = "T") -> str:
    return " ".join(f"{prefix}{i}p{j}" for j in range(1, size + 1))


def pair(i: int, prefix: str = "P") -> str:
    return f"{prefix}{i}a {prefix}{i}b"


def field(unit: str, n: int, flight: str = "", prefix: str | None = None, **cols) -> pd.DataFrame:
    """n entrants ranked 1..n. Extra columns: scalars or lists of length n."""
    prefix = prefix or ("T" if unit == "team" else "P") + flight
    df = pd.DataFrame({
        "unit": unit, "flight": flight,
        "entrant": [f"{prefix}{i}" for i in range(1, n + 1)],
        "rank": list(range(1, n + 1)),
        "players": [team(i, prefix=prefix) if unit == "team" else pair(i, prefix=prefix) for i in range(1, n + 1)],
    })
    for k, v in cols.items():
        df[k] = v
    return df


def components(event: dict, standings: pd.DataFrame, holdings=None) -> pd.DataFrame:
    ev = make_event(**event) if "event" not in event else event
    return award_components(ev, standings, holdings, rules())


def awards(event: dict, standings: pd.DataFrame, holdings=None) -> pd.DataFrame:
    ev = make_event(**event) if "event" not in event else event
    return compute_awards(ev, standings, holdings, rules())


def by_entrant(lines: pd.DataFrame, component: str | None = None) -> dict[str, Decimal]:
    """Points per entrant (every player of an entrant gets the same; checked)."""
    if component is not None:
        lines = lines[lines["component"] == component]
    per = lines.groupby("entrant")["points"].agg(lambda s: set(s))
    assert (per.map(len) == 1).all(), "players of one entrant got different points"
    return {e: next(iter(v)) for e, v in per.items()}


def total_of(awards_frame: pd.DataFrame, player: str) -> Decimal:
    rows = awards_frame[awards_frame["player_id"] == player]
    return sum(rows["points"], D("0.00"))

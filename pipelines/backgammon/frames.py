"""Typed empty frames of the parsed tables (what a parser returns when nothing can be posted)."""

from __future__ import annotations

import functools

import pandas as pd

from schemas import backgammon as sch

MODELS = {"events": sch.Events, "players": sch.Players, "matches": sch.Matches}


@functools.lru_cache(maxsize=None)
def _empty(name: str) -> pd.DataFrame:
    schema = MODELS[name].to_schema()
    return schema.validate(pd.DataFrame({column: pd.Series(dtype=object) for column in schema.columns}))


def empty_tables(*names: str) -> dict[str, pd.DataFrame]:
    """Empty frames with the dtypes of the models (copies: callers may modify them)."""
    return {name: _empty(name).copy() for name in names}

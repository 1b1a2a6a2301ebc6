"""The points race: per club and season (calendar year), standings as of a date."""

from __future__ import annotations

from decimal import Decimal

import pandas as pd

from pipelines.core.validation import validate_frame
from schemas import backgammon as sch

STANDINGS_COLUMNS = list(sch.Standings.to_schema().columns)
CENT = Decimal("0.01")


def backgammon_standings(awards: pd.DataFrame, as_of) -> pd.DataFrame:
    """Standings of every club and season from the in-force award lines dated on or before ``as_of``.

    ``awards``: the award lines in force (one per event and player; reversed lines left out), with
    at least organisation, event_id, event_date, player_id, points (Decimal), matches_won.
    Events are counted per event_id (a main bracket and its consolation are two events).
    Ties share the better rank ("3=").
    """
    as_of = pd.Timestamp(as_of).normalize()
    needed = ["organisation", "event_id", "event_date", "player_id", "points", "matches_won"]
    lines = awards[needed]
    if lines.duplicated(["organisation", "event_id", "player_id"]).any():
        raise ValueError("standings need the in-force award lines: one line per event and player")
    lines = lines[pd.to_datetime(lines["event_date"]) <= as_of].assign(
        # points read back from the warehouse may carry more decimals or come as floats/text
        points=lambda f: f["points"].map(lambda p: (p if isinstance(p, Decimal) else Decimal(str(p))).quantize(CENT)),
        matches_won=lambda f: f["matches_won"].astype("int64"),
    )
    if lines.empty:
        return validate_frame(sch.Standings, pd.DataFrame({c: pd.Series(dtype=object) for c in STANDINGS_COLUMNS}))
    lines = lines.assign(season=pd.to_datetime(lines["event_date"]).dt.year.astype("int64"))
    totals = (
        lines.groupby(["organisation", "season", "player_id"])
        .agg(
            events=("event_id", "nunique"),
            matches_won=("matches_won", "sum"),
            points=("points", lambda p: sum(p, Decimal("0.00")).quantize(CENT)),
        )
        .reset_index()
    )
    cents = totals["points"].map(lambda d: int(d.scaleb(2)))
    rank = cents.groupby([totals["organisation"], totals["season"]]).rank(method="min", ascending=False).astype("int64")
    shared = rank.groupby([totals["organisation"], totals["season"], rank]).transform("size") > 1
    out = totals.assign(
        club=totals["organisation"],
        as_of=as_of,
        rank=rank,
        rank_label=rank.astype("str").where(~shared, rank.astype("str") + "="),
        player=totals["player_id"],
        _cents=cents,
    ).sort_values(["club", "season", "rank", "player"], ignore_index=True)
    return validate_frame(sch.Standings, out[STANDINGS_COLUMNS])

"""League calendar: seasons and two-month (or n-month) ranking periods, generated from data."""
from __future__ import annotations

import numpy as np
import pandas as pd

# Periods are generated this many years either side of the anchor: enough for any league.
_SPAN_YEARS = 40


def _as_datetime(dates: pd.Series) -> pd.Series:
    if pd.api.types.is_datetime64_any_dtype(dates.dtype):
        return dates
    return pd.to_datetime(dates.astype("string"))  # dates from data files (few rows)


def _month_index(dates: pd.Series) -> pd.Series:
    d = _as_datetime(dates)
    return d.dt.year * 12 + d.dt.month - 1


def _month_start(index: np.ndarray) -> pd.DatetimeIndex:
    return pd.to_datetime({"year": index // 12, "month": index % 12 + 1, "day": 1})


def periods(scheme: pd.Series, organisation: str, league_name: str) -> pd.DataFrame:
    """Every ranking period of the calendar: (organisation, league, period, period_name, start, end)."""
    months = int(scheme["months_per_period"])
    names = str(scheme["period_names"]).split("|")
    anchor = int(_month_index(pd.Series([scheme["anchor"]])).iloc[0])
    k = np.arange(-_SPAN_YEARS * 12 // months, _SPAN_YEARS * 12 // months + 1)
    start_index = anchor + k * months
    starts = _month_start(pd.Series(start_index))
    ends = _month_start(pd.Series(start_index + months)) - pd.Timedelta(days=1)
    period_names = np.array(names, dtype=object)[np.mod(k, len(names))]
    return pd.DataFrame(
        {
            "organisation": organisation,
            "league": league_name,
            "period": starts.dt.strftime("%Y-%m").to_numpy(),
            "period_name": period_names,
            "period_start": starts.dt.date.to_numpy(),
            "period_end": ends.dt.date.to_numpy(),
        }
    )


def snapshots(period_frame: pd.DataFrame, months_per_period: int) -> pd.DataFrame:
    """One leaderboard snapshot per month-end inside each period (the last one is the period end)."""
    start_index = _month_index(period_frame["period_start"])
    repeated = period_frame.loc[period_frame.index.repeat(months_per_period)].reset_index(drop=True)
    offset = np.tile(np.arange(months_per_period), len(period_frame))
    month_index = np.repeat(start_index.to_numpy(), months_per_period) + offset
    as_of = _month_start(pd.Series(month_index + 1)) - pd.Timedelta(days=1)
    return repeated.assign(as_of=as_of.dt.date.to_numpy())


def period_of(dates: pd.Series, scheme: pd.Series) -> pd.Series:
    """The period id (start month, 'YYYY-MM') each date falls in."""
    months = int(scheme["months_per_period"])
    anchor = int(_month_index(pd.Series([scheme["anchor"]])).iloc[0])
    index = _month_index(dates)
    start = anchor + np.floor_divide(index - anchor, months) * months
    return pd.Series(_month_start(start).dt.strftime("%Y-%m").to_numpy(), index=dates.index)


def season_of(dates: pd.Series, seasons: pd.DataFrame) -> pd.Series:
    """The season each date belongs to (NA where no season covers it)."""
    d = _as_datetime(dates)
    result = pd.Series(pd.NA, index=dates.index, dtype="string")
    for row in seasons.itertuples():  # a handful of seasons, vectorised over the dates
        starts = pd.Timestamp(str(row.starts_on)) if pd.notna(row.starts_on) else pd.Timestamp.min
        ends = pd.Timestamp(str(row.ends_on)) if pd.notna(row.ends_on) else pd.Timestamp.max
        result = result.mask((d >= starts) & (d <= ends), row.season)
    return result

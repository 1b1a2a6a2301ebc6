"""Fast, vectorised date helpers (pandas' strftime formats row by row in Python)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc


def _as_arrow_dates(dates: pd.Series) -> pa.Array:
    values = pa.array(dates, from_pandas=True)
    if pa.types.is_timestamp(values.type):
        return values
    return values.cast(pa.date32())


def month_keys(dates: pd.Series) -> pd.Series:
    """'YYYY-MM' of each date (date32 or datetime64 columns; NA stays NA)."""
    values = _as_arrow_dates(dates)
    ym = pc.add(pc.multiply(pc.year(values), 100), pc.month(values))
    valid = ym.is_valid().to_numpy(zero_copy_only=False)
    out = pd.Series(pd.NA, index=dates.index, dtype="string")
    if valid.any():
        unique, inverse = np.unique(ym.drop_null().to_numpy(), return_inverse=True)
        labels = np.array([f"{u // 100:04d}-{u % 100:02d}" for u in unique], dtype=object)
        out[valid] = labels[inverse]
    return out


def iso_days(dates: pd.Series) -> pd.Series:
    """'YYYY-MM-DD' of each date, formatted once per distinct day."""
    values = _as_arrow_dates(dates)
    return pd.Series(pc.strftime(values.cast(pa.timestamp("s")), format="%Y-%m-%d").to_numpy(zero_copy_only=False),
                     index=dates.index, dtype="string")

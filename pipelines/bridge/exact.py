"""Exact arithmetic helpers shared by matchpoints and IMP pairs.

Board scores that are fractions (Neuberg factoring, cross-IMP averages) are carried as integers
in *units*: a value ``v`` is stored as ``v * den`` where ``den`` is one integer per comparison
group (the least common multiple of every denominator that occurs in the group). Sums of units are
exact, and the only Decimal objects are made at the very end, one per entrant.
"""

from __future__ import annotations

from decimal import Decimal

import numpy as np
import pandas as pd

_INT64_SAFE = 2**62


def group_lcm(frame: pd.DataFrame, group_cols: list[str], value_col: str, base: int = 1) -> pd.Series:
    """LCM of the distinct positive values of ``value_col`` within each group (and ``base``).

    Returned as a Series aligned with ``frame``. Vectorised across groups: the loop runs over the
    position of a value inside its group (a handful), not over groups or rows.
    """
    keyed = frame[group_cols + [value_col]].copy()
    keyed[value_col] = keyed[value_col].astype("int64").clip(lower=1)
    distinct = keyed.drop_duplicates()
    distinct = distinct.assign(_pos=distinct.groupby(group_cols, sort=False).cumcount())
    groups = distinct[group_cols].drop_duplicates().reset_index(drop=True)
    acc = np.full(len(groups), base, dtype=np.int64)
    gidx = groups.reset_index().rename(columns={"index": "_g"})
    distinct = distinct.merge(gidx, on=group_cols, how="left")
    for pos in range(int(distinct["_pos"].max()) + 1 if len(distinct) else 0):
        step = distinct[distinct["_pos"] == pos]
        acc[step["_g"].to_numpy()] = np.lcm(acc[step["_g"].to_numpy()], step[value_col].to_numpy(dtype=np.int64))
    groups["_lcm"] = acc
    out = frame[group_cols].merge(groups, on=group_cols, how="left")["_lcm"]
    out.index = frame.index
    return out


def round_half_up_ratio(num, den, places: int) -> np.ndarray:
    """round_half_up(num / den, places) as an integer count of 10**-places, exactly.

    Works on int64 arrays when the products fit, else on Python integers (object arrays).
    Negative ratios round half away from zero.
    """
    num = np.asarray(num)
    den = np.asarray(den)
    scale = 10**places
    big = (np.abs(num).max(initial=0) * scale * 2 + np.abs(den).max(initial=0)) >= _INT64_SAFE
    if big or num.dtype == object or den.dtype == object:
        num = num.astype(object)
        den = den.astype(object)
    sign = np.where(num < 0, -1, 1)
    a = np.abs(num) * scale
    q = (2 * a + den) // (2 * den)
    return sign * q


def to_decimal(hundredths, places: int = 2) -> list:
    """Integers counting 10**-places -> list of Decimal with exactly ``places`` decimals."""
    return [None if pd.isna(h) else Decimal(int(h)).scaleb(-places) for h in hundredths]

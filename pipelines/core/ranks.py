"""Places within groups, computed on NumPy arrays, or in plain Python for a short list: a result
list's checks run once per file, and on a list of a few dozen lines pandas' groupby and duplicated
cost ten times the work itself (about 0.5 ms a file; a federation's history reads 90,000 files)."""
from __future__ import annotations

from bisect import bisect_left
from collections import Counter

import numpy as np

# Up to this many rows, the places are counted in plain Python: NumPy's fixed cost per call (a sort,
# a unique per key, each a few microseconds) is most of a short list's checks, and a result list
# has a few dozen lines. Both ways compare the keys as _codes does, by their text.
_SMALL = 64


def _codes(values) -> np.ndarray:
    """Each value's position among the sorted distinct values (equal values, equal codes)."""
    return np.unique(np.asarray(values).astype(str), return_inverse=True)[1].reshape(-1)


def _group_codes(keys) -> np.ndarray:
    """One code per row for its combination of `keys` (equal combinations, equal codes)."""
    combined = np.zeros(len(keys[0]), dtype=np.int64)
    for key in keys:
        codes = _codes(key)
        # coded again after each key: the combined codes stay below the number of rows
        combined = np.unique(combined * (int(codes.max()) + 1) + codes, return_inverse=True)[1].reshape(-1)
    return combined


def _plain_keys(keys, n: int) -> list[tuple]:
    """Each row's combination of `keys`, each value as its text (as _codes compares them)."""
    return list(zip(*[[str(v) for v in key] for key in keys])) if keys else [()] * n


def competition_ranks(values, *groups) -> np.ndarray:
    """The competition rank ("1224" ranking) of each value within its group (the combination of
    `groups`), as pandas' `groupby(groups)[values].rank(method="min")` gives it: tied values share
    the lowest place and the next value is placed after all of them (1, 2, 2, 4)."""
    values = np.asarray(values, dtype=np.int64)
    if len(values) == 0:
        return values
    if len(values) <= _SMALL:
        # a value's place is one more than the values of its group below it
        keys, plain = _plain_keys(groups, len(values)), values.tolist()
        by_group: dict[tuple, list[int]] = {}
        for key, value in zip(keys, plain):
            by_group.setdefault(key, []).append(value)
        for group in by_group.values():
            group.sort()
        return np.array([bisect_left(by_group[key], value) + 1 for key, value in zip(keys, plain)], dtype=np.int64)
    codes = _group_codes(groups) if groups else np.zeros(len(values), dtype=np.int64)
    order = np.lexsort((values, codes))
    group, value = codes[order], values[order]
    position = np.arange(len(value))
    new_group = np.r_[True, group[1:] != group[:-1]]
    new_value = new_group | np.r_[True, value[1:] != value[:-1]]
    ranks = (np.maximum.accumulate(np.where(new_value, position, 0))
             - np.maximum.accumulate(np.where(new_group, position, 0)) + 1)
    out = np.empty_like(ranks)
    out[order] = ranks
    return out


def repeated(*keys) -> np.ndarray:
    """Whether each row's combination of `keys` occurs more than once (pandas'
    `duplicated(keep=False)`): every row of a repeated combination is marked."""
    if len(keys[0]) == 0:
        return np.zeros(0, dtype=bool)
    if len(keys[0]) <= _SMALL:
        combinations = _plain_keys(keys, len(keys[0]))
        counts = Counter(combinations)
        return np.array([counts[c] > 1 for c in combinations], dtype=bool)
    _, inverse, counts = np.unique(_group_codes(keys), return_inverse=True, return_counts=True)
    return counts[inverse.reshape(-1)] > 1

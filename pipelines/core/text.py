"""Vectorised text building in Arrow (pandas builds strings row by row in Python)."""
from __future__ import annotations

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc


def concat(*parts, index: pd.Index | None = None) -> pd.Series:
    """Row-wise concatenation of Series (any dtype, cast to text) and constant strings."""
    series = [p for p in parts if isinstance(p, pd.Series)]
    index = index if index is not None else series[0].index
    arrays = []
    for part in parts:
        if isinstance(part, pd.Series):
            arrays.append(pc.cast(pa.array(part, from_pandas=True), pa.string()))
        else:
            arrays.append(pa.scalar(str(part), pa.string()))
    joined = pc.binary_join_element_wise(*arrays, "")
    return pd.Series(joined, index=index, dtype=pd.ArrowDtype(pa.string()))

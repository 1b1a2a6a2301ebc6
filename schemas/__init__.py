"""pandera models of every stage boundary (one module per rule system; shared types in common).

One adjustment to pandera (0.35, pinned in pyproject.toml), made here so that it holds wherever a
model is used: its dtype check of a `Series[str]` column that already has pandas' string dtype
answers with one True per row, which pandera then reshapes as "failure cases" although none
failed (about 1 ms per column per validation: a tenth of a backgammon file's parse). The same
answer as one True when every row passes; a check with a failing row is returned unchanged, so
what fails, and the failure cases reported, stay pandera's own (tests/core/test_validation.py).

And one adjustment of the process: pandera asks of every column it checks whether its type is
geopandas' by importing geopandas. Where geopandas is not installed (it is not among our
dependencies), each of these imports failed only after asking every import hook and searching
`sys.path` again: 32 microseconds a call in a nightly run, more under pytest's import hook (about
1 % of the test suite's time). Marked absent once (`sys.modules` holds None), an import fails at
once (4 microseconds); an installed geopandas is left alone.
"""
from __future__ import annotations

import importlib.util
import sys

import numpy as np
from pandera.engines import pandas_engine

if "geopandas" not in sys.modules and importlib.util.find_spec("geopandas") is None:
    sys.modules["geopandas"] = None  # `import geopandas` raises ModuleNotFoundError at once


def _one_answer_when_all_pass(check):
    def wrapped(self, pandera_dtype, data_container=None):
        result = check(self, pandera_dtype, data_container)
        if not isinstance(result, bool) and len(result) and bool(np.all(result)):
            return True
        return result

    wrapped.__wrapped__ = check
    return wrapped


if not hasattr(pandas_engine.STRING.check, "__wrapped__"):
    pandas_engine.STRING.check = _one_answer_when_all_pass(pandas_engine.STRING.check)

"""The vectorised date helpers of pipelines/core/dates.py, against dates written out by hand."""
from __future__ import annotations

from datetime import date

import pandas as pd
import pyarrow as pa

from pipelines.core.dates import iso_days, month_keys


def test_month_keys_of_dates_timestamps_and_missing_values_keep_the_index():
    dates = pd.Series([date(2026, 11, 3), None, date(1700, 1, 5), date(2200, 12, 31), date(2026, 11, 30)],
                      index=[10, 11, 12, 13, 14], dtype=pd.ArrowDtype(pa.date32()))
    keys = month_keys(dates)
    assert keys.tolist() == ["2026-11", pd.NA, "1700-01", "2200-12", "2026-11"]
    assert list(keys.index) == [10, 11, 12, 13, 14] and keys.dtype == "string"
    stamps = pd.Series(pd.to_datetime(["2024-12-01 00:00", None, "2025-02-28 23:59"]))
    assert month_keys(stamps).tolist() == ["2024-12", pd.NA, "2025-02"]


def test_month_keys_of_nothing_and_of_missing_dates_only():
    assert month_keys(pd.Series([], dtype="datetime64[ns]")).tolist() == []
    assert month_keys(pd.Series([pd.NaT, pd.NaT])).tolist() == [pd.NA, pd.NA]


def test_iso_days():
    dates = pd.Series([date(2026, 1, 2), date(999, 12, 31)], dtype=pd.ArrowDtype(pa.date32()))
    assert iso_days(dates).tolist() == ["2026-01-02", "0999-12-31"]


def test_iso_days_of_repeated_days_timestamps_and_missing_values_keep_the_index():
    stamps = pd.Series(pd.to_datetime(["2026-11-03 19:30", None, "2026-11-03 00:00", "1850-03-04 12:00", "2026-11-03 00:01"]),
                       index=[7, 5, 3, 1, 0])
    days = iso_days(stamps)
    assert days.tolist() == ["2026-11-03", pd.NA, "2026-11-03", "1850-03-04", "2026-11-03"]
    assert list(days.index) == [7, 5, 3, 1, 0] and days.dtype == "string"
    assert iso_days(pd.Series([], dtype="datetime64[ns]")).tolist() == []
    assert iso_days(pd.Series([pd.NaT, pd.NaT])).tolist() == [pd.NA, pd.NA]

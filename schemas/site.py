"""The published site's message catalogue (data/site/messages.csv): one row per fixed text, a
column per language an organisation may choose (`language` in its settings)."""
from __future__ import annotations

import pandera.pandas as pa
from pandera.typing import Series

LANGUAGES = ["en", "ja", "sv"]


class SiteMessage(pa.DataFrameModel):
    key: Series[str] = pa.Field(unique=True, str_matches=r"^[a-z][a-z_]*$")
    en: Series[str] = pa.Field(str_length={"min_value": 1})
    ja: Series[str] = pa.Field(str_length={"min_value": 1})
    sv: Series[str] = pa.Field(str_length={"min_value": 1})

    class Config:
        strict = True
        coerce = True

"""Organisation settings (data/organisations/<organisation>.toml), one row per organisation."""
from __future__ import annotations

import pandas as pd
import pandera.pandas as pa
from pandera.typing import Series

KNOWN_SYSTEMS = ["mahjong", "backgammon", "jcbl", "bridge", "sweden"]


class Organisation(pa.DataFrameModel):
    organisation: str = pa.Field(unique=True, str_matches=r"^[a-z0-9][a-z0-9-]*$")
    display_name: str = pa.Field(str_length={"min_value": 1})
    system: str = pa.Field(isin=KNOWN_SYSTEMS)
    ruleset: str = pa.Field(nullable=True)
    calendar: str = pa.Field(nullable=True)
    aliases: str = pa.Field(nullable=True)
    game_total: pd.Int64Dtype = pa.Field(nullable=True, gt=0)
    # first month of the organisation's balance season (4 = April–March); calendar files override
    season_start_month: pd.Int64Dtype = pa.Field(nullable=True, ge=1, le=12)
    # largest inbox file read, in MB (a larger one is quarantined unread); blank: the default
    max_file_mb: pd.Int64Dtype = pa.Field(nullable=True, gt=0)
    # the `[options]` table of the settings file as JSON: system-specific settings that the rule
    # system validates with its own schema
    options: str = pa.Field()
    # the language of the published site's fixed texts (data/site/messages.csv)
    language: str = pa.Field(isin=["en", "ja", "sv"])
    settings_file: str = pa.Field()

    class Config:
        strict = True
        coerce = True

    @pa.dataframe_check(error="the file name must be <organisation>.toml")
    def file_named_after_organisation(cls, df: pd.DataFrame) -> Series[bool]:
        return df["settings_file"].str.extract(r"([^/]*)$")[0] == df["organisation"] + ".toml"

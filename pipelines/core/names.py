"""Player identity: one spelling per player (shared by every rule system and `explain`)."""
from __future__ import annotations

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc


def normalise_names(names: pd.Series) -> pd.Series:
    """Unicode NFKC (full-width letters and digits become ASCII), trimmed, inner spaces collapsed."""
    text = pc.utf8_normalize(pa.array(names.astype("string"), type=pa.string(), from_pandas=True), form="NFKC")
    text = pc.utf8_trim_whitespace(pc.replace_substring_regex(text, pattern=r"\s+", replacement=" "))
    return pd.Series(text, index=names.index, dtype="string")


def apply_aliases(names: pd.Series, aliases: pd.DataFrame) -> pd.Series:
    """Map normalised names through the alias table (alias → player_id); others stay as they are."""
    if aliases.empty:
        return names
    mapping = pd.Series(
        normalise_names(aliases["player_id"]).to_numpy(),
        index=normalise_names(aliases["alias"]).to_numpy(),
    )
    return names.map(mapping).fillna(names).astype("string")

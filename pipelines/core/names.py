"""Player identity: one spelling per player (shared by every rule system and `explain`)."""
from __future__ import annotations

import pandas as pd


def normalise_names(names: pd.Series) -> pd.Series:
    """Unicode NFKC (full-width letters and digits become ASCII), trimmed, inner spaces collapsed."""
    return (
        names.astype("string")
        .str.normalize("NFKC")
        .str.replace(r"\s+", " ", regex=True)
        .str.strip()
    )


def apply_aliases(names: pd.Series, aliases: pd.DataFrame) -> pd.Series:
    """Map normalised names through the alias table (alias → player_id); others stay as they are."""
    if aliases.empty:
        return names
    mapping = pd.Series(
        normalise_names(aliases["player_id"]).to_numpy(),
        index=normalise_names(aliases["alias"]).to_numpy(),
    )
    return names.map(mapping).fillna(names).astype("string")

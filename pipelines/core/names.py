"""Player identity: one spelling per player (shared by every rule system and `explain`)."""
from __future__ import annotations

from pathlib import Path

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


def read_aliases(data_dir: Path, table: str | None) -> pd.DataFrame:
    """An organisation's alias table (data/aliases/<table>.csv: alias, player_id), both columns
    normalised; empty when the organisation names none or the file lacks either column (the rule
    system that uses it reports that)."""
    path = Path(data_dir) / "aliases" / f"{table}.csv"
    if not table or not path.is_file():
        return pd.DataFrame({"alias": pd.Series(dtype="string"), "player_id": pd.Series(dtype="string")})
    aliases = pd.read_csv(path, dtype="string", keep_default_na=False)
    if not {"alias", "player_id"} <= set(aliases.columns):
        return read_aliases(data_dir, None)
    return aliases.assign(alias=normalise_names(aliases["alias"]), player_id=normalise_names(aliases["player_id"]))[["alias", "player_id"]]


def other_spellings(aliases: pd.DataFrame) -> dict[str, str]:
    """player_id → the player's other spellings, one space between them (the site index's search
    matches them, as `explain` accepts them)."""
    if aliases.empty:
        return {}
    return aliases.groupby("player_id", sort=True)["alias"].agg(lambda s: " ".join(sorted(set(s)))).to_dict()

"""`pointledger explain`: every award line of a player with its derivation."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from pipelines.core.names import alias_table_problem, apply_aliases, normalise_names, read_aliases
from pipelines.core.settings import DATA_DIR
from pipelines.core.sql import connect, fetch
from pipelines.core.system import get_system


def resolve_player(player: str, data_dir: Path = DATA_DIR, problems: list[str] | None = None) -> str:
    """The player id a name stands for: normalised, then through the organisations' alias tables
    (so `explain けん` finds Ken's lines when `けん,Ken` is an alias). An alias table that cannot be
    read is left out and said in `problems` (the name is then looked up as written)."""
    name = normalise_names(pd.Series([player]))
    tables = []
    for path in sorted((Path(data_dir) / "aliases").glob("*.csv")):
        problem = alias_table_problem(path)
        if problem is None:
            tables.append(read_aliases(data_dir, path.stem))
        elif problems is not None:
            problems.append(f"{path}: {problem}; its aliases are not applied")
    tables = [t for t in tables if len(t)]
    if tables:
        name = apply_aliases(name, pd.concat(tables, ignore_index=True).drop_duplicates("alias"))
    return name.iloc[0]


def explain_player(warehouse: Path, player: str, event_id: str | None = None, data_dir: Path = DATA_DIR,
                   problems: list[str] | None = None) -> list[str]:
    player_id = resolve_player(player, data_dir, problems)
    con = connect(warehouse, read_only=True)
    try:
        lines_ = _lines_of(con, player_id, event_id)
        if lines_.empty:
            # where players are member numbers (JCBL, Sweden), a name is looked up in the registers;
            # where the name is the id (mahjong, backgammon), one written in another letter case
            for found, how in ((members_named(con, player_id), f"members are named {player_id!r}"),
                               (ids_in_another_case(con, player_id), f"players are {player_id!r} in another letter case")):
                if len(found) > 1 and problems is not None:
                    shown = ", ".join(f"{r.player_id} ({r.organisation})" for r in found.head(10).itertuples())
                    more = f" and {len(found) - 10} more" if len(found) > 10 else ""
                    problems.append(f"{len(found)} {how}: {shown}{more}; explain one of them as listed")
                if len(found):
                    break
            if len(found) != 1:
                return []
            player_id = found["player_id"].iloc[0]
            lines_ = _lines_of(con, player_id, event_id)
        if lines_.empty:
            return []
        out = [f"{player_id}: {len(lines_)} ledger line(s)"]
        for r in lines_.itertuples():
            sign = "" if r.entry_type == "award" else " (reversal)"
            out.append(f"{r.event_date}  {r.event_id}  {r.points:>7} {r.denomination}{sign}  {r.basis}  [{r.source_file} {r.location}]")
        totals = fetch(
            con, "select organisation, season, denomination, points from balances where player_id = ? order by 1, 2, 3", [player_id]
        )
        for r in totals.itertuples():
            out.append(f"balance {r.organisation} {r.season} {r.denomination}: {r.points}")
        if event_id is None:
            for system_name in sorted(set(lines_["system"])):
                out.extend(get_system(system_name).explain(con, player_id, event_id))
        return out
    finally:
        con.close()


def _lines_of(con, player_id: str, event_id: str | None) -> pd.DataFrame:
    return fetch(
        con,
        """
        select event_date, event_id, organisation, system, denomination, points, entry_type, basis, source_file, location
        from awards
        where player_id = ? and (? is null or event_id = ?)
        order by organisation, event_date, event_id, posted_on, entry_type
        """,
        [player_id, event_id, event_id],
    )


def members_named(con, name: str) -> pd.DataFrame:
    """The members (organisation, player_id) whose register name is `name` (normalised as names
    are, letter case aside), in the organisations whose players are member numbers: their systems
    name them (`player_names`, as on the site)."""
    wanted = normalise_names(pd.Series([name])).iloc[0].casefold()
    found = [pd.DataFrame(columns=["organisation", "player_id"])]
    for r in fetch(con, "select distinct organisation, system from awards order by 1").itertuples():
        system = get_system(r.system)
        if not hasattr(system, "player_names"):
            continue
        names = system.player_names(con, pd.Series({"organisation": r.organisation}))
        match = normalise_names(names["name"].astype(str)).str.casefold() == wanted
        found.append(names.loc[match.to_numpy(dtype=bool), ["player_id"]].assign(organisation=r.organisation))
    return pd.concat(found, ignore_index=True).drop_duplicates()[["organisation", "player_id"]]


def ids_in_another_case(con, player_id: str) -> pd.DataFrame:
    """The ledger's player ids equal to `player_id` but for letter case (organisation, player_id):
    `explain ken` finds Ken; two ids of one spelling are listed, not merged."""
    return fetch(con, "select distinct organisation, player_id from awards where lower(player_id) = lower(?) "
                      "and player_id <> ? order by 1, 2", [player_id, player_id])[["organisation", "player_id"]]

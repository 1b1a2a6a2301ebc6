"""The DM-final bonus (seed p. 15, "Bonus för DM-finaler"; docs/sweden.md, 'DM finals').

A district championship final (or SM qualification) marked ``dm: lag | par | övrig`` is scored as
the silver event it is; on top of that, places 1-3 get the bonus of ``dm_bonus.csv`` per player, in
silver points. The seed's conditions, applied here set-based over the night's DM lists:

- a shared place gives the higher bonus (the place number of a tie is its top place);
- a closed DM pairs final (the default) gives the bonus only to true district pairs: both players
  belong to clubs of the organising club's district; an open one (``dm_öppen: ja``) to every pair;
- in a pairs event a player must have played at least half of the event (``spelat`` against
  ``ronder``, else boards) for the bonus;
- a team's bonus follows the district's own rules, which are not data here: every member listed
  for a placed team gets the table's points (docs/sweden.md says so).
"""
from __future__ import annotations

import pandas as pd

ORDINAL = {1: "1st", 2: "2nd", 3: "3rd"}
KIND_TEXT = {"lag": "DM-final/SM-kval lag, öppen klass", "par": "DM-par/SM-kval, öppen klass", "övrig": "övriga DM-finaler"}


def bonus_players(standings: pd.DataFrame) -> pd.DataFrame:
    """One row per member of a placed entrant: standings (event_id, kind, form, open, district, of,
    place, entrant, members, played, location) with members and played exploded together."""
    played = [p if isinstance(p, list) else [None] * len(m) for m, p in zip(standings["members"], standings["played"])]
    return (standings.assign(played=played)
            .explode(["members", "played"])
            .rename(columns={"members": "member"})
            .reset_index(drop=True))


def bonus_lines(players: pd.DataFrame, bonus: pd.DataFrame, member_club: pd.Series,
                club_district: pd.Series) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(lines, withheld): each member's bonus line (event_id, member, entrant, place, points,
    denomination, basis, location), and the placed members who get none with the reason."""
    placed = players.merge(bonus[["kind", "place", "points", "denomination"]], on=["kind", "place"], how="inner")
    district_of = placed["member"].map(member_club).map(club_district)
    pair = placed["form"] == "par"
    # a closed pairs DM: both players of the pair must belong to the district
    placed = placed.assign(in_district=(district_of == placed["district"]).fillna(False))
    pair_in = placed.groupby(["event_id", "entrant"])["in_district"].transform("all")
    closed_out = pair & ~placed["open"] & ~pair_in
    played = pd.to_numeric(placed["played"], errors="coerce")
    too_little = pair & played.notna() & (played * 2 < placed["of"])
    reason = pd.Series("", index=placed.index)
    reason = reason.mask(too_little, "played " + played.fillna(0).astype("int64").astype(str) + " of "
                         + placed["of"].astype("int64").astype(str) + ": the DM bonus needs at least half of the event")
    reason = reason.mask(closed_out, "a closed DM pairs final gives the bonus only to pairs whose two players both belong "
                                     "to clubs of the district (" + placed["district"].astype(str) + "); write dm_öppen: ja "
                                     "if the final was open")
    given = placed[reason == ""]
    tied = given["place_label"].str.endswith("=")
    basis = ("DM bonus (seed p. 15, Bonus för DM-finaler, " + given["kind"].map(KIND_TEXT) + "): place "
             + given["place_label"] + " → " + given["points"].astype(str) + " " + given["denomination"] + " per player"
             + tied.map({True: " (a shared place gives the higher bonus)", False: ""}))
    lines = given.assign(basis=basis)[["event_id", "member", "entrant", "place", "points", "denomination", "basis", "location"]]
    withheld = placed.loc[reason != "", ["event_id", "member", "entrant", "place"]].assign(reason=reason[reason != ""])
    return lines.reset_index(drop=True), withheld.reset_index(drop=True)

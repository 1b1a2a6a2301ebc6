"""Swedish team series (seed 002 tables B2-B4, E2-E7, G1, G3; RULES.md §3 "Series"): per-match
awards, accumulated exactly over the series and rounded up at its end.

Pure DataFrame -> DataFrame steps, no I/O except ``load_series_rules``:

- ``classify(teams, margins)``: won / drawn / lost by the team's OWN VP after penalties, by the
  seed's margin table for the match's VP scale (18-12 won and 17-13 drawn on 30, ...). So an 18-12
  with a 1 VP time penalty (17-12) is a draw for the winner, and 17-13 penalised to 17-12 leaves
  the 12-team nothing (the seed's examples). Fractional VP must reach the printed threshold.
- ``team_points(matches, rules)``: points per team per match from series_match_points.csv
  (table, divisions, division, boards); a draw gets the drawn points; walkovers get nothing; a
  given-up match (``conceded``: the side that gave up) gives the other side the won points (seed
  section 5); an interrupted match gets the table's factor of series_interrupted.csv (E3: half
  scale when at least half of its boards were played), in other tables nothing.
- ``member_lines(team_rows, appearances)``: each member who played at least one half gets the
  team's points × own halves / all halves the team's members played (seed E2: A, B, C 5 each,
  D and E 2½ of 20).
- ``series_totals(lines)``: exact sum per player and series, rounded up once ("Decimaler avrundas
  uppåt ... tills tävlingen är färdigspelad").
"""
from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd

from pipelines.core.settings import cached_by_content
from pipelines.sweden.rules import RULES_DIR, SwedenRulesError, _read, frac
from schemas import sweden_series as S

SIDES = ("home", "away")


def load_series_rules(rules_dir: Path | None = None) -> dict[str, pd.DataFrame]:
    d = Path(rules_dir or RULES_DIR)
    return cached_by_content("sweden.series_rules", (d,),
                             lambda: {name: _read(d / f"{name}.csv", model) for name, model in S.RULE_TABLES.items()})


def team_rows(matches: pd.DataFrame) -> pd.DataFrame:
    """One row per team per match: own and opponent VP after penalties."""
    parts = []
    for side, other in (SIDES, SIDES[::-1]):
        parts.append(matches.assign(side=side, team=matches[side], opponent=matches[other],
                                    own_vp=matches[f"{side}_vp"], opp_vp=matches[f"{other}_vp"]))
    return pd.concat(parts, ignore_index=True)


def classify(teams: pd.DataFrame, margins: pd.DataFrame, rule_version: str = "se-2009") -> pd.DataFrame:
    """Adds ``result`` (won / drawn / lost; ``no scale`` when the scale is not in the table)."""
    m = margins[margins["rule_version"] == rule_version][["scale_total", "won_own_vp", "drawn_own_vp"]]
    out = teams.merge(m, how="left", on="scale_total", validate="many_to_one")
    own = out["own_vp"].map(Fraction)
    won = own >= out["won_own_vp"].map(lambda v: Fraction(int(v)) if pd.notna(v) else None)
    drawn = own >= out["drawn_own_vp"].map(lambda v: Fraction(int(v)) if pd.notna(v) else None)
    result = np.select([out["won_own_vp"].isna(), won, drawn], ["no scale", "won", "drawn"], "lost")
    return out.assign(result=result).drop(columns=["won_own_vp", "drawn_own_vp"])


def _pick_points(teams: pd.DataFrame, points: pd.DataFrame, rule_version: str) -> pd.DataFrame:
    p = points[points["rule_version"] == rule_version].assign(
        max_b=lambda d: pd.to_numeric(d["max_boards"].replace("", np.nan)).fillna(10**6),
        won_f=lambda d: d["won_points"].map(frac), drawn_f=lambda d: d["drawn_points"].map(frac))
    cand = teams.reset_index().merge(p[["table", "divisions", "division", "denomination", "min_boards", "max_b",
                                        "won_f", "drawn_f"]], how="left", on=["table", "divisions", "division"])
    fits = (cand["boards"] >= cand["min_boards"]) & (cand["boards"] <= cand["max_b"])
    chosen = cand[fits].drop_duplicates("index").set_index("index")
    return teams.join(chosen[["denomination", "won_f", "drawn_f"]])


def team_points(matches: pd.DataFrame, rules: dict[str, pd.DataFrame], rule_version: str = "se-2009") -> pd.DataFrame:
    """One row per team per match with ``result``, ``points`` (Fraction), ``denomination`` and
    ``basis``; a match whose table/boards have no row gets ``problem`` (for quarantine)."""
    teams = classify(team_rows(matches), rules["series_margins"], rule_version)
    # a given-up match (seed section 5): the side that gave up lost, the other won, whatever the VP
    conceded = teams["conceded"].fillna("").astype(str) if "conceded" in teams else pd.Series("", index=teams.index)
    gave_up = conceded.ne("")
    teams = teams.assign(conceded=conceded, result=np.where(gave_up & teams["result"].ne("no scale"),
                                                          np.where(conceded.eq(teams["side"]), "lost", "won"),
                                                          teams["result"]))
    teams = _pick_points(teams, rules["series_match_points"], rule_version)
    # an interrupted match (boards_played < boards, not given up): points × the table's factor when
    # enough boards were played (series_interrupted.csv: E3's half scale), else nothing
    rule = rules["series_interrupted"]
    rule = rule[rule["rule_version"] == rule_version].set_index("table")
    share = teams["table"].map(rule["min_share_played"].map(frac)) if len(rule) else pd.Series(None, index=teams.index)
    half = teams["table"].map(rule["factor"].map(frac)) if len(rule) else pd.Series(None, index=teams.index)
    played = teams["boards_played"].fillna(teams["boards"])
    interrupted = (played < teams["boards"]) & ~gave_up
    enough = pd.Series([s is not None and not (isinstance(s, float) and math.isnan(s)) and Fraction(int(p)) >= s * int(b)
                        for s, p, b in zip(share, played, teams["boards"])], index=teams.index)
    factor = np.select([teams["walkover"], interrupted & enough, interrupted],
                       [Fraction(0), half.where(enough, None), Fraction(0)], Fraction(1))
    base = np.select([teams["result"].eq("won"), teams["result"].eq("drawn")],
                     [teams["won_f"], teams["drawn_f"]], None)
    no_row = teams["won_f"].isna()
    problem = np.select(
        [teams["result"].eq("no scale"), no_row],
        ["VP scale " + teams["scale_total"].astype(str) + " is not in the margin table (expected 2, 4, 6, 8, 20 or 30)",
         "table " + teams["table"] + " (" + teams["divisions"].astype(str) + " divisions, division "
         + teams["division"].astype(str) + ") has no award for " + teams["boards"].astype(str) + " boards per match"],
        "")
    pts = pd.Series([(Fraction(0) if (b is None or (isinstance(b, float) and math.isnan(b))) else b) * f
                     for b, f in zip(base, factor)], index=teams.index, dtype=object)
    how = np.select([teams["walkover"], gave_up, interrupted & enough, interrupted & teams["table"].isin(rule.index), interrupted],
                    [" (walkover: no points)",
                     " (" + np.where(conceded.eq("home"), teams["home"], teams["away"]) + " gave up: the winner gets its mp)",
                     " (interrupted: × " + half.map(str) + ", at least " + share.map(str) + " of the boards played)",
                     " (interrupted before " + share.map(str) + " of the boards: no points)",
                     " (interrupted: no points; the seed's half scale is table E3's)"], "")
    basis = ("round " + teams["round"].astype(str) + ", " + teams["home"] + " – " + teams["away"] + " "
             + teams["home_vp"].astype(str) + "-" + teams["away_vp"].astype(str) + " " + teams["result"] + how)
    return teams.assign(points=pts.where(problem == "", None), basis=basis, problem=problem)


def member_lines(teams: pd.DataFrame, appearances: pd.DataFrame) -> pd.DataFrame:
    """appearances: match_id, side, player, half (1 or 2). One line per member per match:
    points × halves / the team's halves, exact (Fraction)."""
    halves = (appearances.drop_duplicates(["match_id", "side", "player", "half"])
              .groupby(["match_id", "side", "player"], as_index=False).agg(halves=("half", "size")))
    halves = halves.assign(team_halves=halves.groupby(["match_id", "side"])["halves"].transform("sum"))
    t = teams[teams["problem"].eq("")][["match_id", "series_id", "round", "side", "team", "result",
                                        "denomination", "points", "basis"]]
    out = t.merge(halves, on=["match_id", "side"], how="inner", validate="one_to_many")
    share = [p * h / th for p, h, th in zip(out["points"], out["halves"], out["team_halves"])]
    basis = (out["basis"] + ": " + out["points"].map(str) + " × " + out["halves"].astype(str) + "/"
             + out["team_halves"].astype(str) + " (halves played of the team's halves)")
    return out.assign(share=pd.Series(share, index=out.index, dtype=object), basis=basis)


def series_totals(lines: pd.DataFrame) -> pd.DataFrame:
    """Exact accumulated share per series and player and the total rounded up once."""
    g = lines.groupby(["series_id", "player", "denomination"], as_index=False).agg(
        exact=("share", lambda s: sum(s, Fraction(0))), matches=("match_id", "nunique"))
    return g.assign(points=g["exact"].map(math.ceil).astype("int64"))


def _param(rules: dict[str, pd.DataFrame], name: str, rule_version: str) -> Fraction:
    p = rules["series_parameters"]
    row = p[(p["rule_version"] == rule_version) & (p["name"] == name)]
    if row.empty:
        raise SwedenRulesError(f"series_parameters.csv has no {name!r} for {rule_version}")
    return frac(row.iloc[0]["value"])


def bonus_points(printed_b2: pd.DataFrame, rules: dict[str, pd.DataFrame], size: int, place: int,
                 rule_version: str = "se-2009") -> int:
    """The B2 bonus per player for a place among ``size`` teams: the printed row (4-12 teams), beyond
    it 10 × (teams − 1) − 30 × (place − 1) while positive (RULES.md §3); 0 outside."""
    t = printed_b2[(printed_b2["rule_version"] == rule_version)]
    hit = t[(t["size"] == size) & (t["place"] == place)]
    if not hit.empty:
        return int(hit.iloc[0]["points"])
    if size <= int(t["size"].max()):
        return 0
    value = (_param(rules, "bonus_beyond_printed_per_team", rule_version) * (size - 1)
             - _param(rules, "bonus_beyond_printed_per_place", rule_version) * (place - 1))
    return int(max(value, 0))


def series_bonus(standings: pd.DataFrame, lines: pd.DataFrame, rules: dict[str, pd.DataFrame],
                 printed_b2: pd.DataFrame, *, table: str, divisions: int = 1, division: int = 1,
                 double: bool = False, swiss_rounds: int | None = None,
                 rule_version: str = "se-2009") -> pd.DataFrame:
    """Bonus lines after the series' end. standings: series_id, team, place (ties broken). lines:
    the series' member lines. Each member with at least 1/3 of the team's halves (2 per match the
    team played) gets the B2 bonus of the team's place × the division's percent (× 2 for a double
    series; a Swiss series uses the B2 row for rounds + 1 teams). Tables without a B2 bonus: none."""
    mp = rules["series_match_points"]
    code = mp[(mp["rule_version"] == rule_version) & (mp["table"] == table) & (mp["divisions"] == divisions)
              & (mp["division"] == division)]["bonus"]
    b = rules["series_bonus"]
    b = b[(b["rule_version"] == rule_version) & b["bonus"].isin(code)]
    cols = ["series_id", "team", "player", "place", "halves", "team_halves", "denomination", "share", "basis"]
    if b.empty:
        return pd.DataFrame(columns=cols)
    percent = Fraction(int(b.iloc[0]["percent"]), 100)
    factor = percent * (_param(rules, "double_series_factor", rule_version) if double else 1)
    size = (swiss_rounds + int(_param(rules, "swiss_extra_teams", rule_version))) if swiss_rounds else len(standings)
    need = _param(rules, "bonus_min_share_of_halves", rule_version)
    per_player = lines.groupby(["series_id", "team", "player", "denomination"], as_index=False).agg(halves=("halves", "sum"))
    team_matches = lines.groupby(["series_id", "team"], as_index=False).agg(team_matches=("match_id", "nunique"))
    out = (per_player.merge(team_matches, on=["series_id", "team"])
           .merge(standings[["series_id", "team", "place"]], on=["series_id", "team"], how="inner"))
    out = out.assign(team_halves=out["team_matches"] * 2)
    out = out[[Fraction(int(h), int(t)) >= need for h, t in zip(out["halves"], out["team_halves"])]]
    value = out["place"].map(lambda p: bonus_points(printed_b2, rules, size, int(p), rule_version))
    share = pd.Series([v * factor for v in value], index=out.index, dtype=object)
    basis = ("bonus place " + out["place"].astype(str) + " of " + str(size) + (" (Swiss rounds + 1)" if swiss_rounds else "")
             + ": " + value.astype(str) + f" × {factor}" + " (halves " + out["halves"].astype(str) + " of "
             + out["team_halves"].astype(str) + ")")
    return out.assign(share=share, basis=basis)[cols]


def place_bonus(standings: pd.DataFrame, lines: pd.DataFrame, matches: pd.DataFrame,
                rules: dict[str, pd.DataFrame], *, table: str, division: int = 1,
                rule_version: str = "se-2009") -> pd.DataFrame:
    """Final-place lines of G1, G3 and E7 (series_place_bonus.csv):
    G1 ``points`` per player of the placed team who played at least two 20-board matches or three
    halves in 24-board matches; G3 ``percent_of_played``: the winner's members get 20 % of their own
    series points; E7 ``to_gold``: the members of places 1-2 get their series sp as gp (× 1/10, an
    interpretation) with an equal negative sp line, so the sp holding moves to gold."""
    pb = rules["series_place_bonus"]
    pb = pb[(pb["rule_version"] == rule_version) & (pb["table"] == table) & (pb["division"] == division)]
    cols = ["series_id", "team", "player", "place", "denomination", "share", "basis"]
    if pb.empty:
        return pd.DataFrame(columns=cols)
    placed = standings.merge(pb[["place", "kind", "value", "denomination"]], on="place")
    mine = lines.merge(matches[["match_id", "boards"]], on="match_id", how="left")
    per = mine.groupby(["series_id", "team", "player"], as_index=False).agg(
        played=("share", lambda s: sum(s, Fraction(0))),
        m20=("boards", lambda b: int((b.between(20, 23)).sum())),
        h24=("halves", lambda h: 0))
    h24 = mine[mine["boards"] >= 24].groupby(["series_id", "team", "player"])["halves"].sum()
    per = per.drop(columns="h24").join(h24.rename("h24"), on=["series_id", "team", "player"]).fillna({"h24": 0})
    out = per.merge(placed, on=["series_id", "team"], how="inner")
    value = out["value"].map(frac)
    g1_ok = (out["m20"] >= _param(rules, "g1_min_20_board_matches", rule_version)) | \
        (out["h24"] >= _param(rules, "g1_min_24_board_halves", rule_version))
    keep = np.where(out["kind"].eq("points"), g1_ok, True)
    out = out.assign(value=value)[keep]
    share = [v if k == "points" else p * v / 100 if k == "percent_of_played" else p * v
             for k, v, p in zip(out["kind"], out["value"], out["played"])]
    basis = np.select([out["kind"].eq("points"), out["kind"].eq("percent_of_played")],
                      [table + " bonus place " + out["place"].astype(str),
                       table + " winner: " + out["value"].astype(str) + " % of the series points " + out["played"].astype(str)],
                      table + " place " + out["place"].astype(str) + ": series sp " + out["played"].astype(str) + " to gp")
    res = out.assign(share=pd.Series(share, index=out.index, dtype=object), basis=basis)[cols]
    back = out[out["kind"].eq("to_gold")]
    reverse = back.assign(denomination="sp", share=[-p for p in back["played"]],
                          basis=table + " place " + back["place"].astype(str) + ": series sp converted to gold")[cols]
    return pd.concat([res, reverse], ignore_index=True)

"""IMPs (Law 78B), cross-IMPs, Butler, team matches and victory points.

IMPs are always converted per board and then summed, never converted from a total.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal, localcontext

import numpy as np
import pandas as pd

from pipelines.bridge.exact import group_lcm, round_half_up_ratio, to_decimal
from pipelines.bridge.rules import load_imp_table, load_vp_scale_tables, load_vp_scales

DEFAULT_GROUP = ["event_id", "session", "section"]


def imps(diff, table: pd.DataFrame | None = None) -> np.ndarray:
    """Signed IMPs for point differences (array-like of ints), from the Law 78B table.

    A difference that falls between two bands (not a multiple of 10, e.g. 45) takes the lower
    band (45 -> 1 IMP)."""
    t = load_imp_table() if table is None else table
    lows = t["diff_min"].to_numpy(dtype=np.int64)
    vals = t["imps"].to_numpy(dtype=np.int64)
    d = np.asarray(diff, dtype=np.int64)
    idx = np.searchsorted(lows, np.abs(d), side="right") - 1
    return np.sign(d) * vals[idx]


def adjusted_imps(pct) -> np.ndarray:
    """IMPs for an artificial adjusted score at IMP pairs: average plus (60%) = +3, average (50%) =
    0, average minus (40%) = -3 (Law 12C2); other percentages pro rata, 3 IMPs per 10%, rounded half
    away from zero to whole IMPs, so that the two sides of a board get equal and opposite IMPs
    (A55/45: +2 / -2; a floor gave +1 / -2)."""
    tenths = (np.asarray(pct, dtype=np.int64) - 50) * 3
    return np.sign(tenths) * ((np.abs(tenths) + 5) // 10)


def butler_datum(lines: pd.DataFrame, group_cols: list[str] | None = None, board_col: str = "board",
                 trim_min_results: int = 5) -> pd.Series:
    """Butler datum per line's board: the mean NS score of the board's real results, leaving out the
    single highest and single lowest score when the board has at least ``trim_min_results``
    results, rounded to the nearest 10 (an exact ...5 rounds away from zero)."""
    g = list(group_cols or DEFAULT_GROUP) + [board_col]
    s = pd.to_numeric(lines["score_ns"], errors="coerce").astype("Float64")
    if "adj_ns_pct" in lines:
        s = s.where(lines["adj_ns_pct"].isna())
    keys = [lines[c] for c in g]
    grp = s.groupby(keys, sort=False)
    total = grp.transform("sum").astype("int64")
    count = grp.transform("count").astype("int64")
    hi = grp.transform("max").fillna(0).astype("int64")
    lo = grp.transform("min").fillna(0).astype("int64")
    trim = count >= trim_min_results
    total = total.where(~trim, total - hi - lo)
    k = count.where(~trim, count - 2).where(count > 0, 1)
    q = round_half_up_ratio(total.to_numpy(), (10 * k).to_numpy(), 0)
    return pd.Series(np.asarray(q, dtype=np.int64) * 10, index=lines.index)


def butler_boards(lines: pd.DataFrame, group_cols: list[str] | None = None, board_col: str = "board",
                  trim_min_results: int = 5) -> pd.DataFrame:
    """Adds ``butler_datum``, ``imp_ns`` and ``imp_ew`` (= -imp_ns) to every line. Adjusted lines get
    ``adjusted_imps`` of their percentages."""
    df = lines.copy()
    df["butler_datum"] = butler_datum(df, group_cols, board_col, trim_min_results)
    score = pd.to_numeric(df["score_ns"], errors="coerce").astype("Int64")
    real = score.notna()
    adj_ns = df["adj_ns_pct"] if "adj_ns_pct" in df else pd.Series(pd.NA, index=df.index, dtype="Int64")
    adj_ew = df["adj_ew_pct"] if "adj_ew_pct" in df else pd.Series(pd.NA, index=df.index, dtype="Int64")
    adjusted = adj_ns.notna() | adj_ew.notna()
    imp_ns = pd.Series(imps((score.fillna(0) - df["butler_datum"]).to_numpy()), index=df.index)
    ns_pct = adj_ns.fillna(100 - adj_ew.fillna(50)).astype("int64")
    ew_pct = adj_ew.fillna(100 - adj_ns.fillna(50)).astype("int64")
    df["imp_ns"] = imp_ns.where(~adjusted, adjusted_imps(ns_pct)).where(real | adjusted).astype("Int64")
    df["imp_ew"] = (-imp_ns).where(~adjusted, adjusted_imps(ew_pct)).where(real | adjusted).astype("Int64")
    df["imp_den"] = 1
    df["imp_ns_x"] = df["imp_ns"]
    df["imp_ew_x"] = df["imp_ew"]
    return df


def cross_imp_boards(lines: pd.DataFrame, group_cols: list[str] | None = None, board_col: str = "board") -> pd.DataFrame:
    """Cross-IMPs: every real result on a board is IMPed against every other real result on that
    board. Adds ``ximp_ns_sum`` (the sum over the n-1 comparisons), ``comparisons`` (n-1) and
    ``imp_ns`` / ``imp_ew`` = the average per comparison (sum / (n-1)), the usual cross-IMP board
    score. Exact: ``imp_ns_x`` in units of 1/``imp_den`` (``imp_den`` = LCM of the comparison
    counts in the group). Adjusted lines get ``adjusted_imps``."""
    g = list(group_cols or DEFAULT_GROUP) + [board_col]
    df = lines.copy()
    df["_row"] = np.arange(len(df))
    score = pd.to_numeric(df["score_ns"], errors="coerce").astype("Int64")
    adj_ns = df["adj_ns_pct"] if "adj_ns_pct" in df else pd.Series(pd.NA, index=df.index, dtype="Int64")
    adj_ew = df["adj_ew_pct"] if "adj_ew_pct" in df else pd.Series(pd.NA, index=df.index, dtype="Int64")
    adjusted = adj_ns.notna() | adj_ew.notna()
    real = score.notna() & ~adjusted
    r = df.loc[real, g + ["_row"]].assign(_s=score[real].astype("int64"))
    pairs = r.merge(r, on=g, suffixes=("", "_o"))
    pairs = pairs[pairs["_row"] != pairs["_row_o"]]
    pairs = pairs.assign(_i=imps((pairs["_s"] - pairs["_s_o"]).to_numpy()))
    sums = pairs.groupby("_row")["_i"].agg(["sum", "size"])
    df["ximp_ns_sum"] = df["_row"].map(sums["sum"]).astype("Int64")
    df.loc[real, "ximp_ns_sum"] = df.loc[real, "ximp_ns_sum"].fillna(0)
    df["comparisons"] = df["_row"].map(sums["size"]).fillna(0).astype("int64")
    cmp_ = df["comparisons"].where(df["comparisons"] > 0, 1)
    den = group_lcm(df.assign(_c=cmp_), list(group_cols or DEFAULT_GROUP), "_c", base=1)
    df["imp_den"] = den.astype("int64")
    unit = den // cmp_
    ns_pct = adj_ns.fillna(100 - adj_ew.fillna(50)).astype("int64")
    ew_pct = adj_ew.fillna(100 - adj_ns.fillna(50)).astype("int64")
    x_ns = (df["ximp_ns_sum"].fillna(0).astype("int64") * unit)
    x_ns = x_ns.where(~adjusted, adjusted_imps(ns_pct) * den)
    x_ew = (-df["ximp_ns_sum"].fillna(0).astype("int64") * unit)
    x_ew = x_ew.where(~adjusted, adjusted_imps(ew_pct) * den)
    ok = real | adjusted
    df["imp_ns_x"] = x_ns.where(ok).astype("Int64")
    df["imp_ew_x"] = x_ew.where(ok).astype("Int64")
    df["imp_ns"] = df["imp_ns_x"].astype("Float64") / den
    df["imp_ew"] = df["imp_ew_x"].astype("Float64") / den
    return df.drop(columns="_row")


def session_standings_imps(boards: pd.DataFrame, winners: int = 2, pair_numbering: str = "by_direction") -> pd.DataFrame:
    """Totals and ranks for IMP pairs (cross-IMPs or Butler). ``score`` is the IMP total (Decimal,
    2 places, half-up from the exact total); ``max_score`` and ``percentage`` are empty."""
    from pipelines.bridge.matchpoints import rank_labels

    keep = ["event_id", "session", "section", "board"]
    ns = boards[keep + ["ns_pair", "imp_ns_x", "imp_den"]].rename(columns={"ns_pair": "entrant", "imp_ns_x": "score_x"})
    ew = boards[keep + ["ew_pair", "imp_ew_x", "imp_den"]].rename(columns={"ew_pair": "entrant", "imp_ew_x": "score_x"})
    ns["direction"], ew["direction"] = ("", "") if pair_numbering == "unique" else ("NS", "EW")
    rows = pd.concat([ns, ew], ignore_index=True)
    rows = rows[rows["score_x"].notna()]
    keys = ["event_id", "session", "section", "direction", "entrant"]
    tot = rows.groupby(keys, sort=False).agg(score_x=("score_x", "sum"), mp_den=("imp_den", "first"),
                                             boards=("board", "size")).reset_index()
    tot["score_x"] = tot["score_x"].astype("int64")
    tot["max_x"] = pd.array([pd.NA] * len(tot), dtype="Int64")
    tot["score"] = to_decimal(round_half_up_ratio(tot["score_x"].to_numpy(), tot["mp_den"].to_numpy(), 2))
    tot["max_score"] = None
    tot["percentage"] = None
    rank_dir = tot["direction"] if winners == 2 else pd.Series("", index=tot.index)
    tot["rank"], tot["rank_label"] = rank_labels(tot["score_x"] / tot["mp_den"],
                                                 [tot["event_id"], tot["session"], tot["section"], rank_dir])
    return tot.sort_values(["event_id", "session", "section", "direction", "rank", "entrant"], kind="stable").reset_index(drop=True)


# --------------------------------------------------------------------------------------------
# Team matches


def team_boards(lines: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Pair the two tables of each board of each team match and IMP them.

    ``lines``: ``event_id``, ``session``, ``round``, ``board``, ``ns_pair`` and ``ew_pair`` (team
    numbers), ``score_ns``. A board of a match is the two lines where the same two teams met, once
    with each team North-South. Returns (lines with ``imp_ns`` added = IMPs to the NS team at that
    table, problems) where problems lists lines that could not be paired, with a reason.
    """
    df = lines.copy()
    ns = df["ns_pair"].astype(str)
    ew = df["ew_pair"].astype(str)
    df["team_lo"] = np.where(ns <= ew, ns, ew)
    df["team_hi"] = np.where(ns <= ew, ew, ns)
    key = ["event_id", "session", "round", "board", "team_lo", "team_hi"]
    score = pd.to_numeric(df["score_ns"], errors="coerce").astype("Int64")
    df["_lo_score"] = score.where(ns == df["team_lo"], -score)
    df["_lo_ns"] = (ns == df["team_lo"]).astype("int64")
    grp = df.groupby(key, sort=False, dropna=False)
    size = grp["board"].transform("size")
    lo_ns = grp["_lo_ns"].transform("sum")
    complete = (size == 2) & (lo_ns == 1) & score.notna() & grp["_lo_score"].transform("count").eq(2)
    net_lo = grp["_lo_score"].transform("sum")
    imp_lo = pd.Series(imps(net_lo.fillna(0).astype("int64").to_numpy()), index=df.index)
    df["imp_ns"] = imp_lo.where(ns == df["team_lo"], -imp_lo).where(complete).astype("Int64")
    bad = df[~complete]
    problems = pd.DataFrame({
        "source_file": bad.get("source_file", pd.Series("", index=bad.index)).astype(str),
        "location": bad.get("location", pd.Series("", index=bad.index)).astype(str),
        "reason": np.where(
            size[~complete] > 2,
            "board played more than twice in this match (" + size[~complete].astype(str) + " results): expected one result per room",
            np.where(size[~complete] < 2,
                     "board has a result in one room only: expected the same board at both tables of the match",
                     "board not comparable: each team must sit North-South at one table and the score must be a played result"),
        ),
    })
    return df.drop(columns=["_lo_score", "_lo_ns"]), problems


def team_matches(boards: pd.DataFrame, scale_id: str = "WBF20", boards_per_match: int | None = None) -> pd.DataFrame:
    """One row per team per match: ``event_id``, ``session``, ``round``, ``team``, ``opponent``,
    ``boards``, ``imps_for``, ``imps_against``, ``imp_margin``, ``vp`` (Decimal), ``vp_scale``.

    ``imps_for`` is the sum of the IMPs the team won on the boards of the match (per board, then
    summed), ``imps_against`` those of the opponents. VP from ``scale_id``; the number of boards is
    counted from the results unless ``boards_per_match`` is given."""
    ok = boards[boards["imp_ns"].notna()].copy()
    ns = ok["ns_pair"].astype(str)
    lo = ns == ok["team_lo"]
    imp_lo = ok["imp_ns"].astype("int64").where(lo, -ok["imp_ns"].astype("int64"))
    ok["_lo_for"] = imp_lo.clip(lower=0)
    ok["_lo_against"] = (-imp_lo).clip(lower=0)
    key = ["event_id", "session", "round", "team_lo", "team_hi"]
    # count each board once: on the line where team_lo sits North-South
    m = ok[lo].groupby(key, sort=False).agg(imps_lo=("_lo_for", "sum"), imps_hi=("_lo_against", "sum"),
                                            boards=("board", "size")).reset_index()
    if boards_per_match is not None:
        m["boards"] = boards_per_match
    m["margin"] = m["imps_lo"] - m["imps_hi"]
    vp_w, vp_l = vp_for_margin(m["margin"].abs().to_numpy(), m["boards"].to_numpy(), scale_id)
    lo_wins = m["margin"] >= 0
    vp_lo = [w if win else l for w, l, win in zip(vp_w, vp_l, lo_wins)]
    vp_hi = [l if win else w for w, l, win in zip(vp_w, vp_l, lo_wins)]
    a = pd.DataFrame({"event_id": m["event_id"], "session": m["session"], "round": m["round"], "team": m["team_lo"],
                      "opponent": m["team_hi"], "boards": m["boards"], "imps_for": m["imps_lo"],
                      "imps_against": m["imps_hi"], "vp": vp_lo})
    b = pd.DataFrame({"event_id": m["event_id"], "session": m["session"], "round": m["round"], "team": m["team_hi"],
                      "opponent": m["team_lo"], "boards": m["boards"], "imps_for": m["imps_hi"],
                      "imps_against": m["imps_lo"], "vp": vp_hi})
    out = pd.concat([a, b], ignore_index=True)
    out["imp_margin"] = out["imps_for"] - out["imps_against"]
    out["vp_scale"] = scale_id
    return out.sort_values(["event_id", "session", "round", "team"], kind="stable").reset_index(drop=True)


# --------------------------------------------------------------------------------------------
# Victory points


def _golden_tau() -> Decimal:
    return (Decimal(5).sqrt() - 1) / 2


def wbf_continuous_vp(margin: int, boards: int, max_vp: int = 20, blitz_factor: int = 15, decimals: int = 2) -> Decimal:
    """Winner's VP on the WBF continuous scale: ``10 + 10*(1 - tau^(3M/B)) / (1 - tau^3)`` scaled to
    ``max_vp``, with ``tau = (sqrt 5 - 1)/2``, ``B = blitz_factor * sqrt(boards)``, capped at
    ``max_vp``, rounded half-up to ``decimals`` places. Computed in 50-digit Decimal arithmetic."""
    if boards <= 0:
        raise ValueError("a match needs at least one board")
    with localcontext() as ctx:
        ctx.prec = 50
        m = Decimal(abs(int(margin)))
        half = Decimal(max_vp) / 2
        tau = _golden_tau()
        b = blitz_factor * Decimal(boards).sqrt()
        x = 3 * m / b
        if x >= 3:
            v = Decimal(max_vp)
        else:
            tau_x = (x * tau.ln()).exp()
            v = half + half * (1 - tau_x) / (1 - tau**3)
            v = min(v, Decimal(max_vp))
        return v.quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)


def vp_for_margin(margin_abs, boards, scale_id: str = "WBF20") -> tuple[list, list]:
    """Winner and loser VP (Decimals) for absolute IMP margins and board counts on a scale from
    ``data/rules/bridge/vp_scales.csv`` (continuous) or ``vp_scale_tables.csv`` (discrete tables).
    Each distinct (margin, boards) is computed once."""
    scales = load_vp_scales().set_index("scale_id")
    if scale_id not in scales.index:
        raise KeyError(f"unknown VP scale {scale_id!r}: add it to data/rules/bridge/vp_scales.csv")
    spec = scales.loc[scale_id]
    margin_abs = np.asarray(margin_abs, dtype=np.int64)
    boards = np.asarray(boards, dtype=np.int64)
    max_vp = Decimal(str(spec["max_vp"]))
    cache: dict[tuple[int, int], Decimal] = {}
    if spec["kind"] == "continuous":
        for key in set(zip(margin_abs.tolist(), boards.tolist())):
            cache[key] = wbf_continuous_vp(key[0], key[1], int(spec["max_vp"]), int(spec["blitz_factor"]), int(spec["decimals"]))
        win = [cache[(m, b)] for m, b in zip(margin_abs.tolist(), boards.tolist())]
        lose = [max_vp - w for w in win]
        return win, lose
    table = load_vp_scale_tables()
    table = table[table["scale_id"] == scale_id]
    win, lose = [], []
    for m, b in zip(margin_abs.tolist(), boards.tolist()):
        hit = table[(table["boards_min"].astype(int) <= b) & (table["boards_max"].astype(int) >= b)
                    & (table["imp_min"].astype(int) <= m)
                    & ((table["imp_max"] == "") | (table["imp_max"].replace("", "0").astype(int) >= m))]
        if hit.empty:
            raise KeyError(f"VP scale {scale_id!r} has no row for {b} boards and a margin of {m} IMPs")
        win.append(Decimal(hit.iloc[0]["vp_winner"]))
        lose.append(Decimal(hit.iloc[0]["vp_loser"]))
    return win, lose


"""Matchpoints (Law 78A), Neuberg factoring, artificial adjusted scores, percentages and ranks.

Scale: 2 per result beaten, 1 per result tied, 0 per result lost (the WBF scale). The ACBL
1 / 0.5 / 0 scale halves every matchpoint and every top; percentages are identical.

Per board, within a *comparison group* (by default one section of one session of one event):

- ``n`` = number of real (scored) results on the board; ``N`` = the number of lines on the
  most-played board of the group (real and artificially adjusted lines both count).
- raw NS matchpoints: ``mp = 2*(results beaten) + (results tied)`` = ``rank_min + rank_max - 2``
  where ranks order the n scores ascending; the board's top is ``2(N-1)``.
- Neuberg (when ``n < N``): ``mp' = (mp + 1) * N / n - 1`` for NS and EW alike. It leaves a board
  with ``n = N`` unchanged and keeps NS + EW = top.
- Artificial adjusted scores: a line marked with percentages (60 / 50 / 40, or any integer
  percentage, NS and EW separately) gets ``pct% of 2(N-1)``; such lines are not compared.
- Values are stored exactly as integers in units of ``1/mp_den`` (``mp_den`` per group, the LCM of
  the board result counts and 100), so session totals are exact.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pipelines.bridge.exact import group_lcm, round_half_up_ratio, to_decimal  # noqa: F401

DEFAULT_GROUP = ["event_id", "session", "section"]


def matchpoint_boards(
    lines: pd.DataFrame,
    group_cols: list[str] | None = None,
    board_col: str = "board",
    acbl_scale: bool = False,
) -> pd.DataFrame:
    """Matchpoint every line of every board.

    ``lines`` needs ``group_cols``, ``board_col``, ``score_ns`` (nullable Int64: <NA> for an
    artificial adjusted score) and optionally ``adj_ns_pct`` / ``adj_ew_pct`` (nullable Int64).
    Returns a copy with added columns:
    ``results_on_board`` (n), ``expected_results`` (N), ``neuberg`` (bool), ``mp_den``,
    ``mp_top_x``, ``mp_ns_x``, ``mp_ew_x`` (exact integers in units of 1/mp_den on the 2/1/0 scale),
    and ``mp_top``, ``mp_ns``, ``mp_ew`` (floats for display, on the requested scale).
    """
    g = list(group_cols or DEFAULT_GROUP)
    bk = g + [board_col]
    df = lines.copy()
    if "adj_ns_pct" not in df:
        df["adj_ns_pct"] = pd.array([pd.NA] * len(df), dtype="Int64")
    if "adj_ew_pct" not in df:
        df["adj_ew_pct"] = pd.array([pd.NA] * len(df), dtype="Int64")
    score = pd.to_numeric(df["score_ns"], errors="coerce").astype("Int64")
    real_np = (score.notna() & df["adj_ns_pct"].isna()).to_numpy()

    # Integer keys once; the rest is numpy on those keys.
    gkey = df.groupby(g, sort=False, dropna=False).ngroup().to_numpy()
    bkey = df.groupby(bk, sort=False, dropna=False).ngroup().to_numpy()
    n_b = np.bincount(bkey, weights=real_np).astype(np.int64)      # real results per board
    lines_b = np.bincount(bkey).astype(np.int64)                     # lines per board
    board_group = np.zeros(len(lines_b), dtype=np.int64)
    board_group[bkey] = gkey
    N_g = np.zeros(gkey.max() + 1 if len(gkey) else 0, dtype=np.int64)
    np.maximum.at(N_g, board_group, lines_b)
    n_np = n_b[bkey]
    N_np = N_g[gkey]
    n = pd.Series(n_np, index=df.index)
    N = pd.Series(N_np, index=df.index)
    df["results_on_board"] = n_np
    df["expected_results"] = N_np
    df["neuberg"] = (n_np < N_np) & real_np

    den = group_lcm(df.assign(_n=np.where(n_np > 0, n_np, 1)), g, "_n", base=100)
    if "mp_base" in df:
        # a group may ask for a finer unit (e.g. 10,000: an adjusted score of a percentage with two
        # decimals, White Book average-plus); constant within a group
        den = pd.Series(np.lcm(den.to_numpy(dtype=np.int64), df["mp_base"].to_numpy(dtype=np.int64)), index=df.index)
    df["mp_den"] = den.astype("int64")
    top_x = 2 * (N - 1) * den
    df["mp_top_x"] = top_x.astype("int64")

    # Raw matchpoints among the real results of each board: mp = rank_min + rank_max - 2 (ranks
    # ascending within the board), from one lexsort instead of a grouped rank.
    sc = score.fillna(0).to_numpy(dtype=np.int64)
    sort_key = np.where(real_np, 0, 1)  # real results first inside each board
    order = np.lexsort((sc, sort_key, bkey))
    sb, ss, sr = bkey[order], sc[order], sort_key[order]
    m = len(order)
    new_board = np.ones(m, dtype=bool)
    new_board[1:] = sb[1:] != sb[:-1]
    new_run = new_board.copy()
    new_run[1:] |= (ss[1:] != ss[:-1]) | (sr[1:] != sr[:-1])
    pos = np.arange(m)
    board_start = np.maximum.accumulate(np.where(new_board, pos, 0))
    run_start = np.maximum.accumulate(np.where(new_run, pos, 0))
    run_id = np.cumsum(new_run) - 1
    run_end = np.zeros(run_id[-1] + 1 if m else 0, dtype=np.int64)
    np.maximum.at(run_end, run_id, pos)
    rmin = run_start - board_start + 1
    rmax = run_end[run_id] - board_start + 1
    raw_sorted = rmin + rmax - 2
    raw_np = np.zeros(m, dtype=np.int64)
    raw_np[order] = raw_sorted
    raw_ns = pd.Series(np.where(real_np, raw_np, 0), index=df.index)
    raw_ew = pd.Series(np.where(real_np, 2 * (n_np - 1) - raw_np, 0), index=df.index)
    real = pd.Series(real_np, index=df.index)
    n_safe = n.where(n > 0, 1)
    unit = den // n_safe  # den is a multiple of every n in the group
    ns_x = ((raw_ns + 1) * N - n_safe) * unit
    ew_x = ((raw_ew + 1) * N - n_safe) * unit

    adj_ns = df["adj_ns_pct"].astype("Int64")
    adj_ew = df["adj_ew_pct"].astype("Int64").fillna(adj_ns.rsub(100))  # EW defaults to the complement
    adj_ns = adj_ns.fillna(adj_ew.rsub(100))
    adjusted = df["adj_ns_pct"].notna() | df["adj_ew_pct"].notna()
    per_pct = 2 * (N - 1) * (den // 100)
    ns_x = ns_x.where(~adjusted, adj_ns.fillna(0).astype("int64") * per_pct)
    ew_x = ew_x.where(~adjusted, adj_ew.fillna(0).astype("int64") * per_pct)

    valid = real | adjusted
    df["mp_ns_x"] = ns_x.where(valid).astype("Int64")
    df["mp_ew_x"] = ew_x.where(valid).astype("Int64")
    half = 2 if acbl_scale else 1
    df["mp_top"] = (2 * (N - 1)) / half
    df["mp_ns"] = df["mp_ns_x"].astype("Float64") / (den * half)
    df["mp_ew"] = df["mp_ew_x"].astype("Float64") / (den * half)
    return df


def white_book_averages(boards: pd.DataFrame, pair_numbering: str = "by_direction") -> pd.DataFrame:
    """Average-plus and average-minus per the EBU White Book: a side given 60 % (AVE+) gets its own
    session percentage instead when that is better, a side given 40 % (AVE-) its own when that is
    worse. "Its own session percentage": the total / maximum of the boards it played that were not
    artificially adjusted, half-up to 2 decimals (as printed); a side with no such board keeps 60/40.

    ``boards`` as returned by :func:`matchpoint_boards`, whose ``mp_den`` must be a multiple of 10,000
    (``mp_base``) so that a percentage with 2 decimals of the top is a whole number of units.
    Returns ``boards`` with ``mp_ns_x``/``mp_ew_x`` (and ``mp_ns``/``mp_ew``) of such lines replaced."""
    adjusted = (boards["adj_ns_pct"].notna() | boards["adj_ew_pct"].notna()).to_numpy()
    if not adjusted.any():
        return boards
    real = boards[~adjusted]
    own = session_standings_mp(real, winners=2, pair_numbering=pair_numbering)  # exact totals of the real boards
    own = own.assign(_own=round_half_up_ratio(own["score_x"].to_numpy() * 100, own["max_x"].to_numpy(), 2))
    keys = ["event_id", "session", "section", "direction", "entrant"]
    out = boards.copy()
    for side, pair_col, pct_col, x_col in (("NS", "ns_pair", "adj_ns_pct", "mp_ns_x"), ("EW", "ew_pair", "adj_ew_pct", "mp_ew_x")):
        direction = "" if pair_numbering == "unique" else side
        probe = out[["event_id", "session", "section", pair_col]].rename(columns={pair_col: "entrant"}).assign(direction=direction)
        mine = probe.merge(own[keys + ["_own"]], on=keys, how="left")["_own"].to_numpy()
        pct = out[pct_col].astype("Int64")
        other = out["adj_ew_pct" if side == "NS" else "adj_ns_pct"].astype("Int64")
        pct = pct.fillna(other.rsub(100))  # one stated value: the other side has the complement
        mine_s = pd.Series(mine, index=out.index, dtype="Float64")
        better = adjusted & (pct == 60).fillna(False).to_numpy() & (mine_s > 6000).fillna(False).to_numpy()
        worse = adjusted & (pct == 40).fillna(False).to_numpy() & (mine_s < 4000).fillna(False).to_numpy()
        use = better | worse
        if use.any():
            top_x = out["mp_top_x"].to_numpy(dtype=np.int64)
            own_hund = np.where(use, np.nan_to_num(mine.astype(float)), 0).astype(np.int64)
            new_x = own_hund * (top_x // 10000)  # top_x is a multiple of 10,000
            out[x_col] = out[x_col].mask(use, pd.Series(new_x, index=out.index)).astype("Int64")
    scale = out["mp_top"] / (2 * (out["expected_results"] - 1)).where(out["expected_results"] > 1, 1)
    den = out["mp_den"].astype("Float64")
    out["mp_ns"] = out["mp_ns_x"].astype("Float64") / den * scale
    out["mp_ew"] = out["mp_ew_x"].astype("Float64") / den * scale
    return out


def rank_labels(value: pd.Series, rank_group: list[pd.Series] | pd.Series) -> tuple[pd.Series, pd.Series]:
    """Competition ranking (1, 2, 2, 4) on ``value`` (higher is better) within groups, and labels
    with ``=`` on shared places (``"2="``)."""
    ranks = value.groupby(rank_group, sort=False).rank(method="min", ascending=False).astype("int64")
    keys = [ranks] + (rank_group if isinstance(rank_group, list) else [rank_group])
    shared = ranks.groupby(keys, sort=False).transform("size") > 1
    labels = ranks.astype("string") + pd.Series(np.where(shared, "=", ""), index=ranks.index, dtype="string")
    return ranks, labels.astype("str")


def entrant_rows(boards: pd.DataFrame, pair_numbering: str = "by_direction") -> pd.DataFrame:
    """One row per entrant per board: NS rows from ``ns_pair`` with ``mp_ns_x``, EW rows from
    ``ew_pair`` with ``mp_ew_x``. ``pair_numbering``: ``by_direction`` (Mitchell: pair 1 NS and
    pair 1 EW are different entrants) or ``unique`` (Howell: a pair is one entrant whatever its
    seat; direction is reported as ``""``)."""
    keep = [c for c in ("event_id", "session", "section", "comparison", "board") if c in boards]
    ns = boards[keep + ["ns_pair", "mp_ns_x", "mp_top_x", "mp_den"]].rename(columns={"ns_pair": "entrant", "mp_ns_x": "score_x"})
    ew = boards[keep + ["ew_pair", "mp_ew_x", "mp_top_x", "mp_den"]].rename(columns={"ew_pair": "entrant", "mp_ew_x": "score_x"})
    if pair_numbering == "unique":
        ns["direction"] = ""
        ew["direction"] = ""
    else:
        ns["direction"] = "NS"
        ew["direction"] = "EW"
    out = pd.concat([ns, ew], ignore_index=True)
    return out[out["score_x"].notna()]


def session_standings_mp(
    boards: pd.DataFrame,
    winners: int = 2,
    pair_numbering: str = "by_direction",
    acbl_scale: bool = False,
) -> pd.DataFrame:
    """Session totals, exact percentages and ranks from matchpointed boards.

    ``winners``: 2 ranks NS and EW separately (two-winner Mitchell), 1 ranks the whole section
    (Howell, arrow-switched Mitchell). Percentage = total / maximum, computed on the exact totals,
    rounded half-up to 2 decimals (a ``Decimal``). Score and maximum are Decimals to 2 places on
    the requested scale; ``score_x``/``max_x`` (units of 1/``mp_den``) are exact.
    """
    rows = entrant_rows(boards, pair_numbering)
    # ``comparison`` (optional): the comparison group of an event scored across sections (one value
    # for all its sections); entrants are then ranked across the sections too. It is the section
    # itself (or absent) when each section is scored on its own.
    across = "comparison" in rows
    keys = ["event_id", "session", "section", "direction", "entrant"] + (["comparison"] if across else [])
    tot = (
        rows.groupby(keys, sort=False)
        .agg(score_x=("score_x", "sum"), max_x=("mp_top_x", "sum"), mp_den=("mp_den", "first"), boards=("board", "size"))
        .reset_index()
    )
    tot["score_x"] = tot["score_x"].astype("int64")
    tot["max_x"] = tot["max_x"].astype("int64")
    half = 2 if acbl_scale else 1
    tot["score"] = to_decimal(round_half_up_ratio(tot["score_x"].to_numpy(), (tot["mp_den"] * half).to_numpy(), 2))
    tot["max_score"] = to_decimal(round_half_up_ratio(tot["max_x"].to_numpy(), (tot["mp_den"] * half).to_numpy(), 2))
    pct_h = round_half_up_ratio(tot["score_x"].to_numpy() * 100, tot["max_x"].to_numpy(), 2)
    tot["percentage"] = to_decimal(pct_h)
    exact = tot["score_x"] / tot["max_x"]  # exact enough to order: see docs/bridge.md (ranking)
    rank_dir = tot["direction"] if winners == 2 else pd.Series("", index=tot.index)
    rank_section = tot["comparison"] if across else tot["section"]
    tot["rank"], tot["rank_label"] = rank_labels(exact, [tot["event_id"], tot["session"], rank_section, rank_dir])
    tot = tot.drop(columns=["comparison"]) if across else tot
    return tot.sort_values(["event_id", "session", "section", "direction", "rank", "entrant"], kind="stable").reset_index(drop=True)

"""Bridge benchmark: matchpoint and rank a synthetic federation month.

20,000 pairs sessions (80 % two-winner Mitchells, 20 % one-winner fields; 6–14 tables, 22–28
boards) and exactly 5,000,000 traveller lines, generated with vectorised numpy and written as
Parquet the way the lake holds them. The timed part is what the nightly run does with them:
read the Parquet, matchpoint every board (Neuberg where a board was not played at every table,
artificial adjusted scores) and compute every session's exact totals, percentages and ranks with
the pure functions of pipelines/bridge (`standings.compute_standings`).

`python -m pipelines.bench bridge` runs it in a child process and adds the peak memory.
"""
from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from pipelines.bridge.scoring import board_rotation, score_ns
from pipelines.bridge.standings import compute_standings

SESSIONS = 20_000
LINES = 5_000_000
SEED = 2026_11


def generate(workdir: Path, sessions: int = SESSIONS, lines: int = LINES, seed: int = SEED, chunks: int = 10) -> tuple[Path, Path]:
    """Write traveller_lines.parquet and events.parquet (in chunks of sessions, to keep the
    generator's memory small); return their paths."""
    rng = np.random.default_rng(seed)
    tables = rng.integers(6, 15, sessions)                        # tables per session
    boards = rng.choice([22, 24, 24, 26, 27, 28], sessions)       # boards per session
    howell = rng.random(sessions) < 0.2
    day = rng.integers(1, 31, sessions)
    event_id = np.char.add(np.char.add("fed:2026-11-", np.char.zfill(day.astype(str), 2)),
                           np.char.add(":club-session-", np.arange(sessions).astype(str)))
    per_session = tables * boards
    total = int(per_session.sum())
    if total < lines:
        raise ValueError(f"generated only {total} lines; raise the tables or boards")
    keep_all = np.ones(total, dtype=bool)
    keep_all[rng.choice(total, total - lines, replace=False)] = False   # boards not played at a table
    first_line = np.concatenate([[0], np.cumsum(per_session)])

    lines_path = workdir / "traveller_lines.parquet"
    writer = None
    for part in np.array_split(np.arange(sessions), chunks):
        table = _chunk(rng, part, tables, boards, howell, event_id, keep_all[first_line[part[0]]:first_line[part[-1] + 1]])
        if writer is None:
            writer = pq.ParquetWriter(lines_path, table.schema)
        writer.write_table(table, row_group_size=1 << 20)
    writer.close()
    events = pa.table({
        "event_id": pa.array(event_id), "movement": pa.array(np.where(howell, "howell", "mitchell")),
        "scoring": pa.array(np.full(sessions, "MP")), "winner_type": pa.array(np.where(howell, 1, 2)),
    })
    events_path = workdir / "events.parquet"
    pq.write_table(events, events_path)
    return lines_path, events_path


def _chunk(rng, part, tables, boards, howell, event_id, keep) -> pa.Table:
    """Traveller lines of the sessions `part`: one row per (session, board, table), then the
    lines that `keep` leaves (a board not played at a table)."""
    t_s, b_s = tables[part], boards[part]
    per_session = t_s * b_s
    s_idx = np.repeat(np.arange(len(part)), per_session)
    within = np.arange(per_session.sum()) - np.repeat(np.cumsum(per_session) - per_session, per_session)
    t_of = t_s[s_idx]
    board = within // t_of + 1
    table = within % t_of + 1

    # each board's "par": declaring side, strain, level, tricks the field usually takes
    n_boards = int(b_s.sum())
    b_idx = np.repeat(np.cumsum(b_s) - b_s, per_session) + board - 1
    par_side = rng.integers(0, 2, n_boards)                       # 0 NS, 1 EW
    par_strain = rng.choice(np.array(["C", "D", "H", "S", "N"]), n_boards, p=[.12, .12, .25, .26, .25])
    par_level = rng.choice(np.arange(1, 8), n_boards, p=[.10, .22, .28, .30, .06, .03, .01])
    par_tricks = np.clip(par_level + 6 + rng.integers(-1, 2, n_boards), 0, 13)
    passed_board = rng.random(n_boards) < 0.015

    n = len(s_idx)
    side = np.where(rng.random(n) < 0.12, 1 - par_side[b_idx], par_side[b_idx])   # the other side buys it
    declarer = np.where(side == 0, np.where(rng.random(n) < .5, "N", "S"), np.where(rng.random(n) < .5, "E", "W"))
    strain = np.where(rng.random(n) < 0.15, rng.choice(np.array(["C", "D", "H", "S", "N"]), n), par_strain[b_idx])
    level = np.clip(par_level[b_idx] + rng.choice([-1, 0, 0, 0, 0, 0, 1], n), 1, 7)
    tricks = np.clip(par_tricks[b_idx] + np.rint(rng.normal(0, 0.9, n)).astype(np.int64) - 2 * (side != par_side[b_idx]), 0, 13)
    down = tricks < level + 6
    doubled = np.where(down & (rng.random(n) < 0.18), 1, 0) + np.where(rng.random(n) < 0.003, 1, 0)
    passed = passed_board[b_idx] | (rng.random(n) < 0.004)
    level = np.where(passed, 0, level)
    strain = np.where(passed, "", strain)
    declarer = np.where(passed, "", declarer)
    vul = board_rotation(board)["vulnerable"].to_numpy()
    score = score_ns(level, strain, np.where(passed, 0, doubled), declarer, vul, np.where(passed, 0, tricks))

    # Mitchell: NS pair = table, the EW pairs rotate so that each meets each board once;
    # one-winner fields number the EW pairs after the NS pairs
    ew = (table + board) % t_of + 1
    ew = np.where(howell[part][s_idx], ew + t_of, ew)
    adjusted = rng.random(n) < 0.001
    k = keep
    return pa.table({
        "event_id": pa.array(event_id[part][s_idx][k]),
        "session": pa.array(np.ones(k.sum(), dtype=np.int64)),
        "section": pa.array(np.full(k.sum(), "")),
        "board": pa.array(board[k].astype(np.int64)),
        "ns_pair": pa.array(table[k].astype(str)),
        "ew_pair": pa.array(ew[k].astype(str)),
        "level": pa.array(level[k].astype(np.int64)),
        "strain": pa.array(strain[k]),
        "doubled": pa.array(doubled[k].astype(np.int64)),
        "declarer": pa.array(declarer[k]),
        "tricks": pa.array(tricks[k].astype(np.int64), mask=(passed | adjusted)[k]),
        "score_ns": pa.array(score[k], mask=adjusted[k]),
        "adj_ns_pct": pa.array(np.full(k.sum(), 60, dtype=np.int64), mask=~adjusted[k]),
        "adj_ew_pct": pa.array(np.full(k.sum(), 40, dtype=np.int64), mask=~adjusted[k]),
    })


def parquet_to_standings(lines_path: Path, events_path: Path) -> dict:
    """The timed path, batch by batch (one Parquet row group = a whole number of sessions):
    read the columns matchpointing needs, then the pure scoring functions. Returns the
    standings and counts of the board results (which a nightly run would write to the lake)."""
    columns = ["event_id", "session", "section", "board", "ns_pair", "ew_pair", "score_ns", "adj_ns_pct", "adj_ew_pct"]
    events = pq.read_table(events_path).to_pandas()
    source = pq.ParquetFile(lines_path, read_dictionary=["event_id", "section", "ns_pair", "ew_pair"])
    standings, lines, neuberg, adjusted, seen = [], 0, 0, 0, set()
    for group in range(source.num_row_groups):
        batch = source.read_row_group(group, columns=columns).to_pandas()
        for c in ("score_ns", "adj_ns_pct", "adj_ew_pct"):
            batch[c] = batch[c].astype("Int64")
        ids = set(batch["event_id"].cat.categories[batch["event_id"].cat.codes.unique()])
        if ids & seen:
            raise ValueError("a session spans two row groups: batches must hold whole sessions")
        seen |= ids
        result = compute_standings(batch, events[events["event_id"].isin(ids)])
        boards = result["board_results"]
        lines += len(boards)
        neuberg += int(boards["neuberg"].sum())
        adjusted += int((boards["score_ns"].isna() & boards["mp_ns_x"].notna()).sum())
        standings.append(result["session_standings"])
        del batch, result, boards
    return {"session_standings": pd.concat(standings, ignore_index=True), "lines": lines, "neuberg": neuberg,
            "adjusted": adjusted, "batches": source.num_row_groups}


BASELINE_SQL = """
with lines as (
    select event_id, session, section, board, ns_pair, score_ns
    from read_parquet(?) where score_ns is not null
),
scored as (
    select event_id, session, section, ns_pair,
           -- 2 per result beaten, 1 per result tied; the board's top is 2 (n - 1)
           2 * (rank() over board_order - 1)
           + (count(*) over (partition by event_id, session, section, board, score_ns) - 1) as mp_ns,
           2 * (count(*) over (partition by event_id, session, section, board) - 1) as top
    from lines
    window board_order as (partition by event_id, session, section, board order by score_ns)
)
select event_id, session, section, ns_pair, sum(mp_ns) as mp, sum(top) as top_total,
       round(100.0 * sum(mp_ns) / nullif(sum(top), 0), 2) as percentage
from scored group by all
"""


def duckdb_baseline(lines_path: Path) -> tuple[float, int]:
    """The yardstick of issue 16: a bare DuckDB window query over the same Parquet file (NS
    matchpoints of the compared results and each NS pair's total and percentage; no Neuberg, no
    adjusted scores, no EW side, no exact decimals, no ranks). Returns (seconds, rows)."""
    import duckdb

    con = duckdb.connect()
    start = time.perf_counter()
    # aggregate every output column, so that no window is optimised away
    rows = con.execute(f"select count(*), sum(mp), sum(top_total), sum(percentage) from ({BASELINE_SQL})",
                       [str(lines_path)]).fetchone()[0]
    seconds = time.perf_counter() - start
    con.close()
    return seconds, int(rows)


def run(workdir: Path) -> dict:
    start = time.perf_counter()
    lines_path, events_path = generate(workdir)
    generated = time.perf_counter()
    result = parquet_to_standings(lines_path, events_path)
    done = time.perf_counter()
    standings = result["session_standings"]
    seconds = done - generated
    baseline_seconds, baseline_rows = duckdb_baseline(lines_path)
    return {
        "sessions": int(standings[["event_id", "session"]].drop_duplicates().shape[0]),
        "traveller_lines": int(result["lines"]),
        "entrants_ranked": int(len(standings)),
        "neuberg_lines": result["neuberg"],
        "adjusted_lines": result["adjusted"],
        "batches": result["batches"],
        "parquet_mib": round((lines_path.stat().st_size + events_path.stat().st_size) / 2**20, 1),
        "seconds_generate": round(generated - start, 2),
        "seconds_parquet_to_standings": round(seconds, 2),
        "lines_per_second": int(result["lines"] / seconds),
        "seconds_duckdb_window_baseline": round(baseline_seconds, 2),
        "baseline_rows": baseline_rows,
        "ratio_to_baseline": round(seconds / baseline_seconds, 2),
        "cpu_count": os.cpu_count(),
    }

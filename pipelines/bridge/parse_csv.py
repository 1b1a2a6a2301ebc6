"""The documented CSV traveller format (see docs/bridge.md, "CSV traveller format").

One row per traveller line, a header row first, comma-separated, UTF-8 (a BOM is fine;
Windows-1252 is accepted as a fallback). Lines starting with ``#`` are comments.
"""

from __future__ import annotations

import csv
import re
import unicodedata

import pandas as pd

from pipelines.bridge.parse_common import (
    MAX_NAME,
    MAX_PLAYERS_CELL,
    clip,
    clip_series,
    decode_text,
    entrants_frame,
    events_frame,
    finalise,
    looks_adjusted,
    make_event_id,
    never_raises,
    nfkc,
    parse_date,
    physical_lines,
    quarantine_frame,
    split_pair_number,
    whole_file_rejected,
)

REQUIRED = ["event_date", "board", "ns_pair", "ew_pair", "contract", "declarer", "result"]
OPTIONAL = ["event_id", "event_name", "movement", "scoring", "winner_type", "session", "section", "round",
            "score_ns", "adjusted", "vulnerable", "dealer", "ns_names", "ns_ids", "ew_names", "ew_ids"]
MOVEMENTS = {"mitchell", "howell", "teams"}
SCORINGS = {"MP", "XIMP", "BUTLER", "TEAMS"}


# Bridgemate's result table (ReceivedData of the .bws Access file), exported as CSV with its own
# column names: read when the header has these (case-insensitive)
BRIDGEMATE = {"board", "pairns", "pairew", "ns/ew", "contract", "result"}
# its PlayerNumbers table (Section, Table, Direction N/E/S/W, Number = the player's id, Name;
# optionally Round), which may follow ReceivedData in the same file under its own header
PLAYER_TABLE = {"section", "table", "direction", "number"}
_FILE_DATE = re.compile(r"(?:^|/)(\d{4})-(\d{2})-(\d{2})[-_ ]?([^/]*?)(?:\.[A-Za-z0-9]+)?$")


def _is_true(s: pd.Series) -> pd.Series:
    """Access booleans as exported: True/False, -1/0, 1/0, yes/no."""
    return s.str.strip().str.lower().isin(["true", "-1", "1", "yes", "y", "waar", "wahr", "vrai"])


def _from_bridgemate(df: pd.DataFrame, source_file: str) -> tuple[pd.DataFrame, list[tuple[str, str]]]:
    """A Bridgemate ReceivedData export -> the columns of our CSV traveller format.

    Section, Table, Round, Board, PairNS, PairEW, Declarer (the declaring pair's number), NS/EW (the
    declarer's seat N/E/S/W), Contract (``4 H``, ``3 NT x``, ``PASS``), Result (``=``, ``+1``, ``-2``),
    LeadCard, Remarks (an artificial score such as ``60%-40%``), DateLog, TimeLog, Processed,
    Erased. The date is DateLog (the day the result was entered), else the ``YYYY-MM-DD`` that
    starts the file's name; the event name is the rest of the file's name. A line Bridgemate marks
    Erased (a result the table replaced) is not a result and is left out, as the scoring program
    does. The movement is Mitchell when every North-South pair stays at one table all session
    (each pair number is then a pair of one direction), else Howell (pairs numbered uniquely).
    Problems: (location, reason)."""
    problems: list[tuple[str, str]] = []
    col = lambda name: df[name] if name in df else pd.Series("", index=df.index)  # noqa: E731
    erased = _is_true(col("erased"))
    df = df[~erased].copy()
    m = _FILE_DATE.search(source_file.replace("\\", "/"))
    file_date = f"{m.group(1)}-{m.group(2)}-{m.group(3)}" if m else ""
    file_name = (m.group(4) if m else "").replace("-", " ").replace("_", " ").strip()
    logged = col("datelog").reindex(df.index).fillna("").str.strip().str.split(" ").str[0]
    event_date = logged.where(logged != "", file_date)
    missing = event_date == ""
    for loc in df.loc[missing, "location"]:
        problems.append((loc, "this Bridgemate result has no DateLog and the file's name does not start with the "
                              "session's date: name the file YYYY-MM-DD-<event>.csv"))
    # one date per file: the first DateLog (a session that runs past midnight logs two days)
    first = event_date[~missing].iloc[0] if (~missing).any() else ""
    remarks = col("remarks").reindex(df.index).fillna("")
    contract = df["contract"].str.strip()
    adjusted = remarks.where(looks_adjusted(remarks) & (contract.isin(["", "-"]) | looks_adjusted(contract)), "")
    section = col("section").reindex(df.index).fillna("").str.strip()
    table = col("table").reindex(df.index).fillna("").str.strip()
    stays = pd.DataFrame({"s": section, "p": df["pairns"].str.strip(), "t": table})
    mitchell = bool(stays.groupby(["s", "p"])["t"].nunique().le(1).all()) if (table != "").all() else True
    out = pd.DataFrame({
        "event_date": first, "event_name": file_name or "Bridgemate session",
        "movement": "mitchell" if mitchell else "howell",
        "board": df["board"], "section": section, "round": col("round").reindex(df.index).fillna(""),
        "ns_pair": df["pairns"], "ew_pair": df["pairew"],
        "contract": contract.where(adjusted == "", ""), "declarer": df["ns/ew"].where(adjusted == "", ""),
        "result": df["result"].where(adjusted == "", ""), "adjusted": adjusted, "location": df["location"],
    }, index=df.index)
    return out[~missing], problems


def _bridgemate_players(df: pd.DataFrame, seats: pd.DataFrame, header: list[str],
                        rows: list[tuple[int, list[str]]]) -> tuple[pd.DataFrame, list[tuple[str, str]]]:
    """Name the pairs of a Bridgemate session from its PlayerNumbers rows: the players sitting
    North and South at a table (in a round, when the table has a Round column; else in the first
    round the table played) are that table's North-South pair, East and West its East-West pair.
    Their numbers are the players' ids, ``Name`` their names. Fills ``ns_ids``/``ns_names``/
    ``ew_ids``/``ew_names`` of the traveller rows. A player row whose seat no result names is
    reported."""
    problems: list[tuple[str, str]] = []
    if not rows:
        return df, problems
    if "table" not in seats:
        problems.extend((f"line {n}", "a PlayerNumbers row, but the ReceivedData rows have no Table column, so no "
                                      "player can be seated: export ReceivedData with its Table column") for n, _ in rows)
        return df, problems
    p = pd.DataFrame([r for _, r in rows], columns=header).fillna("").apply(lambda s: s.str.strip())
    p["location"] = [f"line {n}" for n, _ in rows]
    if "round" not in p:
        p["round"] = ""
    if "name" not in p:
        p["name"] = ""
    p["direction"] = p["direction"].str.upper().str[:1]
    # the seats of every table and round, from the results
    s = pd.DataFrame({"section": seats.get("section", pd.Series("", index=seats.index)).str.strip(),
                      "table": seats["table"].str.strip(), "round": seats.get("round", pd.Series("", index=seats.index)).str.strip(),
                      "pairns": seats["pairns"].str.strip(), "pairew": seats["pairew"].str.strip()}).drop_duplicates()
    rnd = pd.to_numeric(s["round"], errors="coerce")
    first = s.assign(_r=rnd).sort_values("_r").drop_duplicates(["section", "table"]).drop(columns="_r")
    by_round = p["round"] != ""
    hit = pd.concat([
        p[by_round].merge(s, on=["section", "table", "round"], how="left"),
        p[~by_round].drop(columns="round").merge(first, on=["section", "table"], how="left"),
    ], ignore_index=True)
    side = hit["direction"].map({"N": "ns", "S": "ns", "E": "ew", "W": "ew"})
    hit["pair"] = hit["pairns"].where(side == "ns", hit["pairew"])
    unknown = hit["pair"].isna() | side.isna()
    for loc, sec, tab, d in zip(hit.loc[unknown, "location"], hit.loc[unknown, "section"], hit.loc[unknown, "table"],
                                hit.loc[unknown, "direction"]):
        problems.append((loc, f"the PlayerNumbers row for section {clip(sec, 10)}, table {clip(tab, 10)}, direction "
                              f"'{clip(d, 5)}' names no seat of a result in this file: expected N, E, S or W at a table "
                              "that played; the player is not credited"))
    hit = hit[~unknown].assign(side=side[~unknown])
    hit = hit.sort_values(["side", "pair", "direction"], kind="stable")
    who = hit.groupby(["section", "side", "pair"], sort=False).agg(ids=("number", ";".join), names=("name", "; ".join)).reset_index()
    out = df.copy()
    for key in ("ns", "ew"):
        w = who[who["side"] == key].rename(columns={"pair": f"{key}_pair", "ids": f"{key}_ids", "names": f"{key}_names"})
        merged = out[["section", f"{key}_pair"]].merge(w.drop(columns="side"), on=["section", f"{key}_pair"], how="left")
        out[f"{key}_ids"] = merged[f"{key}_ids"].fillna("").to_numpy()
        out[f"{key}_names"] = merged[f"{key}_names"].fillna("").to_numpy()
    return out, problems


MAX_LINE = 20_000  # characters in one traveller line (a real one is a few hundred)
_CSV_ERRORS = {
    "unexpected end of data": "a quoted value (opened with \") is not closed on this line",
    "',' expected after '\"'": "a quoted value is followed by more text before the next comma",
}


def _split_line(no: int, line: str) -> tuple[list[str] | None, str]:
    """One physical line as CSV values, or the reason it cannot be read. A value never spans lines:
    the format has one traveller line per line, so a quote left open is this line's problem and
    cannot swallow the lines after it."""
    if len(line) > MAX_LINE:
        return None, f"the line is {len(line):,} characters long: a traveller line is at most {MAX_LINE:,}"
    if line.count('"') % 2:
        return None, ("the line has an odd number of quote characters (\"): a quoted value must open and close on "
                      "the same line (a traveller line is one line of the file); remove the stray quote")
    try:
        return next(csv.reader([line], strict=True)), ""
    except (csv.Error, StopIteration) as exc:
        why = _CSV_ERRORS.get(str(exc), str(exc))
        return None, f"the line cannot be read as comma-separated values ({why})"


@never_raises
def parse_csv(source_file: str, data: bytes) -> tuple[dict[str, pd.DataFrame], pd.DataFrame]:
    """Parse a CSV traveller file. Never raises on bad input: problems go to the quarantine frame.

    Every physical line is accounted for: the header (and repeats of it), a traveller line, a
    comment (``#``), a blank line, or a problem naming its physical line number."""
    text = decode_text(data)
    content = [(i + 1, ln) for i, ln in enumerate(physical_lines(text)) if ln.strip() and not ln.lstrip().startswith("#")]
    if not content:
        return whole_file_rejected(source_file, "the file is empty: expected a header row and traveller lines")
    head_no, head_line = content[0]
    head, why = _split_line(head_no, head_line)
    if head is None:
        return whole_file_rejected(source_file, f"the header row cannot be read: {why}", location=f"line {head_no}")
    header = [unicodedata.normalize("NFKC", h).strip().lower() for h in head]
    bridgemate = BRIDGEMATE <= set(header)
    missing = [c for c in REQUIRED if c not in header]
    if missing and not bridgemate:
        return whole_file_rejected(source_file, "the header row lacks the column(s) " + ", ".join(missing)
                                   + "; found: " + clip(", ".join(header), 200), location=f"line {head_no}")
    twice = sorted({h for h in header if h and header.count(h) > 1})
    if twice:
        return whole_file_rejected(source_file, "the header row names the column(s) " + ", ".join(twice)
                                   + " more than once: each column once", location=f"line {head_no}")
    width = len(header)
    q_parts = []
    ok_rows, ok_lines = [], []
    players_header: list[str] | None = None
    player_rows: list[tuple[int, list[str]]] = []
    for n, line in content[1:]:
        r, why = _split_line(n, line)
        lowered = [unicodedata.normalize("NFKC", h).strip().lower() for h in r] if r is not None else []
        if r is None:
            q_parts.append((f"line {n}", why))
        elif lowered == header:
            players_header = None
            continue  # the header again (two exports pasted together)
        elif bridgemate and PLAYER_TABLE <= set(lowered):
            players_header = lowered  # Bridgemate's PlayerNumbers table pasted after ReceivedData
            continue
        elif players_header is not None:
            if len(r) != len(players_header):
                q_parts.append((f"line {n}", f"expected {len(players_header)} comma-separated values as in the "
                                f"PlayerNumbers header, found {len(r)}"))
            else:
                player_rows.append((n, r))
        elif len(r) != width:
            q_parts.append((f"line {n}", f"expected {width} comma-separated values as in the header, found {len(r)}"))
        else:
            ok_rows.append(r)
            ok_lines.append(n)
    if not ok_rows and not q_parts:
        return whole_file_rejected(source_file, "the file has a header row but no traveller lines: expected one line per "
                                   "result (board, pairs, contract, declarer, result) after the header",
                                   location=f"line {head_no}")
    df = pd.DataFrame(ok_rows, columns=header, dtype="str") if ok_rows else pd.DataFrame(columns=header, dtype="str")
    if bridgemate:
        df["location"] = [f"line {n}" for n in ok_lines]
        seats = df.fillna("")
        df, more = _from_bridgemate(seats, source_file)
        q_parts.extend(more)
        if players_header is not None or player_rows:
            df, more = _bridgemate_players(df, seats, players_header or [], player_rows)
            q_parts.extend(more)
        ok_lines = [int(loc.split(" ")[1]) for loc in df["location"]]
        df = df.drop(columns="location")
    for c in OPTIONAL:
        if c not in df:
            df[c] = ""
    df = df.fillna("").apply(lambda s: s.str.strip())
    df["location"] = [f"line {n}" for n in ok_lines]
    for c in ("event_date", "movement", "scoring", "winner_type", "ns_ids", "ew_ids"):
        df[c] = nfkc(df[c]).str.strip()

    # Field lengths of the event and player cells (the traveller cells are checked by finalise)
    too_long = pd.Series("", index=df.index, dtype="object")
    for c, limit in (("event_id", MAX_NAME), ("event_name", MAX_NAME), ("ns_names", MAX_PLAYERS_CELL),
                     ("ns_ids", MAX_PLAYERS_CELL), ("ew_names", MAX_PLAYERS_CELL), ("ew_ids", MAX_PLAYERS_CELL)):
        n = df[c].str.len()
        too_long = too_long.mask((too_long == "") & (n > limit),
                                 c + " '" + clip_series(df[c]) + "' is " + n.astype("string") + f" characters long: at most {limit} expected")
    for loc, why in zip(df.loc[too_long != "", "location"], too_long[too_long != ""]):
        q_parts.append((loc, why))
    df = df[too_long == ""].copy()

    # Event attributes
    dates = df["event_date"].map(parse_date)
    bad_date = dates.isna()
    for loc, val in zip(df.loc[bad_date, "location"], df.loc[bad_date, "event_date"]):
        q_parts.append((loc, f"event_date '{clip(val)}' is not a date: expected YYYY-MM-DD"))
    df = df[~bad_date].copy()
    dates = dates[~bad_date]
    name = df["event_name"].where(df["event_name"] != "", "bridge session")
    df["event_id"] = df["event_id"].where(df["event_id"] != "", [make_event_id(d, n, source_file) for d, n in zip(dates, name)])
    movement = df["movement"].str.lower().where(df["movement"] != "", "mitchell")
    bad_mov = ~movement.isin(MOVEMENTS)
    for loc, val in zip(df.loc[bad_mov, "location"], df.loc[bad_mov, "movement"]):
        q_parts.append((loc, f"movement '{clip(val)}' is not one of mitchell, howell, teams"))
    scoring = df["scoring"].str.upper().where(df["scoring"] != "", pd.Series(
        ["TEAMS" if m == "teams" else "MP" for m in movement], index=df.index))
    bad_sc = ~scoring.isin(SCORINGS) & ~bad_mov
    for loc, val in zip(df.loc[bad_sc, "location"], df.loc[bad_sc, "scoring"]):
        q_parts.append((loc, f"scoring '{clip(val)}' is not one of MP, XIMP, BUTLER, TEAMS"))
    bad_win = ~df["winner_type"].isin(["", "1", "2"]) & ~bad_mov & ~bad_sc
    for loc, val in zip(df.loc[bad_win, "location"], df.loc[bad_win, "winner_type"]):
        q_parts.append((loc, f"winner_type '{clip(val)}' is not 1 (one winner) or 2 (North-South and East-West ranked apart)"))
    keep = ~bad_mov & ~bad_sc & ~bad_win
    df, dates, movement, scoring = df[keep].copy(), dates[keep], movement[keep], scoring[keep]
    df["movement"] = movement
    df["scoring"] = scoring
    winner = pd.to_numeric(df["winner_type"], errors="coerce")
    winner = winner.fillna(pd.Series([2 if m == "mitchell" else 1 for m in movement], index=df.index))
    events = events_frame([
        {"event_id": e, "event_date": d, "name": n, "movement": m, "scoring": s, "winner_type": int(w),
         "source_file": source_file}
        for e, d, n, m, s, w in zip(df["event_id"], dates, name[df.index], df["movement"], df["scoring"], winner)
    ])

    # Entrants from the name/id columns (first mention wins)
    # Per session: a file holding two sessions may seat other players under the same pair number in
    # session 2; an event-wide list credited session 2's standings to session 1's players (found by
    # tests/bridge/test_bridge_pipeline_scoring_options.py). Session numbers as finalise reads them.
    ses = nfkc(df["session"]).str.strip()
    session_no = pd.to_numeric(ses.where(ses.str.fullmatch(r"\d{1,2}")), errors="coerce").fillna(1).astype("int64")
    ent_rows = []
    for side, dcol in (("ns", "NS"), ("ew", "EW")):
        sub = df[["event_id", "section", "movement", f"{side}_pair", f"{side}_names", f"{side}_ids"]]
        pp = split_pair_number(sub[f"{side}_pair"])
        for ev, ses, sec, mov, pair, names, ids in zip(sub["event_id"], session_no, sub["section"], sub["movement"],
                                                       pp["pair"], sub[f"{side}_names"], sub[f"{side}_ids"]):
            if names or ids:
                ent_rows.append({"event_id": ev, "session": int(ses), "section": sec,
                                 "direction": dcol if mov == "mitchell" else "", "entrant": pair, "entrant_name": "",
                                 "player_names": names, "player_ids": ids})
    entrants = entrants_frame(ent_rows, per_session=True)

    raw = pd.DataFrame({
        "event_id": df["event_id"], "session": df["session"].where(df["session"] != "", "1"),
        "section": df["section"], "board": df["board"], "round": df["round"],
        "ns_pair": df["ns_pair"], "ew_pair": df["ew_pair"], "contract_raw": df["contract"],
        "declarer_raw": df["declarer"], "result_raw": df["result"], "score_raw": df["score_ns"],
        "adjusted_raw": df["adjusted"], "vulnerable_raw": df["vulnerable"], "dealer_raw": df["dealer"],
        "location": df["location"],
    })
    lines_parts, qs = [], []
    for (mov,), part in raw.groupby([df["movement"]], sort=False):
        lines, q = finalise(part, source_file, None, "unique" if mov == "howell" else "by_direction", teams=(mov == "teams"))
        lines_parts.append(lines)
        qs.append(q)
    lines = pd.concat(lines_parts, ignore_index=True) if lines_parts else finalise(raw, source_file, None)[0]
    if q_parts:
        qs.append(quarantine_frame(source_file, [l for l, _ in q_parts], [r for _, r in q_parts]))
    quarantine = pd.concat(qs, ignore_index=True) if qs else quarantine_frame(source_file, [], [])
    return {"events": events, "entrants": entrants, "traveller_lines": lines}, quarantine

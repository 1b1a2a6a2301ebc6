"""A session's notice-board publication (HTML and CSV), and `explain` lines.

var/publications/<organisation>/<event>/ holds, per session:

* index.html: the ranking (NS and EW apart in a two-winner movement; teams by victory points,
  with every match) and each board's traveller, readable on a phone;
* standings.csv: the ranking; travellers.csv: every traveller line with its score and matchpoints
  or IMPs (matches.csv for teams). Text cells are made safe against spreadsheet formulas.

Everything comes from the warehouse views (current file versions only). A folder is rewritten
when its source file version, the scales or this code's template change; folders of sessions
that no longer stand (a corrected file that renamed its event) are removed.
"""
from __future__ import annotations

import csv
import io
import itertools
import re
import shutil
from decimal import Decimal
from pathlib import Path

import duckdb
import pandas as pd
from pipelines.bridge.exact import round_half_up_ratio, to_decimal
from pipelines.core.charts import bar_chart
from pipelines.core.templating import rendering_code, template_env

from pipelines.core.sql import fetch
from pipelines.core.publishing import replace_folder, spreadsheet_safe

TEMPLATE_DIR = Path(__file__).parent / "templates"
_TEMPLATES = template_env(TEMPLATE_DIR)
MARKER = ".version"
SUITS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠", "N": "NT"}
# the catalogue's keys (data/site/messages.csv) of the movements, scorings and directions
MOVEMENTS = {"mitchell": "bridge_mitchell", "howell": "bridge_howell", "teams": "bridge_teams"}
SCORINGS = {"MP": "bridge_mp", "XIMP": "bridge_ximp", "BUTLER": "bridge_butler"}
DIRECTIONS = {"NS": "bridge_ns", "EW": "bridge_ew"}


def _direction(t: dict[str, str], direction: str) -> str:
    return t[DIRECTIONS[direction]] if direction in DIRECTIONS else direction


def _section(t: dict[str, str], section) -> str:
    return t["bridge_section"].replace("{s}", str(section)) if section else ""


def folder_name(session_event_id: str, organisation: str) -> str:
    """A safe folder name for a session: the id without the organisation, no path characters."""
    text = session_event_id[len(organisation) + 1:] if session_event_id.startswith(organisation + ":") else session_event_id
    text = re.sub(r"[^\w-]+", "-", text, flags=re.UNICODE).strip("-_.")
    return text or "session"


def _text(value) -> str:
    return "" if value is None or value is pd.NA or (isinstance(value, float) and value != value) else str(value)


def _contract(row) -> str:
    if row["adjusted"]:
        return row["adjusted"]
    if row["contract"] == "PASS":
        return "Pass"
    return f"{row['level']}{SUITS.get(row['strain'], row['strain'])}" + "X" * int(row["doubled"])


def _contract_parts(row) -> dict:
    """The contract as level, suit symbol (with its colour class: hearts and diamonds red) and
    doubles, for the HTML pages; an adjusted score or a pass as plain text."""
    if row["adjusted"] or row["contract"] == "PASS" or not row["contract"]:
        return {"level": _contract(row) if (row["adjusted"] or row["contract"] == "PASS") else "", "suit": "",
                "suit_class": "", "dbl": ""}
    strain = row["strain"]
    return {"level": str(row["level"]), "suit": SUITS.get(strain, strain),
            "suit_class": "red" if strain in ("H", "D") else ("nt" if strain == "N" else "black"),
            "dbl": "X" * int(row["doubled"])}


def pair_page(section: str, direction: str, entrant: str) -> str:
    """The file name of a pair's scorecard page inside its session's folder."""
    key = "-".join(x for x in (section, direction, entrant) if x)
    return "pair-" + (re.sub(r"[^\w-]+", "_", key, flags=re.UNICODE) or "x") + ".html"


def _scorecards(standings: pd.DataFrame, boards: pd.DataFrame, scoring: str, t: dict[str, str]) -> dict[str, str]:
    """Each pair's personal scorecard (pairs events): every board it played with its seat, the
    opponents, contract, declarer, result, its own score, its matchpoints (or IMPs) and the board's
    percentage, then its total; the pair's players named at the top. Built from the board results
    with one set-based reshaping (a row per pair per board), then rendered pair by pair."""
    if standings.empty or boards.empty:
        return {}
    b = boards.reset_index(drop=True)
    parts = []
    for side, pair, opp, mp in (("NS", "ns_pair", "ew_pair", "mp_ns"), ("EW", "ew_pair", "ns_pair", "mp_ew")):
        sign = 1 if side == "NS" else -1
        parts.append(pd.DataFrame({
            "section": b["section"], "board": b["board"], "seat": side, "entrant": b[pair].astype(str),
            "opponents": b[opp].astype(str), "score": b["score_ns"].astype("Float64") * sign,
            "mp": b[mp] if scoring == "MP" else (b["imp_ns"].astype("Float64") * sign),
            "top": b["mp_top"], "row": b.index,
            # the exact matchpoints and top (units of 1/mp_den), for the board's percentage
            "mp_x": b[f"{mp}_x"].astype("Int64"), "top_x": b["mp_top_x"].astype("Int64"),
        }))
    rows = pd.concat(parts, ignore_index=True)
    rows = rows[rows["mp"].notna()]
    # the board's percentage from the exact matchpoints, half-up to 2 places once (docs/bridge.md),
    # not from the 2-place display figure (a factored 22/3 of 8 is 91.67 %, not 7.33 / 8 = 91.62 %)
    exact = rows["mp_x"].notna() & rows["top_x"].fillna(0).gt(0)
    hundredths = pd.Series(pd.NA, index=rows.index, dtype="Int64")
    if scoring == "MP" and exact.any():
        hundredths[exact] = round_half_up_ratio(rows.loc[exact, "mp_x"].to_numpy(dtype="int64") * 100,
                                                rows.loc[exact, "top_x"].to_numpy(dtype="int64"), 2)
    rows = rows.assign(pct=[f"{d:.2f}" if d is not None else "" for d in to_decimal(hundredths)])
    howell = set(standings.loc[standings["direction"] == "", "section"])
    rows = rows.assign(direction=rows["seat"].where(~rows["section"].isin(howell), ""))
    template = _TEMPLATES.get_template("scorecard.html.j2")
    pages = {}
    # each pair's rows by one grouping, and the board results as records (not a filter of every
    # row and a label lookup per line: a congress has hundreds of pairs)
    rows = rows.sort_values("board", kind="stable").reset_index(drop=True)
    of_pair = rows.groupby(["section", "direction", "entrant"], sort=False).indices
    results = b.to_dict("records")
    for st in standings.itertuples():
        mine = rows.iloc[of_pair.get((st.section, st.direction, st.entrant), [])]
        lines = []
        for r in mine.itertuples():
            src = results[r.row]
            score = r.score
            pct = r.pct
            lines.append({"board": int(r.board), "seat": r.seat, "opponents": r.opponents, **_contract_parts(src),
                          "declarer": src["declarer"], "result": _result(src),
                          "score": "" if pd.isna(score) else _number(int(score)), "mp": _text(r.mp), "pct": pct,
                          "anchor": f"b{st.section}{int(r.board)}"})
        pages[pair_page(st.section, st.direction, st.entrant)] = template.render(
            st=st, lines=lines, percentages=scoring == "MP", chart=_board_chart(lines, scoring, t), t=t, lang=t["lang"], who=" ".join(
                x for x in (_section(t, st.section), _direction(t, st.direction),
                            t["bridge_pair_n"].replace("{n}", str(st.entrant))) if x))
    return pages


def _board_chart(lines: list[dict], scoring: str, t: dict[str, str]):
    """A pair's boards as bars (core/charts): its percentage on each board around 50 % (matchpoints),
    or its IMPs around 0; None where no board has a figure."""
    if scoring == "MP":
        shown = [(line["board"], Decimal(line["pct"])) for line in lines if line["pct"]]
        if not shown:
            return None
        return bar_chart([b for b, _ in shown], [v for _, v in shown], x_label=t["bridge_board_axis"], y_label="%",
                         aria_label=t["bridge_pct_by_board"], reference=Decimal(50),
                         domain=(Decimal(0), Decimal(100)))
    shown = [(line["board"], Decimal(line["mp"])) for line in lines if line["mp"]]
    if not shown:
        return None
    return bar_chart([b for b, _ in shown], [v for _, v in shown], x_label=t["bridge_board_axis"], y_label="IMP",
                     aria_label=t["bridge_imps_by_board"], reference=Decimal(0))


def _hands(deal) -> dict | None:
    """``N:<north> <east> <south> <west>`` (as the readers normalise a PBN [Deal]) -> per seat a
    list of (suit symbol, colour class, cards) for the hand diagram; None without a deal."""
    text = _text(deal)
    if not text.startswith("N:"):
        return None
    hands = text[2:].split(" ")
    return {seat: [(SUITS[s], "red" if s in "HD" else "black", cards.replace("T", "10") or "—")
                   for s, cards in zip("SHDC", hand.split("."))] for seat, hand in zip("NESW", hands)}


def _result(row) -> str:
    if row["adjusted"] or row["contract"] == "PASS" or pd.isna(row["tricks"]):
        return ""
    over = int(row["tricks"]) - 6 - int(row["level"])
    return "=" if over == 0 else f"{over:+d}".replace("-", "−")


def _number(value) -> str:
    text = _text(value)
    return text.replace("-", "−") if text.startswith("-") else text


def _numeric_first(values: pd.Series) -> pd.Series:
    """Sort key for pair and team numbers: 2 before 10."""
    return values.astype("string").str.zfill(8)


def _ordered(standings: pd.DataFrame) -> pd.DataFrame:
    """Sections, then NS before EW, then rank and pair number."""
    return standings.assign(_d=standings["direction"].map({"NS": 0, "EW": 1, "": 2}), _e=_numeric_first(standings["entrant"])) \
        .sort_values(["section", "_d", "rank", "_e"]).drop(columns=["_d", "_e"])


def _standing_groups(standings: pd.DataFrame, t: dict[str, str]) -> list[dict]:
    groups = []
    for (section, direction), part in _ordered(standings).groupby(["section", "direction"], sort=False):
        title = " ".join(x for x in (_section(t, section), _direction(t, direction)) if x)
        rows = [
            {"rank": r.rank_label, "entrant": r.entrant, "names": r.player_names, "score": _number(r.score),
             "max_score": _text(r.max_score), "percentage": _text(r.percentage), "boards": r.boards,
             "handicap": _text(getattr(r, "handicap", None)), "handicap_percentage": _text(getattr(r, "handicap_percentage", None)),
             "handicap_rank": _text(getattr(r, "handicap_rank_label", None)),
             "page": pair_page(r.section, r.direction, r.entrant)}
            for r in part.itertuples()
        ]
        groups.append({"title": title, "rows": rows})
    return groups


def team_ranking(matches: pd.DataFrame) -> pd.DataFrame:
    """Teams by total victory points (ties share a place), with their IMP totals."""
    totals = matches.groupby(["team", "team_name", "player_names"], sort=False).agg(
        matches=("opponent", "size"), imps_for=("imps_for", "sum"), imps_against=("imps_against", "sum"),
        vp=("vp", "sum")).reset_index()
    totals["vp"] = totals["vp"].map(lambda v: Decimal(v).quantize(Decimal("0.01")))
    totals["rank"] = totals["vp"].rank(method="min", ascending=False).astype(int)
    shared = totals.duplicated("rank", keep=False)
    totals["rank_label"] = totals["rank"].astype(str) + shared.map({True: "=", False: ""})
    return totals.sort_values(["rank", "team"]).reset_index(drop=True)


def _travellers(boards: pd.DataFrame, scoring: str) -> list[dict]:
    out = []
    if boards.empty:
        return out
    # one sort and one conversion for the whole session, then cut per board (sorted by section and
    # board first, so each board's rows are together and in the order its traveller prints them)
    keyed = boards.assign(_n=_numeric_first(boards["ns_pair"]))
    ordered = (keyed.sort_values(["section", "board", "round", "_n"]) if scoring == "TEAMS" else
               # by North-South score, best first (as scorers print travellers); adjusted scores last
               keyed.assign(_s=keyed["score_ns"].astype("Float64").fillna(float("-inf")))
               .sort_values(["section", "board", "_s", "_n"], ascending=[True, True, False, True]))
    for (section, board), part in itertools.groupby(ordered.to_dict("records"), key=lambda r: (r["section"], r["board"])):
        part = list(part)
        first = part[0]
        rows = []
        for r in part:
            score = r["score_ns"]
            rows.append({**_contract_parts(r),
                "round": _text(r["round"]), "ns": r["ns_pair"], "ew": r["ew_pair"], "contract": _contract(r),
                "declarer": r["declarer"], "result": _result(r),
                "score_ns": "" if pd.isna(score) or score <= 0 else str(score) if score > 0 else "",
                "score_ew": "" if pd.isna(score) or score >= 0 else str(-score),
                "pass_out": not pd.isna(score) and score == 0,
                "mp_ns": _text(r["mp_ns"]), "mp_ew": _text(r["mp_ew"]), "imp_ns": _number(r["imp_ns"]),
                "neuberg": bool(r["neuberg"]) if not pd.isna(r["neuberg"]) else False,
                # the scorer's stated score, scored as stated, where Law 77 gives another for the contract as written
                "law77": "" if pd.isna(r.get("law77_score_ns", pd.NA)) else str(int(r["law77_score_ns"])),
            })
        out.append({"section": section, "board": int(board), "dealer": first["dealer"], "vulnerable": first["vulnerable"],
                    "hands": _hands(first.get("deal")), "par": _text(first.get("par")),
                    "top": _text(first["mp_top"]), "datum": _text(first["butler_datum"]) if scoring == "BUTLER" else "",
                    "rows": rows})
    return out


def _csv(header: list[str], rows: list[list]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue()


def render_session(session: pd.Series, standings: pd.DataFrame, boards: pd.DataFrame, matches: pd.DataFrame,
                   org: pd.Series, t: dict[str, str]) -> dict[str, str]:
    """The files of one session's publication, as text; `t` the fixed texts in the organisation's
    language (data/site/messages.csv, with `lang`)."""
    teams = session["scoring"] == "TEAMS"
    ranking = team_ranking(matches) if teams and len(matches) else pd.DataFrame()
    context = {
        "club": org["display_name"],
        "session": session,
        "movement": t[MOVEMENTS[session["movement"]]] if session["movement"] in MOVEMENTS else session["movement"],
        "scoring": t[SCORINGS[session["scoring"]]] if session["scoring"] in SCORINGS else "IMP → VP",
        "t": t, "lang": t["lang"],
        "teams": teams,
        "groups": [] if teams else _standing_groups(standings, t),
        "percentages": session["scoring"] == "MP",
        "handicaps": "handicap" in standings and bool(standings["handicap"].notna().any()),
        "ranking": ranking.to_dict("records"),
        "matches": matches.sort_values(["round", "team"]).to_dict("records") if teams else [],
        "travellers": _travellers(boards, session["scoring"]),
        "scorecards": not teams,
    }
    files = {"index.html": _TEMPLATES.get_template("session.html.j2").render(**context)}
    if not teams:
        files.update(_scorecards(standings, boards, session["scoring"], t))
    safe = lambda v: spreadsheet_safe(_text(v))  # noqa: E731 - text cells only; numbers are ours
    if teams:
        files["standings.csv"] = _csv(
            ["rank", "team", "team_name", "players", "matches", "imps_for", "imps_against", "vp"],
            [[r.rank_label, safe(r.team), safe(r.team_name), safe(r.player_names), r.matches, r.imps_for, r.imps_against, r.vp]
             for r in ranking.itertuples()])
        files["matches.csv"] = _csv(
            ["round", "team", "team_name", "opponent", "opponent_name", "boards", "imps_for", "imps_against", "vp", "vp_scale"],
            [[_text(r.round), safe(r.team), safe(r.team_name), safe(r.opponent), safe(r.opponent_name), r.boards, r.imps_for,
              r.imps_against, r.vp, safe(r.vp_scale)] for r in matches.sort_values(["round", "team"]).itertuples()])
    else:
        ordered = _ordered(standings)
        files["standings.csv"] = _csv(
            ["section", "direction", "rank", "pair", "players", "player_ids", "score", "max_score", "percentage", "boards"],
            [[safe(r.section), r.direction, r.rank_label, safe(r.entrant), safe(r.player_names), safe(r.player_ids),
              _text(r.score), _text(r.max_score), _text(r.percentage), r.boards] for r in ordered.itertuples()])
    files["travellers.csv"] = _csv(
        ["section", "board", "round", "ns_pair", "ew_pair", "contract", "declarer", "tricks", "score_ns", "adjusted",
         "mp_ns", "mp_ew", "imp_ns"],
        [[safe(r.section), r.board, _text(r.round), safe(r.ns_pair), safe(r.ew_pair), safe(r.contract), r.declarer,
          _text(r.tricks), _text(r.score_ns), safe(r.adjusted), _text(r.mp_ns), _text(r.mp_ew), _text(r.imp_ns)]
         for r in boards.assign(_n=_numeric_first(boards["ns_pair"])).sort_values(["section", "board", "round", "_n"]).itertuples()])
    return files


def _write_folder(target: Path, files: dict[str, str], marker: str) -> None:
    replace_folder(target, {**files, MARKER: marker})


def publish_sessions(con: duckdb.DuckDBPyConnection, org: pd.Series, out_dir: Path, data_dir: Path) -> list[Path]:
    """(Re)write the publication of every session whose folder is missing or out of date (its
    content, the templates or the organisation's language and texts changed)."""
    organisation = org["organisation"]
    from pipelines.core.site import messages

    lang = org.get("language") or "en"
    t = {**messages(data_dir, lang), "lang": lang}
    sessions = fetch(con, "select * from bridge_sessions where organisation = ? order by event_date, event_id, session", [organisation])
    wanted = {folder_name(s, organisation): s for s in sessions["session_event_id"]}
    if out_dir.exists():  # sessions that no longer stand (their file was corrected or replaced)
        for folder in out_dir.iterdir():
            if folder.is_dir() and (folder / MARKER).exists() and folder.name not in wanted:
                shutil.rmtree(folder)
    if sessions.empty:
        return []
    code = rendering_code(TEMPLATE_DIR, __file__, t)
    markers = {}
    for s in sessions.itertuples():
        markers[s.session_event_id] = f"{s.source_sha256} {s.mp_scale} {s.vp_scale} {code}\n"
    stale = [s for s in sessions["session_event_id"]
             if not ((out_dir / folder_name(s, organisation) / MARKER).exists()
                     and (out_dir / folder_name(s, organisation) / MARKER).read_text(encoding="utf-8") == markers[s])]
    if not stale:
        return []
    ids = sessions.loc[sessions["session_event_id"].isin(stale), "event_id"].unique().tolist()
    standings = fetch(con, "select * replace (array_to_string(player_ids, ';') as player_ids, array_to_string(player_names, '; ') as player_names) from session_standings where organisation = ? and event_id in (select unnest(?))", [organisation, ids])
    boards = fetch(con, "select * from board_results where organisation = ? and event_id in (select unnest(?))", [organisation, ids])
    matches = fetch(con, "select * replace (array_to_string(player_ids, ';') as player_ids, array_to_string(player_names, '; ') as player_names) from team_matches where organisation = ? and event_id in (select unnest(?))", [organisation, ids])
    written = []
    for _, session in sessions[sessions["session_event_id"].isin(stale)].iterrows():
        def of(frame: pd.DataFrame) -> pd.DataFrame:
            return frame[(frame["event_id"] == session["event_id"]) & (frame["session"] == session["session"])]
        files = render_session(session, of(standings), of(boards), of(matches), org, t)
        target = out_dir / folder_name(session["session_event_id"], organisation)
        _write_folder(target, files, markers[session["session_event_id"]])
        written.append(target)
    return written


def explain_player(con: duckdb.DuckDBPyConnection, player_id: str, event_id: str | None) -> list[str]:
    """The player's session results (what a masterpoint award is computed from)."""
    pairs = fetch(
        con,
        """
        select s.event_date, s.event_id, s.session, s.section, s.direction, s.entrant, s.score, s.max_score,
               s.percentage, s.rank_label, s.ranked_entrants, s.scoring, b.event_name
        from session_standings as s
        inner join bridge_sessions as b using (organisation, event_id, session)
        where list_contains(s.player_ids, ?) and (? is null or s.event_id = ? or b.session_event_id = ?)
        order by s.event_date, s.event_id, s.session
        """,
        [player_id, event_id, event_id, event_id],
    )
    lines = []
    for r in pairs.itertuples():
        who = " ".join(x for x in (f"section {r.section}" if r.section else "", f"pair {r.entrant}", r.direction) if x)
        if r.scoring == "MP":
            result = f"{r.score} of {r.max_score} matchpoints = {r.percentage} %"
        else:
            result = f"{r.score} IMPs ({r.scoring})"
        lines.append(f"{r.event_date} {r.event_name} [{r.event_id}, session {r.session}]: {who}, {result}, "
                     f"place {r.rank_label} of {r.ranked_entrants}")
    teams = fetch(
        con,
        """
        select t.event_date, t.event_id, t.team, t.team_name, count(*) as matches, sum(t.imps_for) as imps_for,
               sum(t.imps_against) as imps_against, sum(t.vp) as vp, b.event_name
        from team_matches as t
        inner join bridge_sessions as b using (organisation, event_id, session)
        where list_contains(t.player_ids, ?) and (? is null or t.event_id = ?)
        group by all
        order by t.event_date, t.event_id
        """,
        [player_id, event_id, event_id],
    )
    for r in teams.itertuples():
        lines.append(f"{r.event_date} {r.event_name} [{r.event_id}]: team {r.team} {r.team_name}, {r.matches} matches, "
                     f"IMPs {r.imps_for}–{r.imps_against}, {r.vp} VP")
    return lines

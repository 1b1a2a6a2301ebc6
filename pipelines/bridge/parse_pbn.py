"""PBN 2.1 result files (Portable Bridge Notation).

What is read:

- per game (board): ``[Event]``, ``[Date]`` (``2026.11.11``; ``#`` = as the previous game),
  ``[Board]``, ``[Dealer]``, ``[Vulnerable]``, ``[Section]``, ``[Scoring]``;
- ``[ScoreTable "PairId_NS\\2R;PairId_EW\\2R;Contract\\5L;Declarer\\1R;Result\\2R;Score_NS\\6R;..."]``
  followed by one row per result. Columns used: ``PairId_NS``, ``PairId_EW``, ``Contract``,
  ``Declarer``, ``Result`` (tricks), ``Score_NS``/``Score_EW`` (checked against Law 77),
  ``Section``, ``Round``. Cells ``-`` (not relevant) and ``?`` (unknown) are empty. Artificial
  adjusted scores may be written in ``Contract`` or in ``Score_NS``/``Score_EW`` (``AVE+``,
  ``A60``, ``60%``; see docs/bridge.md);
- ``[TotalScoreTable "..."]`` for the entrants: ``PairId`` (or ``TeamId``), ``Direction``
  (``NS``/``N-S``/``EW``/``E-W``; present in a Mitchell), ``Names`` (players separated by
  `` - ``, ``&``, ``/`` or ``;``), ``MemberID1``.. ``MemberID4`` or ``MemberIDs``;
- team files without score tables (one game per table, as in the WBF's published PBN):
  ``[Contract]``, ``[Declarer]``, ``[Result]``, ``[Score]``, ``[HomeTeam]``, ``[VisitTeam]``,
  ``[Room "Open"|"Closed"]`` (Open: home team North-South), ``[Round]``.
- optional, non-standard: ``[Movement "Mitchell"|"Howell"|"Teams"]``; without it a file whose
  TotalScoreTable has a Direction column is a Mitchell, a file with HomeTeam/VisitTeam is teams,
  anything else a Howell.
"""

from __future__ import annotations

import re
import unicodedata

import pandas as pd

from pipelines.bridge.parse_common import (
    MAX_NAME,
    MAX_PLAYERS_CELL,
    clip,
    decode_text,
    empty_frames,
    entrants_frame,
    events_frame,
    finalise,
    make_event_id,
    never_raises,
    parse_date,
    physical_lines,
    quarantine_frame,
    whole_file_rejected,
)

_TAG = re.compile(r'^\[\s*([A-Za-z0-9_]+)\s*"(.*)"\s*\]$')
# the tags of a result written as tags (a teams file without a ScoreTable)
_RESULT_TAGS = ("Declarer", "Contract", "Result", "Score")


def _match_tag(s: str):
    """A tag pair ``[Name "value"]``, optionally followed by a comment on the same line
    (``; ...`` or ``{...}``). Found with rfind/find and one anchored match: linear in the line."""
    if not s.startswith("["):
        return None
    q = s.rfind('"')
    j = s.find("]", q + 1) if q > 0 else -1
    if j < 0:
        return None
    rest = s[j + 1:].strip()
    if rest and not (rest.startswith(";") or (rest.startswith("{") and rest.endswith("}"))):
        return None
    return _TAG.match(s[:j + 1])
_TOKEN = re.compile(r'"[^"]*"|\S+')
_SCORING = {"MP": "MP", "MATCHPOINTS": "MP", "MP1": "MP", "MP2": "MP", "IMP": "XIMP", "CROSS-IMPS": "XIMP",
            "CROSSIMPS": "XIMP", "XIMP": "XIMP", "BUTLER": "BUTLER", "IMP;BUTLER": "BUTLER", "TEAMS": "TEAMS"}


_SECTION_TAGS = {"Auction", "Play"}  # tags followed by data lines (also every "...Table" tag)
# the tables of the PBN 2.1 standard (section 5) and the per-direction totals some scorers write: their
# rows are read (ScoreTable, TotalScoreTable*) or knowingly passed over; rows under any other "...Table"
# tag (a misspelt [ScoreTable], say) are each reported, never passed over in silence
_KNOWN_TABLES = {"ScoreTable", "TotalScoreTable", "TotalScoreTableNS", "TotalScoreTableEW", "OptimumResultTable",
                 "OptimumPlayTable", "ActionTable", "AuctionTimeTable", "InstantScoreTable", "PlayTimeTable"}
_UNKNOWN_LINE = ("expected a PBN tag such as [Board \"1\"], a row of the score table above it, a comment "
                 "(%, ; or {...}) or a blank line between games")


def _games(text: str) -> tuple[list[dict], list[tuple[str, str]]]:
    """Split a PBN text into games: {"tags": {name: (value, line)}, "tables": {name: (header, line, rows)},
    "line": first line}, and the problems of lines that belong nowhere.

    Every physical line is accounted for: a tag, a row of a table (or data of an Auction/Play
    section), a comment, a blank line, or a problem naming its line. A tag name that repeats within
    one game means the blank line between two games is missing: the second occurrence starts the
    next game (nothing of the first game is overwritten). A ``{`` comment never closed is a problem
    at its line, and the lines after it are read normally. Linear: each line is looked at once (at
    most twice after an unclosed comment)."""
    lines = physical_lines(text)
    games: list[dict] = []
    problems: list[tuple[str, str]] = []
    cur: dict | None = None
    section: str | None = None
    brace_at: int | None = None  # index of the line opening the current {comment}
    no_close_after: int | None = None  # after an unclosed "{": no "}" follows this index

    def close():
        nonlocal cur, section
        if cur is not None and cur["tags"]:
            games.append(cur)
        cur, section = None, None

    i = 0
    while True:
        while i < len(lines):
            no = i + 1
            s = lines[i].strip()
            if brace_at is not None:
                if "}" in s:
                    brace_at = None
                i += 1
                continue
            if s.startswith("{") and "}" in s:
                # a comment closed on its own line; what follows it on the line is read (a score
                # row after "{...}" is a row, never dropped)
                s = s[s.index("}") + 1:].strip()
                if not s:
                    i += 1
                    continue
            if not s:
                close()
            elif s.startswith("%") or s.startswith(";"):
                pass
            elif s.startswith("{"):
                if "}" not in s:
                    if no_close_after is not None:
                        problems.append((f"line {no}", "a comment opened with '{' is never closed (no '}' follows in the "
                                         "file); the lines after it are read as they are: close the comment"))
                    else:
                        brace_at = i
            else:
                m = _match_tag(s)
                if m:
                    name, value = m.group(1), m.group(2)
                    if cur is not None and name in cur["tags"]:
                        close()  # the blank line before this game is missing
                    if cur is None:
                        cur = {"tags": {}, "tables": {}, "line": no}
                    cur["tags"][name] = (value, no)
                    section = name if (name in _SECTION_TAGS or name.endswith("Table")) else None
                    if name.endswith("Table"):
                        cur["tables"][name] = (value, no, [])
                elif cur is not None and section is not None:
                    if section in cur["tables"] and section not in _KNOWN_TABLES:
                        problems.append((f"line {no}", f"this row belongs to the [{clip(section)}] tag at line "
                                         f"{cur['tables'][section][1]}, which is not a PBN table: expected [ScoreTable "
                                         f"\"...\"] (the results of the board) or another table of the PBN standard; "
                                         f"found '{clip(s)}'"))
                    elif section in cur["tables"]:
                        cur["tables"][section][2].append((s, no))
                    # else: auction calls or played cards, which are not read
                else:
                    after = f"after the [{list(cur['tags'])[-1]}] tag, which takes no data lines" if cur is not None else (
                        "outside any game")
                    problems.append((f"line {no}", f"this line is not understood ({after}): found '{clip(s)}'; {_UNKNOWN_LINE}"))
            i += 1
        if i < len(lines) or brace_at is None:
            break
        # the comment never closes: report it and read the lines after it as they are (once: no '}'
        # follows, so any later '{' without its '}' on the same line is reported where it stands)
        problems.append((f"line {brace_at + 1}", "a comment opened with '{' is never closed (no '}' follows in the "
                         "file); the lines after it are read as they are: close the comment"))
        i, no_close_after, brace_at = brace_at + 1, brace_at, None
    close()
    # "#" repeats the previous game's value
    prev: dict[str, str] = {}
    for g in games:
        for k, (v, n) in list(g["tags"].items()):
            if v == "#" and k in prev:
                g["tags"][k] = (prev[k], n)
        prev.update({k: v for k, (v, _) in g["tags"].items()})
    return games, problems


def _columns(header: str) -> list[tuple[str, int | None]]:
    cols = []
    for part in header.split(";"):
        part = part.strip()
        if not part:
            continue
        name, _, spec = part.partition("\\")
        w = re.match(r"(\d+)", spec)
        cols.append((name.strip(), int(w.group(1)) if w else None))
    return cols


def _row_cells(row: str, cols: list[tuple[str, int | None]]) -> list[str] | None:
    toks = [t[1:-1] if t.startswith('"') and t.endswith('"') and len(t) >= 2 else t for t in _TOKEN.findall(row)]
    if len(toks) == len(cols):
        return toks
    if len(toks) > len(cols) and all(w for _, w in cols):  # unquoted names with blanks: use the widths
        cells, pos = [], 0
        for _, w in cols:
            cells.append(row[pos:pos + w].strip().strip('"'))
            pos += w + 1
        return cells
    return None


def _clean(v: str) -> str:
    v = (v or "").strip()
    return "" if v in ("-", "?", "") else v


_NAME_SPLIT = re.compile(r"\s+-\s+|\s*&\s*|\s*/\s*|\s*;\s*|\s+–\s+")


@never_raises
def parse_pbn(source_file: str, data: bytes) -> tuple[dict[str, pd.DataFrame], pd.DataFrame]:
    """Parse a PBN results file. Never raises on bad input: problems go to the quarantine frame."""
    text = decode_text(data)
    games, q = _games(text)
    if not games:
        if q:  # lines were there, none of them a game: each is reported
            return empty_frames(), quarantine_frame(source_file, [l for l, _ in q], [r for _, r in q])
        return whole_file_rejected(source_file, "no PBN games found: expected tag lines such as [Board \"1\"]")

    def tag(g, name, default=""):
        return g["tags"].get(name, (default, 0))[0].strip()

    # the event's tags: from the first game that has a [Date] (a file may open with a game of
    # other tags only, for instance when the blank line after a long first tag is missing)
    first = next((g for g in games if g["tags"].get("Date", ("", 0))[0].strip() not in ("", "#")), games[0])
    ev_name = tag(first, "Event") or "bridge session"
    ev_date = parse_date(tag(first, "Date").replace("?", ""))
    if ev_date is None:
        return whole_file_rejected(source_file, f"[Date \"{tag(first, 'Date')}\"] is not a date: expected YYYY.MM.DD",
                                   location=f"line {first['tags'].get('Date', ('', first['line']))[1]}")
    if len(ev_name) > MAX_NAME:
        return whole_file_rejected(source_file, f"the event name ([Event] tag) is {len(ev_name):,} characters long: at most "
                                   f"{MAX_NAME} expected; found '{clip(ev_name)}'",
                                   location=f"line {first['tags'].get('Event', ('', first['line']))[1]}")
    event_id = make_event_id(ev_date, ev_name, source_file)
    scoring_tag = tag(first, "Scoring").upper().replace(" ", "")

    # Entrants
    ent_rows = []
    has_direction = False
    for g in games:
        for tname in ("TotalScoreTable", "TotalScoreTableNS", "TotalScoreTableEW"):
            if tname not in g["tables"]:
                continue
            header, hline, rows = g["tables"][tname]
            cols = _columns(header)
            names = [c for c, _ in cols]
            has_direction |= "Direction" in names
            for i, (row, no) in enumerate(rows, start=1):
                cells = _row_cells(row, cols)
                if cells is None:
                    q.append((f"{tname.upper()} ROW {i} (line {no})", f"expected {len(cols)} values as in the table header, found '{clip(row)}'"))
                    continue
                rec = dict(zip(names, cells))
                long_cell = next(((k, v) for k, v in rec.items() if len(v) > MAX_PLAYERS_CELL), None)
                if long_cell:
                    q.append((f"{tname.upper()} ROW {i} (line {no})", f"the {long_cell[0]} value is {len(long_cell[1]):,} characters "
                              f"long: at most {MAX_PLAYERS_CELL} expected; found '{clip(long_cell[1])}'"))
                    continue
                pair = _clean(rec.get("PairId") or rec.get("TeamId") or rec.get("Team", ""))
                if not pair:
                    q.append((f"{tname.upper()} ROW {i} (line {no})", "entrant row without PairId/TeamId"))
                    continue
                d = _clean(rec.get("Direction", "")).upper().replace("-", "").replace("/", "")
                if tname.endswith("NS"):
                    d = "NS"
                if tname.endswith("EW"):
                    d = "EW"
                ids = [_clean(rec.get(f"MemberID{k}", "")) for k in range(1, 7)]
                ids = [x for x in ids if x] or [x for x in re.split(r"[;,]", _clean(rec.get("MemberIDs", ""))) if x]
                player_names = [x for x in _NAME_SPLIT.split(_clean(rec.get("Names", ""))) if x]
                ent_rows.append({"event_id": event_id, "section": _clean(rec.get("Section", "")), "direction": d,
                                 "entrant": pair.lstrip("0") or pair, "entrant_name": _clean(rec.get("TeamName", "")),
                                 "player_names": "; ".join(player_names), "player_ids": ";".join(ids)})
    entrants = entrants_frame(ent_rows)
    if has_direction:
        entrants.loc[entrants["direction"] == "", "direction"] = "NS"

    is_teams = any("HomeTeam" in g["tags"] for g in games)
    movement = tag(first, "Movement").lower() or ("teams" if is_teams else "mitchell" if has_direction else "howell")
    if movement not in ("mitchell", "howell", "teams"):
        movement = "mitchell" if has_direction else "howell"
    scoring = "TEAMS" if movement == "teams" else _SCORING.get(scoring_tag.split(";")[0], "MP")
    if scoring_tag in _SCORING and movement != "teams":
        scoring = _SCORING[scoring_tag]
    winner_type = 2 if movement == "mitchell" else 1

    # Traveller lines
    recs = []
    for g in games:
        if "Board" not in g["tags"]:
            # results without a board number cannot be scored: each is reported at its line
            if "ScoreTable" in g["tables"]:
                for i, (row, no) in enumerate(g["tables"]["ScoreTable"][2], start=1):
                    q.append((f"SCORETABLE ROW {i} (line {no})", f"this result belongs to a game without a [Board] tag (the "
                              f"game starting at line {g['line']}): it cannot be put on a board; add [Board \"N\"] to that game"))
            elif "Contract" in g["tags"]:
                q.append((f"line {g['line']}", "this game has a [Contract] but no [Board] tag: the result cannot be put on a "
                          "board; add [Board \"N\"] to the game"))
            continue
        board = tag(g, "Board")
        shown = clip(board, 20)
        common = {"event_id": event_id, "session": tag(g, "Session") or "1", "board": board,
                  "vulnerable_raw": tag(g, "Vulnerable"), "dealer_raw": tag(g, "Dealer"),
                  "deal_raw": tag(g, "Deal"), "par_raw": tag(g, "OptimumScore")}
        if "ScoreTable" in g["tables"]:
            header, hline, rows = g["tables"]["ScoreTable"]
            cols = _columns(header)
            names = [c for c, _ in cols]
            if "PairId_NS" not in names or "PairId_EW" not in names:
                why = ("the ScoreTable header (line " + str(hline) + ") has no PairId_NS/PairId_EW columns: cannot tell who "
                       "played; found " + clip(";".join(names)))
                if rows:  # each result is reported at its own line
                    q.extend((f"BOARD {shown}, SCORETABLE ROW {i} (line {no})", why) for i, (_, no) in enumerate(rows, start=1))
                else:
                    q.append((f"BOARD {shown}, SCORETABLE (line {hline})", why))
                continue
            for i, (row, no) in enumerate(rows, start=1):
                loc = f"BOARD {shown}, SCORETABLE ROW {i} (line {no})"
                cells = _row_cells(row, cols)
                if cells is None:
                    q.append((loc, f"expected {len(cols)} values as in the ScoreTable header, found '{clip(row)}'"))
                    continue
                rec = dict(zip(names, cells))
                sns, sew = _clean(rec.get("Score_NS", "")), _clean(rec.get("Score_EW", ""))
                contract = _clean(rec.get("Contract", ""))
                adjusted = ""
                if sns.endswith("%") or sew.endswith("%") or sns.upper().startswith("A") or sew.upper().startswith("A"):
                    adjusted = f"{sns or ''}/{sew}" if sew else sns
                    sns = ""
                elif not sns and re.fullmatch(r"-?\d{1,18}", unicodedata.normalize("NFKC", sew)):
                    sns = str(-int(unicodedata.normalize("NFKC", sew)))
                recs.append({**common, "section": _clean(rec.get("Section", "")) or tag(g, "Section"),
                             "round": _clean(rec.get("Round", "")), "ns_pair": _clean(rec.get("PairId_NS", "")),
                             "ew_pair": _clean(rec.get("PairId_EW", "")), "contract_raw": contract,
                             "declarer_raw": _clean(rec.get("Declarer", "")), "result_raw": _clean(rec.get("Result", "")),
                             "score_raw": sns, "adjusted_raw": adjusted, "location": loc})
        elif "Contract" in g["tags"]:
            # the result is named by the lines of its own tags ([Declarer] to [Score]), where the
            # secretary looks for a wrong contract or score; a missing team or room by the game's
            room_shown = f"BOARD {shown}, ROOM {clip(tag(g, 'Room') or '?', 20)}"
            result_lines = [g["tags"][t][1] for t in _RESULT_TAGS if t in g["tags"]]
            first_no, last_no = min(result_lines), max(result_lines)
            loc = f"{room_shown} (line {first_no})" if first_no == last_no else f"{room_shown} (lines {first_no}–{last_no})"
            home, visit, room = tag(g, "HomeTeam"), tag(g, "VisitTeam"), tag(g, "Room").lower()
            if not (home and visit and room in ("open", "closed")):
                q.append((f"{room_shown} (game at line {g['line']})", "a result without a ScoreTable needs [HomeTeam], [VisitTeam] and [Room \"Open\"|\"Closed\"] to tell who sat North-South"))
                continue
            ns, ew = (home, visit) if room == "open" else (visit, home)
            recs.append({**common, "section": tag(g, "Section") if tag(g, "Section") not in ("", "#") else "",
                         "round": tag(g, "Round"), "ns_pair": ns, "ew_pair": ew,
                         "contract_raw": tag(g, "Contract"), "declarer_raw": tag(g, "Declarer"),
                         "result_raw": tag(g, "Result"), "score_raw": tag(g, "Score"), "adjusted_raw": "", "location": loc})
    if not recs and not q:
        return whole_file_rejected(source_file, "the file has boards but no results (no ScoreTable and no Contract tags)")
    raw = pd.DataFrame(recs)
    if (not tag(first, "Movement") and not has_direction and movement == "howell" and not raw.empty
            and (raw["ns_pair"] == raw["ew_pair"]).any()):
        movement, winner_type = "mitchell", 2  # pair 1 NS against pair 1 EW: only a Mitchell numbers pairs so
    lines, fq = finalise(raw, source_file, entrants, "unique" if movement == "howell" else "by_direction",
                         teams=(movement == "teams")) if recs else (finalise(pd.DataFrame(), source_file, None))
    if movement == "teams" and entrants.empty and not lines.empty:
        teams_seen = pd.unique(pd.concat([lines["ns_pair"], lines["ew_pair"]]))
        entrants = entrants_frame([{"event_id": event_id, "section": "", "direction": "", "entrant": t,
                                    "entrant_name": t, "player_names": "", "player_ids": ""} for t in teams_seen])
    events = events_frame([{"event_id": event_id, "event_date": ev_date, "name": ev_name, "movement": movement,
                            "scoring": scoring, "winner_type": winner_type, "source_file": source_file}])
    quarantine = pd.concat([fq, quarantine_frame(source_file, [l for l, _ in q], [r for _, r in q])], ignore_index=True)
    return {"events": events, "entrants": entrants, "traveller_lines": lines}, quarantine

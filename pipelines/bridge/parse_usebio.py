"""USEBIO 1.2 XML result files (the EBU's XML), parsed safely with defusedxml.

Safety: the one DOCTYPE real writers emit, naming an external DTD only (``<!DOCTYPE USEBIO SYSTEM
"usebio_v1_2.dtd">``, an http URL, or a PUBLIC form), is blanked out before parsing: the DTD is never
fetched or read. Any other DOCTYPE (an internal subset ``[...]``, another root name, a second or late
DOCTYPE), any ``<!ENTITY>`` and any entity reference other than the five XML built-ins make the file
quarantined as a whole. defusedxml still parses with DTDs, entities and external references forbidden.

Read: ``USEBIO/EVENT`` (``EVENT_TYPE`` attribute, ``EVENT_DESCRIPTION``, ``DATE`` dd/mm/yyyy,
``WINNER_TYPE``, ``BOARD_SCORING_METHOD``), optional ``SESSION``/``SECTION`` wrappers
(``SESSION_ID``/``SECTION_ID`` attributes), ``PARTICIPANTS/PAIR`` (``PAIR_NUMBER`` such as ``1``,
``1 NS`` or ``(A) 1 NS``, ``DIRECTION``, ``PLAYER/PLAYER_NAME``, ``PLAYER/NATIONAL_ID_NUMBER``),
``PARTICIPANTS/TEAM`` (``TEAM_NUMBER``/``TEAM_ID``, ``TEAM_NAME``, players), ``MATCH``
(``ROUND_NUMBER``) and ``BOARD/TRAVELLER_LINE`` (``NS_PAIR_NUMBER``, ``EW_PAIR_NUMBER``,
``CONTRACT``, ``PLAYED_BY``, ``TRICKS`` as a count, ``=``, ``+2`` or ``-1``, ``SCORE``). In team
events the traveller lines' pair numbers are team numbers. Adjusted scores: ``SCORE`` or
``CONTRACT`` holding ``AVE+``, ``A60``, ``A60/40``, ``60%-40%`` (see docs/bridge.md).
"""

from __future__ import annotations

import re

from xml.etree.ElementTree import ParseError

import defusedxml.ElementTree as SafeET
import pandas as pd
from defusedxml import DefusedXmlException, DTDForbidden, EntitiesForbidden, ExternalReferenceForbidden

from pipelines.bridge.parse_common import (
    MAX_CELL,
    MAX_NAME,
    MAX_PLAYERS_CELL,
    clip,
    never_raises,
    entrants_frame,
    events_frame,
    finalise,
    make_event_id,
    parse_date,
    quarantine_frame,
    split_pair_number,
    whole_file_rejected,
)
from pipelines.core.text import unicode_marked

_SCORING = {"MATCH_POINTS": "MP", "MATCHPOINTS": "MP", "MP": "MP", "CROSS_IMPS": "XIMP", "CROSS_IMP": "XIMP",
            "IMPS": "XIMP", "BUTLER": "BUTLER", "BUTLER_IMPS": "BUTLER"}


def _safe_parse(data: bytes):
    kw = dict(forbid_dtd=True, forbid_entities=True, forbid_external=True)
    try:
        return SafeET.fromstring(data, **kw), None
    except (DTDForbidden, EntitiesForbidden, ExternalReferenceForbidden, DefusedXmlException) as exc:
        return None, (f"the XML declares a DTD, entities or external references ({type(exc).__name__}); "
                      "such files are refused unread for safety: export the results again without a <!DOCTYPE>")
    except LookupError as exc:  # an encoding Python does not know, named in the XML declaration
        return None, (f"the XML declaration names an encoding this reader does not know ({exc}); expected UTF-8 or "
                      "ISO-8859-1 (Windows-1252): export the results again")
    except ParseError as exc:
        try:
            data.decode("utf-8")
            utf8 = True
        except UnicodeDecodeError:
            utf8 = False
        head = data[:200].lower()
        if not utf8 and b"encoding=" not in head:
            # Real writers emit Windows-1252/ISO-8859-1 without saying so: retry as such.
            text = data.decode("cp1252", errors="replace")
            if text.lstrip().startswith("<?xml"):
                text = text[text.index("?>") + 2:]
            try:
                return SafeET.fromstring(text, **kw), None
            except (DefusedXmlException, ParseError) as exc2:
                exc = exc2
        line, col = getattr(exc, "position", (None, None))
        where = f" at line {line}, column {col}" if line else ""
        return None, f"not well-formed XML{where}: {exc}; expected a complete USEBIO 1.2 file"


# The one DOCTYPE real writers emit: a name and an external DTD identifier, nothing else, e.g.
# <!DOCTYPE USEBIO SYSTEM "usebio_v1_2.dtd"> or <!DOCTYPE USEBIO PUBLIC "-//EBU//DTD USEBIO 1.3//EN" "http://...">.
# No "[" (internal subset) can match: the quoted literals exclude quotes and brackets.
_LITERAL = rb'(?:"[^"\[\]<>]{0,500}"|\'[^\'\[\]<>]{0,500}\')'
_EXTERNAL_DOCTYPE = re.compile(rb'<!DOCTYPE[ \t\r\n]+USEBIO[ \t\r\n]+(?:SYSTEM[ \t\r\n]+' + _LITERAL
                               + rb'|PUBLIC[ \t\r\n]+' + _LITERAL + rb'(?:[ \t\r\n]+' + _LITERAL + rb')?)[ \t\r\n]*>',
                               re.IGNORECASE)
_PROLOG_LIMIT = 4096


def _drop_external_doctype(data: bytes) -> tuple[bytes, str]:
    """Blank out a DOCTYPE that only names an external DTD (never fetched, never read).

    Returns (data, "") with the DOCTYPE replaced by spaces (line numbers kept), or (data, reason) when the
    file declares anything else: an internal subset, an <!ENTITY>, a DOCTYPE for another root or a
    DOCTYPE after the root element. Linear: one bounded regex on the prolog and two substring scans."""
    upper_head = data[:_PROLOG_LIMIT].upper()
    entity = b"<!ENTITY" in data.upper()
    pos = upper_head.find(b"<!DOCTYPE")
    if entity:
        return data, ("the XML declares entities (<!ENTITY>, a DTD feature a USEBIO file never needs); such files are refused "
                      "unread for safety (no entity is expanded, nothing is fetched): export the results again from "
                      "the scoring program")
    if pos < 0:
        if b"<!DOCTYPE" in data.upper():
            return data, ("a <!DOCTYPE> appears after the start of the document; refused unread for safety: a USEBIO "
                          "file has at most one DOCTYPE, before <USEBIO>")
        return data, ""
    m = _EXTERNAL_DOCTYPE.match(data, pos)
    if m is None:
        found = clip(data[pos:pos + 80].decode("latin-1"), 80)
        line = data.count(b"\n", 0, pos) + 1
        return data, ("the XML declares a DTD with an internal subset or an unexpected form; refused unread for safety "
                      f"(line {line}): expected only <!DOCTYPE USEBIO SYSTEM 'usebio_v1_2.dtd'> "
                      f"or a PUBLIC/URL form naming an external DTD; found '{found}'")
    rest = data[m.end():]
    if b"<!DOCTYPE" in rest.upper():
        return data, "the XML has more than one <!DOCTYPE>; refused unread for safety: a USEBIO file has at most one"
    blank = bytes(c if c in b"\r\n" else 0x20 for c in data[m.start():m.end()])
    return data[:m.start()] + blank + rest, ""


_NOT_PLAYED = {"NP", "N/P", "NOT PLAYED", "NOTPLAYED"}


def _not_played(contract: str, score: str, tricks: str) -> bool:
    """True when a traveller line is the scorer's ``NP`` (board not played at this table)."""
    c, sc = contract.strip().upper(), score.strip().upper()
    return (c in _NOT_PLAYED and sc in _NOT_PLAYED | {""}) or (sc in _NOT_PLAYED and c in _NOT_PLAYED | {""})


def _passed_in(contract: str, score: str, tricks: str) -> bool:
    """True when ``NP`` in CONTRACT comes with a stated SCORE of 0 (and TRICKS 0 or empty): the
    New Zealand Scorer (and converters of its files) writes a board passed in this way ("N P",
    no play), and matchpoints it as a score of 0 like any passed-out board. The stated score is
    the scorer's record of what happened at the table, so the line is read as PASS."""
    c, sc, tr = contract.strip().upper(), score.strip(), tricks.strip()
    return (c in _NOT_PLAYED or c == "N P") and sc in ("0", "+0", "-0") and tr in ("", "0")


def _drop_phantom_tables(raw: pd.DataFrame, entrants: pd.DataFrame) -> pd.DataFrame:
    """A traveller line with no contract, declarer, tricks or score against a pair number the file
    does not list (a phantom pair: the other pair sat out that round) is no result, like ``NP``: the
    board simply has fewer results. A blank line between two listed pairs is kept, and quarantined
    by finalise as a line without a contract."""
    blank = raw["_blank"].astype(bool)
    if not blank.any() or entrants.empty:
        return raw
    listed = entrants[["event_id", "entrant"]].drop_duplicates().assign(_listed=True)

    def is_listed(col: str) -> pd.Series:
        probe = raw[["event_id"]].assign(entrant=split_pair_number(raw[col])["pair"].to_numpy())
        return pd.Series(probe.merge(listed, on=["event_id", "entrant"], how="left")["_listed"].notna().to_numpy(),
                         index=raw.index)

    return raw[~(blank & ~(is_listed("ns_pair") & is_listed("ew_pair")))]


def _split_pairs(ent_rows: list[dict], pairs: list[int]) -> bool:
    """The <PAIR> entrants at `pairs`: their PAIR_NUMBER (held in `entrant`) split into the pair,
    and the direction and section it names where the element gave none; True when any pair has a
    direction (the event is then ranked by direction)."""
    if not pairs:
        return False
    parts = split_pair_number(pd.Series([ent_rows[i]["entrant"] for i in pairs])).to_dict("records")
    by_direction = False
    for i, part in zip(pairs, parts):
        row = ent_rows[i]
        row["entrant"] = part["pair"]
        row["direction"] = row["direction"] or part["direction"]
        row["section"] = row["section"] or part["section"]
        by_direction |= bool(row["direction"])
    return by_direction


def _text(el, name: str, default: str = "") -> str:
    if el is None:
        return default
    c = el.find(name)
    return (c.text or "").strip() if c is not None and c.text is not None else default


_DECLARATION = re.compile(r"^\s*<\?xml[^>]{0,200}\?>")


def _as_utf8(data: bytes) -> bytes:
    """A file with a UTF-16 or UTF-32 byte order mark (Windows' "Unicode") as UTF-8, its XML
    declaration saying so (Notepad keeps a declaration of UTF-8 when it saves UTF-16, which the
    XML parser refuses); any other file as it is. Line numbers are kept."""
    marked = unicode_marked(data)
    if marked is None:
        return data
    return _DECLARATION.sub('<?xml version="1.0" encoding="UTF-8"?>', marked[0], count=1).encode("utf-8")


@never_raises
def parse_usebio(source_file: str, data: bytes) -> tuple[dict[str, pd.DataFrame], pd.DataFrame]:
    """Parse a USEBIO 1.2 file. Never raises on bad input: problems go to the quarantine frame."""
    data, refused = _drop_external_doctype(_as_utf8(data))
    if refused:
        return whole_file_rejected(source_file, refused)
    root, err = _safe_parse(data)
    if root is None:
        return whole_file_rejected(source_file, err)
    if root.tag.upper() != "USEBIO":
        return whole_file_rejected(source_file, f"the root element is <{root.tag}>, expected <USEBIO>")
    events_el = root.findall("EVENT")
    if not events_el:
        return whole_file_rejected(source_file, "no <EVENT> element in the file")

    ev_rows, ent_rows, recs, q = [], [], [], []
    pair_numbering_of: dict[str, str] = {}
    movement_of: dict[str, str] = {}
    for ev_i, ev in enumerate(events_el, start=1):
        name = _text(ev, "EVENT_DESCRIPTION") or "bridge session"
        if len(name) > MAX_NAME:
            q.append((f"EVENT {ev_i}, EVENT_DESCRIPTION", f"the event description is {len(name):,} characters long: at most "
                      f"{MAX_NAME} expected; found '{clip(name)}'"))
            continue
        d = parse_date(_text(ev, "DATE"))
        if d is None:
            q.append((f"EVENT {ev_i}, DATE", f"DATE '{clip(_text(ev, 'DATE'))}' is not a date: expected dd/mm/yyyy (USEBIO 1.2) or yyyy-mm-dd (USEBIO 1.3)"))
            continue
        event_id = make_event_id(d, name, source_file)
        ev_type = (ev.get("EVENT_TYPE") or "PAIRS").upper()
        winner = _text(ev, "WINNER_TYPE")
        scoring_txt = _text(ev, "BOARD_SCORING_METHOD").upper().replace(" ", "_")
        teams = "TEAM" in ev_type

        state = {"by_direction": False, "loose": 0}

        def walk(el, session: str, section: str, rnd: str):
            for child in el:
                tag = child.tag.upper()
                if tag == "SESSION":
                    walk(child, child.get("SESSION_ID") or _text(child, "SESSION_ID") or session, section, rnd)
                elif tag == "SECTION":
                    walk(child, session, child.get("SECTION_ID") or _text(child, "SECTION_ID") or section, rnd)
                elif tag == "MATCH":
                    walk(child, session, section, _text(child, "ROUND_NUMBER") or rnd)
                elif tag == "PARTICIPANTS":
                    for p in child:
                        ptag = p.tag.upper()
                        if ptag == "PAIR":
                            # the pair number's parts (`1 NS`, `(A) 1`) are split for all the pairs
                            # of the event at once, after the walk (_split_pairs)
                            players = p.findall("PLAYER")
                            pairs.append(len(ent_rows))
                            ent_rows.append({"event_id": event_id, "section": section, "direction":
                                             _text(p, "DIRECTION").upper().replace("-", "").replace("/", ""),
                                             "entrant": _text(p, "PAIR_NUMBER"), "entrant_name": "",
                                             "player_names": "; ".join(_text(x, "PLAYER_NAME") for x in players),
                                             "player_ids": ";".join(_text(x, "NATIONAL_ID_NUMBER") for x in players),
                                             "handicap": _text(p, "HANDICAP"),
                                             "master_points": "; ".join(
                                                 f"{_text(m, 'MASTER_POINTS_AWARDED')} {_text(m, 'MASTER_POINT_TYPE')}".strip()
                                                 for m in p.findall("MASTER_POINTS"))})
                        elif ptag == "TEAM":
                            num = p.get("TEAM_ID") or _text(p, "TEAM_NUMBER") or _text(p, "TEAM_ID")
                            players = p.findall(".//PLAYER")
                            ent_rows.append({"event_id": event_id, "section": section, "direction": "",
                                             "entrant": num.strip(), "entrant_name": p.get("TEAM_NAME") or _text(p, "TEAM_NAME"),
                                             "player_names": "; ".join(_text(x, "PLAYER_NAME") for x in players),
                                             "player_ids": ";".join(_text(x, "NATIONAL_ID_NUMBER") for x in players)})
                elif tag == "TRAVELLER_LINE":
                    state["loose"] += 1
                    q.append((f"EVENT {ev_i}, TRAVELLER_LINE {state['loose']} outside a BOARD",
                              "a TRAVELLER_LINE that is not inside a BOARD element: the result cannot be put on a board; "
                              "put it inside <BOARD><BOARD_NUMBER>N</BOARD_NUMBER>...</BOARD>"))
                elif tag == "BOARD":
                    bno = _text(child, "BOARD_NUMBER")
                    bshown = clip(bno, 20)
                    for li, tl in enumerate(child.findall("TRAVELLER_LINE"), start=1):
                        prefix = (f"SESSION {session}, " if session not in ("", "1") else "") + (f"SECTION {section}, " if section else "")
                        score = _text(tl, "SCORE")
                        contract, played_by, tricks = _text(tl, "CONTRACT"), _text(tl, "PLAYED_BY"), _text(tl, "TRICKS")
                        if _passed_in(contract, score, tricks):
                            # NP with a stated score of 0: the scorer's passed-in board (a result of 0).
                            contract, played_by, tricks = "PASS", "", ""
                        elif _not_played(contract, score, tricks):
                            # The scorer's own mark that this board was not played at this table: no result,
                            # so the board has fewer results and is Neuberg-factored like any such board.
                            continue
                        recs.append({"event_id": event_id, "session": session or "1", "section": section, "board": bno,
                                     "round": _text(tl, "ROUND_NUMBER") or rnd,
                                     "ns_pair": _text(tl, "NS_PAIR_NUMBER") or _text(tl, "NS_TEAM_NUMBER"),
                                     "ew_pair": _text(tl, "EW_PAIR_NUMBER") or _text(tl, "EW_TEAM_NUMBER"),
                                     "contract_raw": contract, "declarer_raw": played_by,
                                     "result_raw": tricks, "score_raw": score, "adjusted_raw": "",
                                     "vulnerable_raw": _text(child, "VULNERABILITY") or _text(child, "VULNERABLE"),
                                     "dealer_raw": _text(child, "DEALER"),
                                     "location": f"{prefix}BOARD {bshown}, TRAVELLER_LINE {li}",
                                     "_blank": not (contract.strip() or played_by.strip() or tricks.strip() or score.strip())})
                else:
                    walk(child, session, section, rnd)

        pairs: list[int] = []  # positions in ent_rows of this event's <PAIR> entrants
        try:
            walk(ev, "1", "", "")
        except RecursionError:
            _split_pairs(ent_rows, pairs)
            q.append((f"EVENT {ev_i}", "the XML nests elements hundreds of levels deep, which no USEBIO file does; "
                      "nothing of this event was read: export the results again"))
            continue
        if _split_pairs(ent_rows, pairs):
            state["by_direction"] = True
        if teams:
            movement = "teams"
        elif state["by_direction"] or winner == "2":
            movement = "mitchell"
        else:
            movement = "howell"
        scoring = "TEAMS" if teams else _SCORING.get(scoring_txt, "MP")
        movement_of[event_id] = movement
        pair_numbering_of[event_id] = "by_direction" if movement == "mitchell" else "unique"
        ev_rows.append({"event_id": event_id, "event_date": d, "name": name, "movement": movement, "scoring": scoring,
                        "winner_type": int(winner) if winner in ("1", "2") else (2 if movement == "mitchell" else 1),
                        "source_file": source_file})

    if not recs and not q:
        return whole_file_rejected(source_file, "the file has no results: expected <BOARD> elements holding "
                                   "<TRAVELLER_LINE> elements")
    # bounded entrant cells: an over-long one is reported (its pair's lines then name it unknown)
    fine = []
    for r in ent_rows:
        long = next((k for k in ("entrant", "entrant_name", "player_names", "player_ids")
                     if len(str(r[k])) > (MAX_CELL if k == "entrant" else MAX_PLAYERS_CELL)), None)
        if long:
            q.append((f"PARTICIPANTS, {clip(r['entrant'], 20)}", f"this entrant's {long.replace('_', ' ')} cell is "
                      f"{len(str(r[long])):,} characters long: at most {MAX_CELL if long == 'entrant' else MAX_PLAYERS_CELL} expected"))
        else:
            fine.append(r)
    # a handicap (percentage points, as the scorer states it) must be a number with at most 2 decimals
    for r in fine:
        h = str(r.get("handicap", "")).strip()
        if h and not re.fullmatch(r"[+-]?\d{1,2}(\.\d{1,2})?", h):
            q.append((f"PARTICIPANTS, pair {clip(r['entrant'], 20)}" + (f" {r['direction']}" if r["direction"] else ""),
                      f"HANDICAP '{clip(h)}' is not a handicap: expected percentage points such as 3.5, -6.42 or 0 "
                      "(at most 2 decimals, below 100); the pair is scored without it"))
            r["handicap"] = ""
        awards = [a for a in str(r.get("master_points", "")).split("; ") if a]
        if awards and not all(re.fullmatch(r"\d{1,9}( [\w -]{1,30})?", a) for a in awards):
            q.append((f"PARTICIPANTS, pair {clip(r['entrant'], 20)}" + (f" {r['direction']}" if r["direction"] else ""),
                      f"MASTER_POINTS '{clip(r['master_points'])}' is not understood: expected MASTER_POINTS_AWARDED a whole "
                      "number (the points x 100, or x 10 as some writers do: the club's master_points_scale) and an "
                      "optional MASTER_POINT_TYPE; the pair's result posts without the scorer's award"))
            r["master_points"] = ""
    entrants = entrants_frame(fine)
    parts, qs = [], []
    raw = pd.DataFrame(recs)
    if not raw.empty:
        raw = raw.pipe(_drop_phantom_tables, entrants).drop(columns="_blank")
    if not raw.empty:
        for (ev_id, sec), part in raw.groupby(["event_id", "section"], sort=False):
            ents = entrants[entrants["event_id"] == ev_id] if not entrants.empty else None
            numbering = pair_numbering_of[ev_id]
            if ents is not None and sec:
                in_sec = ents[ents["section"] == sec]
                if len(in_sec) and (in_sec["direction"] == "").all():
                    numbering = "unique"  # a Howell section inside a multi-movement event
                elif len(in_sec):
                    numbering = "by_direction"
            lines, fq = finalise(part, source_file, ents, numbering, teams=movement_of[ev_id] == "teams",
                                 stated_score_authority=True)
            parts.append(lines)
            qs.append(fq)
    lines = pd.concat(parts, ignore_index=True) if parts else finalise(pd.DataFrame(), source_file, None)[0]
    qs.append(quarantine_frame(source_file, [l for l, _ in q], [r for _, r in q]))
    events = events_frame(ev_rows) if ev_rows else whole_file_rejected(source_file, "")[0]["events"]
    return {"events": events, "entrants": entrants, "traveller_lines": lines}, pd.concat(qs, ignore_index=True)

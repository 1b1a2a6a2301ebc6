"""Seeded generator of realistic sample sessions, and writers for PBN, USEBIO and the CSV format.

``python -m pipelines.bridge.samples`` (re)writes the bridge files of ``data/samples/inbox``.
Deals are random (seeded); each table's contract comes from the two sides' high-card points
and fits with table-to-table noise, so a board's traveller shows the spread clubs see: the same
game at most tables, some overbids, competitive part-scores, penalty doubles, now and then a
passed-out board, an artificial adjusted score and a board not played at one table (Neuberg).
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from xml.sax.saxutils import escape

import numpy as np

from pipelines.core.settings import DATA_DIR  # the bundled rule data (checkout or wheel)
from pipelines.bridge.scoring import board_rotation, score_ns

RANKS = "AKQJT98765432"
SUITS = "SHDC"
SEATS = "NESW"
HCP = {"A": 4, "K": 3, "Q": 2, "J": 1}

SURNAMES = ["佐藤", "鈴木", "高橋", "田中", "伊藤", "渡辺", "山本", "中村", "小林", "加藤", "吉田", "山田", "佐々木",
            "山口", "松本", "井上", "木村", "林", "斎藤", "清水", "山崎", "森", "池田", "橋本", "阿部", "石川", "山下",
            "中島", "石井", "小川", "前田", "岡田", "長谷川", "藤田", "後藤", "近藤", "村上", "遠藤", "青木", "坂本"]
GIVEN = ["健", "花子", "誠", "裕子", "翔", "美咲", "大輔", "由美", "拓也", "恵", "直樹", "陽子", "修", "真理", "亮",
         "智子", "和也", "明美", "浩", "京子", "剛", "洋子", "聡", "久美子", "淳", "幸子", "哲也", "理恵"]


@dataclass
class Line:
    board: int
    round: int
    table: int
    ns: str
    ew: str
    contract: str = "PASS"   # canonical: 4S, 3NTX, PASS ; "" when adjusted
    declarer: str = ""
    tricks: int | None = None
    score_ns: int | None = 0
    adjusted: tuple[int, int] | None = None  # (NS %, EW %)
    room: str = ""


@dataclass
class Session:
    name: str
    day: date
    movement: str
    boards: int
    deals: dict[int, list[str]]
    entrants: list[dict]
    lines: list[Line] = field(default_factory=list)
    club: str = "Tokyo Bridge Club"


# ------------------------------------------------------------------------------------------
# Deals and contracts


def _deal(rng) -> list[list[str]]:
    cards = [s + r for s in SUITS for r in RANKS]
    order = rng.permutation(52)
    return [[cards[i] for i in sorted(order[h * 13:(h + 1) * 13])] for h in range(4)]


def _pbn_hand(hand: list[str]) -> str:
    return ".".join("".join(c[1] for c in hand if c[0] == s) for s in SUITS)


def pbn_deal(hands: list[list[str]]) -> str:
    return "N:" + " ".join(_pbn_hand(h) for h in hands)


def _hcp(hand) -> int:
    return sum(HCP.get(c[1], 0) for c in hand)


def _len(hand, suit) -> int:
    return sum(1 for c in hand if c[0] == suit)


def _table_result(rng, hands, vul: str) -> tuple[str, int, str, int]:
    """(strain, level, declarer, tricks) at one table, or level 0 for a pass-out; doubled handled by caller."""
    side_hcp = {"NS": _hcp(hands[0]) + _hcp(hands[2]), "EW": _hcp(hands[1]) + _hcp(hands[3])}
    side = "NS" if side_hcp["NS"] > side_hcp["EW"] or (side_hcp["NS"] == side_hcp["EW"] and rng.random() < .5) else "EW"
    if max(side_hcp.values()) <= 21 and rng.random() < 0.25:
        return "", 0, "", 0
    # a competitive auction: the weaker side buys it now and then
    if abs(side_hcp["NS"] - side_hcp["EW"]) <= 6 and rng.random() < 0.2:
        side = "EW" if side == "NS" else "NS"
    a, b = (0, 2) if side == "NS" else (1, 3)
    hcp = side_hcp[side]
    fits = {s: _len(hands[a], s) + _len(hands[b], s) for s in SUITS}
    major = max("SH", key=lambda s: fits[s])
    minor = max("DC", key=lambda s: fits[s])
    if fits[major] >= 8:
        strain, fit = major, fits[major]
    elif hcp >= 23 or fits[minor] < 8:
        strain, fit = "N", 7
    else:
        strain, fit = minor, fits[minor]
    if rng.random() < 0.12:  # a different choice at this table
        strain, fit = ("N", 7) if strain != "N" else (max(SUITS, key=lambda s: fits[s]), max(fits.values()))
    mean = 6.6 + (hcp - 20) / 2.6 + max(0, fit - 8) * 0.8
    tricks = int(np.clip(round(mean + rng.normal(0, 1.0)), 0, 13))
    if hcp >= 37:
        level = 7
    elif hcp >= 33:
        level = 6
    elif hcp >= 25 or (hcp >= 23 and fit >= 9):
        level = {"N": 3, "S": 4, "H": 4}.get(strain, 5)
    else:
        level = int(np.clip(round(mean - 6 - 0.5 + rng.normal(0, 0.6)), 1, 3))
    if rng.random() < 0.1:
        level = min(7, level + 1)
    # declarer: the partner with more trumps (more points at no trumps)
    if strain == "N":
        dec = a if _hcp(hands[a]) >= _hcp(hands[b]) else b
    else:
        dec = a if _len(hands[a], strain) >= _len(hands[b], strain) else b
    return strain, level, SEATS[dec], tricks


def _play_board(rng, hands, board: int, ns: str, ew: str, rnd: int, table: int) -> Line:
    vul = board_rotation(np.array([board]))["vulnerable"][0]
    strain, level, dec, tricks = _table_result(rng, hands, vul)
    if level == 0:
        return Line(board, rnd, table, ns, ew, "PASS", "", None, 0)
    need = level + 6
    doubled = 0
    if tricks < need and (need - tricks >= 2 or level >= 4) and rng.random() < 0.3:
        doubled = 1
    elif tricks >= need and level >= 2 and rng.random() < 0.04:
        doubled = 1 if rng.random() < 0.8 else 2
    s = int(score_ns([level], [strain], [doubled], [dec], [vul], [tricks])[0])
    contract = f"{level}{'NT' if strain == 'N' else strain}{['', 'X', 'XX'][doubled]}"
    return Line(board, rnd, table, ns, ew, contract, dec, tricks, s)


def _names(rng, n: int, first_id: int) -> list[dict]:
    out = []
    for i in range(n):
        out.append({"name": f"{SURNAMES[rng.integers(len(SURNAMES))]} {GIVEN[rng.integers(len(GIVEN))]}",
                    "id": f"{first_id + i:08d}"})
    return out


# ------------------------------------------------------------------------------------------
# Movements


def mitchell_session(seed: int, name: str, day: date, tables: int = 12, boards_per_round: int = 2,
                     adjusted: int = 1, not_played: int = 1) -> Session:
    """A skip Mitchell: NS pairs stay, EW pairs move up a table, board sets move down, EW skip one
    table after half the rounds (even number of tables)."""
    rng = np.random.default_rng(seed)
    rounds = tables
    nboards = tables * boards_per_round
    deals = {b: _deal(rng) for b in range(1, nboards + 1)}
    people = _names(rng, 4 * tables, 10_000_000 + (seed % 89) * 1000)
    entrants = []
    for i in range(tables):
        for d, off in (("NS", 0), ("EW", 2 * tables)):
            p1, p2 = people[off + 2 * i], people[off + 2 * i + 1]
            entrants.append({"pair": str(i + 1), "direction": d, "players": [p1, p2]})
    s = Session(name, day, "mitchell", nboards, {b: h for b, h in deals.items()}, entrants)
    for r in range(rounds):
        skip = 1 if (tables % 2 == 0 and r >= rounds // 2) else 0
        for t in range(tables):
            ew = (t - r - skip) % tables  # the EW pair sitting at table t
            bset = (t + r) % tables
            for k in range(boards_per_round):
                b = bset * boards_per_round + k + 1
                s.lines.append(_play_board(rng, deals[b], b, str(t + 1), str(ew + 1), r + 1, t + 1))
    _human_touches(rng, s, adjusted, not_played)
    return s


def _human_touches(rng, s: Session, adjusted: int, not_played: int) -> None:
    idx = rng.permutation(len(s.lines))
    for i in idx[:adjusted]:
        s.lines[i].adjusted = (60, 40)
        s.lines[i].contract, s.lines[i].declarer, s.lines[i].tricks, s.lines[i].score_ns = "", "", None, None
    drop = set(int(i) for i in idx[adjusted:adjusted + not_played])
    s.lines = [ln for j, ln in enumerate(s.lines) if j not in drop]


def howell_session(seed: int, name: str, day: date, pairs: int = 8, boards_per_round: int = 3) -> Session:
    """A complete Howell for an even number of pairs: a round robin (circle method) with board
    sets assigned by a seeded search so that every pair plays every set once."""
    rng = np.random.default_rng(seed)
    rounds = pairs - 1
    tables = pairs // 2
    schedule = []  # per round: list of (p, q)
    for r in range(rounds):
        ring = [(r + k) % rounds for k in range(rounds)]
        matches = [(pairs - 1, ring[0])] + [(ring[k], ring[rounds - k]) for k in range(1, tables)]
        schedule.append(matches)
    sets = _assign_sets(rng, schedule, pairs, rounds)
    nboards = rounds * boards_per_round
    deals = {b: _deal(rng) for b in range(1, nboards + 1)}
    people = _names(rng, 2 * pairs, 20_000_000 + (seed % 89) * 1000)
    entrants = [{"pair": str(i + 1), "direction": "", "players": [people[2 * i], people[2 * i + 1]]} for i in range(pairs)]
    s = Session(name, day, "howell", nboards, deals, entrants)
    for r, matches in enumerate(schedule):
        for t, (p, q) in enumerate(matches):
            ns, ew = (p, q) if (r + t) % 2 == 0 else (q, p)
            for k in range(boards_per_round):
                b = sets[r][t] * boards_per_round + k + 1
                s.lines.append(_play_board(rng, deals[b], b, str(ns + 1), str(ew + 1), r + 1, t + 1))
    return s


def _assign_sets(rng, schedule, pairs, nsets):
    """Backtracking: a set per (round, table), distinct within a round, each pair meets each set once."""
    rounds = len(schedule)
    played = [set() for _ in range(pairs)]
    out = [[-1] * len(m) for m in schedule]
    cells = [(r, t) for r in range(rounds) for t in range(len(schedule[r]))]

    def go(i):
        if i == len(cells):
            return True
        r, t = cells[i]
        p, q = schedule[r][t]
        used = set(out[r][:t])
        for s in rng.permutation(nsets):
            s = int(s)
            if s in used or s in played[p] or s in played[q]:
                continue
            out[r][t] = s
            played[p].add(s)
            played[q].add(s)
            if go(i + 1):
                return True
            played[p].discard(s)
            played[q].discard(s)
            out[r][t] = -1
        return False

    if not go(0):
        raise RuntimeError("no board-set assignment found")
    return out


def teams_event(seed: int, name: str, day: date, teams: int = 4, boards_per_match: int = 8) -> Session:
    """A round robin of teams of four: each match plays the same boards in two rooms (home team
    North-South in the Open room)."""
    rng = np.random.default_rng(seed)
    team_names = ["桜", "富士", "隅田", "浅草", "銀座", "上野"][:teams]
    rounds = teams - 1
    people = _names(rng, 4 * teams, 30_000_000 + (seed % 89) * 1000)
    entrants = [{"pair": str(i + 1), "direction": "", "team_name": team_names[i], "players": people[4 * i:4 * i + 4]}
                for i in range(teams)]
    nboards = rounds * boards_per_match
    deals = {b: _deal(rng) for b in range(1, nboards + 1)}
    s = Session(name, day, "teams", nboards, deals, entrants)
    for r in range(rounds):
        ring = [(r + k) % (teams - 1) for k in range(teams - 1)]
        matches = [(teams - 1, ring[0])] + [(ring[k], ring[teams - 1 - k]) for k in range(1, teams // 2)]
        for t, (home, away) in enumerate(matches):
            for k in range(boards_per_match):
                b = r * boards_per_match + k + 1
                for room, ns, ew in (("Open", home, away), ("Closed", away, home)):
                    ln = _play_board(rng, deals[b], b, str(ns + 1), str(ew + 1), r + 1, t + 1)
                    ln.room = room
                    s.lines.append(ln)
    return s


# ------------------------------------------------------------------------------------------
# Writers


def _players(e) -> str:
    return " - ".join(p["name"] for p in e["players"])


def to_pbn(s: Session) -> bytes:
    rot = board_rotation(np.arange(1, s.boards + 1))
    out = io.StringIO()
    out.write("% PBN 2.1\n% EXPORT\n% Generated by pointledger.pipelines.bridge.samples (seeded)\n")
    by_board: dict[int, list[Line]] = {}
    for ln in s.lines:
        by_board.setdefault(ln.board, []).append(ln)
    first = True
    for b in range(1, s.boards + 1):
        out.write("\n")
        out.write(f'[Event "{s.name if first else "#"}"]\n[Site "{s.club if first else "#"}"]\n')
        out.write(f'[Date "{s.day:%Y.%m.%d}"]\n[Board "{b}"]\n')
        if first:
            out.write(f'[Scoring "MP"]\n[Movement "{s.movement.capitalize()}"]\n')
        out.write(f'[Dealer "{rot["dealer"][b - 1]}"]\n[Vulnerable "{rot["vulnerable"][b - 1]}"]\n')
        out.write(f'[Deal "{pbn_deal(s.deals[b])}"]\n')
        out.write('[ScoreTable "Table\\2R;Round\\2R;PairId_NS\\2R;PairId_EW\\2R;Contract\\5L;Declarer\\1R;'
                  'Result\\2R;Score_NS\\6R;Score_EW\\6R"]\n')
        for ln in sorted(by_board.get(b, []), key=lambda x: int(x.ns)):
            if ln.adjusted:
                c, d, res, sns, sew = "-", "-", "-", f'"{ln.adjusted[0]}%"', f'"{ln.adjusted[1]}%"'
            elif ln.contract == "PASS":
                c, d, res, sns, sew = "Pass", "-", "-", "0", "-"
            else:
                c, d, res = ln.contract, ln.declarer, str(ln.tricks)
                sns, sew = (str(ln.score_ns), "-") if ln.score_ns >= 0 else ("-", str(-ln.score_ns))
            out.write(f"{ln.table:>2} {ln.round:>2} {ln.ns:>2} {ln.ew:>2} {c:<5} {d:>1} {res:>2} {sns:>6} {sew:>6}\n")
        first = False
    out.write("\n[Event \"#\"]\n[Date \"#\"]\n")
    if s.movement == "mitchell":
        out.write('[TotalScoreTable "PairId\\2R;Direction\\3L;Names\\40L;MemberID1\\8R;MemberID2\\8R"]\n')
        for e in s.entrants:
            d = "N-S" if e["direction"] == "NS" else "E-W"
            out.write(f'{e["pair"]:>2} {d} "{_players(e)}" {e["players"][0]["id"]} {e["players"][1]["id"]}\n')
    else:
        out.write('[TotalScoreTable "PairId\\2R;Names\\40L;MemberID1\\8R;MemberID2\\8R"]\n')
        for e in s.entrants:
            out.write(f'{e["pair"]:>2} "{_players(e)}" {e["players"][0]["id"]} {e["players"][1]["id"]}\n')
    return out.getvalue().encode("utf-8")


def _usebio_contract(c: str) -> str:
    if c == "PASS":
        return "PASS"
    lvl, rest = c[0], c[1:]
    dbl = "XX" if rest.endswith("XX") else "X" if rest.endswith("X") else ""
    strain = rest[: len(rest) - len(dbl)]
    return f"{lvl} {strain}" + (f" {dbl}" if dbl else "")


def to_usebio(s: Session, encoding: str = "UTF-8") -> bytes:
    x = io.StringIO()
    x.write(f'<?xml version="1.0" encoding="{encoding}"?>\n<USEBIO Version="1.2">\n')
    x.write(f"<CLUB><CLUB_NAME>{escape(s.club)}</CLUB_NAME></CLUB>\n")
    x.write('<EVENT EVENT_TYPE="PAIRS">\n<PROGRAM_NAME>pointledger samples</PROGRAM_NAME>\n')
    x.write(f"<EVENT_DESCRIPTION>{escape(s.name)}</EVENT_DESCRIPTION>\n<DATE>{s.day:%d/%m/%Y}</DATE>\n")
    x.write(f"<WINNER_TYPE>{2 if s.movement == 'mitchell' else 1}</WINNER_TYPE>\n")
    x.write(f"<BOARD_SCORING_METHOD>MATCH_POINTS</BOARD_SCORING_METHOD>\n<BOARDS_PLAYED>{s.boards}</BOARDS_PLAYED>\n")
    x.write("<PARTICIPANTS>\n")
    for e in s.entrants:
        num = f'{e["pair"]} {e["direction"]}'.strip()
        x.write(f"<PAIR><PAIR_NUMBER>{num}</PAIR_NUMBER>")
        if e["direction"]:
            x.write(f"<DIRECTION>{e['direction']}</DIRECTION>")
        for p in e["players"]:
            x.write(f"<PLAYER><PLAYER_NAME>{escape(p['name'])}</PLAYER_NAME><NATIONAL_ID_NUMBER>{p['id']}</NATIONAL_ID_NUMBER></PLAYER>")
        x.write("</PAIR>\n")
    x.write("</PARTICIPANTS>\n")
    by_board: dict[int, list[Line]] = {}
    for ln in s.lines:
        by_board.setdefault(ln.board, []).append(ln)
    sfx = (" NS", " EW") if s.movement == "mitchell" else ("", "")
    for b in sorted(by_board):
        x.write(f"<BOARD><BOARD_NUMBER>{b}</BOARD_NUMBER>\n")
        for ln in by_board[b]:
            x.write(f"<TRAVELLER_LINE><ROUND_NUMBER>{ln.round}</ROUND_NUMBER>"
                    f"<NS_PAIR_NUMBER>{ln.ns}{sfx[0]}</NS_PAIR_NUMBER><EW_PAIR_NUMBER>{ln.ew}{sfx[1]}</EW_PAIR_NUMBER>")
            if ln.adjusted:
                x.write(f"<SCORE>A{ln.adjusted[0]}{ln.adjusted[1]}</SCORE>")
            elif ln.contract == "PASS":
                x.write("<CONTRACT>PASS</CONTRACT><SCORE>0</SCORE>")
            else:
                rel = ln.tricks - (int(ln.contract[0]) + 6)
                tr = "=" if rel == 0 else f"{rel:+d}"
                x.write(f"<CONTRACT>{_usebio_contract(ln.contract)}</CONTRACT><PLAYED_BY>{ln.declarer}</PLAYED_BY>"
                        f"<TRICKS>{tr}</TRICKS><SCORE>{ln.score_ns}</SCORE>")
            x.write("</TRAVELLER_LINE>\n")
        x.write("</BOARD>\n")
    x.write("</EVENT>\n</USEBIO>\n")
    return x.getvalue().encode(encoding, errors="xmlcharrefreplace")


def to_csv(s: Session) -> bytes:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["event_date", "event_name", "movement", "scoring", "session", "section", "round", "board", "ns_pair",
                "ew_pair", "contract", "declarer", "result", "score_ns", "adjusted", "ns_names", "ns_ids", "ew_names", "ew_ids"])
    ents = {e["pair"]: e for e in s.entrants}
    for ln in s.lines:
        ns, ew = ents[ln.ns], ents[ln.ew]
        if ln.adjusted:
            c = d = r = sc = ""
            adj = f"A{ln.adjusted[0]}/{ln.adjusted[1]}"
        else:
            c, d = ln.contract, ln.declarer
            r = "" if ln.contract == "PASS" else str(ln.tricks)
            sc, adj = str(ln.score_ns), ""
        w.writerow([s.day.isoformat(), s.name, s.movement, "MP", 1, "", ln.round, ln.board, ln.ns, ln.ew, c, d, r, sc, adj,
                    "; ".join(p["name"] for p in ns["players"]), ";".join(p["id"] for p in ns["players"]),
                    "; ".join(p["name"] for p in ew["players"]), ";".join(p["id"] for p in ew["players"])])
    return buf.getvalue().encode("utf-8")


def teams_to_pbn(s: Session) -> bytes:
    rot = board_rotation(np.arange(1, s.boards + 1))
    ents = {e["pair"]: e for e in s.entrants}
    out = io.StringIO()
    out.write("% PBN 2.1\n% EXPORT\n% Generated by pointledger.pipelines.bridge.samples (seeded)\n")
    first = True
    for ln in s.lines:
        home, away = (ln.ns, ln.ew) if ln.room == "Open" else (ln.ew, ln.ns)
        out.write("\n")
        out.write(f'[Event "{s.name if first else "#"}"]\n[Site "{s.club if first else "#"}"]\n[Date "{s.day:%Y.%m.%d}"]\n')
        out.write(f'[Board "{ln.board}"]\n[Round "{ln.round}"]\n[Room "{ln.room}"]\n')
        out.write(f'[HomeTeam "{home}"]\n[VisitTeam "{away}"]\n')
        out.write(f'[Dealer "{rot["dealer"][ln.board - 1]}"]\n[Vulnerable "{rot["vulnerable"][ln.board - 1]}"]\n')
        out.write(f'[Deal "{pbn_deal(s.deals[ln.board])}"]\n')
        if ln.contract == "PASS":
            out.write('[Declarer ""]\n[Contract "Pass"]\n[Result ""]\n[Score "NS 0"]\n')
        else:
            out.write(f'[Declarer "{ln.declarer}"]\n[Contract "{ln.contract}"]\n[Result "{ln.tricks}"]\n')
            out.write(f'[Score "NS {ln.score_ns}"]\n')
        first = False
    out.write('\n[Event "#"]\n[Date "#"]\n[TotalScoreTable "TeamId\\2R;TeamName\\10L;Names\\60L;MemberIDs\\40L"]\n')
    for e in s.entrants:
        out.write(f'{e["pair"]:>2} "{e["team_name"]}" "{_players(e)}" "{";".join(p["id"] for p in e["players"])}"\n')
    return out.getvalue().encode("utf-8")


# ------------------------------------------------------------------------------------------

MONDAY = dict(seed=2026_11_09, name="月曜ペア戦 Monday Pairs", day=date(2026, 11, 9))
THURSDAY = dict(seed=2026_11_12, name="木曜ペア戦 Thursday Pairs", day=date(2026, 11, 12))
HOWELL = dict(seed=2026_11_14, name="土曜ハウエル Saturday Howell", day=date(2026, 11, 14))
TEAMS = dict(seed=2026_11_15, name="日曜チーム戦 Sunday Teams", day=date(2026, 11, 15))


def write_samples(inbox: Path) -> list[Path]:
    club = inbox / "tokyo-bridge-club"
    club.mkdir(parents=True, exist_ok=True)
    files = {
        club / "2026-11-09-monday-pairs.pbn": to_pbn(mitchell_session(**MONDAY)),
        # the same session as the club's other scoring program writes it: it posts once (the run
        # quarantines this copy, naming the PBN file), and scores identically on its own
        club / "2026-11-09-monday-pairs.usebio.xml": to_usebio(mitchell_session(**MONDAY)),
        club / "2026-11-12-thursday-pairs.xml": to_usebio(mitchell_session(**THURSDAY)),
        club / "2026-11-14-saturday-howell.csv": to_csv(howell_session(**HOWELL)),
        club / "2026-11-15-sunday-teams.pbn": teams_to_pbn(teams_event(**TEAMS)),
    }
    for path, data in files.items():
        path.write_bytes(data)
    return list(files)


if __name__ == "__main__":  # pragma: no cover
    root = DATA_DIR / "samples" / "inbox"
    for p in write_samples(root):
        print(p)

"""Independent reference implementation of the mahjong league rules.

Written only from the source document (seed ``003_849ac86d59ae0fd4.txt``), our reading of it
(``RULES.md`` §4) and the input formats of issue 2. It shares no code with ``pipelines/``: the
tests use it as the second, independent method. It is deliberately simple: plain Python loops,
exact ``fractions.Fraction`` arithmetic, ``decimal.Decimal`` only for results; no pandas.

Formats
-------
Text posts (``*.txt``) as a league's bulletin board shows them::

    2026年10月10日(土)            <- date line (also 2026-10-10, 2026/10/10; full-width digits ok)
    れつみです。ラスなので書きます。  <- chatter, ignored
    ・１位らつみ 55000            <- four rank lines: "・", rank, "位", name, space, score
    ・２位りつみ 28000
    ・３位るつみ 22000
    ・４位れつみ -5000            <- negative: -5000, －5000, −5000, ▲5000 or △5000
    らつみさんが役満、四暗刻を和了しました。   <- yakuman line: +1 for that player (season 2)

CSV (``*.csv``): ``date,game,rank,player,score,yakuman``, one row per player per game; a blank
rank means "rank from the scores, tied scores split the placing points"; a blank yakuman is 0.

Decisions where the documents are silent (kept in sync with the docs / the pipeline):

* Lines are compared after NFKC; the rank, date, score and yakuman patterns are matched on the
  NFKC form (so full-width digits, ``－`` and ``（火）`` need no special cases).
* A game is a run of consecutive rank lines (blank lines, chatter, date and yakuman lines end
  it). A run of up to 4 lines is one game (whatever its order); a longer run is split before
  each ``1位`` line (someone forgot the blank line between two games).
* A yakuman line belongs to the last game above it under the same date line; a yakuman line
  with no game above it is reported as invalid (code ``yakuman_orphan``).
* Player identity: NFKC, strip, collapse runs of white space to one space, then the alias
  table (whose keys and values are normalised the same way).
* Ties without posted ranks (CSV with blank ranks): tied players occupy consecutive places and
  split equally the sum of every award attached to those places (placing points; the 3-koro
  +1 of 1st and, season 2, −1 of 2nd; the season-1 bust −1 of a busted 4th). Awards attached to
  a player (season-2 bust, yakuman) are not split.
* Periods are two calendar months (Jun–Jul 2026 蒼風杯, Aug–Sep 2026 桜華杯, alternating in both
  directions). The games bonus applies when the period lies in season 2 (its start date
  >= 2026-10-01); periods never straddle the season boundary.
"""

from __future__ import annotations

import csv
import io
import math
import re
import unicodedata
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

TOTAL = 100_000
PLACING = (7, 4, 2, 0)
KORO_LIMIT = 20_000  # 3-koro top: 2nd place finishes *below* this (20000点未満)
SEASON2_START = date(2026, 10, 1)
MIN_GAMES = 20  # ノルマ: 20 games in a period to be ranked
BONUS_STEP = 20  # +1 for every full 20 games above the 20 (season 2)
PERIOD_ANCHOR = (2026, 6)  # Jun–Jul 2026 is 蒼風杯
CUP_NAMES = ("蒼風杯", "桜華杯")

# --------------------------------------------------------------------------------------------
# names


def normalise_name(name: str) -> str:
    """NFKC, strip, collapse white space: 'Ｋｅｎ' -> 'Ken', '田中　一郎 ' -> '田中 一郎'."""
    return " ".join(unicodedata.normalize("NFKC", name).split())


def load_aliases(text: str) -> dict[str, str]:
    """The alias table (CSV ``alias,player_id``) as {normalised alias: normalised player id}."""
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))
    table = {}
    for row in reader:
        alias = normalise_name(row["alias"] or "")
        if alias:
            table[alias] = normalise_name(row["player_id"] or "")
    return table


def canonical(name: str, aliases: dict[str, str] | None = None) -> str:
    n = normalise_name(name)
    if aliases:
        return aliases.get(n, n)
    return n


# --------------------------------------------------------------------------------------------
# data


@dataclass(frozen=True)
class Entry:
    rank: int | None  # posted rank, None when the source gives none (CSV blank rank)
    player: str  # canonical player id
    score: int
    yakuman: int = 0
    raw_name: str = ""


@dataclass
class Game:
    date: date
    entries: list[Entry]  # sorted by rank (or by score when there are no ranks)
    line: int  # 1-based line of the game's first rank line / CSV row
    source: str = ""
    game_no: int | None = None  # CSV ``game`` column

    @property
    def players(self) -> list[str]:
        return [e.player for e in self.entries]

    def key(self) -> tuple:
        """Duplicate key: same date, same players with the same scores."""
        return (self.date, tuple(sorted((e.player, e.score) for e in self.entries)))


@dataclass
class Invalid:
    line: int  # first line of the rejected game (or the offending line)
    reason: str  # for a club secretary
    codes: tuple[str, ...]  # machine-readable: line_count, duplicate_player, ranks, order, sum, ...
    text: str = ""  # the raw lines
    last_line: int = 0
    date: date | None = None
    source: str = ""

    @property
    def code(self) -> str:
        return self.codes[0]


class Parsed(list):
    """A list of valid ``Game`` with the rejected ones in ``.invalid``."""

    def __init__(self, games=(), invalid=()):
        super().__init__(games)
        self.invalid: list[Invalid] = list(invalid)


# --------------------------------------------------------------------------------------------
# text posts

_NUM = r"([0-9]+)"
_DATE_RES = [
    re.compile(r"^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})\s*(?:\([^()]*\))?$"),
    re.compile(r"^([0-9]{4})/([0-9]{1,2})/([0-9]{1,2})\s*(?:\([^()]*\))?$"),
    re.compile(r"^([0-9]{4})年([0-9]{1,2})月([0-9]{1,2})日\s*(?:\([^()]*\))?$"),
]
_LOOKS_LIKE_RANK = re.compile(r"^・\s*[0-9]+\s*位")
_RANK_RE = re.compile(r"^・\s*([0-9]+)\s*位\s*(.*?)\s+([-−▲△]?)([0-9]+)$")
_YAKUMAN_RE = re.compile(r"^(.+?)(?:さん)?が役満、(.+?)を和了しました。?$")


def _nfkc(s: str) -> str:
    return unicodedata.normalize("NFKC", s).strip()


def _date_line(line: str):
    """(True, date or None) when the line is a date line, else (False, None)."""
    for rx in _DATE_RES:
        m = rx.match(line)
        if m:
            try:
                return True, date(int(m[1]), int(m[2]), int(m[3]))
            except ValueError:
                return True, None
    return False, None


@dataclass
class _Block:
    date: date | None
    lines: list = field(default_factory=list)  # (lineno, raw, parsed tuple or None)
    yakuman: list = field(default_factory=list)  # (lineno, raw, name, yakuman name)


def parse_text(text: str, aliases: dict[str, str] | None = None, source: str = "") -> Parsed:
    """Parse one text post. Returns the valid games; rejected ones are in ``result.invalid``."""
    blocks: list[_Block] = []
    invalid: list[Invalid] = []
    cur_date: date | None = None
    open_block: _Block | None = None
    last_block: _Block | None = None
    for lineno, raw in enumerate(text.lstrip("\ufeff").splitlines(), 1):
        line = _nfkc(raw)
        if _LOOKS_LIKE_RANK.match(line):
            if open_block is None:
                open_block = _Block(cur_date)
                blocks.append(open_block)
            m = _RANK_RE.match(line)
            parsed = None
            if m:
                sign = -1 if m[3] else 1
                parsed = (int(m[1]), m[2], sign * int(m[4]))
            open_block.lines.append((lineno, raw, parsed))
            continue
        if open_block is not None:
            last_block, open_block = open_block, None
        if not line:
            continue
        is_date, d = _date_line(line)
        if is_date:
            if d is None:
                invalid.append(Invalid(lineno, f"line {lineno}: '{raw.strip()}' is not a valid date",
                                       ("bad_date",), raw, lineno, None, source))
            cur_date, last_block = d, None
            continue
        m = _YAKUMAN_RE.match(line)
        if m:
            if last_block is None:
                invalid.append(Invalid(lineno, f"line {lineno}: yakuman line with no game above it",
                                       ("yakuman_orphan",), raw, lineno, cur_date, source))
            else:
                last_block.yakuman.append((lineno, raw, m[1], m[2]))
            continue
        # anything else is chatter

    games: list[Game] = []
    for block in blocks:
        for chunk, yakuman in _split_block(block):
            g, bad = _text_game(block.date, chunk, yakuman, aliases, source)
            if g is not None:
                games.append(g)
            else:
                invalid.append(bad)
    invalid.sort(key=lambda x: x.line)
    return Parsed(games, invalid)


def _split_block(block: _Block):
    lines = block.lines
    if len(lines) <= 4:
        return [(lines, block.yakuman)]
    chunks: list[list] = []
    for item in lines:
        starts_game = item[2] is not None and item[2][0] == 1
        if not chunks or (starts_game and chunks[-1]):
            chunks.append([])
        chunks[-1].append(item)
    return [(c, block.yakuman if i == len(chunks) - 1 else []) for i, c in enumerate(chunks)]


def _text_game(d, lines, yakuman, aliases, source):
    first = lines[0][0]
    last = max([lines[-1][0]] + [y[0] for y in yakuman])
    raw = "\n".join([x[1] for x in lines] + [y[1] for y in yakuman])
    reasons: list[tuple[str, str]] = []
    if d is None:
        reasons.append(("no_date", "no date line above this game"))
    for lineno, rawline, parsed in lines:
        if parsed is None:
            reasons.append(("bad_line", f"line {lineno}: cannot read rank, name and score in '{rawline.strip()}'"))
        elif not normalise_name(parsed[1]):
            reasons.append(("bad_line", f"line {lineno}: no player name"))
    if len(lines) != 4:
        reasons.append(("line_count", f"expected 4 rank lines, found {len(lines)}"))
    if reasons:
        return None, _invalid(first, last, raw, d, source, reasons)
    entries = [Entry(p[0], canonical(p[1], aliases), p[2], 0, p[1]) for _, _, p in lines]
    winners = [(lineno, canonical(name, aliases)) for lineno, _, name, _ in yakuman]
    return _validated(d, entries, winners, first, last, raw, source, ranked=True)


def _invalid(first, last, raw, d, source, reasons):
    codes = tuple(c for c, _ in reasons)
    reason = "; ".join(r for _, r in reasons)
    return Invalid(first, reason, codes, raw, last, d, source)


def _validated(d, entries, winners, first, last, raw, source, ranked, game_no=None):
    """Check one game; ``winners`` are the (line, player) of its yakuman lines."""
    reasons: list[tuple[str, str]] = []
    seen = []
    for e in entries:
        if e.player in seen:
            reasons.append(("duplicate_player", f"player '{e.player}' is listed twice"))
        seen.append(e.player)
    if ranked:
        ranks = sorted(e.rank for e in entries)
        if ranks != [1, 2, 3, 4]:
            reasons.append(("ranks", f"ranks must be 1, 2, 3, 4 once each; found {ranks}"))
        else:
            by_rank = sorted(entries, key=lambda e: e.rank)
            for a, b in zip(by_rank, by_rank[1:]):
                if b.score > a.score:
                    reasons.append(("order", f"{b.rank}位 {b.player} has {b.score}, more than "
                                             f"{a.rank}位 {a.player} with {a.score}"))
            entries = by_rank
    else:
        entries = sorted(entries, key=lambda e: -e.score)
    total = sum(e.score for e in entries)
    if total != TOTAL:
        reasons.append(("sum", f"scores sum to {total}, expected {TOTAL}"))
    yakuman_counts: dict[str, int] = {}
    for lineno, name in winners:
        if name not in seen:
            reasons.append(("yakuman_player", f"line {lineno}: yakuman winner '{name}' did not play in this game"))
        yakuman_counts[name] = yakuman_counts.get(name, 0) + 1
    if reasons:
        return None, _invalid(first, last, raw, d, source, reasons)
    entries = [Entry(e.rank, e.player, e.score, yakuman_counts.get(e.player, 0) + e.yakuman, e.raw_name)
               for e in entries]
    return Game(d, entries, first, source, game_no), None


# --------------------------------------------------------------------------------------------
# CSV

CSV_COLUMNS = ["date", "game", "rank", "player", "score", "yakuman"]


def _int(s: str) -> int:
    s = _nfkc(s)
    neg = s[:1] in ("-", "−", "▲", "△")
    if neg:
        s = s[1:]
    if not s.isdigit() or not s.isascii():
        raise ValueError(s)
    return -int(s) if neg else int(s)


def parse_csv(text: str, aliases: dict[str, str] | None = None, source: str = "") -> Parsed:
    """Parse a CSV file. Returns the valid games; rejected ones are in ``result.invalid``."""
    reader = csv.reader(io.StringIO(text.lstrip("\ufeff")))
    invalid: list[Invalid] = []
    try:
        header = [h.strip() for h in next(reader)]
    except StopIteration:
        return Parsed([], [])
    if header != CSV_COLUMNS:
        return Parsed([], [Invalid(1, f"header must be {','.join(CSV_COLUMNS)}; found {','.join(header)}",
                                   ("header",), ",".join(header), 1, None, source)])
    groups: dict[tuple, list] = {}
    for row in reader:
        lineno = reader.line_num
        if not any(c.strip() for c in row):
            continue
        raw = ",".join(row)
        if len(row) != 6:
            invalid.append(Invalid(lineno, f"line {lineno}: expected 6 columns, found {len(row)}",
                                   ("bad_line",), raw, lineno, None, source))
            continue
        ds, gs, rs, name, ss, ys = row
        try:
            d = date.fromisoformat(_nfkc(ds))
            g = _int(gs)
        except ValueError:
            invalid.append(Invalid(lineno, f"line {lineno}: cannot read date '{ds}' / game '{gs}'",
                                   ("bad_line",), raw, lineno, None, source))
            continue
        groups.setdefault((d, g), []).append((lineno, raw, rs, name, ss, ys))
    games: list[Game] = []
    for (d, g), rows in groups.items():
        first, last = rows[0][0], rows[-1][0]
        raw = "\n".join(r[1] for r in rows)
        reasons = []
        entries = []
        for lineno, _, rs, name, ss, ys in rows:
            try:
                rank = None if not rs.strip() else _int(rs)
                score = _int(ss)
                yak = 0 if not ys.strip() else _int(ys)
                if yak < 0:
                    raise ValueError(ys)
            except ValueError:
                reasons.append(("bad_line", f"line {lineno}: cannot read rank '{rs}', score '{ss}' or yakuman '{ys}'"))
                continue
            if not normalise_name(name):
                reasons.append(("bad_line", f"line {lineno}: no player name"))
                continue
            entries.append(Entry(rank, canonical(name, aliases), score, yak, name))
        if not reasons and len(rows) != 4:
            reasons.append(("line_count", f"expected 4 rows for game {g} of {d}, found {len(rows)}"))
        ranked = [e.rank is not None for e in entries]
        if not reasons and any(ranked) and not all(ranked):
            reasons.append(("ranks", "rank is given for some players of the game but not for all"))
        if reasons:
            invalid.append(_invalid(first, last, raw, d, source, reasons))
            continue
        game, bad = _validated(d, entries, [], first, last, raw, source, ranked=all(ranked), game_no=g)
        if game is not None:
            games.append(game)
        else:
            invalid.append(bad)
    invalid.sort(key=lambda x: x.line)
    return Parsed(games, invalid)


def parse_inbox(folder: Path, aliases: dict[str, str] | None = None) -> Parsed:
    """Every ``*.txt`` and ``*.csv`` below ``folder`` (sorted by path); sources are relative paths."""
    out = Parsed()
    for path in sorted(p for p in Path(folder).rglob("*") if p.is_file()):
        rel = path.relative_to(folder).as_posix()
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".txt":
            part = parse_text(text, aliases, rel)
        elif path.suffix == ".csv":
            part = parse_csv(text, aliases, rel)
        else:
            continue
        out.extend(part)
        out.invalid.extend(part.invalid)
    return out


def dedupe(games: list[Game]) -> tuple[list[Game], list[Game]]:
    """(first posting of each game, later repeats): a repeat has the same date, players, scores."""
    seen, unique, repeats = set(), [], []
    for g in games:
        k = g.key()
        if k in seen:
            repeats.append(g)
        else:
            seen.add(k)
            unique.append(g)
    return unique, repeats


# --------------------------------------------------------------------------------------------
# points


def season_for(d: date) -> int:
    return 1 if d < SEASON2_START else 2


def game_points_exact(game: Game, season: int) -> dict[str, Fraction]:
    """Points of each player of one (valid) game under season 1 or season 2 rules."""
    entries = list(game.entries)
    if all(e.rank is not None for e in entries):
        entries.sort(key=lambda e: e.rank)
        groups = [[e] for e in entries]  # the posted order decides, even between equal scores
    else:
        entries.sort(key=lambda e: -e.score)
        groups = []
        for e in entries:
            if groups and groups[-1][0].score == e.score:
                groups[-1].append(e)
            else:
                groups.append([e])
    koro = entries[1].score < KORO_LIMIT  # 2nd place below 20000
    points: dict[str, Fraction] = {}
    place = 1
    for group in groups:
        places = range(place, place + len(group))
        award = Fraction(0)
        for p in places:
            award += PLACING[p - 1]
            if koro and p == 1:
                award += 1  # 3-koro top
            if koro and p == 2 and season >= 2:
                award -= 1  # 3-koro'd 2nd (season 2)
            if p == 4 and season == 1 and group[0].score < 0:
                award -= 1  # season 1: only a busted 4th place
        share = award / len(group)
        for e in group:
            pts = share
            if season >= 2:
                if e.score < 0:
                    pts -= 1  # season 2: every busted player
                pts += e.yakuman  # season 2: +1 per yakuman
            points[e.player] = pts
        place += len(group)
    return points


def to_decimal(x: Fraction) -> Decimal:
    """Exact when the fraction has a finite decimal expansion (all realistic cases)."""
    d = x.denominator
    while d % 2 == 0:
        d //= 2
    while d % 5 == 0:
        d //= 5
    if d != 1:
        # 3-way ties without posted ranks (13/3): no finite decimal; 12 places, half-up
        return round_half_up(x, 12)
    return Decimal(x.numerator) / Decimal(x.denominator)


def game_points(game: Game, season: int) -> dict[str, Decimal]:
    return {p: to_decimal(v) for p, v in game_points_exact(game, season).items()}


def round_half_up(x: Fraction, places: int) -> Decimal:
    """Round to ``places`` decimals, halves away from zero (Decimal ROUND_HALF_UP)."""
    x = Fraction(x) * 10**places
    sign = -1 if x < 0 else 1
    n = math.floor(abs(x) + Fraction(1, 2))
    return Decimal(f"{sign * n}E-{places}")


# --------------------------------------------------------------------------------------------
# calendar and leaderboard


def period_for(d: date) -> tuple[date, date, str]:
    """(first day, last day, cup name) of the two-month ranking period holding ``d``."""
    k = (d.year - PERIOD_ANCHOR[0]) * 12 + (d.month - PERIOD_ANCHOR[1])
    idx = k // 2  # floor: works in both directions
    start_month0 = PERIOD_ANCHOR[1] - 1 + 2 * idx
    y, m = PERIOD_ANCHOR[0] + start_month0 // 12, start_month0 % 12 + 1
    start = date(y, m, 1)
    end_month0 = start_month0 + 2
    end = date(PERIOD_ANCHOR[0] + end_month0 // 12, end_month0 % 12 + 1, 1) - timedelta(days=1)
    return start, end, CUP_NAMES[idx % 2]


def month_ends(period_start: date, period_end: date) -> list[date]:
    """The snapshot dates of a period: each month's last day (the last one is period_end)."""
    out, d = [], period_start
    while d <= period_end:
        nxt = date(d.year + d.month // 12, d.month % 12 + 1, 1)
        out.append(min(nxt - timedelta(days=1), period_end))
        d = nxt
    return out


def games_bonus(games: int, season: int) -> int:
    if season < 2 or games < MIN_GAMES:
        return 0
    return (games - MIN_GAMES) // BONUS_STEP


@dataclass(frozen=True)
class Row:
    player: str
    games: int
    points: Decimal
    bonus: int
    total: Decimal
    average: Decimal  # (points + bonus) / games, half-up to 3 decimals
    eligible: bool
    rank: int | None

    @property
    def needed(self) -> int:
        """Games still needed to be ranked."""
        return max(0, MIN_GAMES - self.games)


def leaderboard(games: list[Game], period_start: date, period_end: date, as_of: date | None = None) -> list[Row]:
    """The period's leaderboard as of ``as_of`` (default: period_end).

    Eligible rows first, by rank (ties on the rounded average share a rank: 1, 2, 2, 4), then
    player; then the not-yet-eligible rows by games (most first), then player.
    """
    end = period_end if as_of is None else min(as_of, period_end)
    season = season_for(period_start)
    count: dict[str, int] = {}
    points: dict[str, Fraction] = {}
    for g in games:
        if not (period_start <= g.date <= end):
            continue
        for player, pts in game_points_exact(g, season_for(g.date)).items():
            count[player] = count.get(player, 0) + 1
            points[player] = points.get(player, Fraction(0)) + pts
    rows = []
    for player in count:
        n = count[player]
        bonus = games_bonus(n, season)
        total = points[player] + bonus
        rows.append([player, n, points[player], bonus, total, round_half_up(total / n, 3), n >= MIN_GAMES])
    eligible = sorted((r for r in rows if r[6]), key=lambda r: (-r[5], r[0]))
    ranked = []
    for i, r in enumerate(eligible):
        rank = ranked[-1].rank if ranked and ranked[-1].average == r[5] else i + 1
        ranked.append(Row(r[0], r[1], to_decimal(r[2]), r[3], to_decimal(r[4]), r[5], True, rank))
    others = sorted((r for r in rows if not r[6]), key=lambda r: (-r[1], r[0]))
    ranked += [Row(r[0], r[1], to_decimal(r[2]), r[3], to_decimal(r[4]), r[5], False, None) for r in others]
    return ranked

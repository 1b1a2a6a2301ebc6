"""Generate the bundled sample inbox of the ``sofu-mahjong`` league (seeded, byte-reproducible).

    python -m pipelines.mahjong.make_samples [--root DIR] [--manifest]

writes, below ``--root`` (default: the repository):

* ``data/samples/inbox/sofu-mahjong/YYYY-MM-DD.txt``: the league's bulletin-board posts, one
  file per day with games (and one day with chatter only), 2026-08-01 .. 2026-11-30;
* ``data/samples/inbox/sofu-mahjong/2026-10-15-annex.csv``: one evening in the CSV format;
* ``data/aliases/sofu-mahjong.csv``: the alias table (``alias,player_id``).

What the files contain (key games, the malformed post and its four bad games, players near the
20 / 40 / 60 game thresholds) is described in ``docs/mahjong-samples.md``; ``--manifest`` prints
the file and line of every key game. Running the script again reproduces the same bytes: it
uses only ``random.Random(SEED)`` and fixed tables, never the clock or set/dict hash order.

The script is self-contained on purpose (it does not use ``synth.py``), so that changes to the
benchmark generator never change the committed samples.
"""

from __future__ import annotations

import argparse
import random
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path

SEED = 20261049  # chosen so that both ties on a rounded average occur (see the docs)
ORG = "sofu-mahjong"
FIRST = date(2026, 8, 1)
LAST = date(2026, 11, 30)
TOTAL = 100_000

REGULARS = [
    "らつみ", "りつみ", "るつみ", "れつみ", "Ken", "田中一郎", "佐藤花子", "やまだ",
    "すずき", "ぽん太", "みさき", "Yuki", "たかし", "ひろみ", "中村", "はるか",
]
OCCASIONAL = ["ろつみ", "小林", "Mike", "あおい", "伊藤健太"]

# activity weights per period (season 1 = Aug–Sep, season 2 = Oct–Nov)
WEIGHTS = {
    1: {"らつみ": 3.0, "はるか": 0.8, "中村": 0.8},
    2: {"ぽん太": 4.0, "Ken": 2.2, "たかし": 2.2, "ひろみ": 0.9, "中村": 0.8},
}
OCCASIONAL_WEIGHT = 0.12

# exact numbers of valid games in each period (the thresholds 20 / 40 / 60 and their neighbours)
TARGETS = {
    1: {"らつみ": 44, "中村": 20, "はるか": 19},
    2: {"ぽん太": 61, "Ken": 40, "たかし": 39, "ひろみ": 20, "中村": 19},
}

ALIASES = [("けん", "Ken"), ("ケン", "Ken"), ("田中 一郎", "田中一郎"), ("ポン太", "ぽん太")]
SPELLINGS = {  # how the players write their names (canonical id -> [(spelling, weight)])
    "Ken": [("Ken", 60), ("Ｋｅｎ", 20), ("けん", 10), ("　Ken　", 10)],
    "田中一郎": [("田中一郎", 70), ("田中　一郎", 20), ("田中  一郎", 10)],
    "ぽん太": [("ぽん太", 85), ("ポン太", 15)],
}
MINUS = ("-", "－", "−", "▲")
FIXED_MINUS = {"れつみ": "-", "すずき": "▲", "やまだ": "－", "Yuki": "−", "佐藤花子": "▲", "中村": "−"}
FW = str.maketrans("0123456789", "０１２３４５６７８９")
WEEKDAYS = "月火水木金土日"

GREETINGS = [
    "お疲れ様です。本日の結果です。",
    "こんばんは。今日の成績を書き込みます。",
    "今日も宜しくお願いします。",
    "本日の結果です。",
    "皆さんお疲れ様でした！",
]
POSTER = ["{n}です。ラスなので書き込みます。", "{n}です。カキコします。", "ラス引きました…（{n}）"]
CHATTER = [
    "今日は２位ばっかりでした。",
    "役満聴牌までいったのに…",
    "オーラスで捲られました。",
    "次回もよろしくお願いします。",
    "次回は土曜日の夜です。",
    "雑談BBSの方にも書きました。",
]
YAKUMAN = ["四暗刻", "国士無双", "大三元", "字一色", "小四喜", "緑一色"]

SEED_EXAMPLE = """・１位らつみ 55000
・２位りつみ 28000
・３位るつみ 22000
・４位れつみ -5000
らつみさんが役満、四暗刻を和了しました。"""


@dataclass
class Game:
    date: date
    players: list[str]  # canonical ids in rank order
    scores: list[int]
    yakuman: list[tuple[str, str, bool]] = field(default_factory=list)  # (winner, name, "さん")
    fixed: bool = False  # key games keep their players (the repair pass leaves them alone)
    tag: str = ""
    spell: dict[str, str] = field(default_factory=dict)  # forced spellings
    verbatim: str | None = None


def season(d: date) -> int:
    return 1 if d < date(2026, 10, 1) else 2


def key_games() -> list[Game]:
    """The hand-made games every test can rely on (see docs/mahjong-samples.md)."""
    K = lambda d, ps, ss, tag, **kw: Game(date.fromisoformat(d), ps, ss, fixed=True, tag=tag, **kw)  # noqa: E731
    return [
        # season 1 (rules through 2026-09-30)
        K("2026-08-08", ["やまだ", "みさき", "Yuki", "すずき"], [45200, 31800, 25400, -2400], "s1-bust-last"),
        K("2026-08-15", ["たかし", "佐藤花子", "りつみ", "Ken"], [58300, 18700, 14000, 9000], "s1-3koro"),
        K("2026-08-22", ["すずき", "るつみ", "ひろみ", "ぽん太"], [52300, 24100, 15800, 7800], "s1-yakuman",
          yakuman=[("すずき", "国士無双", True)]),
        K("2026-09-05", ["ぽん太", "らつみ", "中村", "れつみ"], [62000, 41300, -1500, -1800], "s1-two-busts"),
        K("2026-09-12", ["Ken", "みさき", "はるか", "やまだ"], [50000, 20000, 18000, 12000], "s1-2nd-at-20000"),
        K("2026-09-19", ["田中一郎", "Yuki", "すずき", "ひろみ"], [38000, 24000, 24000, 14000], "s1-tie-2nd-3rd"),
        K("2026-09-26", ["るつみ", "たかし", "らつみ", "りつみ"], [42000, 33000, 25000, 0], "s1-4th-at-0"),
        K("2026-09-30", ["みさき", "ぽん太", "Yuki", "田中一郎"], [61000, 19000, 12000, 8000], "s1-yakuman-3koro",
          yakuman=[("みさき", "大三元", True)]),
        # season 2 (rules from 2026-10-01)
        K("2026-10-01", ["らつみ", "Ken", "すずき", "佐藤花子"], [44800, 33400, 23100, -1300], "s2-bust-last",
          spell={"Ken": "Ｋｅｎ"}),
        K("2026-10-10", ["らつみ", "りつみ", "るつみ", "れつみ"], [55000, 28000, 22000, -5000], "seed-example",
          yakuman=[("らつみ", "四暗刻", True)], verbatim=SEED_EXAMPLE),
        K("2026-10-17", ["ぽん太", "みさき", "やまだ", "Yuki"], [58000, 45000, -1000, -2000], "s2-two-busts"),
        K("2026-10-24", ["Ken", "たかし", "ひろみ", "中村"], [57400, 19600, 15200, 7800], "s2-3koro",
          spell={"Ken": "けん"}),
        K("2026-11-07", ["はるか", "田中一郎", "るつみ", "ぽん太"], [36200, 28800, 24500, 10500], "s2-yakuman-3rd",
          yakuman=[("るつみ", "字一色", False)]),
        K("2026-11-14", ["ぽん太", "Ken", "たかし", "みさき"], [61000, 19000, 12000, 8000], "s2-yakuman-3koro",
          yakuman=[("ぽん太", "大三元", True)]),
        K("2026-11-21", ["りつみ", "すずき", "Yuki", "やまだ"], [107000, -1000, -2500, -3500], "s2-three-busts"),
        K("2026-11-28", ["らつみ", "すずき", "中村", "佐藤花子"], [48000, 41000, 9000, 2000], "s2-two-yakuman",
          yakuman=[("らつみ", "四暗刻", True), ("すずき", "国士無双", True)]),
    ]


# the CSV annex of 2026-10-15: (game, rank or "", spelling, score, yakuman or "")
ANNEX = [
    (1, "1", "たかし", 38400, ""), (1, "2", "ぽん太", 29100, ""), (1, "3", "らつみ", 21500, ""),
    (1, "4", "ひろみ", 11000, ""),
    # no ranks, tie for 1st/2nd: placing points (7+4)/2 = 5.5 each
    (2, "", "Ken", 35000, ""), (2, "", "ぽん太", 35000, ""), (2, "", "みさき", 20000, ""), (2, "", "すずき", 10000, ""),
    # a yakuman by the 2nd place player: 4 + 1 = 5
    (3, "1", "るつみ", 40200, ""), (3, "2", "たかし", 31800, "1"), (3, "3", "Yuki", 17000, ""),
    (3, "4", "ぽん太", 11000, ""),
    # rows in seat order, not rank order; names as typed ("Ｋｅｎ", extra spaces)
    (4, "3", "やまだ", 18300, ""), (4, "1", "Ｋｅｎ", 42600, ""), (4, "4", " 田中  一郎 ", 6900, "0"),
    (4, "2", "ぽん太", 32200, ""),
    # a busted 4th place: -1
    (5, "1", "みさき", 47500, ""), (5, "2", "たかし", 33800, ""), (5, "3", "りつみ", 21900, ""),
    (5, "4", "ぽん太", -3200, ""),
]

MALFORMED_DATE = date(2026, 11, 20)
HOLIDAY = date(2026, 9, 23)  # a post with chatter only
BULLET_CHATTER = {date(2026, 10, 31): "・次回は土曜日の夜です。"}
MALFORMED = """2026年11月20日(金)
こんばんは。今日は２卓立ちました。

・１位たかし 41200
・２位みさき 30100
・３位Yuki 18700
・４位やまだ 10000

すみません、点数が合わないかもしれません…
・１位ひろみ 45000
・２位佐藤花子 30000
・３位すずき 16000
・４位るつみ 8000

・１位ぽん太 40000
・２位りつみ 30000
・３位ぽん太 20000
・４位Ken 10000

・１位らつみ 38600
・２位はるか 33000
・３位れつみ 21400
・４位中村 7000

・１位Ken 41000
・２位たかし 33000
・３位みさき 26000

・１位ぽん太 47300
・２位すずき 27700
・３位佐藤花子 16500
・４位Yuki 8500
はるかさんが役満、国士無双を和了しました。

・１位りつみ 35500
・２位田中一郎 29000
・３位ひろみ 21800
・４位ぽん太 13700
お疲れ様でした。
"""


def malformed_games() -> tuple[list[Game], list[Game]]:
    """(valid, invalid) games of the malformed post, as the targets must count them."""
    d = MALFORMED_DATE
    valid = [
        Game(d, ["たかし", "みさき", "Yuki", "やまだ"], [41200, 30100, 18700, 10000], fixed=True, tag="malformed-ok-1"),
        Game(d, ["らつみ", "はるか", "れつみ", "中村"], [38600, 33000, 21400, 7000], fixed=True, tag="malformed-ok-2"),
        Game(d, ["りつみ", "田中一郎", "ひろみ", "ぽん太"], [35500, 29000, 21800, 13700], fixed=True, tag="malformed-ok-3"),
    ]
    return valid, []


# --------------------------------------------------------------------------------------------


def random_scores(rng: random.Random) -> list[int]:
    raw = [rng.gauss(0, 8000) for _ in range(4)]
    w = rng.randrange(4)
    lo = (w + rng.randrange(1, 4)) % 4
    raw[w] += min(rng.expovariate(1 / 16000), 64000)
    raw[lo] -= min(rng.expovariate(1 / 6000), 24000)
    mean = sum(raw) / 4
    scores = [int(round((25000 + x - mean) / 100)) * 100 for x in raw]
    top = scores.index(max(scores))
    scores[top] += TOTAL - sum(scores)
    return sorted(scores, reverse=True)


def pick_players(rng: random.Random, weights: dict[str, float]) -> list[str]:
    names = list(weights)
    chosen: list[str] = []
    while len(chosen) < 4:
        w = [0.0 if n in chosen else weights[n] for n in names]
        chosen.append(rng.choices(names, weights=w)[0])
    return chosen


def period_weights(s: int) -> dict[str, float]:
    w = {p: 1.0 for p in REGULARS}
    w.update(WEIGHTS[s])
    for p in OCCASIONAL:
        w[p] = OCCASIONAL_WEIGHT
    return w


def build_games(rng: random.Random) -> list[Game]:
    keys = key_games()
    mal_valid, _ = malformed_games()
    key_dates = {g.date for g in keys}
    games: list[Game] = []
    d = FIRST
    while d <= LAST:
        if d in (MALFORMED_DATE, HOLIDAY):
            d += timedelta(days=1)
            continue
        weekend = d.weekday() >= 5
        if rng.random() < (0.15 if weekend else 0.45):
            n = 0
        else:
            n = rng.randint(2, 6) if weekend else rng.randint(1, 4)
        if d in key_dates or d == date(2026, 10, 15):
            n = max(n, 2)
        w = period_weights(season(d))
        day = [Game(d, pick_players(rng, w), random_scores(rng)) for _ in range(n)]
        for k in keys:
            if k.date == d:
                day.insert(rng.randint(0, len(day)), k)
        games.extend(day)
        d += timedelta(days=1)
    return games + mal_valid


def annex_games() -> list[Game]:
    out = []
    for g in sorted({r[0] for r in ANNEX}):
        rows = sorted((r for r in ANNEX if r[0] == g), key=lambda r: (r[1], -r[3]))  # rank order
        players = [" ".join(r[2].replace("\u3000", " ").split()) for r in rows]
        players = [{"Ｋｅｎ": "Ken", "田中 一郎": "田中一郎"}.get(p, p) for p in players]
        out.append(Game(date(2026, 10, 15), players, [r[3] for r in rows], fixed=True, tag=f"annex-{g}"))
    return out


def counts(games: list[Game]) -> dict[str, int]:
    c: dict[str, int] = {}
    for g in games:
        for p in g.players:
            c[p] = c.get(p, 0) + 1
    return c


def repair(rng: random.Random, games: list[Game], targets: dict[str, int], s: int) -> None:
    """Swap players in the random games until each target player has exactly its target."""
    free = [p for p in REGULARS if p not in targets]
    w = period_weights(s)
    for _ in range(20000):
        c = counts(games)
        off = [p for p in targets if c.get(p, 0) != targets[p]]
        if not off:
            return
        p = off[0]
        movable = [g for g in games if not g.fixed]
        if c.get(p, 0) > targets[p]:
            g = rng.choice([g for g in movable if p in g.players])
            cands = [q for q in free if q not in g.players]
            q = rng.choices(cands, weights=[w[x] for x in cands])[0]
            g.players[g.players.index(p)] = q
        else:
            cands_g = [g for g in movable if p not in g.players and any(q in free for q in g.players)]
            g = rng.choice(cands_g)
            q = rng.choice([q for q in g.players if q in free])
            g.players[g.players.index(q)] = p
    raise RuntimeError("repair did not converge")


# --------------------------------------------------------------------------------------------
# rendering


def player_styles(rng: random.Random) -> dict[str, tuple[bool, bool, str]]:
    """Each poster's habit: (full-width rank digit, full-width score digits, minus sign)."""
    styles = {}
    for p in REGULARS + OCCASIONAL:
        fw_rank = rng.random() < 0.8
        fw_score = rng.random() < 0.3
        minus = FIXED_MINUS.get(p) or rng.choice(MINUS)
        styles[p] = (fw_rank, fw_score, minus)
    return styles


def spelled(rng: random.Random, player: str) -> str:
    options = SPELLINGS.get(player)
    if not options:
        return player
    return rng.choices([o[0] for o in options], weights=[o[1] for o in options])[0]


def date_line(rng: random.Random, d: date) -> str:
    wd = WEEKDAYS[d.weekday()]
    style = rng.randrange(6)
    return [
        f"{d:%Y-%m-%d}",
        f"{d:%Y/%m/%d}",
        f"{d.year}年{d.month}月{d.day}日({wd})",
        f"{d.year}年{d.month}月{d.day}日（{wd}）".translate(FW),
        f"{d:%Y/%m/%d}（{wd}）".translate(FW),
        f"{d.year}年{d.month}月{d.day}日",
    ][style]


def render_game(rng: random.Random, g: Game, styles) -> list[str]:
    if g.verbatim is not None:
        return g.verbatim.split("\n")
    fw_rank, fw_score, minus = styles[g.players[3]]  # the 4th place player posts
    lines = []
    for i, (p, s) in enumerate(zip(g.players, g.scores), 1):
        name = g.spell.get(p) or spelled(rng, p)
        num = str(abs(s))
        if fw_score:
            num = num.translate(FW)
        rank = str(i).translate(FW) if fw_rank else str(i)
        lines.append(f"・{rank}位{name} {minus + num if s < 0 else num}")
    for who, yname, san in g.yakuman:
        lines.append(f"{g.spell.get(who) or who}{'さん' if san else ''}が役満、{yname}を和了しました。")
    return lines


def render_day(rng: random.Random, d: date, games: list[Game], styles, manifest: list) -> str:
    fname = f"{d:%Y-%m-%d}.txt"
    out = [date_line(rng, d)]
    if rng.random() < 0.7:
        out.append(rng.choice(GREETINGS))
    for g in games:
        out.append("")
        if g.tag == "seed-example":
            out.append("れつみです。飛びラスでしたので書き込みます。")
        elif rng.random() < 0.35:
            out.append(rng.choice(POSTER).format(n=g.players[3]))
        first = len(out) + 1
        out.extend(render_game(rng, g, styles))
        if g.tag == "seed-example":
            out.append("↑こんな感じでお願いします。")
        if g.tag:
            manifest.append((fname, first, g.tag))
        if rng.random() < 0.08:
            out.append(rng.choice(CHATTER))
    if d in BULLET_CHATTER:  # a "・" line that is not a result line: chatter, to be ignored
        out += ["", BULLET_CHATTER[d]]
    return "\n".join(out) + "\n"


def render_annex() -> str:
    lines = ["date,game,rank,player,score,yakuman"]
    for g, rank, name, score, yak in ANNEX:
        lines.append(f"2026-10-15,{g},{rank},{name},{score},{yak}")
    return "\n".join(lines) + "\n"


def build(root: Path) -> tuple[dict[Path, bytes], list]:
    rng = random.Random(SEED)
    games = build_games(rng)
    annex = annex_games()
    for s, targets in TARGETS.items():
        repair(rng, [g for g in games + annex if season(g.date) == s], targets, s)
    check(games + annex)
    styles = player_styles(rng)
    inbox = root / "data" / "samples" / "inbox" / ORG
    files: dict[Path, bytes] = {}
    manifest: list = []
    by_day: dict[date, list[Game]] = {}
    for g in games:
        if g.date != MALFORMED_DATE:
            by_day.setdefault(g.date, []).append(g)
    for d in sorted(by_day):
        files[inbox / f"{d:%Y-%m-%d}.txt"] = render_day(rng, d, by_day[d], styles, manifest).encode()
    # a holiday post without games (chatter only): posts nothing, quarantines nothing
    h = HOLIDAY
    holiday = f"{h.year}年{h.month}月{h.day}日({WEEKDAYS[h.weekday()]})\n本日は祝日のためお休みです。\n次回は土曜日です。\n"
    files[inbox / f"{h:%Y-%m-%d}.txt"] = holiday.encode()
    files[inbox / "2026-11-20.txt"] = MALFORMED.encode()
    files[inbox / "2026-10-15-annex.csv"] = render_annex().encode()
    alias = "alias,player_id\n" + "".join(f"{a},{p}\n" for a, p in ALIASES)
    files[root / "data" / "aliases" / f"{ORG}.csv"] = alias.encode()
    return dict(sorted(files.items())), sorted(manifest)


def check(games: list[Game]) -> None:
    """The promises of docs/mahjong-samples.md, checked on the generated games."""
    seen = set()
    for g in games:
        assert len(set(g.players)) == 4, g
        assert sum(g.scores) == TOTAL and g.scores == sorted(g.scores, reverse=True), g
        key = (g.date, tuple(sorted(zip(g.players, g.scores))))
        assert key not in seen, f"duplicate game {g}"
        seen.add(key)
    for s, targets in TARGETS.items():
        c = counts([g for g in games if season(g.date) == s])
        for p, n in targets.items():
            assert c[p] == n, (s, p, c[p], n)
        under = [p for p in c if c[p] < 20]
        assert len(under) >= 5, (s, under)
        assert all(c.get(p, 0) < 20 for p in OCCASIONAL), (s, c)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[2])
    ap.add_argument("--manifest", action="store_true", help="print the file and line of each key game")
    args = ap.parse_args(argv)
    files, manifest = build(args.root)
    for path, data in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    size = sum(len(b) for b in files.values())
    print(f"wrote {len(files)} files ({size:,} bytes) below {args.root}")
    if args.manifest:
        for fname, line, tag in manifest:
            print(f"{fname}:{line}\t{tag}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Deterministic synthetic mahjong league (for benchmarks and property tests).

``generate_games`` is pure: the same arguments give the same DataFrame, on any machine (numpy's
PCG64 ``default_rng``). It is vectorised end to end; 200,000 games for 500 players take well
under a second. ``write_text_posts`` is the only function doing I/O: it renders the games as the
bulletin-board text posts of the league (``・１位らつみ 55000``), one file per day.

Every generated game is valid for the league: four distinct players, ranks 1–4, scores multiples
of 100 not increasing with rank and summing to 100000. Rates per game, roughly: a busted player
(score < 0) in ~5% of games, a 3-koro top (2nd place below 20000) in ~8%, a yakuman in ~0.3%.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import numpy as np
import pandas as pd

TOTAL = 100_000
START = 25_000
SCORE_SD = 8_000  # everyone's swing around 25000 (before centring the game on 100000)
WIN_SCALE = 16_000  # the game's big winner: + exponential(16000), capped at 64000
LOSE_SCALE = 6_000  # the game's big loser: - exponential(6000), capped at 24000
SKILL_SD = 1_500  # per-player skill (shifts the player's expected final score)
YAKUMAN_RATE = 0.003  # per game
YAKUMAN_RANK_P = (0.6, 0.2, 0.12, 0.08)  # the winner of a yakuman usually tops the game

COLUMNS = ["date", "game_no", "rank", "player", "score", "yakuman"]

_FAMILY = (
    "田中 佐藤 鈴木 高橋 伊藤 渡辺 山本 中村 小林 加藤 吉田 山田 佐々木 山口 松本 井上 木村 林 清水 "
    "山崎 森 池田 橋本 阿部 石川 山下 中島 石井 小川 前田 岡田 長谷川 藤田 後藤 近藤 村上 遠藤 青木 "
    "坂本 斉藤 福田 太田 西村 藤井 金子 岡本 藤原 中野 三浦 原田"
).split()
_GIVEN = (
    "一郎 健太 翔太 大輔 拓也 直樹 誠 隆 浩二 修 大樹 亮 蓮 悠真 湊 陽翔 健一 和也 達也 雄太 "
    "花子 美咲 陽子 由美 恵子 直美 裕子 愛 彩 真由美 結衣 葵 さくら 陽菜 美穂 智子 千尋 沙織 奈々 舞"
).split()
_KANA = tuple("あいうえおかきくけこさしすせそたちつてとなにぬねのはひふへほまみむめもやゆよらりるれろわ")
_KANA_TAIL = ("", "", "", "ん", "太", "子", "丸", "っち", "りん", "ぽん")
_LATIN = (
    "Ken Yuki Mike Sam Alex Tom Emma Lucy Leo Mia Noah Liam Olivia Ava Ethan Mason Hana Kai Jun Ray "
    "Nina Ivan Sven Lars Anna Eva Omar Ali Chen Wei Lin Min Jin Hugo Theo Paul Marc Nils Erik Otto"
).split()
_YAKUMAN_NAMES = ("四暗刻", "国士無双", "大三元", "字一色", "緑一色", "清老頭", "小四喜", "四槓子", "九蓮宝燈", "天和")
_CHATTER_DAY = (
    "お疲れ様です。本日の結果です。",
    "今日も宜しくお願いします。",
    "本日の成績です。",
    "こんばんは。今日の分を書き込みます。",
    "皆さんお疲れ様でした！",
)
_CHATTER_GAME = (
    "ラスなので書き込みます。",
    "お疲れ様でした。",
    "オーラスで捲られました…",
    "次もよろしくお願いします。",
    "今日は２位ばっかりでした。",
)
_WEEKDAYS = "月火水木金土日"
_FW = str.maketrans("0123456789", "０１２３４５６７８９")
_MINUS = ("-", "－", "−", "▲")


def player_names(n: int, seed: int = 0) -> list[str]:
    """``n`` distinct, realistic player names (kanji full names, kana nicknames, latin names).

    Every name is stable under the league's normalisation (NFKC, no spaces, no digits) and does
    not end in ``さん``, so the text format round-trips it exactly.
    """
    rng = np.random.default_rng(seed)
    kanji = [f + g for f in _FAMILY for g in _GIVEN]
    idx = rng.integers(0, len(_KANA), size=(max(2 * n, 64), 3))
    lens = rng.integers(2, 4, size=len(idx))
    tails = rng.integers(0, len(_KANA_TAIL), size=len(idx))
    kana = ["".join(_KANA[i] for i in row[:ln]) + _KANA_TAIL[t]
            for row, ln, t in zip(idx.tolist(), lens.tolist(), tails.tolist())]
    kana = [k for k in kana if not k.endswith("さん")]
    pools = [list(dict.fromkeys(p)) for p in (kanji, kana, list(_LATIN))]
    for p in pools:
        rng.shuffle(p)
    want = [n * 9 // 20, n * 8 // 20, n * 3 // 20]  # ~45% kanji, 40% kana, 15% latin
    chosen: dict[str, None] = {}
    for pool, w in zip(pools, want):
        for name in pool[:w]:
            chosen.setdefault(name)
    for pool in pools:  # top up (rounding, or a pool ran short)
        for name in pool:
            if len(chosen) >= n:
                break
            chosen.setdefault(name)
    out = list(chosen)[:n]
    if len(out) < n:
        raise ValueError(f"cannot make {n} distinct names (at most {len(out)})")
    return [out[i] for i in rng.permutation(n)]


def _distinct_seats(rng: np.random.Generator, p: np.ndarray, games: int) -> np.ndarray:
    """(games, 4) player indices, weighted by activity, four distinct players per game."""
    players = len(p)
    if players < 4:
        raise ValueError("a game needs four players")
    seats = rng.choice(players, size=(games, 4), p=p)
    while True:
        s = np.sort(seats, axis=1)
        bad = np.flatnonzero((s[:, 1:] == s[:, :-1]).any(axis=1))
        if bad.size == 0:
            return seats
        seats[bad] = rng.choice(players, size=(bad.size, 4), p=p)


def generate_games(players: int, games: int, start: date, days: int, seed: int) -> pd.DataFrame:
    """A synthetic league: ``games`` valid games of ``players`` players over ``days`` days.

    One row per player per game, sorted by date, game_no, rank: ``date`` (datetime64, day),
    ``game_no`` (1.. within the date), ``rank`` (1–4), ``player`` (str), ``score`` (int64),
    ``yakuman`` (int, yakuman won by that player in that game).
    """
    if games < 0 or days < 1:
        raise ValueError("games must be >= 0 and days >= 1")
    rng = np.random.default_rng(seed)
    names = np.array(player_names(players, seed), dtype=object)
    activity = rng.lognormal(0.0, 1.0, players)  # a few very active players, a long tail
    p = activity / activity.sum()
    skill = rng.normal(0.0, SKILL_SD, players)

    seats = _distinct_seats(rng, p, games)
    # a game: small swings for everyone, one big winner, one big loser (who deals in)
    raw = rng.normal(0.0, SCORE_SD, (games, 4)) + skill[seats]
    rows = np.arange(games)
    winner = rng.integers(0, 4, games)
    loser = (winner + rng.integers(1, 4, games)) % 4
    raw[rows, winner] += np.minimum(rng.exponential(WIN_SCALE, games), 4 * WIN_SCALE)
    raw[rows, loser] -= np.minimum(rng.exponential(LOSE_SCALE, games), 4 * LOSE_SCALE)
    raw -= raw.mean(axis=1, keepdims=True)
    scores = (np.rint((START + raw) / 100.0).astype(np.int64)) * 100
    # rounding residue (a multiple of 100) goes to the top scorer
    top = np.argmax(scores, axis=1)
    scores[rows, top] += TOTAL - scores.sum(axis=1)
    order = np.argsort(-scores, axis=1, kind="stable")
    scores = np.take_along_axis(scores, order, axis=1)
    seats = np.take_along_axis(seats, order, axis=1)

    yakuman = np.zeros((games, 4), dtype=np.int64)
    hit = np.flatnonzero(rng.random(games) < YAKUMAN_RATE)
    yakuman[hit, rng.choice(4, size=hit.size, p=YAKUMAN_RANK_P)] = 1

    day = np.sort(rng.integers(0, days, games))
    first = np.searchsorted(day, day, side="left")
    game_no = np.arange(games) - first + 1
    dates = np.datetime64(start, "D") + day

    return pd.DataFrame(
        {
            "date": pd.to_datetime(np.repeat(dates, 4)).as_unit("s"),
            "game_no": np.repeat(game_no, 4).astype(np.int64),
            "rank": np.tile(np.arange(1, 5, dtype=np.int64), games),
            "player": pd.array(names[seats.ravel()], dtype="str"),
            "score": scores.ravel(),
            "yakuman": yakuman.ravel(),
        },
        columns=COLUMNS,
    )


def _date_line(d: date, style: int) -> str:
    wd = _WEEKDAYS[d.weekday()]
    s = (
        f"{d:%Y-%m-%d}",
        f"{d:%Y/%m/%d}",
        f"{d.year}年{d.month}月{d.day}日({wd})",
        f"{d.year}年{d.month}月{d.day}日（{wd}）".translate(_FW),
        f"{d:%Y/%m/%d}（{wd}）".translate(_FW),
    )[style]
    return s


def write_text_posts(games: pd.DataFrame, out_dir: Path, per_day: bool = True) -> list[Path]:
    """Render ``games`` (as ``generate_games`` returns them) as bulletin-board text posts.

    ``per_day=True``: one ``YYYY-MM-DD.txt`` per day holding games. ``per_day=False``: a single
    ``<first>_<last>.txt`` with a date line before each day's games. The rendering varies like
    real posts (full-width or ASCII digits per game, the four minus signs, date line styles,
    chatter lines) but is deterministic: the same games give the same bytes. Returns the paths.
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    g = games.sort_values(["date", "game_no", "rank"], kind="stable")
    n = len(g) // 4
    if len(g) != 4 * n:
        raise ValueError("expected four rows per game")
    if n == 0:
        return []
    rng = np.random.default_rng(20261001)  # fixed: the text depends only on the games

    ranks = g["rank"].to_numpy(np.int64)
    names = g["player"].to_numpy(dtype=object)
    scores = g["score"].to_numpy(np.int64)
    yak = g["yakuman"].to_numpy(np.int64).reshape(n, 4)
    days = g["date"].to_numpy("datetime64[D]")[::4]

    # per game style: rank digits full-width?, score digits full-width?, minus sign
    fw_rank = rng.random(n) < 0.8
    fw_score = rng.random(n) < 0.3
    minus = rng.integers(0, len(_MINUS), n)
    fw_rank_r = np.repeat(fw_rank, 4)
    score_style = np.repeat(fw_score.astype(np.int64) * len(_MINUS) + minus, 4)

    uniq, inv = np.unique(scores, return_inverse=True)
    table = np.empty((2 * len(_MINUS), len(uniq)), dtype=object)
    for fw in (0, 1):
        for m, sign in enumerate(_MINUS):
            for j, v in enumerate(uniq.tolist()):
                s = str(abs(v))
                if fw:
                    s = s.translate(_FW)
                table[fw * len(_MINUS) + m, j] = (sign + s) if v < 0 else s
    score_txt = table[score_style, inv.ravel()]

    rank_u, rank_inv = np.unique(ranks, return_inverse=True)
    prefix = np.empty((2, len(rank_u)), dtype=object)
    for j, r in enumerate(rank_u.tolist()):
        prefix[0, j] = f"・{r}位"
        prefix[1, j] = f"・{str(r).translate(_FW)}位"
    pre = prefix[fw_rank_r.astype(np.int64), rank_inv.ravel()]

    lines = (pre + names + " " + score_txt + "\n").reshape(n, 4)
    blocks = lines[:, 0] + lines[:, 1] + lines[:, 2] + lines[:, 3]

    # chatter before some games (the poster is the 4th place player)
    chat = rng.random(n) < 0.15
    chat_pick = rng.integers(0, len(_CHATTER_GAME), n)
    for i in np.flatnonzero(chat).tolist():
        blocks[i] = _CHATTER_GAME[chat_pick[i]] + "\n" + blocks[i]
    # yakuman lines after the game
    y_names = rng.integers(0, len(_YAKUMAN_NAMES), n)
    y_san = rng.random(n) < 0.8
    for i in np.flatnonzero(yak.sum(axis=1)).tolist():
        extra = []
        for seat in range(4):
            for _ in range(int(yak[i, seat])):
                who = names[4 * i + seat]
                extra.append(f"{who}{'さん' if y_san[i] else ''}が役満、{_YAKUMAN_NAMES[y_names[i]]}を和了しました。\n")
        blocks[i] = blocks[i] + "".join(extra)

    # group by day
    bounds = np.flatnonzero(np.r_[True, days[1:] != days[:-1], True])
    day_list = days[bounds[:-1]].astype(object)  # datetime.date objects
    styles = rng.integers(0, 5, len(day_list))
    greet = rng.integers(0, len(_CHATTER_DAY), len(day_list))
    texts = []
    for k, d in enumerate(day_list):
        head = _date_line(d, int(styles[k])) + "\n" + _CHATTER_DAY[greet[k]] + "\n\n"
        texts.append(head + "\n".join(blocks[bounds[k] : bounds[k + 1]].tolist()))

    paths: list[Path] = []
    if per_day:
        for d, text in zip(day_list, texts):
            path = out_dir / f"{d:%Y-%m-%d}.txt"
            path.write_text(text, encoding="utf-8", newline="\n")
            paths.append(path)
    elif texts:
        path = out_dir / f"{day_list[0]:%Y-%m-%d}_{day_list[-1]:%Y-%m-%d}.txt"
        path.write_text("\n".join(texts), encoding="utf-8", newline="\n")
        paths.append(path)
    return paths

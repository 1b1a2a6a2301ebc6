"""Helpers for the Swedish tests: a member register and generated result lists in an Office inbox."""
from __future__ import annotations

import re

ORG = "svensk-bridge"
CLUBS = ["10001", "10002", "10003", "10004", "10005", "10006", "10007", "10008"]
MEMBERS = [str(200000 + i) for i in range(600)]


def register(office, members=MEMBERS, name="medlemsregister.csv"):
    text = "medlemsnummer;namn;klubb\n" + "".join(f"{m};Spelare {m[-3:]} Åström;{CLUBS[i % len(CLUBS)]}\n"
                                                     for i, m in enumerate(members))
    office.post(f"{ORG}/{name}", text)


def event_text(**settings) -> str:
    base = {"datum": "2024-10-01", "nivå": "brons", "form": "par", "brickor": "24"}
    base.update({k.replace("_", " ") if k == "förhöjt_guld" else k: v for k, v in settings.items()})
    return "".join(f"{k}: {v}\n" for k, v in base.items())


def standings_text(n, per=2, places=None, extra=None, start=0):
    """n entrants of `per` members each; places: list of place labels (default 1..n)."""
    places = places or [str(i + 1) for i in range(n)]
    head = "plac;par;medlemmar" + (";" + ";".join(extra[0]) if extra else "")
    rows = []
    for i in range(n):
        ms = " ".join(MEMBERS[start + i * per: start + (i + 1) * per])
        more = (";" + ";".join(extra[1](i))) if extra else ""
        rows.append(f"{places[i]};{i + 1};{ms}{more}")
    return head + "\n" + "\n".join(rows) + "\n"


def post_event(office, club, name, n, per=2, places=None, extra=None, start=0, **settings):
    office.post(f"{ORG}/{club}/{name}.event.txt", event_text(**settings))
    # the list names its event: two identical lists would be one file sent twice (a duplicate,
    # which posts nothing: DESIGN.md), and these tests post many events of the same field
    office.post(f"{ORG}/{club}/{name}.standings.csv", standings_text(n, per, places, extra, start) + f"# {name}\n")


def by_place(office, event_suffix):
    """{place number: {denomination: points}} of the first member of each entrant (from the ledger)."""
    df = office.query(
        "select r.place, r.entrant, a.denomination, a.points from se_results r "
        "join awards a on a.event_id = r.event_id and a.player_id = r.members[1] "
        "where r.event_id like ? order by r.place", [f"%{event_suffix}"])
    out: dict = {}
    for r in df.itertuples():
        out.setdefault(int(r.place) if r.entrant == str(int(r.place)) else r.entrant, {})[r.denomination] = int(r.points)
    return out


def column(office, event_suffix, denomination):
    """Points of `denomination` by entrant order 1..n (0 when none)."""
    df = office.query(
        "select cast(r.entrant as int) as e, coalesce(a.points, 0) as p from se_results r "
        "left join awards a on a.event_id = r.event_id and a.player_id = r.members[1] "
        "and a.denomination = ? where r.event_id like ? order by e", [denomination, f"%{event_suffix}"])
    return [int(v) for v in df["p"]]


_ROWS_DIGEST = re.compile(rb'<meta name="pointledger-rows" content="[0-9a-f]{32}">\n')


def assert_differ_only_by_run(got: dict[str, bytes], want: dict[str, bytes]) -> None:
    """Two sites of the same posts made by different runs: only the files that name the run that
    made them differ: the feed and the pins list (its CSV and workbook, and the digest of those
    rows its page keeps: the page is the same without it)."""
    assert sorted(got) == sorted(want)
    assert sorted(name for name in got if got[name] != want[name]) == ["feed.atom"] + [
        name for name in sorted(got) if re.fullmatch(r"nålar/\d{4}-\d{2}/.*\.(csv|xlsx|html)", name)]
    assert all(_ROWS_DIGEST.sub(b"", got[name]) == _ROWS_DIGEST.sub(b"", want[name]) for name in got if name.endswith(".html"))


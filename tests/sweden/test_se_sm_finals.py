"""SM finals with their own tables (seed p. 16), through the nightly run.

Tabell H2, finals of SM pairs for seniors, women, juniors: "1:a plats 10 poäng 2:a plats 5 poäng 3:e
plats 3 poäng 4:e plats 2 poäng"; mixed: 10, 5, 4, 3. "Placeringarna därefter får poäng efter tabell
D. [...] För SM-finaler gäller att man följer aktuella bronspoängskalor och multiplicerar
bronspoängen med tre." Tabell D row 20 (seed p. 11): 20 14 10 7 5 sp, then bronze to a third;
Tabell A1 row 20 places 6 and 7: 6 and 4 bp, × 3 = 18 and 12 bp. Row 16: 16 11 8 6 sp, A1 places
5 and 6: 7 and 5 bp, × 3 = 21 and 15.

Tabell G2, SM team final for veterans and juniors, per player: "8 lag 7-4 gp, 9-12 lag 7-5-3 gp
minst 13 lag 10-5-3-2 gp. Detta gäller vid matcher med färre brickor än 12. Vid fler (12+) brickor
gäller annan skala. Kontakta kansliet."
"""
from __future__ import annotations

from se_helpers import ORG, register

import pytest

H2 = {"datum": "2024-11-16", "nivå": "guld", "form": "par", "brickor": "52", "sanktion": "SBF 2024/SM"}
G2 = {"datum": "2024-11-17", "nivå": "guld", "form": "lagbarometer", "sanktion": "SBF 2024/SM"}


def _post(office, name: str, n: int, per: int, **settings) -> None:
    office.post(f"{ORG}/bk-lavec/{name}.event.txt", "".join(f"{k}: {v}\n" for k, v in settings.items()))
    rows = [f"{i + 1};{i + 1};{' '.join(str(200000 + per * i + j) for j in range(per))}" for i in range(n)]
    office.post(f"{ORG}/bk-lavec/{name}.standings.csv", "plac;nr;medlemmar\n" + "\n".join(rows) + f"\n# {name}\n")


def _by_place(office, name: str, per: int) -> dict[int, tuple[str, int]]:
    """{place: (denomination, points)} of every member of each entrant (all members must agree)."""
    df = office.query("select player_id, denomination, points from awards where event_id = ?", [f"{ORG}/bk-lavec/{name}"])
    out: dict[int, set] = {}
    for p, d, v in zip(df["player_id"], df["denomination"], df["points"]):
        out.setdefault((int(p) - 200000) // per + 1, set()).add((d, int(v)))
    assert all(len(v) == 1 for v in out.values()), out
    counts = df.groupby("player_id").size()
    assert (counts == 1).all()
    return {k: next(iter(v)) for k, v in sorted(out.items())}


def _quarantine(office) -> list[str]:
    return list(office.query("select reason from quarantine")["reason"])


def test_h2_seniors_20_pairs_and_mixed_16_pairs(office):
    register(office)
    _post(office, "sm-seniorer", 20, 2, sm_final="h2", **H2)
    _post(office, "sm-mixed", 16, 2, sm_final="h2-mixed", **dict(H2, datum="2024-11-18"))
    office.run()
    assert _quarantine(office) == []
    assert _by_place(office, "sm-seniorer", 2) == {1: ("gp", 10), 2: ("gp", 5), 3: ("gp", 3), 4: ("gp", 2), 5: ("sp", 5),
                                                   6: ("bp", 18), 7: ("bp", 12)}
    # the mixed list's members are 200000 ... as well (each event is scored on its own): first members
    mixed = office.query("select player_id, denomination, points from awards where event_id = ? and player_id in ('200000', "
                         "'200002', '200004', '200006', '200008', '200010')", [f"{ORG}/bk-lavec/sm-mixed"])
    got = {(int(p) - 200000) // 2 + 1: (d, int(v)) for p, d, v in zip(mixed["player_id"], mixed["denomination"], mixed["points"])}
    assert got == {1: ("gp", 10), 2: ("gp", 5), 3: ("gp", 4), 4: ("gp", 3), 5: ("bp", 21), 6: ("bp", 15)}


@pytest.mark.parametrize("teams, expected", [
    (8, {1: ("gp", 7), 2: ("gp", 4)}),
    (10, {1: ("gp", 7), 2: ("gp", 5), 3: ("gp", 3)}),
    (13, {1: ("gp", 10), 2: ("gp", 5), 3: ("gp", 3), 4: ("gp", 2)}),
])
def test_g2_by_the_number_of_teams(office, teams, expected):
    register(office)
    # each team meets every other once, 10 boards a match (fewer than 12: Tabell G2 holds)
    _post(office, "sm-lag-veteraner", teams, 4, sm_final="g2", matcher=str(teams - 1), brickor=str(10 * (teams - 1)), **G2)
    office.run()
    assert _quarantine(office) == []
    assert _by_place(office, "sm-lag-veteraner", 4) == expected


def test_g2_with_12_board_matches_and_wrong_settings_are_quarantined(office):
    register(office)
    _post(office, "sm-lag-juniorer", 8, 4, sm_final="g2", matcher="7", brickor="84", **G2)          # 12 a match
    _post(office, "sm-par-silver", 20, 2, sm_final="h2", **dict(H2, nivå="silver"))
    _post(office, "sm-fel-form", 20, 2, sm_final="g2", matcher="7", **dict(H2, datum="2024-11-19"))
    _post(office, "sm-okand", 20, 2, sm_final="h3", **dict(H2, datum="2024-11-20"))
    office.run()
    reasons = " | ".join(_quarantine(office))
    assert "84 boards in 7 matches is more than 11 boards a match" in reasons and "kansliet" in reasons
    assert "write nivå: guld, found silver" in reasons
    assert "sm_final: g2 is a lagbarometer final, but form is par" in reasons
    assert "sm_final: expected h2, h2-mixed or g2" in reasons
    assert office.query("select count(*) as n from awards")["n"][0] == 0

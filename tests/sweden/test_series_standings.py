"""sql/warehouse/se_series_standings.sql: the table after each night, against a hand count.

The view reads se_series_matches (one row per match: both teams' VP, results and points); here
that relation is made from the test's matches through `team_points`, as the series batch posts it."""
from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pandas as pd

from pipelines.core.sql import connect, query
from pipelines.sweden import series as SR


def _m(mid, date, h, a, vh, va):
    return dict(match_id=mid, source_file=mid, series_id="s", round=1, date=date, table="B2", divisions=1, division=1,
                boards=24, boards_played=None, scale_total=30, home=h, away=a, home_vp=Fraction(vh), away_vp=Fraction(va),
                home_penalty=Fraction(0), away_penalty=Fraction(0), walkover=False)


def test_standings_night_by_night():
    from pipelines.sweden.series_parse import matches_frame
    rows = [_m("1", "2026-10-01", "Ek", "Gran", 18, 12), _m("2", "2026-10-01", "Lind", "Asp", 15, 15),
            _m("3", "2026-10-08", "Gran", "Lind", 20, 10), _m("4", "2026-10-08", "Asp", "Ek", "17.5", "12.5")]
    t = SR.team_points(matches_frame(rows), SR.load_series_rules())
    exact = {c: t[c].map(lambda f: str(Decimal(f.numerator) / Decimal(f.denominator))) for c in ("own_vp", "points")}
    teams = t.assign(**exact)[["match_id", "date", "side", "team", "result", "own_vp", "points", "denomination"]]
    con = connect()
    con.register("team_rows", teams)
    con.execute("""
        create table se_series_matches as
        select 's' as series, cast(h.date as date) as date, h.team as home, a.team as away,
               cast(h.own_vp as decimal(18, 4)) as home_vp, cast(a.own_vp as decimal(18, 4)) as away_vp,
               h.result, a.result as away_result,
               cast(h.points as decimal(18, 2)) as home_points, cast(a.points as decimal(18, 2)) as away_points,
               h.denomination
        from team_rows as h
        inner join team_rows as a on a.match_id = h.match_id and a.side = 'away'
        where h.side = 'home'
    """)
    out = query(con, "warehouse/se_series_standings")
    night1 = out[out["night"].astype(str) == "2026-10-01"].set_index("team")
    assert night1["place"].to_dict() == {"Ek": 1, "Lind": 2, "Asp": 2, "Gran": 4}
    assert night1.loc["Ek", "points"] == Decimal(64) and night1.loc["Lind", "points"] == Decimal(32)
    night2 = out[out["night"].astype(str) == "2026-10-08"].set_index("team")
    # VP: Ek 18 + 12.5 = 30.5, Gran 12 + 20 = 32, Lind 15 + 10 = 25, Asp 15 + 17.5 = 32.5
    assert night2["vp"].to_dict() == {"Asp": Decimal("32.5"), "Gran": Decimal(32), "Ek": Decimal("30.5"), "Lind": Decimal(25)}
    assert night2["place"].to_dict() == {"Asp": 1, "Gran": 2, "Ek": 3, "Lind": 4}
    # bronze: Ek 64 (won) + 0 (12.5 lost), Asp 32 (draw) + 32 (17.5 drawn), Gran 0 + 64, Lind 32 + 0
    assert night2["points"].to_dict() == {"Asp": Decimal(64), "Gran": Decimal(64), "Ek": Decimal(64), "Lind": Decimal(32)}
    assert (night2["matches"] == 2).all()

"""sql/sweden/int_se_series_standings.sql: the table after each night, against a hand count."""
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
    reg = t.assign(own_vp=t["own_vp"].map(lambda f: str(Decimal(f.numerator) / Decimal(f.denominator))),
                   points=t["points"].map(lambda f: str(Decimal(f.numerator) / Decimal(f.denominator))))[
        ["series_id", "match_id", "date", "team", "result", "own_vp", "points"]]
    con = connect()
    con.register("se_series_team_points", reg)
    out = query(con, "sweden/int_se_series_standings", {"series_id": "s"})
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

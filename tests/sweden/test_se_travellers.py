"""A Mitchell sent as PBN (as Ruter exports it): scored by the bridge stage, each direction its own
competition, then the Swedish awards."""
from __future__ import annotations

import shutil
from pathlib import Path

from pipelines.sweden.travellers import standings_from_travellers

SAMPLES = Path(__file__).resolve().parents[2] / "data" / "samples" / "inbox" / "svensk-bridge"


def test_pbn_mitchell_is_two_competitions(office):
    shutil.copy(SAMPLES / "medlemsregister.csv", office.post("svensk-bridge/medlemsregister.csv", "").parent)
    for name in ("2024-09-10-tisdag.pbn", "2024-09-10-tisdag.event.txt"):
        office.post(f"svensk-bridge/bk-ess/{name}", (SAMPLES / "bk-ess" / name).read_bytes())
    office.run()
    r = office.query("select competition, place, bp from se_results order by competition, place")
    assert sorted(set(r["competition"])) == ["NS", "ÖV"]
    for direction in ("NS", "ÖV"):
        part = r[r["competition"] == direction]
        assert len(part) == 12
        assert [int(v) for v in part["bp"]][:5] == [24, 16, 11, 8, 0]  # Tabell A1 row 12 in each direction


def test_pbn_without_member_numbers_is_refused():
    pbn = (SAMPLES / "bk-ess" / "2024-09-10-tisdag.pbn").read_text(encoding="utf-8")
    pbn = pbn.replace(" 100100 100101", "")
    st, problems = standings_from_travellers("x/t.pbn", pbn.encode("utf-8"))
    assert st is None and problems

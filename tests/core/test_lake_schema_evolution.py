"""A column added to a model must not make older Parquet files unreadable (issue 11): the lake,
the audits and the warehouse read lake files by column name, and a column the older files do
not have reads as null.

The test writes "files of the previous schema" the way they would have been written: it rewrites
the committed award files without the `reverses_award_id` column (as if the model had gained it
after they were written), then runs another night and a correction on top of them."""
from __future__ import annotations

from datetime import date

import pyarrow.parquet as pq

from office import Office  # tests/office.py
from pipelines.core import run as nightly
from pipelines.core.lake import Lake
from pipelines.core.settings import StatePaths
from schemas.ledger import AwardLine

GAME_1 = "2026-09-03\n・1位A 35000\n・2位B 28000\n・3位C 22000\n・4位D 15000\n"
GAME_2 = "2026-09-10\n・1位B 38000\n・2位C 27000\n・3位D 21000\n・4位A 14000\n"


def _rewrite_without(state, table: str, column: str) -> int:
    files = sorted((state / "lake" / table).rglob("*.parquet"))
    for f in files:
        t = pq.read_table(f)
        pq.write_table(t.drop_columns([column]), f)
    return len(files)


def test_older_files_without_a_new_column_still_read(tmp_path):
    office = Office(tmp_path)
    office.post("sofu-mahjong/2026-09-03.txt", GAME_1)
    assert office.run(as_of=date(2026, 9, 4)).exit_code == nightly.EXIT_OK
    assert _rewrite_without(office.state, "awards", "reverses_award_id") >= 1

    lake = Lake.open(StatePaths(office.state))
    old = lake.read("awards", AwardLine)
    assert len(old) == 4 and old["reverses_award_id"].isna().all()

    # another night, then a correction of the first file (its old lines are read and reversed)
    office.post("sofu-mahjong/2026-09-10.txt", GAME_2)
    assert office.run(as_of=date(2026, 9, 11)).exit_code == nightly.EXIT_OK
    office.post("sofu-mahjong/2026-09-03.txt", GAME_1.replace("2位B 28000\n・3位C 22000", "2位C 28000\n・3位B 22000"))
    assert office.run(as_of=date(2026, 9, 12)).exit_code == nightly.EXIT_OK

    lines = office.query("select entry_type, count(*) as n, count(reverses_award_id) as reversing from awards group by 1 order by 1")
    assert lines.astype(int, errors="ignore").values.tolist() == [["award", 12, 0], ["reversal", 4, 4]]
    # by hand: game 1 corrected (C 2nd 4, B 3rd 2) and game 2 (B 7, C 4, D 2, A 0)
    balances = office.query("select player_id, sum(points) as p from balances group by 1 order by 1")
    assert [(p, int(v)) for p, v in zip(balances["player_id"], balances["p"])] == [("A", 7), ("B", 9), ("C", 8), ("D", 2)]

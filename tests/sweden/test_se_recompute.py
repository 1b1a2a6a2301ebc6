"""Recompute after a Swedish table is corrected (issue 11).

Hand computation from the seed's table A1 (page 6), row 8 pairs: 16, 11, 8 bp to places 1-3
(both players of a pair). The office corrects the cell for 2nd place to 12 (as if an erratum were
found): only pair 2's two players change, each a reversal of 11 and a new line of 12; pairs 1 and
3 are untouched; the result list view and the event's publication show 12; a second recompute
posts nothing."""
from __future__ import annotations

import csv
from datetime import date
from decimal import Decimal

from pipelines.core import run as nightly
from se_helpers import MEMBERS, ORG, post_event, register


def _recompute(office, **kw):
    return nightly.run(office.inbox, office.state, date(2024, 12, 1), office.data_dir(), recompute=nightly.Recompute(**kw))


def test_a_corrected_a1_cell_reposts_only_its_place(office):
    register(office)
    post_event(office, "bk-lavec", "2024-10-01-tisdag", 8, datum="2024-10-01")
    assert office.run(as_of=date(2024, 10, 2)).exit_code == nightly.EXIT_OK
    pair_2 = MEMBERS[2:4]
    held = office.query("select member, bp from se_holdings order by member")
    assert dict(zip(held["member"], held["bp"]))[pair_2[0]] == Decimal(11)

    a1 = office.data / "rules" / "sweden" / "table_a1.csv"
    text = a1.read_text(encoding="utf-8")
    assert text.count("se-2009,8,2,bp,11\n") == 1
    a1.write_text(text.replace("se-2009,8,2,bp,11\n", "se-2009,8,2,bp,12\n"), encoding="utf-8")

    done = _recompute(office, organisation=ORG, reason="A1 row 8, 2nd place")
    lines = office.query("select entry_type, player_id, points from awards where run_id = ? order by 1, 2", [done.run_id])
    assert list(zip(lines["entry_type"], lines["player_id"], lines["points"])) == (
        [("award", m, Decimal("12.00")) for m in pair_2] + [("reversal", m, Decimal("-11.00")) for m in pair_2])
    held = dict(zip(*office.query("select member, bp from se_holdings").values.T))
    assert [held[m] for m in MEMBERS[:6]] == [16, 16, 12, 12, 8, 8]
    results = office.query("select entrant, bp from se_results order by cast(entrant as int)")
    assert [int(v) for v in results["bp"][:3]] == [16, 12, 8]
    page = next((office.state / "publications").rglob("2024-10-01-tisdag/*.csv"))
    rows = list(csv.reader(page.read_text(encoding="utf-8-sig").splitlines(), delimiter=";"))
    header = rows[0]
    assert rows[2][header.index("bp")] == "12", rows[:4]
    again = _recompute(office, organisation=ORG)
    assert again.report["award_lines"] == {"posted": 0, "reversals": 0}


def test_results_written_before_the_ranking_get_their_ranking_points_from_a_recompute(office):
    """A lake written before ranking points existed has rp null (docs/sweden.md, "The national
    ranking"): simulated by emptying the columns in the lake's file. A recompute over the whole range
    writes the result rows again with them: p. 16's 52-pair gold event, 1st 52 sp → 5.2 gp × 15 = 78 rp,
    2nd 35 sp (Tabell D row 52: ⌈52 × 2/3⌉) → 3.5 gp × 15 = 52.5 → 53 rp; no award line changes."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    register(office)
    post_event(office, "malmo-bk", "guld", 52, nivå="guld", brickor="60", sanktion="FSB-G-1", datum="2024-11-01")
    office.run(as_of=date(2024, 11, 2))
    files = list((office.state / "lake" / "se_results").rglob("*.parquet"))
    assert len(files) == 1
    table = pq.read_table(files[0])
    for column in ("rp", "rp_basis"):
        i = table.schema.get_field_index(column)
        table = table.set_column(i, table.schema.field(i), pa.nulls(len(table), table.schema.field(i).type))
    pq.write_table(table, files[0])
    office.run(as_of=date(2024, 11, 3))
    assert office.query("select count(rp) as n from se_results")["n"][0] == 0
    done = _recompute(office, organisation=ORG, reason="ranking points of an older lake")
    assert done.report["award_lines"] == {"posted": 0, "reversals": 0}
    r = office.query("select place, rp, rp_basis from se_results order by place limit 2")
    assert list(r["rp"]) == [Decimal("78.00"), Decimal("53.00")]
    assert list(r["rp_basis"]) == ["guld: 5.2 gp × 15 = 78 rp", "guld: 3.5 gp × 15 = 52.5 → 53 rp"]
    ranking = office.query("select member, ranking_points from se_ranking where member in ('200000', '200002') order by member")
    assert list(ranking["ranking_points"]) == [Decimal("78.00"), Decimal("53.00")]

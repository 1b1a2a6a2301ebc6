"""Recompute in date order (issue 11): a changed early award moves a later event's strat.

Setting (test_jcbl_pipeline): S7a opens with 499.50 RP + 0.30 BP = 499.80 MP. The weekly game of
2024-06-05 (placing component 0.02 per pair) gives S7a, 1st, 0.30 BP: 500.10 MP on 2024-06-16, so
in the STF (strats A open, B 1000, C 500) pair N7 plays strat B: 0.08×29×0.4×13/16 = 0.75 RP.
The federation halves the weekly placing component to 0.01: the weekly award becomes 0.15 BP,
S7a holds 499.95 MP on 2024-06-16 and plays strat C, where N7 is 1st of 6 pairs: 0.08×26×1×11/16
= 1.43 RP (the hand computation of test_without_the_earlier_event_the_pair_stays_in_the_lower_strat).
The STF's rule data did not change: only the order of the recomputation (weekly first, with its
earlier lines set aside) moves S7a's STF line."""
from __future__ import annotations

from datetime import date
from decimal import Decimal as D

from pipelines.core import run as nightly
from test_jcbl_pipeline import OPENING, ORG, STF, STF_EVENT, WEEKLY, WEEKLY_EVENT, _stf_rp, data_dir, run  # noqa: F401

PLACING = "jcbl-2018-12,weekly_pairs,placing,placing,pair,BP,placing,0.02,"


def test_a_changed_early_award_moves_the_strat_of_a_later_event(office, data_dir):  # noqa: F811
    office.post(f"{ORG}/opening_balances.csv", OPENING.replace("S7a,2024-04-01,0,0", "S7a,2024-04-01,499.50,0.30"))
    office.post(f"{ORG}/w.event.txt", WEEKLY_EVENT)
    office.post(f"{ORG}/w.standings.csv", WEEKLY.replace("P1a P1b", "S7a P1b"))
    assert run(office, data_dir).exit_code == nightly.EXIT_OK
    office.post(f"{ORG}/stf.event.txt", STF_EVENT)
    office.post(f"{ORG}/stf.standings.csv", STF)
    assert run(office, data_dir).exit_code == nightly.EXIT_OK
    assert _stf_rp(office)["S7a"] == D("0.75")
    weekly = office.query("select points from awards where player_id = 'S7a' and event_id = ? and entry_type = 'award'",
                          [f"{ORG}/w"])["points"].tolist()
    assert weekly == [D("0.30")]

    table = data_dir / "rules" / "jcbl" / "award_components.csv"
    text = table.read_text(encoding="utf-8")
    assert text.count(PLACING) == 1
    table.write_text(text.replace(PLACING, PLACING.replace(",0.02,", ",0.01,")), encoding="utf-8")
    done = nightly.run(office.inbox, office.state, date(2024, 7, 2), data_dir,
                       recompute=nightly.Recompute(organisation=ORG, reason="weekly placing 0.01"))
    assert done.exit_code == nightly.EXIT_OK
    assert _stf_rp(office)["S7a"] == D("1.43")
    held = office.query("select sum(points) as p from awards where player_id = 'S7a' and event_id = ?", [f"{ORG}/w"])
    assert held["p"].iloc[0] == D("0.15")

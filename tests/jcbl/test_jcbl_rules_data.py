"""Rules are data: the tables validate, a new kind of sectional is a data change, bad tables are refused."""
from __future__ import annotations

import shutil
from decimal import Decimal
from pathlib import Path

import pytest

from jcbl_helpers import by_entrant, field
from pipelines.jcbl import JcblRulesError, award_components, load_rules, make_event
from pipelines.jcbl.rules import RULES_DIR

D = Decimal


def test_rules_load_and_pick_version_by_date():
    r = load_rules()
    assert r.for_date("2024-06-02").rule_version == "jcbl-2018-12"
    with pytest.raises(JcblRulesError, match="no JCBL rule version in effect on 2018-11-30"):
        r.for_date("2018-11-30")


def test_new_sectional_kind_is_a_data_change(tmp_path: Path):
    d = tmp_path / "jcbl"
    shutil.copytree(RULES_DIR, d)
    with open(d / "coefficients.csv", "a") as f:
        f.write('jcbl-2018-12,seniors,12,16,Seniors,"an invented coefficient for the test"\n')
    with open(d / "event_kinds.csv", "a") as f:
        f.write('jcbl-2018-12,seniors_teams,Seniors Teams,,seniors,true,"test kind"\n')
    with open(d / "award_components.csv", "a") as f:
        f.write("jcbl-2018-12,seniors_teams,placing,overall placing,team,RP,placing,0.22,10,reciprocal,,,false,false,false,,,,\n")
    rules = load_rules(d)
    lines = award_components(make_event(event_id="s", event_date="2024-06-02", kind="seniors_teams"), field("team", 10), None, rules)
    assert by_entrant(lines, "placing")["T1"] == D("3.30")  # 0.22 × 20 × 12/16


@pytest.mark.parametrize("table,line,fragment", [
    ("place_ratios.csv", "jcbl-2018-12,21,0.05\n", "without gaps"),
    ("flights.csv", "jcbl-2018-12,3,A,1,1,x\n", "exactly the flights"),
    ("award_components.csv", "jcbl-2018-12,ccg_pairs,extra,x,pair,XP,placing,0.1,0,ratio,,,false,false,false,,,,\n",
     # the appended line is line 16 of the file (a header and 14 lines before it)
     "award_components.csv line 16 column denomination: expected one of 'RP', 'BP', found 'XP'"),
    ("event_kinds.csv", 'jcbl-2018-12,odd_kind,Odd,,nonexistent,false,"x"\n', "names coefficient 'nonexistent'"),
    ("coefficients.csv", "jcbl-2018-12,bad,abc,16,x,x\n", "expected a decimal number"),
])
def test_bad_rule_tables_are_refused(tmp_path: Path, table, line, fragment):
    d = tmp_path / "jcbl"
    shutil.copytree(RULES_DIR, d)
    with open(d / table, "a") as f:
        f.write(line)
    with pytest.raises(JcblRulesError, match=fragment):
        load_rules(d)

"""The rule tables are data, validated on load: a broken table fails loudly, never silently."""

from __future__ import annotations

import shutil
from decimal import Decimal

import pandas as pd
import pytest

from pipelines.backgammon import compute_awards, load_rules
from schemas import backgammon as sch


@pytest.fixture()
def rules_dir(bg, tmp_path):
    target = tmp_path / "rules"
    shutil.copytree(bg.ROOT / "data" / "rules" / "backgammon", target)
    return target


def _edit(path, old, new):
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


@pytest.mark.parametrize(
    "table,old,new,message",
    [
        ("placing_awards.csv", "ucmp-1,Novice,4th,3,0.22\n", "", "lacks 1 cells"),
        ("placing_awards.csv", "Novice,4th,3,0.22", "Novice,4th,3,0.10", "must not pay less in a higher column"),
        ("placing_awards.csv", "Novice,4th,3,0.22", "Novice,4th,3,0.2", "printed with two decimals"),
        # the office's mistake named as the office reads its file: the line (header = line 1), the
        # column, what belongs there and what is there
        ("placing_awards.csv", "Novice,4th,3,0.22", "Novice,4th,3,abc",
         "placing_awards.csv line 114 column points: expected a decimal number, found 'abc'"),
        ("place_rows.csv", "ucmp-1,5-8 tie,8,5,8,4", "ucmp-1,5-8 tie,8,5,8,3", "capacity must equal"),
        ("columns.csv", "ucmp-1,2,12,23", "ucmp-1,2,13,23", "contiguous"),
        ("rule_versions.csv", "ROUND_HALF_UP", "HALF_UP",
         "rule_versions.csv line 2 column rounding: expected one of 'ROUND_05UP', .*'ROUND_HALF_UP', 'ROUND_UP', found 'HALF_UP'"),
        ("match_awards.csv", "ucmp-1,Novice,0.02", "ucmp-1,Novice,-0.02", "positive decimal"),
    ],
)
def test_broken_rule_tables_are_refused(rules_dir, table, old, new, message):
    _edit(rules_dir / table, old, new)
    with pytest.raises(Exception, match=message.replace("(", r"\(")):
        load_rules(rules_dir)


def test_rule_tables_of_the_repository_load(rules):
    assert rules.levels == ["Advanced/Open", "Intermediate", "Novice"]
    assert rules.versions[["rule_version", "rounding", "quantum"]].values.tolist() == [
        ["ucmp-1", "ROUND_HALF_UP", Decimal("0.01")]
    ]
    assert rules.elimination.sort_values("rounds_before_final")[["rounds_before_final", "outcome", "place_row"]].values.tolist() == [
        [0, "won", "1st"], [0, "lost", "2nd"], [1, "lost", "3/4 tie"], [2, "lost", "5-8 tie"]
    ]


def _event(**changes):
    row = dict(event_id="c/2025-01-07/e/main", organisation="c", event_date=pd.Timestamp("2025-01-07"),
               event_name="e", bracket="main", level="Novice", method="players", multiplier=Decimal("1"),
               rounds=3, players=8, source_file="f", location="line 1")
    row.update(changes)
    return pd.DataFrame([row])


def test_events_schema_ties_the_event_id_to_its_event():
    sch.Events.validate(_event())
    with pytest.raises(Exception, match="event_id must be"):
        sch.Events.validate(_event(event_id="c/2025-01-08/e/main"))


def test_compute_awards_accepts_a_multiplier_read_back_as_float_or_text(rules):
    players = pd.DataFrame([dict(event_id="c/2025-01-07/e/main", player_id="Ann", place_row="1st", matches_won=2,
                                 source_file="f", location="line 2")])
    for multiplier in (1.5, "1.5", Decimal("1.5")):
        awards = compute_awards(_event(multiplier=multiplier), players, rules)
        # Novice 1st, 1 to 11: 0.50 × 1.5 = 0.75
        assert awards["points"].tolist() == [Decimal("0.75")]


def test_players_schema_grain_is_event_and_player():
    row = dict(event_id="c/2025-01-07/e/main", player_id="Ann", place_row=None, matches_won=1,
               source_file="f", location="line 2")
    with pytest.raises(Exception, match="multiple_fields_uniqueness|unique"):
        sch.Players.validate(pd.DataFrame([row, row]))

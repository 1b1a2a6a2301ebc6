"""JCBL masterpoints (Japan Contract Bridge League): red points (RP) and black points (BP).

Public API:
    load_rules(rules_dir=None) -> JcblRules
    make_event(**settings) -> {"event": DataFrame, "strats": DataFrame}
    parse_event(source_file, data) -> (frames, quarantine)
    parse_standings(source_file, data) -> (frames, quarantine)
    parse_opening_balances(source_file, data) -> (frames, quarantine)
    parse_members(source_file, data) -> (frames, quarantine)   the member register members.csv
    check_event(event, standings, holdings, rules) -> quarantine DataFrame
    award_components(event, standings, holdings, rules) -> DataFrame (one line per component)
    compute_awards(event, standings, holdings, rules) -> DataFrame (one line per player per denomination)
    holdings_as_of(awards, opening_balances, as_of) -> DataFrame (player_id, masterpoints)
"""
from pipelines.jcbl.awards import (
    JcblInputError,
    aggregate_awards,
    award_components,
    check_event,
    compute_awards,
    field_cut,
    make_event,
    winning_vp,
)
from pipelines.jcbl.money import to_points
from pipelines.jcbl.parse import event_id_of, holdings_as_of, parse_event, parse_members, parse_opening_balances, parse_standings
from pipelines.jcbl.rules import JcblRules, JcblRulesError, RuleSet, load_rules

__all__ = [
    "JcblInputError", "JcblRules", "JcblRulesError", "RuleSet", "aggregate_awards", "award_components",
    "check_event", "compute_awards", "event_id_of", "field_cut", "holdings_as_of", "load_rules", "make_event",
    "parse_event", "parse_members", "parse_opening_balances", "parse_standings", "to_points", "winning_vp",
]

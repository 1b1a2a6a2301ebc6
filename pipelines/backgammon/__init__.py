"""Backgammon club master points (Universal Club Master Points System, seed 001).

Pure core for the pipeline: parse the two input formats, compute award lines, build the
points race. See docs/backgammon.md for the formats and decisions.
"""

from .awards import compute_awards
from .parse import detect_format, parse_file, parse_match_log, parse_results
from .rules import BackgammonRules, load_rules
from .standings import backgammon_standings

SYSTEM = "backgammon"
DENOMINATION = "club_mp"

__all__ = [
    "BackgammonRules",
    "DENOMINATION",
    "SYSTEM",
    "backgammon_standings",
    "compute_awards",
    "detect_format",
    "load_rules",
    "parse_file",
    "parse_match_log",
    "parse_results",
]

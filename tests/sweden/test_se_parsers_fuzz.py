"""The Swedish parsers never raise, whatever the bytes (problems become quarantine rows)."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines.sweden.parse import parse_event, parse_members, parse_standings

LINES = st.lists(st.sampled_from(["plac;par;medlemmar", "1;1;200000 200001", "2=;2;200002 200003", "x;;", "2;3;1 2 3",
                                  "datum: 2024-10-01", "nivå: guld", "brickor: -1", "mött: alla", "grupper: 9 Z",
                                  "final: A", "å;ä;ö", "", "#", ";;;;", "medlemsnummer;namn;klubb",
                                  "final: B", "final: Ö", "carry_over: ja", "carry_over: kanske", "kval_par: 60", "första_plac: 0",
                                  "tk_tillstånd: TK 1", "fördelning: 4 sp, 10 8 bp", "fördelning: 1 gp", "fördelning: sp",
                                  "kvällar: 2024-10-01 12, 2024-10-08 12", "kvällar: 2024-02-30 12, 2024-10-08 12",
                                  "kvällar: 2024-10-01", "nivå: brons", "form: par",
                                  "plac;par;medlemmar;kväll1;kväll2", "1;1;200000 200001;55;-"]), max_size=12)


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=300))
def test_random_bytes(data):
    parse_event("x/e.event.txt", data)
    parse_standings("x/e.standings.csv", data, "par")
    parse_members("x/medlemsregister.csv", data)


@settings(max_examples=60, deadline=None)
@given(LINES, st.sampled_from(["par", "lagbarometer", "individuell", None]))
def test_plausible_lines(lines, form):
    data = "\n".join(lines).encode("utf-8")
    ev, q = parse_event("x/e.event.txt", data)
    assert ev is None or not q
    stand, q = parse_standings("x/e.standings.csv", data, form)
    assert (stand is None) == bool(q)
    parse_members("x/medlemsregister.csv", data)


def test_places_must_be_ranks():
    data = b"plac;par;medlemmar\n1;1;200000 200001\n2=;2;200002 200003\n2=;3;200004 200005\n3;4;200006 200007\n"
    stand, q = parse_standings("x/e.standings.csv", data, "par")
    assert stand is None
    assert q == [("x/e.standings.csv", "line 5", "plac: expected 4 (3 entrant(s) placed before it), found 3; tied entrants "
                                                 "share a place and the next one is placed after all of them (1, 2=, 2=, 4)")]

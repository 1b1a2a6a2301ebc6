"""The night's result lists read at once (pipelines/sweden/night.py) give exactly what the
documented parser gives file by file: the same rows for a list without problems, the same
quarantine rows otherwise, whatever mix of lists is read together."""
from __future__ import annotations

from pathlib import Path

import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines.core.settings import DATA_DIR
from pipelines.sweden.night import read_lists
from pipelines.sweden.parse import parse_standings

COLUMNS = ["location", "line", "place", "tied", "entrant", "members", "played", "section", "hcp_place", "names"]
HEADERS = ["plac;par;medlemmar", "plac,par,medlemmar", "plac\tpar\tmedlemmar", "Plac;Par;Medlemmar;Spelat",
           "plac;lag;medlemmar;sektion", "plac;par;medlemmar;hcp_plac", "plac;par;medlemmar;poäng;namn", "plac;par;plac",
           "place;entrant;members;played;section"]
LINES = ["1;1;200000 200001", "2=;2;200002 200003", "2=;3;200004 200005", "4;4;200006 200007", "3;5;200008 200009",
         "1;1;200000 200001;NS", "1;2;200002 200003;ÖV", "2;3;200004 200005;ns", "1;1;200000 200001;3 3;2",
         "2;2;200002 200003;;1", "1;1;\"200000 200001\"", "0;1;200000 200001", "x;;", "1 =;1;200000 200001",
         "1;1;200000,200001", "1;1;200000 200000", "1;1;２００００１ 200002", "1,1,200000 200001", "1\t1\t200000 200001",
         "1;1;200000 200001 200002 200003", "2;1;200002 200003", "# kommentar", "", "1;1;200000 200001;12;Åsa", "1;;200000 200001",
         "1;1;200000 200001;x 3", "2;2;200002 200003;3", "1;A;200010 200011;EW", "1;1;200000\x00 200001"]


def _rows(frame: pd.DataFrame) -> list[tuple]:
    out = []
    for r in frame[COLUMNS].itertuples(index=False):
        played = None if r.played is None or (not isinstance(r.played, list) and pd.isna(r.played)) else list(r.played)
        hcp = None if pd.isna(r.hcp_place) else int(r.hcp_place)
        out.append((r.location, int(r.line), int(r.place), bool(r.tied), r.entrant, list(r.members), played, r.section, hcp, r.names))
    return out


def _same_as_parser(files: list[tuple[str, bytes, str | None]]) -> None:
    night = read_lists([(i, name, data, form) for i, (name, data, form) in enumerate(files)])
    for i, (name, data, form) in enumerate(files):
        st_, problems = parse_standings(name, data, form)
        assert night.problems.get(i, []) == problems, name
        assert (i in night.read) == (st_ is not None), name
        if st_ is not None:
            assert _rows(night.frame(i)) == _rows(st_), name


def test_sample_lists():
    files = sorted((DATA_DIR / "samples" / "inbox" / "svensk-bridge").rglob("*.standings.csv"))
    _same_as_parser([(p.name, p.read_bytes(), "par") for p in files] + [(p.name + "-t", p.read_bytes(), "lagbarometer") for p in files])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(HEADERS), st.lists(st.sampled_from(LINES), max_size=8),
                          st.sampled_from(["par", "lagbarometer", "individuell", None]), st.sampled_from(["utf-8", "cp1252"])),
                min_size=1, max_size=6))
def test_any_mix_of_lists(lists):
    files = []
    for k, (header, lines, form, encoding) in enumerate(lists):
        text = "\n".join([header] + lines) + "\n"
        files.append((f"x/{k}.standings.csv", text.encode(encoding, errors="replace"), form))
    _same_as_parser(files)


def test_a_long_regular_night():
    files = []
    for k in range(40):
        n = 4 + k % 20
        lines = [f"{i + 1}{'=' if k % 7 == 0 and i in (1, 2) else ''};{i + 1};{300000 + 2 * i} {300001 + 2 * i}" for i in range(n)]
        if k % 7 == 0:
            lines[2] = lines[2].replace("3;", "2=;", 1)
        files.append((f"x/{k}.standings.csv", ("plac;par;medlemmar\n" + "\n".join(lines)).encode(), "par"))
    _same_as_parser(files)

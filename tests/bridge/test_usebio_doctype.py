"""USEBIO files as real writers emit them: a DOCTYPE naming an external DTD (relative name, http URL,
PUBLIC form; with and without the XML declaration; ISO-8859-1 and UTF-8) is accepted without fetching
or reading the DTD; internal subsets, entity declarations and entity references are quarantined.

Expectations by hand (Law 77, board 1, nobody vulnerable):
  3NT by N, 10 tricks: 40 + 30 + 30 (trick score 100) + 300 game bonus + 30 overtrick = NS +430
  2S by E, 8 tricks: 2 x 30 = 60 + 50 part-score bonus = EW +110, i.e. NS -110
"""

from pathlib import Path
from unittest import mock

import pytest

from tests.bridge.test_bridge_pipeline import office  # noqa: F401  (the bridge-only office fixture)

from pipelines.bridge.parse_usebio import parse_usebio

FIX = Path(__file__).parent / "fixtures"

ACCEPTED = ["usebio_doctype_relative_utf8.xml", "usebio_doctype_relative_latin1.xml", "usebio_doctype_url_utf8.xml",
            "usebio_doctype_no_declaration.xml", "usebio_doctype_no_declaration_latin1.xml", "usebio_doctype_public.xml"]
HOSTILE = {"usebio_hostile_billion_laughs.xml": "entities", "usebio_hostile_external_entity.xml": "entities",
           "usebio_hostile_internal_subset.xml": "internal subset",
           "usebio_hostile_parameter_entity.xml": "entities",
           "usebio_hostile_entity_reference.xml": "not well-formed",
           "usebio_hostile_other_root.xml": "internal subset or an unexpected form"}


def _no_network():
    """Any attempt to open a URL or a socket fails the test: the DTD must never be fetched."""
    def boom(*a, **k):
        raise AssertionError("the reader tried to fetch something")
    return mock.patch("socket.socket.connect", boom), mock.patch("urllib.request.urlopen", boom)


@pytest.mark.parametrize("name", ACCEPTED)
def test_a_doctype_naming_an_external_dtd_is_accepted_and_not_fetched(name):
    data = (FIX / name).read_bytes()
    p1, p2 = _no_network()
    with p1, p2:
        frames, q = parse_usebio(f"club/{name}", data)
    assert q.empty, q.to_dict("records")
    lines = frames["traveller_lines"].set_index("ns_pair")
    assert sorted(lines.index) == ["1", "2"]
    assert lines.loc["1", "score_ns"] == 430 and lines.loc["1", "tricks"] == 10
    assert lines.loc["2", "score_ns"] == -110 and lines.loc["2", "tricks"] == 8
    assert frames["events"]["name"].tolist() == ["Doctype Pairs"]
    # the accented name survives both encodings
    names = ";".join(frames["entrants"]["player_names"])
    assert "Zoë Brontë" in names


def test_the_dtd_file_is_never_opened(tmp_path, monkeypatch):
    """A real usebio_v1_2.dtd next to the file (here a hostile one) changes nothing: it is not read."""
    (tmp_path / "usebio_v1_2.dtd").write_text('<!ENTITY x SYSTEM "file:///etc/passwd">')
    monkeypatch.chdir(tmp_path)
    frames, q = parse_usebio("club/a.xml", (FIX / "usebio_doctype_relative_utf8.xml").read_bytes())
    assert q.empty and len(frames["traveller_lines"]) == 2


@pytest.mark.parametrize("name,why", sorted(HOSTILE.items()))
def test_hostile_doctypes_and_entities_are_quarantined_whole(name, why):
    frames, q = parse_usebio(f"club/{name}", (FIX / name).read_bytes())
    assert frames["traveller_lines"].empty
    assert q["location"].tolist() == ["whole file"]
    reason = q["reason"].iloc[0]
    assert why in reason
    assert "passwd" not in "".join(frames["events"].astype(str).values.ravel())


def test_two_doctypes_and_a_late_doctype_are_refused():
    data = (FIX / "usebio_doctype_relative_utf8.xml").read_bytes()
    twice = data.replace(b"<USEBIO ", b'<!DOCTYPE USEBIO SYSTEM "b.dtd">\n<USEBIO ', 1)
    q = parse_usebio("club/twice.xml", twice)[1]
    assert "more than one <!DOCTYPE>" in q["reason"].iloc[0]
    late = b"<?xml version='1.0'?>\n<!-- " + b"x" * 5000 + b' -->\n<!DOCTYPE USEBIO SYSTEM "u.dtd">\n' + data.split(b"\n", 2)[2]
    q = parse_usebio("club/late.xml", late)[1]
    assert "DOCTYPE" in q["reason"].iloc[0] and q["location"].tolist() == ["whole file"]


def test_files_with_the_writers_doctype_post_through_the_nightly_run(office):
    """End to end: the DOCTYPE fixture and the NP fixture (which also has the DOCTYPE) both post."""
    from pipelines.core import run as nightly
    from tests.bridge.test_bridge_pipeline import CLUB
    office.post(f"{CLUB}/2026-11-20-doctype.xml", (FIX / "usebio_doctype_relative_latin1.xml").read_bytes())
    office.post(f"{CLUB}/2026-11-21-np.xml", (FIX / "usebio_board_not_played.xml").read_bytes())
    assert office.run().exit_code == nightly.EXIT_OK
    n = office.query("select count(*) as n from session_standings")["n"].iloc[0]
    assert n == 4 + 6  # 2 NS + 2 EW pairs, and 3 NS + 3 EW pairs
    assert office.query("select count(*) as n from quarantine")["n"].iloc[0] == 0


def test_an_unknown_encoding_is_reported_as_such():
    data = (FIX / "usebio_doctype_relative_latin1.xml").read_bytes()
    data = data.replace(b"ISO-8859-1", b"NO-8859-1").replace(b"iso-8859-1", b"NO-8859-1")
    frames, q = parse_usebio("club/enc.xml", data)
    assert q["location"].tolist() == ["whole file"] and "names an encoding this reader does not know" in q["reason"].iloc[0]

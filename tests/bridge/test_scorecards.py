"""The notice board's pages players expect: travellers sorted by score with suits in colour, and a
personal scorecard per pair (every board, seat, opponents, contract, score, matchpoints, %), all
linked. Expected rows worked out by hand from the fixtures (tests/bridge/test_usebio_quirks.py)."""
from __future__ import annotations

import re
from pathlib import Path

from pipelines.core import run as nightly
from tests.bridge.test_bridge_pipeline import CLUB, office  # noqa: F401  (fixture)

FIX = Path(__file__).parent / "fixtures"


def _rows(html: str) -> list[list[str]]:
    body = html.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    return [[re.sub(r"<[^>]+>", "", c) for c in re.findall(r"<td[^>]*>(.*?)</td>", tr)] for tr in body.split("</tr>") if "<td" in tr]


def test_scorecards_and_sorted_travellers(office):
    """usebio_np_passed_in.xml (top 4 a board):
      NS1: board 1 NS v EW1 4S by N = +420, 4 MP = 100.00 %; board 2 NS v EW3 2S by S = +110, 1 MP = 25.00 %;
           total 5 of 8 = 62.50 %.
      EW2: board 1 v NS2 passed in, 0, 2 MP = 50.00 %; board 2 v NS3 3S by S =, -140 for EW, 0 MP = 0.00 %;
           total 2 of 8 = 25.00 %.
    Board 2's traveller by NS score, best first: 140 (NS3), then 110 (NS1), 110 (NS2)."""
    office.post(f"{CLUB}/2026-11-23-passed-in.xml", (FIX / "usebio_np_passed_in.xml").read_bytes())
    assert office.run().exit_code == nightly.EXIT_OK
    folder = next((office.state / "publications" / CLUB).glob("*passed-in-pairs"))
    index = (folder / "index.html").read_text("utf-8")
    assert '<a href="pair-NS-1.html">1</a>' in index and '<a href="pair-EW-2.html">2</a>' in index
    ns1 = (folder / "pair-NS-1.html").read_text("utf-8")
    assert _rows(ns1) == [["1", "NS", "1", "4♠", "N", "=", "420", "4.00", "100.00"],
                          ["2", "NS", "3", "2♠", "S", "=", "110", "1.00", "25.00"]]
    assert "62.50" in ns1 and "A One; A Two" in ns1 and 'href="index.html#b1"' in ns1
    ew2 = (folder / "pair-EW-2.html").read_text("utf-8")
    assert _rows(ew2) == [["1", "EW", "2", "Pass", "", "", "0", "2.00", "50.00"],
                          ["2", "EW", "3", "3♠", "S", "=", "−140", "0.00", "0.00"]]
    board2 = index.split('id="b2"', 1)[1].split("</table>", 1)[0]
    assert [r[0] for r in _rows(board2)] == ["3", "1", "2"]  # NS pairs in score order: 140, 110, 110


def test_hearts_and_diamonds_are_red(office):
    office.post(f"{CLUB}/2026-11-27-friday-pairs.csv", (FIX / "bridgemate_receiveddata.csv").read_bytes())
    assert office.run().exit_code == nightly.EXIT_OK
    index = next((office.state / "publications" / CLUB).glob("*friday-pairs")).joinpath("index.html").read_text("utf-8")
    assert '4<span class="red">♥</span>' in index and '4<span class="black">♠</span>' in index
    assert '3<span class="nt">NT</span>' in index

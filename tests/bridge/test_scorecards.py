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


def test_the_hand_diagram_and_par_when_the_file_has_them(office):
    """A PBN game with [Deal "E:..."] (hands clockwise from East) and [OptimumScore "NS 620"]: the
    reader stores the deal from North (N: north east south west) and the board shows the four hands
    and the par; a deal that is not 52 different cards is not shown (the results still post)."""
    from pipelines.bridge.parse_pbn import parse_pbn
    deal = "E:K98652.J954.K65. 7.AQ732.Q87.Q982 T3.KT6.JT2.K7653 AQJ4.8.A943.AJT4"
    pbn = ('[Event "Deal Pairs"]\n[Date "2026.11.28"]\n[Board "1"]\n[Dealer "N"]\n[Vulnerable "None"]\n'
           f'[Deal "{deal}"]\n[OptimumScore "NS 620"]\n'
           '[ScoreTable "PairId_NS\\\\2R;PairId_EW\\\\2R;Contract\\\\5L;Declarer\\\\1R;Result\\\\2R;Score_NS\\\\6R"]\n'
           '1 1 4S N 10 420\n2 2 4S N 11 450\n')
    frames, q = parse_pbn("club/deal.pbn", pbn.encode())
    assert q.empty, q.to_dict("records")
    lines = frames["traveller_lines"]
    # E: east first, so North is the fourth hand, East the first, South the second, West the third
    assert set(lines["deal"]) == {"N:AQJ4.8.A943.AJT4 K98652.J954.K65. 7.AQ732.Q87.Q982 T3.KT6.JT2.K7653"}
    assert set(lines["par"]) == {"NS 620"}
    broken = parse_pbn("club/deal.pbn", pbn.replace("AJT4\"", "AJT3\"").encode())[0]["traveller_lines"]
    assert set(broken["deal"]) == {""} and len(broken) == 2
    office.post(f"{CLUB}/2026-11-28-deal.pbn", pbn)
    assert office.run().exit_code == nightly.EXIT_OK
    index = next((office.state / "publications" / CLUB).glob("*deal-pairs")).joinpath("index.html").read_text("utf-8")
    assert "Par NS 620" in index and 'class="deal"' in index
    # North's hand: spades AQJ4, hearts 8, diamonds A943, clubs AJ104 (T shown as 10)
    north = index.split("<td>N<br>", 1)[1].split("</td>", 1)[0]
    assert re.sub(r"<[^>]+>", " ", north).split() == ["♠", "AQJ4", "♥", "8", "♦", "A943", "♣", "AJ104"]


def test_a_howell_pairs_scorecard_has_both_seats(office):
    """usebio_howell_with_phantom.xml (worked out in tests/bridge/test_usebio_quirks.py, top 2 a board):
    pair 5 sat out boards 1-2 and sat East-West on boards 3-4: board 3 v NS 2, 2H by E made +1 = +140
    for EW, 2 MP = 100.00 %; board 4 v NS 2, 1NT by N made = -90 for EW, 1 MP = 50.00 %; total 75.00 %.
    Pair 1 sat North-South on all four boards: 420 (2), 600 (0), -110 (2), 90 (1)."""
    office.post(f"{CLUB}/2026-11-26-phantom.xml", (FIX / "usebio_howell_with_phantom.xml").read_bytes())
    assert office.run().exit_code == nightly.EXIT_OK
    folder = next((office.state / "publications" / CLUB).glob("*howell-with-phantom"))
    assert _rows((folder / "pair-5.html").read_text("utf-8")) == [
        ["3", "EW", "2", "2♥", "E", "+1", "140", "2.00", "100.00"],
        ["4", "EW", "2", "1NT", "N", "=", "−90", "1.00", "50.00"]]
    p1 = _rows((folder / "pair-1.html").read_text("utf-8"))
    assert [(r[0], r[1], r[6], r[7]) for r in p1] == [("1", "NS", "420", "2.00"), ("2", "NS", "600", "0.00"),
                                                       ("3", "NS", "−110", "2.00"), ("4", "NS", "90", "1.00")]
    assert "75.00" in (folder / "pair-5.html").read_text("utf-8")


def test_a_boards_percentage_is_the_exact_matchpoints_rounded_half_up_once(office):
    """mitchell_factored_thirds.csv (5 tables, top 8 on the 2/1/0 scale, factored by Neuberg to 5
    results: (mp + 1) × 5 / n − 1):
      board 2 has 3 results (650, 620, −100): NS 1 beats two, 4 MP → (4 + 1) × 5/3 − 1 = 22/3 of 8
        = 91.666… % → 91.67 (the 2-place 7.33 / 8 would give 91.62); EW 3 against it 0 MP →
        (0 + 1) × 5/3 − 1 = 2/3 of 8 = 8.333… % → 8.33 (not 8.38);
      board 3 has 4 real results and an average plus: NS 1's −620 is the lowest, 0 MP →
        (0 + 1) × 5/4 − 1 = 1/4 of 8 = 3.125 % → 3.13 half-up (3.12 half-to-even)."""
    office.post(f"{CLUB}/2026-11-25-thirds.csv", (FIX / "mitchell_factored_thirds.csv").read_bytes())
    assert office.run().exit_code == nightly.EXIT_OK
    folder = next((office.state / "publications" / CLUB).glob("*audit-thirds*"))
    ns1 = {r[0]: r for r in _rows((folder / "pair-NS-1.html").read_text("utf-8"))}
    assert (ns1["2"][7], ns1["2"][8]) == ("7.33", "91.67")
    assert (ns1["3"][7], ns1["3"][8]) == ("0.25", "3.13")
    ew3 = {r[0]: r for r in _rows((folder / "pair-EW-3.html").read_text("utf-8"))}
    assert (ew3["2"][7], ew3["2"][8]) == ("0.67", "8.33")

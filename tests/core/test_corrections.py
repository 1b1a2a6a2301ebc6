"""Correction pages (issue 15): a corrected file's page shows the lines first posted, their
reversal and the lines posted in their place, and per player the points before and after.

Expected values by hand from the mahjong seed's placement points (1st 7, 2nd 4, 3rd 2, 4th 0; no
bust, no 3-koro at these scores): a game A, B, C, D corrected to B, C, D, A moves A 7 → 0
(−7.00), B 4 → 7 (+3.00), C 2 → 4 (+2.00), D 0 → 2 (+2.00)."""
from __future__ import annotations

import re
from html import unescape

from office import Office
from pipelines.core.site import player_slug

ORG = "sofu-mahjong"


def game(day: int, order: list[str]) -> str:
    return f"2026-11-{day:02d}\n" + "".join(f"・{i + 1}位{p} {40000 - 10000 * i}\n" for i, p in enumerate(order))


def rows(html: str, heading: str) -> list[list[str]]:
    """The cells of the table under the <h2> that starts with `heading`."""
    section = html.split(f"<h2>{heading}", 1)[1].split("</table>", 1)[0]
    return [[unescape(re.sub(r"<[^>]+>", "", cell)).strip() for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
            for row in re.findall(r"<tr>(.*?)</tr>", section.split("<tbody>", 1)[1], re.S)]


def test_a_corrected_file_has_a_page_with_original_reversal_and_correction(office: Office):
    site = office.state / "publications" / ORG
    office.post(f"{ORG}/a.txt", game(3, ["A", "B", "C", "<b>D</b>"]))
    assert office.run().exit_code == 0
    assert "<td>" not in (site / "corrections" / "index.html").read_text(encoding="utf-8")  # none yet, said so
    assert 'href="corrections/index.html"' in (site / "index.html").read_text(encoding="utf-8")
    office.post(f"{ORG}/a.txt", game(3, ["B", "C", "<b>D</b>", "A"]))
    assert office.run().exit_code == 0
    listing = (site / "corrections" / "index.html").read_text(encoding="utf-8")
    (href,) = re.findall(r'<a href="([^"]+\.html)">sofu-mahjong/a.txt</a>', listing)
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}-sofu-mahjong-a-txt-[0-9a-f]{8}\.html", href)
    page = (site / "corrections" / href).read_text(encoding="utf-8")
    assert "&lt;b&gt;D&lt;/b&gt;" in page and "<b>D</b>" not in page
    per_player = {r[0]: r[2:] for r in rows(page, "プレーヤーごと")}
    assert per_player == {"A": ["7.00", "0.00", "-7.00"], "B": ["4.00", "7.00", "3.00"],
                          "C": ["2.00", "4.00", "2.00"], "<b>D</b>": ["0.00", "2.00", "2.00"]}
    original = {r[0]: r[2] for r in rows(page, "最初に記帳された行")}
    reversal = {r[0]: r[2] for r in rows(page, "その取消")}
    correction = {r[0]: r[2] for r in rows(page, "代わりに記帳された行")}
    assert original == {"A": "7.00", "B": "4.00", "C": "2.00", "<b>D</b>": "0.00"}
    assert reversal == {"A": "-7.00", "B": "-4.00", "C": "-2.00", "<b>D</b>": "0.00"}
    assert correction == {"B": "7.00", "C": "4.00", "<b>D</b>": "2.00", "A": "0.00"}
    # the players link their pages; the Atom feed's entry for the correction links this page
    assert f'href="../players/{player_slug("A")}.html"' in page
    assert f'href="corrections/{href}"' in (site / "feed.atom").read_text(encoding="utf-8")
    # written once: a later night leaves it as it is
    stamp = (site / "corrections" / href).stat().st_mtime_ns
    office.post(f"{ORG}/b.txt", game(5, ["A", "B", "C", "E"]))
    assert office.run().exit_code == 0
    assert (site / "corrections" / href).stat().st_mtime_ns == stamp


def test_a_withdrawn_result_is_a_correction_with_nothing_in_its_place(office: Office):
    """A new version of a file that holds no valid game (quarantined) withdraws the old version's lines."""
    site = office.state / "publications" / ORG
    office.post(f"{ORG}/a.txt", game(3, ["A", "B", "C", "D"]))
    office.post(f"{ORG}/b.txt", game(4, ["A", "B", "C", "D"]))
    assert office.run().exit_code == 0
    office.post(f"{ORG}/b.txt", "2026-11-04\n・1位A 40000\n")
    assert office.run().exit_code == 3
    listing = (site / "corrections" / "index.html").read_text(encoding="utf-8")
    assert "取り消された成績" in listing  # feed_withdrawn, in the organisation's language
    (href,) = re.findall(r'<a href="([^"]+\.html)">sofu-mahjong/b.txt</a>', listing)
    page = (site / "corrections" / href).read_text(encoding="utf-8")
    assert {r[0]: r[2:] for r in rows(page, "プレーヤーごと")} == {
        "A": ["7.00", "0.00", "-7.00"], "B": ["4.00", "0.00", "-4.00"], "C": ["2.00", "0.00", "-2.00"], "D": ["0.00", "0.00", "0.00"]}
    assert "代わりに記帳された行 (0)" in page

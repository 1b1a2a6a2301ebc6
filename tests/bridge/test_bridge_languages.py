"""A bridge club's session pages speak the club's language (issue 15: "each organisation's
language (ja, sv, en) for the fixed texts, from one message catalogue"). They were Japanese
whatever the club's `language`: an English club read 順位, 組, 名前, 満点 over its own results."""
from __future__ import annotations

from datetime import date
from pathlib import Path

from office import Office
from pipelines.core import run as nightly

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "samples" / "inbox" / "tokyo-bridge-club" / "2026-11-14-saturday-howell.csv"
SESSION = "2026-11-14-土曜ハウエル-saturday-howell"


def _set_language(data: Path, language: str) -> None:
    path = data / "organisations" / "tokyo-bridge-club.toml"
    text = path.read_text(encoding="utf-8")
    assert text.count('language = "ja"') + text.count('language = "en"') == 1
    path.write_text(text.replace('language = "ja"', f'language = "{language}"').replace('language = "en"', f'language = "{language}"'),
                    encoding="utf-8")


def test_the_session_and_pair_pages_follow_the_club_s_language(tmp_path):
    office = Office(tmp_path)
    office.post("tokyo-bridge-club/2026-11-14-saturday-howell.csv", SAMPLE.read_bytes())
    office.run(date(2026, 12, 1))  # the sample club's language: ja
    folder = office.state / "publications" / "tokyo-bridge-club" / SESSION
    page, card = (folder / "index.html").read_text(encoding="utf-8"), (folder / "pair-1.html").read_text(encoding="utf-8")
    assert '<html lang="ja">' in page and "<th>順位</th><th>組</th>" in page and "<h2>トラベラー Travellers</h2>" in page
    assert "ハウエル Howell" in page and "<th>席</th>" in card

    # the office makes the club's pages English: the next night renders them again, nothing else new
    data = office.data_dir()
    _set_language(data, "en")
    nightly.run(office.inbox, office.state, date(2026, 12, 2), data)
    page, card = (folder / "index.html").read_text(encoding="utf-8"), (folder / "pair-1.html").read_text(encoding="utf-8")
    assert '<html lang="en">' in page and '<html lang="en">' in card
    assert "<th>Rank</th><th>Pair</th><th class=\"names\">Names</th>" in page and "<th>Top</th>" in page
    # an English page separates its facts with the Latin middle dot, not the Japanese 「・」
    assert "<h2>Travellers</h2>" in page and " · Howell · Matchpoints · 21 boards · 8 pairs</p>" in page
    assert "・" not in page and "・" not in card
    assert "<th>Board</th><th>Seat</th><th>Opponents</th>" in card and "← Ranking and travellers" in card
    # no fixed Japanese text is left; the players' and the event's own names stay as written
    for fixed in ("順位", "トラベラー", "満点", "ボード", "席", "相手", "ハウエル Howell", "マッチポイント", "計 Total"):
        assert fixed not in page and fixed not in card, fixed
    assert "長谷川 哲也" in page and "土曜ハウエル Saturday Howell" in page


def test_a_swedish_club_reads_its_travellers_and_notes_in_swedish(tmp_path):
    """The travellers' headings, each board's facts and the notes under the tables were English
    on every club's page (and 「・」 separated them): a Swedish club read Dealer, Vul, Contract, By."""
    office = Office(tmp_path)
    office.post("tokyo-bridge-club/2026-11-14-saturday-howell.csv", SAMPLE.read_bytes())
    data = office.data_dir()
    _set_language(data, "sv")
    nightly.run(office.inbox, office.state, date(2026, 12, 1), data)
    folder = office.state / "publications" / "tokyo-bridge-club" / SESSION
    page, card = (folder / "index.html").read_text(encoding="utf-8"), (folder / "pair-1.html").read_text(encoding="utf-8")
    assert '<html lang="sv">' in page and " · Howell · Matchpoäng · 21 brickor · 8 par</p>" in page
    # board 1: dealer North, nobody vulnerable (Laws 2); board 4: dealer West, both vulnerable
    assert "<h3>Bricka 1</h3>" in page and "<p>Giv N · Zon Ingen · Max" in page and "<p>Giv W · Zon Alla · Max" in page
    assert ("<th>NS</th><th>ÖV</th><th>Kontrakt</th><th>Spelförare</th><th>Resultat</th><th>+NS</th><th>+ÖV</th>"
            "<th>MP NS</th><th>MP ÖV</th>") in page
    assert '<p class="note">Matchpoäng ' in page and "Neuberg-justerad" in page
    assert "<th>Kontrakt</th><th>Spelförare</th><th>Resultat</th><th>Poäng</th>" in card
    for english in ("Dealer", "Vul ", "Contract", "<th>By</th>", "Result<", "Board ", "Neuberg-factored", "・"):
        assert english not in page and english not in card, english

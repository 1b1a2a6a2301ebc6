"""A backgammon club's monthly standings speak the club's language (issue 15: "each organisation's
language (ja, sv, en) for the fixed texts, from one message catalogue"). They were English whatever
the club's `language`; and a snapshot already written was not rendered again when it changed."""
from __future__ import annotations

from datetime import date
from pathlib import Path

from office import Office
from pipelines.core import run as nightly

RESULTS = ("# club: ukbgclub\n# date: 2025-03-04\n# event: March Night\n# bracket: main\n# level: Intermediate\n"
           "# method: players\n# multiplier: 1\n# rounds: 4\n"
           "player,place,matches_won\nAnn Ash,1st,3\nBo Berg,2nd,2\nCai Chen,,1\n")


def _set_language(data: Path, language: str) -> None:
    path = data / "organisations" / "ukbgclub.toml"
    text = path.read_text(encoding="utf-8")
    assert text.count('language = "en"') == 1
    path.write_text(text.replace('language = "en"', f'language = "{language}"'), encoding="utf-8")


def test_the_standings_follow_the_club_s_language_and_a_change_of_it(tmp_path):
    office = Office(tmp_path)
    office.post("ukbgclub/2025/2025-03-04-march.csv", RESULTS)
    data = office.data_dir()
    _set_language(data, "sv")
    assert nightly.run(office.inbox, office.state, date(2025, 4, 1), data).exit_code == nightly.EXIT_OK
    folder = office.state / "publications" / "ukbgclub" / "2025" / "2025-03"
    page, md = (folder / "index.html").read_text(encoding="utf-8"), (folder / "standings.md").read_text(encoding="utf-8")
    assert '<html lang="sv">' in page
    # the month as a Swedish reader writes it (lower case), three players in the field
    assert "(tävlingar till och med mars 2025) · 3 spelare</p>" in page
    assert "<th>Plac</th><th>Spelare</th><th>Tävlingar</th><th class=\"wide\">Vunna matcher</th><th>Poäng</th>" in page
    assert "| Plac | Spelare | Tävlingar | Vunna matcher | Poäng | Denna månad |" in md
    assert "club master points" not in page and "Matches won" not in page and "March 2025" not in page
    # the CSV's columns stay the same in every language (tools read them)
    assert (folder / "standings.csv").read_text(encoding="utf-8-sig").splitlines()[0] == \
        "club,season,as_of,rank,rank_label,player,events,matches_won,points"

    # the office makes the club's site Japanese: the next night renders the snapshot again although
    # no result of March changed
    settings = data / "organisations" / "ukbgclub.toml"
    settings.write_text(settings.read_text(encoding="utf-8").replace('language = "sv"', 'language = "ja"'), encoding="utf-8")
    nightly.run(office.inbox, office.state, date(2025, 4, 2), data)
    page = (folder / "index.html").read_text(encoding="utf-8")
    assert '<html lang="ja">' in page and "（2025年3月末までのイベント）・3 人</p>" in page
    assert "<th>順位</th><th>プレーヤー</th>" in page and "Spelare" not in page

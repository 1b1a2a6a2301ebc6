"""What a club secretary's spreadsheet produces: BOM, CRLF, semicolons, spelling variants."""

from __future__ import annotations

from decimal import Decimal

from pipelines.backgammon import compute_awards, parse_results


def test_excel_style_file_with_bom_crlf_semicolons_and_variants(rules):
    text = (
        "# Club: testclub\r\n"
        "# Date: 2025-04-01\r\n"
        "# Event name: Spring Cup\r\n"
        "# Level: advanced\r\n"
        "# Calculation method: MAX\r\n"
        "# MP bonus multiplier: ×1.5\r\n"
        "# Number of rounds: 3\r\n"
        "# Director: Sam Reed\r\n"
        "Player;Place;Matches won\r\n"
        "Ann  Archer;1ST;3\r\n"
        "Bob;2nd;2\r\n"
        "Cat;5 – 8 Tie;1\r\n"
        "Dov;5,6,7,8 tie;0\r\n"
        "Eve;;0\r\n"
        "Fay;;1\r\n"
        ";;\r\n"
        "\r\n"
    )
    tables, quarantine = parse_results("excel.csv", ("\ufeff" + text).encode("utf-8"), rules=rules)
    assert quarantine.empty, quarantine.to_dict("records")
    event = tables["events"].iloc[0]
    assert (event["level"], event["method"], event["multiplier"], event["rounds"], event["players"]) == (
        "Advanced/Open", "max", Decimal("1.5"), 3, 6)
    players = tables["players"].set_index("player_id")
    assert players["place_row"].dropna().to_dict() == {"Ann Archer": "1st", "Bob": "2nd", "Cat": "5-8 tie", "Dov": "5-8 tie"}
    # Advanced/Open, 6 players / 3 rounds → column 1: 1st 1.75, 2nd 0.88, 5-8 tie 0.22, .08 a match; × 1.5
    awards = compute_awards(tables["events"], tables["players"], rules).set_index("player_id")["points"]
    assert awards.to_dict() == {
        "Ann Archer": Decimal("2.63"),  # 1.75 × 1.5 = 2.625 → 2.63
        "Bob": Decimal("1.32"),         # 0.88 × 1.5
        "Cat": Decimal("0.33"),         # 0.22 × 1.5
        "Dov": Decimal("0.33"),
        "Eve": Decimal("0.00"),
        "Fay": Decimal("0.12"),         # 1 × .08 × 1.5
    }


def test_comments_are_not_settings(rules):
    text = (
        "# Spring Cup results: typed by the director after the final\n"
        "# club: testclub\n# date: 2025-04-01\n# event: Spring Cup\n# level: Novice\n"
        "# method: players\n# rounds: 3\n"
        "player,place,matches_won\nAnn,1st,3\n"
    )
    tables, quarantine = parse_results("c.csv", text.encode(), rules=rules)
    assert quarantine.empty
    assert len(tables["players"]) == 1

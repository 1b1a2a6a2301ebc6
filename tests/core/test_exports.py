"""Exports the office lives in (issue 12): every published CSV opens in Excel without a garbled
character, ranks sort as numbers, and an .xlsx twin carries typed columns. The workbooks are read
back with openpyxl, a reader independent of the writer (XlsxWriter)."""
from __future__ import annotations

import csv
import datetime as dt
import io
from pathlib import Path

import openpyxl

from pipelines.core.publishing import replace_folder

BOM = b"\xef\xbb\xbf"
TABLE = ("as_of,rank,player,member,points,eligible\n"
         "2026-11-30,1,ぽん太,0123,251.50,true\n"
         "2026-11-30,2=,'=HYPERLINK(\"x\"),0456,-12.00,false\n"
         "2026-11-30,2=,Åsa Ängström,0789,3.5,true\n")


def _book(path: Path):
    return openpyxl.load_workbook(path, read_only=False).active


def test_csv_has_a_bom_numeric_rank_and_its_label(tmp_path):
    replace_folder(tmp_path / "pub", {"leaderboard.csv": TABLE, "index.html": "<p>x</p>"})
    raw = (tmp_path / "pub" / "leaderboard.csv").read_bytes()
    assert raw.startswith(BOM) and not (tmp_path / "pub" / "index.html").read_bytes().startswith(BOM)
    rows = list(csv.DictReader(io.StringIO(raw.decode("utf-8-sig"))))
    assert list(rows[0]) == ["as_of", "rank", "rank_label", "player", "member", "points", "eligible"]
    assert [(r["rank"], r["rank_label"]) for r in rows] == [("1", "1"), ("2", "2="), ("2", "2=")]
    assert rows[0]["player"] == "ぽん太" and rows[2]["player"] == "Åsa Ängström"


def test_the_workbook_has_typed_columns_a_frozen_header_and_a_filter(tmp_path):
    replace_folder(tmp_path / "pub", {"leaderboard.csv": TABLE})
    ws = _book(tmp_path / "pub" / "leaderboard.xlsx")
    values = [[c.value for c in row] for row in ws.iter_rows()]
    assert values[0] == ["as_of", "rank", "rank_label", "player", "member", "points", "eligible"]
    first, second = values[1], values[2]
    assert first[0] == dt.datetime(2026, 11, 30)               # a date, not text
    assert first[1] == 1 and second[1] == 2 and second[2] == "2="  # ranks sort as numbers
    assert first[3] == "ぽん太"
    assert first[4] == "0123"                                    # member numbers keep their zeros
    assert first[5] == 251.5 and second[5] == -12.0              # points are numbers
    assert ws.cell(2, 6).number_format == "0.00"                 # shown with the table's decimals
    assert first[6] is True and second[6] is False
    # a formula-looking name is a string cell in the workbook, never a formula
    assert second[3] == '=HYPERLINK("x")' and ws.cell(3, 4).data_type == "s"
    assert ws.freeze_panes == "A2" and ws.auto_filter.ref == "A1:G4"


def test_the_same_table_gives_the_same_bytes(tmp_path):
    replace_folder(tmp_path / "a", {"t.csv": TABLE})
    replace_folder(tmp_path / "b", {"t.csv": TABLE})
    assert (tmp_path / "a" / "t.xlsx").read_bytes() == (tmp_path / "b" / "t.xlsx").read_bytes()


def test_swedish_tables_keep_their_semicolons(tmp_path):
    replace_folder(tmp_path / "pub", {"resultat.csv": "plac;par;namn;medlemmar;bp\n1;2;Örjan Källström;100024 100025;0.50\n"})
    text = (tmp_path / "pub" / "resultat.csv").read_bytes().decode("utf-8-sig")
    assert text.splitlines()[0] == "plac;plac_label;par;namn;medlemmar;bp"
    ws = _book(tmp_path / "pub" / "resultat.xlsx")
    assert [c.value for c in next(ws.iter_rows(min_row=2))] == [1, "1", 2, "Örjan Källström", "100024 100025", 0.5]


def test_every_sample_publication_table_has_its_workbook(sample_run):
    tables = sorted((sample_run.state / "publications").rglob("*.csv"))
    assert len(tables) >= 20
    for table in tables:
        raw = table.read_bytes()
        assert raw.startswith(BOM), table
        rows = list(csv.reader(io.StringIO(raw.decode("utf-8-sig")), delimiter=";" if b";" in raw.split(b"\n")[0] else ","))
        ws = _book(table.with_suffix(".xlsx"))
        assert ws.max_row == len(rows), table
        assert [c.value for c in ws[1]] == rows[0], table


def test_a_columns_width_counts_wide_characters_twice():
    """The workbook's column widths: by hand, 'Åsa Ängström' is 12 characters wide, 'ぽん太' 6 (three
    wide characters), '麻雀 A' 6. Text with no character at or above U+0378 is as wide as it is
    long, because no code point below U+0378 is wide (checked here over all of them; from U+0378,
    unassigned, some Pythons' unicodedata calls unassigned code points wide)."""
    import unicodedata

    from pipelines.core.publishing import _display_width

    assert [_display_width(t) for t in ("Åsa Ängström", "ぽん太", "麻雀 A", "", "Ｒ")] == [12, 6, 6, 0, 2]
    assert [c for c in range(0x0378) if unicodedata.east_asian_width(chr(c)) in "WF"] == []


def test_a_semicolon_table_writes_decimal_commas_and_its_workbook_numbers(tmp_path):
    # a Swedish table: the Excel that splits on ';' reads 1,50 as a number and 1.50 as text; the
    # member number 0123 stays as written, the date too, and the workbook holds numbers
    table = "klubb;medlem;datum;bp;kr\n10001;0123;2024-10-01;16;1.50\n10002;0456;2024-10-08;-2.25;180.00\n"
    replace_folder(tmp_path / "pub", {"avgifter.csv": table})
    text = (tmp_path / "pub" / "avgifter.csv").read_bytes().decode("utf-8-sig")
    assert text.splitlines()[1:] == ["10001;0123;2024-10-01;16;1,50", "10002;0456;2024-10-08;-2,25;180,00"]
    sheet = _book(tmp_path / "pub" / "avgifter.xlsx")
    assert [c.value for c in sheet[2]][3:] == [16, 1.5] and [c.value for c in sheet[3]][3:] == [-2.25, 180]
    assert sheet["B2"].value == "0123"

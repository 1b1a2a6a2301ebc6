"""The JCBL member register (issue 15): members.csv gives the names every JCBL page shows.

Expected values are typed in by hand from the files: the sample register
(data/samples/inbox/jcbl-tokyo/members.csv) names JT0101 山田太郎, JT0102 佐藤花子, JT0104 高橋美咲,
JT0109 小林大輔, JT0119 斎藤学, JT0201 橋本太郎; JT0103 and JT0110 are both 佐藤健; JT0120 is not
listed. The sample weekly standings pair NS3 = JT0101 JT0102, EW5 = JT0103 JT0104, NS4 = JT0109
JT0110, EW4 = JT0119 JT0120; the STF pair N4 = JT0101 JT0201. The malformed registers are real
files in tests/jcbl/fixtures/members-*.csv.
"""
from __future__ import annotations

import csv
import io
import shutil
from datetime import date
from pathlib import Path

import pandas as pd
import pytest

from pipelines.core import run as nightly
from pipelines.core.register import shown_names
from pipelines.core.site import player_slug
from pipelines.jcbl.parse import parse_members
from pipelines.jcbl.system import role_of

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "data" / "samples" / "inbox" / "jcbl-tokyo"
FIXTURES = Path(__file__).parent / "fixtures"
ORG = "jcbl-tokyo"
AS_OF = date(2024, 7, 1)
REGISTER = f"{ORG}/members.csv"


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    data = tmp_path / "jcbl-data"
    (data / "organisations").mkdir(parents=True)
    (data / "rules").mkdir()
    shutil.copy(ROOT / "data" / "organisations" / f"{ORG}.toml", data / "organisations")
    shutil.copytree(ROOT / "data" / "rules" / "jcbl", data / "rules" / "jcbl")
    return data


def run(office, data_dir, as_of=AS_OF) -> nightly.RunResult:
    return nightly.run(office.inbox, office.state, as_of, data_dir=data_dir)


def post_sample(office, name: str) -> None:
    office.post(f"{ORG}/{name}", (SAMPLES / name).read_bytes())


def players_cells(html: str) -> list[str]:
    """The 氏名 cell of each row of an event page (the third cell), as text: each player's name is
    kept whole in a span, with a line-break opportunity after each ・ (no other markup)."""
    import re

    return [re.sub(r'<span class="who">|</span>|<wbr>', "", cells[2]) for cells in (re.findall(r"<td[^>]*>(.*?)</td>", row) for row in re.findall(r"<tr[^>]*>(.*?)</tr>", html))
            if len(cells) >= 6]


# --------------------------------------------------------------------------- the reader


def test_the_sample_register_reads_every_line_and_shows_shared_names_with_ids():
    frames, q = parse_members(REGISTER, (SAMPLES / "members.csv").read_bytes())
    members = frames["members"].set_index("member_id")
    assert q.empty and len(members) == 78  # 79 sample ids, JT0120 left out
    assert members.loc["JT0101", "shown_as"] == "山田太郎"
    assert members.loc["JT0103", "shown_as"] == "佐藤健 (JT0103)"
    assert members.loc["JT0110", "shown_as"] == "佐藤健 (JT0110)"
    assert "JT0120" not in members.index
    assert members.loc["JT0101", "location"] == "line 3"  # line 1 a comment, line 2 the header


def test_shift_jis_full_width_and_japanese_headers_are_read():
    frames, q = parse_members(REGISTER, (FIXTURES / "members-shift-jis.csv").read_bytes())
    assert q.empty
    # ＪＴ０１０１ is JT0101 after NFKC; the full-width space of 山田　太郎 is one blank
    assert frames["members"][["member_id", "name"]].values.tolist() == [["JT0101", "山田 太郎"], ["JT0102", "佐藤花子"]]


def test_names_differing_only_in_blanks_or_width_count_as_shared():
    register = pd.DataFrame({"member_id": ["A1", "A2", "A3"], "name": ["山田 太郎", "山田太郎", "Ｙａｍａｄａ"]})
    assert shown_names(register).tolist() == ["山田 太郎 (A1)", "山田太郎 (A2)", "Ｙａｍａｄａ"]


@pytest.mark.parametrize("fixture, kept, location, reason", [
    ("members-duplicate-id.csv", ["JT0101", "JT0102", "JT0104"], "line 4",
     "member JT0101 is already listed on line 2: a member has one line; remove one of the two (line 2 is used)"),
    ("members-blank-name.csv", ["JT0101", "JT0104"], "line 3",
     "name: expected the member's name, found nothing (leave a member without a name out of the register: pages then show the id)"),
    ("members-missing-column.csv", [], "line 1",
     "header: expected the columns member_id,name (each once, in any order), found 'member_id'; none of the 2 line(s) below it is read"),
    ("members-unknown-column.csv", [], "line 1",
     "header: expected the columns member_id,name, found the unknown column(s) 'club'; none of the 1 line(s) below it is read: "
     "remove or rename the column(s)"),
    ("members-binary.csv", [], "whole file",
     "expected a text file (CSV) with the header 'member_id,name' and one line per member, found binary data (4 NUL characters): "
     "save the register as CSV (UTF-8 or Shift_JIS)"),
])
def test_a_malformed_register_is_quarantined_with_its_reason_and_keeps_its_good_lines(fixture, kept, location, reason):
    frames, q = parse_members(REGISTER, (FIXTURES / fixture).read_bytes())
    assert frames["members"]["member_id"].tolist() == kept
    assert q[["source_file", "location", "reason"]].values.tolist() == [[REGISTER, location, reason]]


def test_over_long_fields_are_problems_of_their_lines():
    frames, q = parse_members(REGISTER, (FIXTURES / "members-long-fields.csv").read_bytes())
    assert frames["members"]["member_id"].tolist() == ["JT0104"]
    assert q["location"].tolist() == ["line 2", "line 3"]
    assert q["reason"].iloc[0].startswith("member_id: expected an id of at most 40 characters without blanks, found 'JT000")
    assert q["reason"].iloc[1].startswith("name: expected at most 200 characters, found '名名") and q["reason"].iloc[1].endswith(
        "… (201 characters)'")


def test_every_line_is_accounted_for():
    text = "# comment\nmember_id,name\n\nA1,甲\n,,\nA1,乙\nA2,\n"
    frames, q = parse_members(REGISTER, text.encode())
    # line 1 comment, 2 header, 3 blank, 4 member, 5 empty cells, 6 duplicate, 7 blank name
    assert frames["members"]["location"].tolist() == ["line 4"]
    assert q["location"].tolist() == ["line 6", "line 7"]


def test_the_register_is_a_jcbl_file_name():
    assert role_of(REGISTER) == role_of("jcbl-tokyo/Members.CSV") == "register"
    assert role_of("jcbl-tokyo/old-members.csv") is None


# --------------------------------------------------------------------------- the pages


def test_every_sample_page_shows_players_by_name(office, data_dir):
    for path in sorted(SAMPLES.iterdir()):
        post_sample(office, path.name)
    result = run(office, data_dir)
    assert result.report["award_lines"]["posted"] == 84  # the register posts no ledger lines
    site = office.state / "publications" / ORG
    weekly = (site / "2024-06-05-weekly" / "index.html").read_text(encoding="utf-8")
    cells = players_cells(weekly)
    assert cells[0] == "山田太郎・佐藤花子"  # NS3, 1st
    assert cells[1] == "佐藤健 (JT0103)・高橋美咲"  # EW5: a shared name keeps its id
    assert "小林大輔・佐藤健 (JT0110)" in cells  # NS4
    assert "斎藤学・JT0120" in cells  # EW4: JT0120 is not in the register
    stf = (site / "2024-06-16-stf" / "index.html").read_text(encoding="utf-8")
    assert players_cells(stf)[0] == "山田太郎・橋本太郎"
    rows = list(csv.DictReader(io.StringIO((site / "2024-06-05-weekly" / "awards.csv").read_text(encoding="utf-8-sig"))))
    assert rows[0]["players"] == "JT0101 JT0102" and rows[0]["player_names"] == "山田太郎・佐藤花子"
    # the index lists players by name, searchable by name or id; the player page is titled by name
    index = (site / "index.html").read_text(encoding="utf-8")
    assert f'<a href="players/{player_slug("JT0101")}.html">山田太郎 <span class="stamp">JT0101</span></a>' in index
    assert "JT0120" not in index  # 10th of 10: no points, so no balance and no player page
    page = (site / "players" / f"{player_slug('JT0101')}.html").read_text(encoding="utf-8")
    assert "<title>山田太郎 (JT0101) – JCBL 東京</title>" in page
    members = office.query("select member_id, name, shown_as, location from jcbl_members where organisation = ? "
                           "order by member_id", [ORG])
    assert len(members) == 78
    assert members.set_index("member_id").loc["JT0110"].tolist() == ["佐藤健", "佐藤健 (JT0110)", "line 12"]


def test_a_bad_register_is_quarantined_the_night_posts_and_a_later_register_names_the_pages(office, data_dir):
    for n in ("2024-06-05-weekly.event.txt", "2024-06-05-weekly.standings.csv"):
        post_sample(office, n)
    office.post(REGISTER, (FIXTURES / "members-binary.csv").read_bytes())
    office.post(f"{ORG}/club/members.csv", "member_id,name\nJT0101,山田太郎\n")
    first = run(office, data_dir)
    assert first.exit_code == nightly.EXIT_QUARANTINE and first.report["award_lines"]["posted"] == 8  # places 1, 2, 3=, 3= of 10 pairs (the top 35%): 8 players, BP
    q = office.query("select source_file, location, reason from quarantine order by source_file")
    assert q.values.tolist() == [
        [f"{ORG}/club/members.csv", "whole file",
         "the member register belongs in the organisation folder: jcbl-tokyo/members.csv (one register per organisation); "
         "this file waits in the inbox and is not read"],
        [REGISTER, "whole file",
         "expected a text file (CSV) with the header 'member_id,name' and one line per member, found binary data "
         "(4 NUL characters): save the register as CSV (UTF-8 or Shift_JIS)"]]
    page = office.state / "publications" / ORG / "2024-06-05-weekly" / "index.html"
    assert players_cells(page.read_text(encoding="utf-8"))[0] == "JT0101・JT0102"  # no register: the ids
    player = office.state / "publications" / ORG / "players" / f"{player_slug('JT0101')}.html"
    assert "<title>JT0101 – JCBL 東京</title>" in player.read_text(encoding="utf-8")
    index = (office.state / "publications" / ORG / "index.html").read_text(encoding="utf-8")
    assert f'<a href="players/{player_slug("JT0101")}.html">JT0101</a>' in index

    # the next night brings a register (one duplicate line, one name with markup): no event is
    # sent again, yet the event page, the player page and the index show the names
    office.post(REGISTER, "member_id,name\nJT0101,山田太郎\nJT0102,<b>佐藤花子</b>\nJT0101,山田次郎\n")
    second = run(office, data_dir, date(2024, 7, 2))
    assert second.report["award_lines"] == {"posted": 0, "reversals": 0}
    q = office.query("select location, reason from quarantine where run_id = ?", [second.run_id])
    assert q.values.tolist() == [["line 4", "member JT0101 is already listed on line 2: a member has one line; "
                                            "remove one of the two (line 2 is used)"]]
    html = page.read_text(encoding="utf-8")
    assert players_cells(html)[0] == "山田太郎・&lt;b&gt;佐藤花子&lt;/b&gt;"  # escaped, never markup
    assert "<b>佐藤花子" not in html
    assert "<title>山田太郎 (JT0101) – JCBL 東京</title>" in player.read_text(encoding="utf-8")
    index = (office.state / "publications" / ORG / "index.html").read_text(encoding="utf-8")
    assert "山田太郎 <span class=\"stamp\">JT0101</span>" in index
    sources = office.query("select status, records_posted, records_quarantined from sources where source_file = ? "
                           "and run_id = ?", [REGISTER, second.run_id])
    assert sources.values.tolist() == [["posted_with_quarantine", 2, 1]]  # two members read, one line quarantined

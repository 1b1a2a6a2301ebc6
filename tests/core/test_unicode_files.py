"""Files saved as Windows' "Unicode" read as the same text saved as UTF-8 does, in every reader.

Notepad's "Unicode" and Excel's "Unicode Text" save UTF-16 little-endian with its byte order mark;
a secretary who picks it sent a file every reader quarantined (mahjong: "not UTF-8 or Shift_JIS
text"; a Swedish event file: "binary data (NUL bytes)" and four missing settings; a Swedish result
list: a header of "ÿþp\\x00l\\x00a\\x00c..."). The mark says how the file is encoded, so it is read as
it says (pipelines/core/text.py, unicode_marked).

The bundled samples, one or two files per reader re-encoded, beside the whole sample inbox: every
view holds what the original files give (the shared sample run), but the files' digests.
"""
from __future__ import annotations

import codecs
import shutil

from office import AS_OF
from pipelines.core import run as nightly
from pipelines.core.settings import DATA_DIR
from pipelines.core.sql import fetch, open_database
from pipelines.core.text import unicode_marked

# path -> (the sample's own encoding, the encoding it is sent in); one file per reader, and the
# key: value reader (JCBL and Swedish event files) twice
RE_ENCODED = {
    "sofu-mahjong/2026-10-10.txt": ("utf-8", "utf-16-be"),
    "ukbgclub/2025/2025-03-04-march-championship.csv": ("utf-8", "utf-32-le"),
    "tokyo-bridge-club/2026-11-14-saturday-howell.csv": ("utf-8", "utf-16-le"),
    "tokyo-bridge-club/2026-11-15-sunday-teams.pbn": ("utf-8", "utf-16-le"),
    # USEBIO: its declaration still says UTF-8, as Notepad leaves it
    "tokyo-bridge-club/2026-11-12-thursday-pairs.xml": ("utf-8", "utf-16-le"),
    "svensk-bridge/medlemsregister.csv": ("utf-8", "utf-16-le"),
    "jcbl-tokyo/members.csv": ("utf-8", "utf-16-le"),
    "svensk-bridge/bk-lavec/2024-09-03-tisdag.event.txt": ("cp1252", "utf-16-le"),
    "svensk-bridge/bk-lavec/2024-09-03-tisdag.standings.csv": ("cp1252", "utf-16-le"),
    "jcbl-tokyo/2024-06-05-weekly.event.txt": ("utf-8", "utf-16-le"),
    "jcbl-tokyo/2024-06-05-weekly.standings.csv": ("utf-8", "utf-16-le"),
}
MARKS = {"utf-16-le": codecs.BOM_UTF16_LE, "utf-16-be": codecs.BOM_UTF16_BE, "utf-32-le": codecs.BOM_UTF32_LE}
VIEWS = ["events", "awards", "quarantine", "mahjong_results", "backgammon_results", "session_standings", "board_results",
         "team_matches", "se_results", "se_holdings", "jcbl_standings", "jcbl_masterpoints"]
# what differs between two runs by construction, and the files' digests (their bytes differ)
VOLATILE = {"run_id", "award_id", "reverses_award_id", "posted_on", "started_at", "source_sha256", "settings_sha256",
            "first_seen_run", "last_seen_run"}


def _rows(query, view: str) -> list[tuple]:
    columns = [c for c in query(f"select * from {view} limit 0").columns if c not in VOLATILE]
    frame = query(f"select {', '.join(columns)} from {view}")
    return sorted(tuple(map(str, row)) for row in frame.itertuples(index=False))


def test_unicode_files_post_what_their_utf8_originals_post(tmp_path, sample_run):
    inbox = tmp_path / "inbox"
    shutil.copytree(DATA_DIR / "samples" / "inbox", inbox)
    for path, (original, sent) in RE_ENCODED.items():
        text = (inbox / path).read_bytes().decode(original).removeprefix("\ufeff")
        (inbox / path).write_bytes(MARKS[sent] + text.encode(sent))
    done = nightly.run(inbox, tmp_path / "var", AS_OF, DATA_DIR)
    assert done.exit_code == nightly.EXIT_QUARANTINE  # the samples' own malformed files, as in the sample run

    con = open_database(tmp_path / "var" / "warehouse.duckdb", read_only=True)
    try:
        def query(sql):
            return fetch(con, sql)

        for view in VIEWS:
            assert _rows(query, view) == _rows(sample_run.query, view), view
        posted = set(query("select distinct source_file from events")["source_file"])
    finally:
        con.close()
    # the JCBL register names its members on the pages (members.csv line 3: JT0101,山田太郎)
    weekly = tmp_path / "var" / "publications" / "jcbl-tokyo" / "2024-06-05-weekly" / "index.html"
    assert "山田太郎" in weekly.read_text(encoding="utf-8")
    # every re-encoded result file posted (the event files and the registers are read with the result lists)
    assert {p for p in RE_ENCODED if not p.endswith((".event.txt", "medlemsregister.csv", "members.csv"))} <= posted


def test_a_byte_order_mark_names_the_encoding():
    text = "datum: 2024-09-03\nnamn: Tisdag på Lavec\n"
    assert unicode_marked(codecs.BOM_UTF16_LE + text.encode("utf-16-le")) == (text, "utf-16")
    assert unicode_marked(codecs.BOM_UTF16_BE + text.encode("utf-16-be")) == (text, "utf-16")
    # UTF-32's little-endian mark begins with UTF-16's: it is not read as UTF-16 with NULs
    assert unicode_marked(codecs.BOM_UTF32_LE + text.encode("utf-32-le")) == (text, "utf-32")
    # no mark (UTF-8's is each reader's own), or a file cut in the middle of a character: not for this step
    assert unicode_marked(text.encode("utf-8")) is None
    assert unicode_marked(codecs.BOM_UTF8 + text.encode("utf-8")) is None
    assert unicode_marked(codecs.BOM_UTF16_LE + text.encode("utf-16-le")[:-1]) is None

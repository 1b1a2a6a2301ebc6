"""One bad file never stops the night (issue 14): whatever fails inside one file's parsing or
scoring costs that file (or the files scored with it), never the other files or organisations."""
from __future__ import annotations

import dataclasses
import json
import os
import shutil
from pathlib import Path

import pandas as pd
import pytest

from pipelines.core import run as nightly
from pipelines.core.settings import DATA_DIR
from pipelines.core import processing
from pipelines.core.system import SourceFile, SystemBatch

SAMPLES = DATA_DIR / "samples" / "inbox"


from office import Office  # noqa: E402 - tests/office.py (on sys.path)

# one sample file per rule system that posts cleanly on its own
TARGETS = {
    "mahjong": "sofu-mahjong/2026-10-01.txt",
    "bridge": "tokyo-bridge-club/2026-11-12-thursday-pairs.xml",
    "jcbl": "jcbl-tokyo/2024-06-05-weekly.event.txt",
    "backgammon": "ukbgclub/2025/2025-03-18-novice-night.csv",
}

# the scoring step of each system, patched to raise when it is handed the target file's rows
SCORERS = {
    "mahjong": ("pipelines.mahjong.system", "_awards"),
    "bridge": ("pipelines.bridge.system", "score_batch"),
    "jcbl": ("pipelines.jcbl.system", "components_of"),
    "backgammon": ("pipelines.backgammon.system", "compute_awards"),
}


class Injected(RuntimeError):
    pass


def _mentions(value, target: str) -> bool:
    if dataclasses.is_dataclass(value):  # JCBL's checked event: its standings
        return any(_mentions(getattr(value, f.name), target) for f in dataclasses.fields(value))
    if isinstance(value, pd.DataFrame):
        return "source_file" in value.columns and bool((value["source_file"].astype(str) == target).any())
    if isinstance(value, dict):
        return any(_mentions(v, target) for v in value.values()) or value.get("source_file") == target
    return False


@pytest.fixture(scope="module")
def clean_run(sample_run):
    """The sample inbox's clean run (shared by the session), to compare against."""
    return sample_run, None


def _sample_office(root: Path) -> Office:
    office = Office(root)
    shutil.rmtree(office.inbox)
    shutil.copytree(SAMPLES, office.inbox)
    return office


def _awards_by_file(office: Office) -> pd.DataFrame:
    return office.query(
        "select source_file, player_id, denomination, event_id, points from awards order by all"
    ).astype(str)


def test_targets_exist_and_post_cleanly(clean_run):
    office, result = clean_run
    sources = office.query("select source_file, status from sources").set_index("source_file")["status"]
    for target in TARGETS.values():
        assert sources[target] == "posted", target


@pytest.mark.parametrize("where", ["parser", "scorer"])
def test_an_exception_in_one_file_quarantines_it_and_the_rest_posts(where, clean_run, tmp_path, monkeypatch):
    """One file of each rule system's organisation fails on the same night (in its parser, or in
    its system's scoring step): each costs its own file only."""
    targets = set(TARGETS.values())
    if where == "parser":
        original = SourceFile.read

        def read(self):
            if self.source_file in targets:
                raise Injected(f"injected parser failure in {self.source_file}")
            return original(self)

        monkeypatch.setattr(SourceFile, "read", read)
        # JCBL also reads the files of an event beside the batch straight from disk
        original_bytes = Path.read_bytes

        def read_bytes(self):
            if any(self.as_posix().endswith(target) for target in targets):
                raise Injected(f"injected parser failure in {self.as_posix()}")
            return original_bytes(self)

        monkeypatch.setattr(Path, "read_bytes", read_bytes)
    else:
        for system, target in TARGETS.items():
            module_name, function = SCORERS[system]
            module = __import__(module_name, fromlist=[function])

            def failing(*args, _scorer=getattr(module, function), _target=target, **kwargs):
                if any(_mentions(a, _target) for a in list(args) + list(kwargs.values())):
                    raise Injected(f"injected scorer failure for {_target}")
                return _scorer(*args, **kwargs)

            monkeypatch.setattr(module, function, failing)

    office = _sample_office(tmp_path)
    result = office.run()
    clean_office, clean = clean_run

    assert result.exit_code == nightly.EXIT_QUARANTINE
    quarantine = office.query("select source_file, location, reason from quarantine")
    incidents = result.report["internal_errors"]
    for target in targets:
        hit = quarantine[(quarantine["source_file"] == target) & (quarantine["location"] == "whole file")]
        assert len(hit) == 1 and "internal error" in hit["reason"].iloc[0], target
        # the traceback is in the run report, for the office
        assert any(target in i["source_files"] and "Injected" in i["traceback"] for i in incidents), target
    report_file = json.loads((office.state / "runs" / f"{result.run_id}.json").read_text())
    assert report_file["internal_errors"] == incidents

    # every other file of every organisation posted exactly what it posts in a clean run
    failed = {f for i in incidents for f in i["source_files"]}
    assert targets <= failed
    got = _awards_by_file(office)
    want = _awards_by_file(clean_office)
    want = want[~want["source_file"].isin(failed)].reset_index(drop=True)
    got = got[~got["source_file"].isin(failed)].reset_index(drop=True)
    pd.testing.assert_frame_equal(got, want)
    assert not _awards_by_file(office)["source_file"].isin(targets).any()
    # every organisation still posted something
    assert set(got["source_file"].str.split("/").str[0]) == set(want["source_file"].str.split("/").str[0])


def test_the_failed_file_is_read_again_when_corrected(office, monkeypatch):
    game = "2026-11-03\n・1位A 40000\n・2位B 30000\n・3位C 20000\n・4位D 10000\n"
    office.post("sofu-mahjong/2026-11-03.txt", game)
    original = SourceFile.read

    def read(self):
        raise Injected("boom")

    monkeypatch.setattr(SourceFile, "read", read)
    first = office.run()
    assert first.exit_code == nightly.EXIT_QUARANTINE
    monkeypatch.setattr(SourceFile, "read", original)
    office.post("sofu-mahjong/2026-11-03.txt", game + "\n")  # the club sends it again, corrected
    second = office.run()
    assert second.exit_code == nightly.EXIT_OK
    assert len(office.query("select * from awards")) == 4


def test_a_game_posted_in_two_files_is_caught_on_a_night_with_a_failing_file(office, monkeypatch):
    """When one file raises, the batch is retried group by group; the files that did not raise are
    then scored together again, so a game sent in two files of that night still posts once."""
    game = "2026-11-03\n・1位A 40000\n・2位B 30000\n・3位C 20000\n・4位D 10000\n"
    other = "2026-11-04\n・1位E 45000\n・2位F 30000\n・3位G 15000\n・4位H 10000\n"
    office.post("sofu-mahjong/a.txt", game)
    office.post("sofu-mahjong/b.txt", "# sent again by another member\n" + game)
    office.post("sofu-mahjong/c.txt", other)
    original = SourceFile.read

    def read(self):
        if self.source_file == "sofu-mahjong/c.txt":
            raise Injected("boom")
        return original(self)

    monkeypatch.setattr(SourceFile, "read", read)
    result = office.run()
    assert result.exit_code == nightly.EXIT_QUARANTINE
    # the game of a.txt posts once (4 players), the copy in b.txt is reported, c.txt waits
    awards = office.query("select source_file, count(*) as n from awards group by 1 order by 1")
    assert awards.astype(str).values.tolist() == [["sofu-mahjong/a.txt", "4"]]
    reasons = office.query("select source_file, reason from quarantine order by 1")
    by_file = dict(zip(reasons["source_file"], reasons["reason"]))
    assert "already posted in sofu-mahjong/a.txt" in by_file["sofu-mahjong/b.txt"]
    assert "internal error" in by_file["sofu-mahjong/c.txt"]


def test_output_that_breaks_its_contract_withdraws_only_that_file(office, monkeypatch):
    """A rule system bug that produces a null point for one file's line: that file is
    quarantined, the other file posts."""
    import pipelines.mahjong.system as mahjong

    good = "2026-11-03\n・1位A 40000\n・2位B 30000\n・3位C 20000\n・4位D 10000\n"
    other = "2026-11-04\n・1位E 45000\n・2位F 30000\n・3位G 15000\n・4位H 10000\n"
    office.post("sofu-mahjong/a.txt", good)
    office.post("sofu-mahjong/b.txt", other)
    awards = mahjong._awards

    def broken(results, rules, org):
        out = awards(results, rules, org)
        return out.assign(points=out["points"].where(out["source_file"] != "sofu-mahjong/b.txt", None))

    monkeypatch.setattr(mahjong, "_awards", broken)
    result = office.run()
    assert result.exit_code == nightly.EXIT_QUARANTINE
    posted = office.query("select distinct source_file from awards")["source_file"].tolist()
    assert posted == ["sofu-mahjong/a.txt"]
    reason = office.query("select reason from quarantine where source_file = 'sofu-mahjong/b.txt'")["reason"].iloc[0]
    assert "points" in reason and "nothing of it was posted" in reason
    status = office.query("select source_file, status from sources order by 1")["status"].tolist()
    assert status == ["posted", "quarantined"]


def test_a_file_with_no_results_is_quarantined_not_posted_empty(office):
    office.post("sofu-mahjong/notes.txt", "本日は祝日のためお休みです。\n")
    result = office.run()
    assert result.exit_code == nightly.EXIT_QUARANTINE
    row = office.query("select location, reason from quarantine").iloc[0]
    assert row["location"] == "whole file" and row["reason"].startswith("no results found")
    assert office.query("select status from sources")["status"].tolist() == ["quarantined"]


# -- paths: nothing outside the inbox is read -------------------------------------------------

def test_links_are_not_followed(office, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = outside / "2026-11-03.txt"
    secret.write_text("2026-11-03\n・1位A 40000\n・2位B 30000\n・3位C 20000\n・4位D 10000\n", encoding="utf-8")
    office.post("sofu-mahjong/real.txt", "2026-11-04\n・1位E 45000\n・2位F 30000\n・3位G 15000\n・4位H 10000\n")
    os.symlink(secret, office.inbox / "sofu-mahjong" / "link.txt")
    os.symlink("/etc/passwd", office.inbox / "sofu-mahjong" / "passwd.txt")
    os.symlink(outside, office.inbox / "sofu-mahjong" / "linked-folder")
    result = office.run()
    assert result.exit_code == nightly.EXIT_QUARANTINE
    assert office.query("select distinct source_file from awards")["source_file"].tolist() == ["sofu-mahjong/real.txt"]
    q = office.query("select source_file, reason, record from quarantine order by 1")
    assert q["source_file"].tolist() == ["sofu-mahjong/link.txt", "sofu-mahjong/linked-folder", "sofu-mahjong/passwd.txt"]
    assert q["reason"].str.contains("a link").all()
    assert q["record"].isna().all()  # nothing of the link's target is shown
    assert result.report["files"]["refused_unread"] == 3


def test_a_name_that_is_not_utf8_is_quarantined_by_its_escaped_name(office):
    office.post("sofu-mahjong/ok.txt", "2026-11-04\n・1位E 45000\n・2位F 30000\n・3位G 15000\n・4位H 10000\n")
    bad = os.fsencode(str(office.inbox / "sofu-mahjong")) + b"/r\xe9sultat.txt"
    with open(bad, "wb") as handle:
        handle.write(b"2026-11-03\n")
    result = office.run()
    assert result.exit_code == nightly.EXIT_QUARANTINE
    q = office.query("select source_file, reason from quarantine")
    assert q["source_file"].tolist() == ["sofu-mahjong/r\\xe9sultat.txt"]
    assert "not valid UTF-8" in q["reason"].iloc[0]
    assert len(office.query("select * from awards")) == 4


def test_a_file_over_the_size_limit_is_quarantined_unread(office):
    settings = office.data / "organisations" / "sofu-mahjong.toml"
    office.post("sofu-mahjong/big.txt", "2026-11-03\n" + "こんばんは\n" * 200_000)  # 11 + 16 × 200,000 bytes = 3.2 MB
    office.post("sofu-mahjong/ok.txt", "2026-11-04\n・1位E 45000\n・2位F 30000\n・3位G 15000\n・4位H 10000\n")
    original = (DATA_DIR / "organisations" / "sofu-mahjong.toml").read_text(encoding="utf-8")
    data = office.data_dir()
    (data / "organisations" / "sofu-mahjong.toml").write_text("max_file_mb = 1\n" + original, encoding="utf-8")
    result = nightly.run(office.inbox, office.state, data_dir=data)
    assert result.exit_code == nightly.EXIT_QUARANTINE
    q = office.query("select source_file, reason from quarantine")
    assert q["source_file"].tolist() == ["sofu-mahjong/big.txt"]
    assert "file too large: 3.2 MB, the limit is 1 MB" in q["reason"].iloc[0]
    assert len(office.query("select * from awards")) == 4
    assert settings.exists()


# -- reports and the warehouse -----------------------------------------------------------------

def test_a_run_stopped_after_commit_has_its_quarantine_signalled_by_the_next(office):
    import subprocess
    import sys

    office.post("sofu-mahjong/bad.txt", "2026-11-04\n・1位A 40000\n・2位B 30000\n・3位C 20000\n・4位D 9000\n")
    data = office.data_dir()
    code = ("import sys; from datetime import date; from pathlib import Path; from pipelines.core import run as r; "
            f"r.run(Path({str(office.inbox)!r}), Path({str(office.state)!r}), date(2026, 12, 2), Path({str(data)!r}))")
    env = dict(os.environ, POINTLEDGER_KILL_AT="after_manifest")
    killed = subprocess.run([sys.executable, "-c", code], env=env, cwd=Path(__file__).resolve().parents[2])
    assert killed.returncode == -9
    result = office.run()
    assert result.exit_code == nightly.EXIT_QUARANTINE
    earlier = result.report["earlier_runs_unreported"]
    assert len(earlier) == 1 and earlier[0]["quarantined"] == 1
    written = json.loads((office.state / "runs" / f"{earlier[0]['run_id']}.json").read_text())
    assert written["records"]["quarantined"] == 1 and written["reconstructed_by"] == result.run_id
    again = office.run()  # signalled once, not every night
    assert again.exit_code == nightly.EXIT_OK and again.report["earlier_runs_unreported"] == []


def test_an_analyst_session_with_pending_writes_does_not_fail_the_run(office):
    """An analyst's read-write session (another process) with uncommitted writes leaves a WAL
    beside the warehouse; the run swaps its new warehouse in and still answers."""
    import subprocess
    import sys

    office.post("sofu-mahjong/a.txt", "2026-11-03\n・1位A 40000\n・2位B 30000\n・3位C 20000\n・4位D 10000\n")
    office.run()
    code = (
        "import duckdb, sys; con = duckdb.connect(sys.argv[1]); con.execute(\"set checkpoint_threshold = '1GB'\"); "
        "con.execute('create table my_notes as select range as n from range(1000)'); print('ready', flush=True); "
        "sys.stdin.readline()"
    )
    analyst = subprocess.Popen([sys.executable, "-c", code, str(office.state / "warehouse.duckdb")],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert analyst.stdout.readline().strip() == "ready"
        assert (office.state / "warehouse.duckdb.wal").exists()
        office.post("sofu-mahjong/b.txt", "2026-11-04\n・1位E 45000\n・2位F 30000\n・3位G 15000\n・4位H 10000\n")
        result = office.run()
    finally:
        analyst.communicate("\n", timeout=30)
    assert result.exit_code == nightly.EXIT_OK
    assert result.report["warehouse_notes"] and "set aside" in result.report["warehouse_notes"][0]
    assert len(office.query("select * from awards")) == 8  # the new warehouse opens and answers


def test_the_quarantine_view_says_which_problems_are_still_open(office):
    bad = "2026-11-04\n・1位A 40000\n・2位B 30000\n・3位C 20000\n・4位D 9000\n"
    office.post("sofu-mahjong/b.txt", bad)
    os.symlink("/etc/hostname", office.inbox / "sofu-mahjong" / "link.txt")
    office.run()
    first = office.query("select source_file, is_open from quarantine order by 1")
    assert first.values.tolist() == [["sofu-mahjong/b.txt", True], ["sofu-mahjong/link.txt", True]]
    office.post("sofu-mahjong/b.txt", bad.replace("9000", "10000"))  # corrected at the same path
    (office.inbox / "sofu-mahjong" / "link.txt").unlink()
    fixed = office.run()
    rows = office.query("select source_file, is_open, resolved_by_run from quarantine order by 1")
    assert rows["is_open"].tolist() == [False, False]
    assert rows["resolved_by_run"].tolist()[0] == fixed.run_id


# -- the search for the failing files ----------------------------------------------------------

class _CountingSystem:
    """A rule system whose batch raises whenever it holds one of `bad`; it counts its batches."""

    def __init__(self, bad: set[str]):
        self.bad, self.batches = bad, []

    def process(self, ctx, organisation, sources, active, superseded):
        names = [s.source_file for s in sources]
        self.batches.append(names)
        if self.bad & set(names):
            raise Injected("boom")
        return SystemBatch(events=pd.DataFrame(), awards=pd.DataFrame(), quarantine=pd.DataFrame(),
                           records=pd.DataFrame({"source_file": names, "records_posted": 1, "records_quarantined": 0}))


def _files(n: int) -> list[SourceFile]:
    return [SourceFile("club", f"club/{i:02d}.txt", Path(f"/nowhere/{i:02d}.txt"), str(i)) for i in range(n)]


def test_one_bad_file_among_sixteen_is_found_by_halving():
    """By hand: after the night of 16 files raised, the halves are scored, and the half holding
    file 05 is halved again: 0-7 raises, 0-3 scores, 4-7 raises, 4-5 raises, 4 scores, 5 raises
    (found), 6-7 scores, 8-15 scores; then the 15 good files together. 9 batches after the
    night's, where file by file took 16 + 1."""
    system = _CountingSystem({"club/05.txt"})
    incidents = []
    parts = processing._retry_by_group(None, system, None, _files(16), None, set(), incidents)
    assert [len(b) for b in system.batches] == [8, 4, 4, 2, 1, 1, 2, 8, 15]
    assert [i.source_files for i in incidents] == [["club/05.txt"]]
    together = [f"club/{i:02d}.txt" for i in range(16) if i != 5]
    assert system.batches[-1] == together
    assert parts[0].records["source_file"].tolist() == together  # the good files, scored together
    assert parts[1].quarantine["source_file"].tolist() == ["club/05.txt"]
    assert "internal error" in parts[1].quarantine["reason"].iloc[0]


def test_two_bad_files_and_a_fault_that_shows_only_in_company():
    """Files 00 and 15 raise: each is found at the end of its branch (by hand: 0-7 raises, 0-3
    raises, 0-1 raises, 0 raises, 1, 2-3, 4-7 score; 8-15 raises, 8-11 scores, 12-15 raises, 12-13
    scores, 14-15 raises, 14 scores, 15 raises; then 14 files together). When the good files raise
    together too, the halves' own results stand."""
    system = _CountingSystem({"club/00.txt", "club/15.txt"})
    incidents = []
    processing._retry_by_group(None, system, None, _files(16), None, set(), incidents)
    assert [len(b) for b in system.batches] == [8, 4, 2, 1, 1, 2, 4, 8, 4, 4, 2, 2, 1, 1, 14]
    assert [i.source_files for i in incidents] == [["club/00.txt"], ["club/15.txt"]]

    class OnlyInCompany(_CountingSystem):
        def process(self, ctx, organisation, sources, active, superseded):
            if len(sources) == 14:
                self.batches.append([s.source_file for s in sources])
                raise Injected("together")
            return super().process(ctx, organisation, sources, active, superseded)

    system = OnlyInCompany({"club/00.txt", "club/15.txt"})
    parts = processing._retry_by_group(None, system, None, _files(16), None, set(), [])
    posted = [f for part in parts for f in part.records["source_file"]]
    assert sorted(posted) == [f"club/{i:02d}.txt" for i in range(1, 15)]

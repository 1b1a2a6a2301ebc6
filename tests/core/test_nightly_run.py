"""The nightly run's promises: never post twice, never lose a record, all or nothing."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest

from pipelines.core import run as nightly
from pipelines.core.settings import StatePaths
from office import pointledger

GAME_A = "2026-11-03\n・1位A 40000\n・2位B 30000\n・3位C 20000\n・4位D 10000\n"
GAME_B = "2026-11-03\n・1位E 45000\n・2位F 30000\n・3位G 15000\n・4位H 10000\n"
BAD_SUM = "2026-11-04\n・1位A 40000\n・2位B 30000\n・3位C 20000\n・4位D 9000\n"


def ledger(office):
    return office.query("select * from awards order by award_id")


def test_running_twice_posts_nothing_new(office):
    office.post("sofu-mahjong/2026-11-03.txt", GAME_A)
    first = office.run()
    second = office.run()
    assert first.exit_code == 0 and second.exit_code == 0
    assert first.report["award_lines"]["posted"] == 4
    assert second.report["award_lines"]["posted"] == 0
    assert second.report["files"]["already_posted"] == 1
    assert len(ledger(office)) == 4


def test_same_file_renamed_or_copied_elsewhere_is_a_duplicate(office):
    office.post("sofu-mahjong/2026-11-03.txt", GAME_A)
    office.run()
    office.post("sofu-mahjong/copy of 2026-11-03.txt", GAME_A)
    office.post("sofu-mahjong/archive/2026/11/03.txt", GAME_A)
    result = office.run()
    assert result.report["files"]["duplicates"] == 2
    assert result.report["award_lines"]["posted"] == 0
    sources = office.query("select source_file, status, duplicate_of from sources where status = 'duplicate' order by 1")
    assert sources["duplicate_of"].tolist() == ["sofu-mahjong/2026-11-03.txt"] * 2
    assert len(ledger(office)) == 4


def test_two_identical_new_files_in_one_night_post_once(office):
    office.post("sofu-mahjong/a.txt", GAME_A)
    office.post("sofu-mahjong/b.txt", GAME_A)
    result = office.run()
    assert result.report["award_lines"]["posted"] == 4
    assert result.report["files"]["duplicates"] == 1


def test_other_files_of_the_same_evening_are_additional_data(office):
    office.post("sofu-mahjong/2026-11-03.txt", GAME_A)
    office.post("sofu-mahjong/2026-11-03-second-table.txt", GAME_B)
    office.run()
    assert len(ledger(office)) == 8


def test_a_corrected_file_reverses_and_reposts(office):
    office.post("sofu-mahjong/2026-11-03.txt", GAME_A)
    office.run()
    # The secretary fixes a swapped score: C and D change places.
    corrected = "2026-11-03\n・1位A 40000\n・2位B 30000\n・3位D 20000\n・4位C 10000\n"
    office.post("sofu-mahjong/2026-11-03.txt", corrected)
    result = office.run()
    assert result.report["files"]["corrections"] == 1
    assert result.report["award_lines"] == {"posted": 4, "reversals": 4}
    lines = ledger(office)
    assert len(lines) == 12  # both versions stay visible, with the reversals between them
    reversals = lines[lines["entry_type"] == "reversal"]
    originals = lines.set_index("award_id").loc[reversals["reverses_award_id"]]
    assert (reversals["points"].to_numpy() == -originals["points"].to_numpy()).all()
    balances = office.query("select player_id, points, award_lines from balances order by player_id").set_index("player_id")
    assert balances.loc["C", "points"] == Decimal("0") and balances.loc["D", "points"] == Decimal("2")
    assert (balances["award_lines"] == 1).all()
    board = office.query("select player_id, games, points from mahjong_leaderboard order by player_id").set_index("player_id")
    assert board.loc["C", "games"] == 1 and board.loc["C", "points"] == Decimal("0")
    # events and results show only the current version
    assert len(office.query("select * from events")) == 1
    assert sorted(office.query("select player_id from mahjong_results where place = 4")["player_id"]) == ["C"]


def test_a_bad_game_does_not_block_the_good_games_around_it(office):
    office.post("sofu-mahjong/2026-11-04.txt", GAME_A + "\n" + BAD_SUM + "\n" + GAME_B)
    result = office.run()
    assert result.exit_code == nightly.EXIT_QUARANTINE
    assert len(ledger(office)) == 8
    q = office.query("select * from quarantine")
    assert len(q) == 1
    assert q["source_file"].iloc[0] == "sofu-mahjong/2026-11-04.txt"
    assert q["location"].iloc[0] == "lines 8–11"
    assert "add up to 99000; expected 100000" in q["reason"].iloc[0]
    assert q["run_id"].iloc[0] == result.run_id


def test_unknown_organisation_folder_waits_and_is_reported_every_run(office):
    office.post("no-such-club/2026-11-03.txt", GAME_A)
    office.post("stray.txt", GAME_A)
    result = office.run()
    assert result.exit_code == nightly.EXIT_QUARANTINE
    reasons = office.query("select source_file, reason from quarantine order by source_file")
    assert "add data/organisations/no-such-club.toml" in reasons["reason"].iloc[0]
    assert "inside an organisation folder" in reasons["reason"].iloc[1]
    assert office.run().exit_code == nightly.EXIT_QUARANTINE  # still waiting, still said


def test_unsupported_file_type_is_quarantined_once(office):
    office.post("sofu-mahjong/results.xlsx", b"PK\x03\x04 not really a spreadsheet")
    result = office.run()
    q = office.query("select reason from quarantine")
    assert "unsupported file type .xlsx" in q["reason"].iloc[0] and ".txt, .csv" in q["reason"].iloc[0]
    assert office.run().exit_code == 0  # seen once, reported once


def test_run_report_counts_files_and_stages(office):
    office.post("sofu-mahjong/a.txt", GAME_A)
    office.post("sofu-mahjong/b.txt", BAD_SUM)
    result = office.run()
    report = json.loads((office.state / "runs" / f"{result.run_id}.json").read_text())
    assert report["files"]["seen"] == 2 and report["files"]["posted"] == 1 and report["files"]["quarantined"] == 1
    assert report["records"] == {"posted": 1, "quarantined": 1}
    assert report["award_lines"]["posted"] == 4
    assert {"scan", "process", "ledger", "validate", "stage", "audit", "commit", "publish"} <= set(report["durations_seconds"])
    assert report["exit_code"] == 3


def _snapshot(state: Path) -> dict:
    """Everything committed: manifest, lake files, warehouse contents, publications."""
    import duckdb

    lake_files = sorted(p.relative_to(state).as_posix() for p in (state / "lake").rglob("*.parquet"))
    con = duckdb.connect(str(state / "warehouse.duckdb"), read_only=True)
    try:
        tables = {v: con.sql(f"select * from {v} order by all").fetchall() for v in ["awards", "events", "balances", "quarantine", "sources", "mahjong_leaderboard"]}
    finally:
        con.close()
    pubs = {p.relative_to(state).as_posix(): p.read_bytes() for p in (state / "publications").rglob("*") if p.is_file()}
    return {"manifest": (state / "lake" / "_manifest.json").read_text(), "lake": lake_files, "tables": tables, "pubs": pubs}


def _run_cli(office, env_extra: dict) -> subprocess.CompletedProcess:
    env = {**os.environ, **env_extra}
    return subprocess.run(
        [sys.executable, "-m", "pipelines.cli", "run", "--inbox", str(office.inbox), "--state", str(office.state),
         "--as-of", "2026-12-02", "--data-dir", str(office.data_dir())],
        capture_output=True, text=True, env=env, cwd=Path(__file__).resolve().parents[2],
    )


@pytest.mark.parametrize("kill_at", ["after_process", "after_stage", "before_manifest"])
def test_a_run_killed_half_way_leaves_no_trace_and_the_next_completes(office, kill_at):
    office.post("sofu-mahjong/2026-11-03.txt", GAME_A)
    assert office.run().exit_code == nightly.EXIT_OK  # in this process: only the killed run needs its own
    before = _snapshot(office.state)

    office.post("sofu-mahjong/2026-11-04.txt", GAME_B.replace("2026-11-03", "2026-11-04"))
    killed = _run_cli(office, {nightly.KILL_ENV: kill_at})
    assert killed.returncode == -9  # SIGKILL
    after = _snapshot(office.state)
    assert after["manifest"] == before["manifest"]
    assert after["tables"] == before["tables"]
    assert after["pubs"] == before["pubs"]
    if kill_at != "before_manifest":
        assert after["lake"] == before["lake"]

    assert office.run().exit_code == nightly.EXIT_OK
    final = _snapshot(office.state)
    assert len(final["tables"]["awards"]) == 8
    assert not (office.state / "staging").exists()
    assert len(final["lake"]) == len(before["lake"]) * 2  # one file per table per run, no orphans


def test_a_second_run_at_the_same_time_refuses(office):
    import fcntl

    office.post("sofu-mahjong/2026-11-03.txt", GAME_A)
    paths = StatePaths(office.state)
    paths.root.mkdir(parents=True)
    with open(paths.lock, "a+") as holder:
        fcntl.flock(holder, fcntl.LOCK_EX | fcntl.LOCK_NB)
        holder.write("pid 12345, started 2026-12-02 01:00:00 UTC")
        holder.flush()
        result = _run_cli(office, {})
    assert result.returncode == nightly.EXIT_LOCKED
    assert "another pointledger run is using" in result.stderr and "Nothing was posted" in result.stderr
    assert not (office.state / "lake" / "_manifest.json").exists()


def test_exit_codes_from_the_command_line(office):
    office.post("sofu-mahjong/a.txt", GAME_A)
    assert _run_cli(office, {}).returncode == 0
    office.post("sofu-mahjong/b.txt", BAD_SUM)
    assert _run_cli(office, {}).returncode == 3


def test_failed_run_leaves_state_as_before(office, monkeypatch):
    office.post("sofu-mahjong/a.txt", GAME_A)
    office.run()
    before = _snapshot(office.state)
    office.post("sofu-mahjong/b.txt", GAME_B)
    from pipelines.core import warehouse

    monkeypatch.setattr(warehouse, "run_audits", lambda con: {"award_posted_twice": __import__("pandas").DataFrame({"award_id": ["x"]})})
    with pytest.raises(nightly.RunFailed, match="audit failed"):
        office.run()
    assert _snapshot(office.state) == before


def test_putting_back_an_earlier_version_is_a_correction_too(office):
    # X → Y → X at one path: the third version reverses Y's lines and posts X's again.
    corrected = "2026-11-03\n・1位A 40000\n・2位B 30000\n・3位D 20000\n・4位C 10000\n"
    office.post("sofu-mahjong/2026-11-03.txt", GAME_A)
    office.run()
    office.post("sofu-mahjong/2026-11-03.txt", corrected)
    office.run()
    office.post("sofu-mahjong/2026-11-03.txt", GAME_A)
    result = office.run()
    assert result.exit_code == 0
    assert result.report["award_lines"] == {"posted": 4, "reversals": 4}
    assert len(ledger(office)) == 20
    balances = office.query("select player_id, points from balances order by player_id").set_index("player_id")["points"]
    assert balances.to_dict() == {"A": Decimal("7"), "B": Decimal("4"), "C": Decimal("2"), "D": Decimal("0")}
    assert office.run().report["award_lines"] == {"posted": 0, "reversals": 0}


def test_a_run_killed_after_its_commit_has_its_publications_redone_by_the_next(office):
    office.post("sofu-mahjong/2026-10-03.txt", GAME_A.replace("2026-11-03", "2026-10-03"))
    assert office.run().exit_code == nightly.EXIT_OK
    page = office.state / "publications" / "sofu-mahjong" / "2026-10" / "index.html"
    assert "<td>A</td>" in page.read_text(encoding="utf-8") and "<td>E</td>" not in page.read_text(encoding="utf-8")

    office.post("sofu-mahjong/2026-11-04.txt", GAME_B.replace("2026-11-03", "2026-11-04"))
    assert _run_cli(office, {nightly.KILL_ENV: "after_manifest"}).returncode == -9
    assert "<td>E</td>" not in page.read_text(encoding="utf-8")  # committed, not yet published

    assert office.run().exit_code == nightly.EXIT_OK  # nothing new in the inbox, but the period is redone
    assert "<td>E</td>" in page.read_text(encoding="utf-8")
    assert len(office.query("select * from awards")) == 8


def test_a_file_written_while_the_run_reads_it_waits_for_the_next_run(office, monkeypatch):
    # a club's program appends a game to its post just after the scan took the post's digest: the
    # run must not post the longer text under the shorter one's digest (the next night would take
    # it for a correction and reverse and post its games again); the other post goes through
    from pipelines.core import inbox

    first = office.post("sofu-mahjong/2026-11-03.txt", GAME_A)
    office.post("sofu-mahjong/2026-11-04.txt", GAME_B.replace("2026-11-03", "2026-11-04"))
    real = inbox.with_hashes

    def then_appended(*args, **kwargs):
        hashed = real(*args, **kwargs)
        with first.open("a", encoding="utf-8") as f:
            f.write("・1位A 30000\n・2位B 30000\n・3位C 25000\n・4位D 15000\n")
        return hashed

    monkeypatch.setattr(inbox, "with_hashes", then_appended)
    assert office.run().exit_code == nightly.EXIT_QUARANTINE
    monkeypatch.setattr(inbox, "with_hashes", real)
    q = office.query("select source_file, location, reason from quarantine")
    assert list(zip(q["source_file"], q["location"], q["reason"])) == [(
        "sofu-mahjong/2026-11-03.txt", "whole file",
        "the file changed while this run was reading it (was it still being written or copied?): nothing of it was "
        "posted tonight; the next run reads it again")]
    assert office.query("select count(*) as n from awards")["n"].iloc[0] == 4  # the other post's game
    second = office.run()
    assert second.exit_code == nightly.EXIT_OK
    assert second.report["award_lines"] == {"posted": 8, "reversals": 0}  # both games of the whole post, once


def test_a_correction_that_posts_nothing_is_pointed_out(office):
    # an upload cut to 0 bytes at a posted path is a correction that reverses every line (a fresh
    # run on that inbox would post nothing either); the summary says so, so the office can ask for
    # the file again
    post = office.post("sofu-mahjong/2026-11-03.txt", GAME_A)
    assert office.run().exit_code == nightly.EXIT_OK
    post.write_bytes(b"")
    done = pointledger("run", "--inbox", office.inbox, "--state", office.state, "--data-dir", office.data_dir(),
                       "--as-of", "2026-12-02")
    assert done.returncode == nightly.EXIT_QUARANTINE
    assert ("sofu-mahjong/2026-11-03.txt: its new version posted nothing, and the 4 line(s) of the version before are "
            "reversed (a file sent empty or cut short? send it again whole)") in " ".join(done.stdout.split())
    [report] = [json.loads(p.read_text(encoding="utf-8")) for p in sorted((office.state / "runs").glob("*.json"))[-1:]]
    assert report["corrections_reversed_whole"] == [{"source_file": "sofu-mahjong/2026-11-03.txt", "reversed_lines": 4}]


def test_explain_lists_players_who_differ_only_in_letter_case(office):
    # 'Ken' and 'KEN' are two players of the league (ids are names, case kept): 'ken' is neither
    # exactly, so both are listed rather than one chosen
    office.post("sofu-mahjong/2026-11-03.txt", "2026-11-03\n・1位Ken 40000\n・2位B 30000\n・3位C 20000\n・4位D 10000\n")
    office.post("sofu-mahjong/2026-11-04.txt", "2026-11-04\n・1位KEN 40000\n・2位B 30000\n・3位C 20000\n・4位D 10000\n")
    assert office.run().exit_code == nightly.EXIT_OK
    done = pointledger("explain", "ken", "--state", office.state, "--data-dir", office.data_dir())
    assert done.returncode == 6
    assert ("warning: 2 players are 'ken' in another letter case: KEN (sofu-mahjong), Ken (sofu-mahjong); explain one "
            "of them as listed") in " ".join(done.stderr.split())
    assert pointledger("explain", "KEN", "--state", office.state).stdout.startswith("KEN: 1 ledger line(s)")


def test_a_control_character_quoted_in_a_reason_is_written_out(office):
    # a NUL byte before the first contract of the sample teams match (a damaged export): the
    # reason quotes the contract, and the NUL shows as \x00 in the view and the secretary's report
    sample = Path(__file__).resolve().parents[2] / "data/samples/inbox/tokyo-bridge-club/2026-11-15-sunday-teams.pbn"
    office.post("tokyo-bridge-club/2026-11-15-sunday-teams.pbn",
                sample.read_bytes().replace(b'[Contract "1H"]', b'[Contract "\x001H"]', 1))
    assert office.run().exit_code == nightly.EXIT_QUARANTINE
    reasons = list(office.query("select reason from quarantine order by location desc")["reason"])
    assert reasons[0] == ("contract '\\x001H' is not a contract: expected level 1-7, strain C/D/H/S/NT, optional X/XX, "
                          "or PASS")
    report = office.state / "publications" / "tokyo-bridge-club" / "quarantine"
    for name in ("quarantine.csv", "index.html"):
        data = (report / name).read_bytes()
        assert b"\x00" not in data and b"\\x001H" in data


def test_a_failure_or_ctrl_c_after_the_commit_says_the_lines_are_posted(office, monkeypatch):
    # after the manifest names the run, whatever stops it (the report's write failing, Ctrl-C
    # while the publications are made) is told as "posted its lines", never "nothing was posted"
    office.post("sofu-mahjong/2026-10-03.txt", GAME_A.replace("2026-11-03", "2026-10-03"))
    real_write, real_refresh = nightly.write_json_atomically, nightly.refresh_outputs

    def disk_full(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(nightly, "write_json_atomically", disk_full)
    with pytest.raises(nightly.OutputsFailed, match=r"posted its lines, but then failed \(OSError: disk full\) before its "
                                                    r"warehouse, publications or report were done; the next run redoes them"):
        office.run()
    monkeypatch.setattr(nightly, "write_json_atomically", real_write)
    assert len(office.query("select * from awards")) == 4

    office.post("sofu-mahjong/2026-11-04.txt", GAME_B.replace("2026-11-03", "2026-11-04"))

    def ctrl_c(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(nightly, "refresh_outputs", ctrl_c)
    done = pointledger("run", "--inbox", office.inbox, "--state", office.state, "--data-dir", office.data_dir(),
                       "--as-of", "2026-12-02")
    assert done.returncode == nightly.EXIT_FAILED
    assert "posted its lines, but then was interrupted before its warehouse, publications or report were done" in " ".join(
        done.stderr.split())
    monkeypatch.setattr(nightly, "refresh_outputs", real_refresh)
    assert office.run().exit_code == nightly.EXIT_OK  # nothing new to post; both runs' outputs are made
    assert len(office.query("select * from awards")) == 8
    assert "<td>E</td>" in (office.state / "publications" / "sofu-mahjong" / "2026-10" / "index.html").read_text(encoding="utf-8")


def test_ctrl_c_before_the_commit_says_nothing_was_posted(office, monkeypatch):
    from pipelines.mahjong import system as mahjong

    office.post("sofu-mahjong/2026-11-03.txt", GAME_A)

    def ctrl_c(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(mahjong.MahjongSystem, "process", ctrl_c)
    done = pointledger("run", "--inbox", office.inbox, "--state", office.state, "--data-dir", office.data_dir(),
                       "--as-of", "2026-12-02")
    assert done.returncode == nightly.EXIT_FAILED
    assert "run interrupted, nothing was posted: the next run starts from the same state" in " ".join(done.stderr.split())
    monkeypatch.undo()
    assert office.run().report["award_lines"]["posted"] == 4


def test_nightly_runs_over_time_keep_each_partition_to_a_few_files(office):
    from pipelines.core.lake import COMPACT_AFTER

    for day in range(1, 13):  # twelve nights of November posts
        office.post(f"sofu-mahjong/2026-11-{day:02d}.txt", GAME_A.replace("2026-11-03", f"2026-11-{day:02d}"))
        assert office.run().exit_code == 0
    awards = sorted((office.state / "lake" / "awards" / "org=sofu-mahjong" / "month=2026-11").glob("*.parquet"))
    sources = sorted((office.state / "lake" / "sources" / "org=sofu-mahjong").glob("*.parquet"))
    assert 1 <= len(awards) <= COMPACT_AFTER and 1 <= len(sources) <= COMPACT_AFTER
    # nothing lost, nothing doubled: 12 games, 48 lines, every line once
    lines = office.query("select award_id, run_id from awards")
    assert len(lines) == 48 and lines["award_id"].is_unique and lines["run_id"].nunique() == 12
    assert len(office.query("select * from sources")) == 12
    assert office.run().report["award_lines"]["posted"] == 0


def test_a_game_posted_again_in_another_file_is_flagged_and_posted_once(office):
    office.post("sofu-mahjong/a.txt", GAME_A)
    office.run()
    # a second member posts the same evening, repeating game A (same date, players, scores)
    office.post("sofu-mahjong/b.txt", GAME_A + "\n" + GAME_B.replace("2026-11-03\n", ""))
    result = office.run()
    assert result.exit_code == 3
    q = office.query("select source_file, location, reason from quarantine")
    assert q.to_dict("records") == [{
        "source_file": "sofu-mahjong/b.txt", "location": "lines 2–5",
        "reason": "the same game (same date, players and scores) was already posted in sofu-mahjong/a.txt lines 2–5; it is counted once",
    }]
    assert len(ledger(office)) == 8  # A once, B once


def test_the_same_game_twice_in_one_post_counts_once(office):
    office.post("sofu-mahjong/a.txt", GAME_A + "\n" + GAME_A.replace("2026-11-03\n", ""))
    assert office.run().exit_code == 3
    q = office.query("select location, reason from quarantine")
    assert q["location"].tolist() == ["lines 7–10"]
    assert "already posted in sofu-mahjong/a.txt lines 2–5" in q["reason"].iloc[0]
    assert len(ledger(office)) == 4


def test_an_analyst_reading_the_warehouse_does_not_stop_the_run_or_explain(office):
    import duckdb

    office.post("sofu-mahjong/a.txt", GAME_A)
    office.run()
    analyst = duckdb.connect(str(office.state / "warehouse.duckdb"), read_only=True)
    try:
        office.post("sofu-mahjong/b.txt", GAME_B)
        assert office.run().exit_code == 0
        explained = subprocess.run([sys.executable, "-m", "pipelines.cli", "explain", "E", "--state", str(office.state)],
                                   capture_output=True, text=True, cwd=Path(__file__).resolve().parents[2])
        assert explained.returncode == 0 and "1st 7 = 7" in explained.stdout
        # the analyst still sees the warehouse as it was when they opened it
        assert analyst.sql("select count(*) from awards").fetchall() == [(4,)]
    finally:
        analyst.close()
    assert len(ledger(office)) == 8


def test_check_finds_the_organisation_of_a_file_in_a_sub_folder(office):
    path = office.post("sofu-mahjong/2026/11/bad.txt", BAD_SUM)
    done = pointledger("check", path, "--as-of", "2026-12-02", cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 3
    assert "0 record(s) OK, 1 problem(s)" in done.stdout and "add up to 99000; expected 100000" in done.stdout


def test_check_refuses_what_the_run_refuses_without_reading_it(office, tmp_path):
    # a named pipe (opening it would block for ever), a link to a file outside the inbox, a hidden
    # copy: each is reported as the run quarantines or ignores it, and check ends
    folder = office.inbox / "sofu-mahjong"
    folder.mkdir(parents=True, exist_ok=True)
    os.mkfifo(folder / "pipe.txt")
    (tmp_path / "elsewhere.txt").write_text(BAD_SUM, encoding="utf-8")
    (folder / "link.txt").symlink_to(tmp_path / "elsewhere.txt")
    hidden = office.post("sofu-mahjong/.copy.txt", BAD_SUM)
    done = subprocess.run([sys.executable, "-m", "pipelines.cli", "check", str(folder / "pipe.txt"), str(folder / "link.txt"),
                           str(hidden), "--as-of", "2026-12-02"], capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 3, done.stderr
    out = " ".join(done.stdout.split())
    assert "not a regular file (a folder, a device, pipe or socket): put the result file itself into the inbox" in out
    assert "a link, not a file: copy the file itself (links are not followed)" in out
    assert "the nightly run ignores hidden files and editor lock files" in out
    assert "add up to 99000" not in out  # neither the linked nor the hidden file was read


def test_a_failure_after_the_commit_is_reported_as_such_and_repaired_by_the_next_run(office, monkeypatch):
    office.post("sofu-mahjong/2026-10-03.txt", GAME_A.replace("2026-11-03", "2026-10-03"))
    from pipelines.mahjong import publish

    real = publish.render_period
    monkeypatch.setattr(publish, "render_period", lambda *a, **k: (_ for _ in ()).throw(OSError("disk full")))
    with pytest.raises(nightly.OutputsFailed, match="posted its lines, but rebuilding the warehouse and publications failed"):
        office.run()
    monkeypatch.setattr(publish, "render_period", real)
    assert office.run().exit_code == 0  # nothing new to post, the missing publication is written
    assert (office.state / "publications" / "sofu-mahjong" / "2026-10" / "index.html").exists()
    assert len(office.query("select * from awards")) == 4


def _recompute_cli(office, env_extra: dict, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, **env_extra}
    return subprocess.run(
        [sys.executable, "-m", "pipelines.cli", "recompute", "--inbox", str(office.inbox), "--state", str(office.state),
         "--as-of", "2026-12-03", "--data-dir", str(office.data), *args],
        capture_output=True, text=True, env=env, cwd=Path(__file__).resolve().parents[2],
    )


@pytest.mark.parametrize("kill_at", ["after_stage", "before_manifest"])
def test_a_killed_recompute_leaves_the_state_as_before(office, kill_at):
    """Issue 11: recompute commits like run. Placing points 1st 7, 2nd 4 (season-1); the office
    makes 2nd place 5, a recompute is killed half-way: nothing changed; the next one posts the
    difference (the 2nd place's 4 reversed, 5 posted)."""
    office.post("sofu-mahjong/2026-09-03.txt", GAME_A.replace("2026-11-03", "2026-09-03"))
    assert office.run().exit_code == nightly.EXIT_OK
    placing = office.data / "rules" / "mahjong" / "placing_points.csv"
    placing.write_text(placing.read_text(encoding="utf-8").replace("sofu-league,season-1,2,4\n", "sofu-league,season-1,2,5\n"),
                       encoding="utf-8")
    before = _snapshot(office.state)
    dry = _recompute_cli(office, {}, "--dry-run")
    assert dry.returncode == 3, dry.stderr
    assert "4.00" in dry.stdout and "5.00" in dry.stdout
    assert _recompute_cli(office, {nightly.KILL_ENV: kill_at}).returncode == -9
    after = _snapshot(office.state)
    assert (after["manifest"], after["tables"], after["pubs"]) == (before["manifest"], before["tables"], before["pubs"])
    done = _recompute_cli(office, {}, "--reason", "2nd place is worth 5")
    assert done.returncode == 0, done.stderr
    awards = _snapshot(office.state)["tables"]["awards"]
    assert len(awards) == len(before["tables"]["awards"]) + 2  # one reversal, one new line

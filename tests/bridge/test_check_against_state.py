"""`pointledger check --state`: a file is checked as tonight's run would see it beside what a state
folder has posted (read only). Expected outcomes follow DESIGN.md's identity rules: the same
content at the same path is already posted; the same content at another path is a duplicate; new
content at a posted path is a correction; another file of a session that stands is refused."""
from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from pipelines.core.check import check_files
from pipelines.core.settings import load_organisations
from tests.bridge.test_bridge_pipeline import AS_OF, CLUB, office  # noqa: F401  (fixture)

FIX = Path(__file__).parent / "fixtures"
NP = (FIX / "usebio_np_passed_in.xml").read_bytes()


def _check(office, tmp_path, *paths, state=True):
    data = tmp_path / "bridge-data"  # the bridge-only data folder of the office fixture
    return check_files(list(paths), load_organisations(data), None, AS_OF, data, tmp_path / "scratch",
                       state=office.state if state else None)


def test_check_with_state_says_what_run_would_do(office, tmp_path):
    posted = office.post(f"{CLUB}/2026-11-23-passed-in.xml", NP)
    assert office.run().exit_code == 0
    state_files = sorted(p.relative_to(office.state) for p in office.state.rglob("*") if p.is_file())

    # the same file again: already posted, nothing to do
    [same] = _check(office, tmp_path, posted)
    assert same["records_ok"] == 0 and same["problems"] == [] and "already posted" in same["notes"][0]

    # the same content at another path: a duplicate of the posted path
    copy = office.post(f"{CLUB}/copies/np-again.xml", NP)
    [dup] = _check(office, tmp_path, copy)
    assert dup["notes"] == [f"already posted from {CLUB}/2026-11-23-passed-in.xml: the same content at another path "
                            "is a duplicate; run would post nothing"]

    # another file of the same session (same event name and date, other content): refused
    other = office.post(f"{CLUB}/other.xml", NP.replace(b"<SCORE>-50</SCORE>", b"<SCORE>-50</SCORE> "))
    [clash] = _check(office, tmp_path, other)
    assert clash["records_ok"] == 0 and len(clash["problems"]) == 1
    assert f"is already posted from {CLUB}/2026-11-23-passed-in.xml" in clash["problems"][0]["reason"]

    # new content at the posted path: a correction, which posts (all 6 lines)
    posted.write_bytes(NP.replace(b"<SCORE>-50</SCORE>", b"<SCORE>-50</SCORE> "))
    [fix] = _check(office, tmp_path, posted)
    assert fix["problems"] == [] and fix["records_ok"] == 6 and "a correction of" in fix["notes"][0]

    # without --state the same file is simply valid: 6 records
    [plain] = _check(office, tmp_path, other, state=False)
    assert plain["records_ok"] == 6 and plain["problems"] == []

    # nothing in the state folder was written
    assert sorted(p.relative_to(office.state) for p in office.state.rglob("*") if p.is_file()) == state_files


def test_the_cli_flag(office, tmp_path):
    from pipelines.cli import main
    posted = office.post(f"{CLUB}/2026-11-23-passed-in.xml", NP)
    assert office.run().exit_code == 0
    result = CliRunner().invoke(main, ["check", str(posted), "--state", str(office.state),
                                       "--data-dir", str(tmp_path / "bridge-data"), "--as-of", AS_OF.isoformat()])
    assert result.exit_code == 0, result.output
    assert "already posted" in result.output

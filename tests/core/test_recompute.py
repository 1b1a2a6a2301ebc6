"""recompute.difference: only changed lines are reversed and reposted (issue 11).

Hand computation: a mahjong game under sofu-league season-1 placing points (1st 7, 2nd 4, 3rd 2,
4th 0; data/rules/mahjong/placing_points.csv). The league corrects 2nd place from 4 to 5. Only the
2nd-placed player's line changes: reversal -4.00 and new line 5.00, balance 4 -> 5; the others
are untouched, and recomputing again posts nothing.
"""
from datetime import date
from decimal import Decimal

import pandas as pd

from pipelines.core import ledger
from pipelines.core.recompute import difference
from schemas.common import POINTS
from schemas.ledger import AwardDraft, AwardLine

SHA = "a" * 64


def drafts(points: dict[str, str]) -> pd.DataFrame:
    players = list(points)
    return pd.DataFrame({
        "organisation": "sofu", "system": "mahjong", "event_id": "sofu-g1", "event_date": date(2026, 3, 1),
        "player_id": players, "denomination": "rp",
        "points": pd.array([Decimal(points[p]) for p in players], dtype=POINTS),
        "rule_version": "season-1", "basis": [f"place {i + 1}: {points[p]}" for i, p in enumerate(players)],
        "season": "2026", "source_file": "sofu/2026-03-01.csv", "source_sha256": SHA, "location": "line 2",
    }).pipe(AwardDraft.validate)


BEFORE = {"ann": "7", "bob": "4", "cid": "2", "dan": "0"}
AFTER = {"ann": "7", "bob": "5", "cid": "2", "dan": "0"}


def balances(lines: pd.DataFrame) -> dict[str, Decimal]:
    return {p: sum(g, Decimal(0)) for p, g in lines.groupby("player_id")["points"]}


def test_only_the_changed_line_is_reversed_and_reposted():
    posted = ledger.post(drafts(BEFORE), "run-1", date(2026, 3, 2))
    out = difference(ledger.standing_lines(posted), drafts(AFTER), "rc-1", "run-2", date(2026, 4, 1))
    AwardLine.validate(out)
    assert sorted(zip(out["entry_type"], out["player_id"], out["points"])) == [
        ("award", "bob", Decimal("5.00")), ("reversal", "bob", Decimal("-4.00"))]
    reversal = out[out["entry_type"] == "reversal"].iloc[0]
    assert reversal["reverses_award_id"] == posted.loc[posted["player_id"] == "bob", "award_id"].iloc[0]
    assert out["basis"].str.contains("rc-1").all()
    ledger_now = pd.concat([posted, out], ignore_index=True)
    assert balances(ledger_now) == {"ann": Decimal(7), "bob": Decimal(5), "cid": Decimal(2), "dan": Decimal(0)}
    # second recompute: nothing
    again = difference(ledger.standing_lines(ledger_now), drafts(AFTER), "rc-2", "run-3", date(2026, 4, 2))
    assert again.empty


def test_unchanged_rules_post_nothing_and_a_vanished_line_is_reversed():
    posted = ledger.post(drafts(BEFORE), "run-1", date(2026, 3, 2))
    assert difference(ledger.standing_lines(posted), drafts(BEFORE), "rc-1", "run-2", date(2026, 4, 1)).empty
    three = drafts({"ann": "7", "bob": "4", "cid": "2"})
    out = difference(ledger.standing_lines(posted), three, "rc-1", "run-2", date(2026, 4, 1))
    assert list(zip(out["entry_type"], out["player_id"], out["points"])) == [("reversal", "dan", Decimal("0.00"))]


def test_a_new_rule_version_alone_counts_as_a_change():
    posted = ledger.post(drafts(BEFORE), "run-1", date(2026, 3, 2))
    relabelled = drafts(BEFORE).assign(rule_version="season-1b")
    out = difference(ledger.standing_lines(posted), relabelled, "rc-1", "run-2", date(2026, 4, 1))
    assert (out["entry_type"] == "reversal").sum() == 4 and (out["entry_type"] == "award").sum() == 4
    assert balances(pd.concat([posted, out])) == {p: Decimal(v) for p, v in BEFORE.items()}


# -- through `pointledger recompute` (pipelines/core/run.py with a Recompute request) -------------

from pipelines.core import run as nightly  # noqa: E402
from office import Office  # noqa: E402 - tests/office.py

GAME_1 = "2026-09-03\n・1位A 35000\n・2位B 28000\n・3位C 22000\n・4位D 15000\n"
GAME_2 = "2026-09-10\n・1位B 38000\n・2位C 27000\n・3位D 21000\n・4位A 14000\n"


def _set_second_place(office: Office, points: str) -> None:
    path = office.data / "rules" / "mahjong" / "placing_points.csv"
    text = path.read_text(encoding="utf-8")
    assert text.count("sofu-league,season-1,2,4\n") == 1
    path.write_text(text.replace("sofu-league,season-1,2,4\n", f"sofu-league,season-1,2,{points}\n"), encoding="utf-8")


def _recompute(office: Office, **kw) -> nightly.RunResult:
    return nightly.run(office.inbox, office.state, date(2026, 12, 3), office.data_dir(),
                       recompute=nightly.Recompute(**kw))


def _balances(office: Office) -> dict[str, Decimal]:
    rows = office.query("select player_id, sum(points) as p from balances group by 1")
    return dict(zip(rows["player_id"], rows["p"]))


def test_recompute_after_a_placing_point_change(tmp_path):
    """Hand computation (season-1 placing points 7 / 4 / 2 / 0, no bust, no 3-koro): game 1 gives
    A 7, B 4, C 2, D 0; game 2 B 7, C 4, D 2, A 0; balances A 7, B 11, C 6, D 2. The league makes
    2nd place worth 5: only the two 2nd places change (B in game 1, C in game 2), so the
    recomputation reverses those two lines (-4 each) and posts 5 each; balances A 7, B 12, C 7, D 2."""
    office = Office(tmp_path)
    office.post("sofu-mahjong/2026-09-03.txt", GAME_1)
    office.post("sofu-mahjong/2026-09-10.txt", GAME_2)
    assert office.run().exit_code == nightly.EXIT_OK
    assert _balances(office) == {"A": Decimal(7), "B": Decimal(11), "C": Decimal(6), "D": Decimal(2)}

    _set_second_place(office, "5")
    night = office.run()  # nothing new: the night warns that history was scored under other rule data
    assert [w["organisation"] for w in night.report["rule_data_changed"]] == ["sofu-mahjong"]
    assert "pointledger recompute --organisation sofu-mahjong --dry-run" in night.report["rule_data_changed"][0]["message"]

    dry = _recompute(office, organisation="sofu-mahjong", dry_run=True, reason="2nd place is worth 5")
    assert dry.exit_code == nightly.EXIT_QUARANTINE
    diff = {(d["player_id"], d["event_id"].rsplit("/", 1)[-1][:10]): (d["before"], d["after"], d["delta"])
            for d in dry.report["recomputation"]["difference"]}
    assert {k: v for k, v in diff.items()} == {("B", "2026-09-03"): ("4.00", "5.00", "1.00"),
                                               ("C", "2026-09-10"): ("4.00", "5.00", "1.00")}
    assert _balances(office) == {"A": Decimal(7), "B": Decimal(11), "C": Decimal(6), "D": Decimal(2)}  # nothing posted

    done = _recompute(office, organisation="sofu-mahjong", reason="2nd place is worth 5")
    assert done.exit_code == nightly.EXIT_OK
    assert _balances(office) == {"A": Decimal(7), "B": Decimal(12), "C": Decimal(7), "D": Decimal(2)}
    lines = office.query("select entry_type, player_id, points, basis from awards where run_id = ? order by 1, 2", [done.run_id])
    assert list(zip(lines["entry_type"], lines["player_id"], lines["points"])) == [
        ("award", "B", Decimal("5.00")), ("award", "C", Decimal("5.00")),
        ("reversal", "B", Decimal("-4.00")), ("reversal", "C", Decimal("-4.00"))]
    recomputations = office.query("select organisation, reason, files, lines_reversed, lines_posted from recomputations")
    assert recomputations.astype(str).values.tolist() == [["sofu-mahjong", "2nd place is worth 5", "2", "2", "2"]]
    # the history is now scored under the current rule data: no warning, and a second recompute posts nothing
    assert office.run().report["rule_data_changed"] == []
    again = _recompute(office, organisation="sofu-mahjong")
    assert again.report["award_lines"] == {"posted": 0, "reversals": 0}
    assert _balances(office) == {"A": Decimal(7), "B": Decimal(12), "C": Decimal(7), "D": Decimal(2)}


def test_recompute_only_re_derives_its_date_range(tmp_path):
    """--from 2026-09-05: only game 2 (2026-09-10) is re-derived; game 1 keeps B's 4."""
    office = Office(tmp_path)
    office.post("sofu-mahjong/2026-09-03.txt", GAME_1)
    office.post("sofu-mahjong/2026-09-10.txt", GAME_2)
    office.run()
    _set_second_place(office, "5")
    done = _recompute(office, date_from=date(2026, 9, 5))
    assert done.report["recomputation"]["files"] == 1
    assert _balances(office) == {"A": Decimal(7), "B": Decimal(11), "C": Decimal(7), "D": Decimal(2)}
    # history before the range is still under the old data: the warning stays
    assert [w["organisation"] for w in office.run().report["rule_data_changed"]] == ["sofu-mahjong"]


def test_a_new_rule_version_in_the_past_is_picked_up_for_the_events_it_covers(tmp_path):
    """The league adds version season-1b, effective 2026-09-05, with 2nd place worth 5. Game 1
    (2026-09-03) stays under season-1: untouched. Game 2 (2026-09-10) is now under season-1b: all
    four of its lines change version (B 7, C 5, D 2, A 0: only C's points change), so four
    reversals and four new lines; balances A 7, B 11, C 7, D 2."""
    office = Office(tmp_path)
    office.post("sofu-mahjong/2026-09-03.txt", GAME_1)
    office.post("sofu-mahjong/2026-09-10.txt", GAME_2)
    office.run()
    rules = office.data / "rules" / "mahjong"
    versions = (rules / "rule_versions.csv").read_text(encoding="utf-8").splitlines()
    season_1 = next(v for v in versions if v.startswith("sofu-league,season-1,"))
    versions.insert(versions.index(season_1) + 1,
                    season_1.replace("season-1,2000-01-01", "season-1b,2026-09-05").split(',"')[0] + ',"Season 1b: 2nd place 5"')
    (rules / "rule_versions.csv").write_text("\n".join(versions) + "\n", encoding="utf-8")
    (rules / "placing_points.csv").write_text((rules / "placing_points.csv").read_text(encoding="utf-8")
                                              + "".join(f"sofu-league,season-1b,{p},{v}\n" for p, v in [(1, 7), (2, 5), (3, 2), (4, 0)]),
                                              encoding="utf-8")
    done = _recompute(office, reason="season 1b from 2026-09-05")
    lines = office.query("select entry_type, event_id, player_id, points, rule_version from awards where run_id = ?", [done.run_id])
    assert set(lines["event_id"].str.contains("2026-09-10")) == {True}
    assert sorted(zip(lines["entry_type"], lines["player_id"], lines["rule_version"])) == sorted(
        [("reversal", p, "season-1") for p in "ABCD"] + [("award", p, "season-1b") for p in "ABCD"])
    assert _balances(office) == {"A": Decimal(7), "B": Decimal(11), "C": Decimal(7), "D": Decimal(2)}
    row = office.query("select rule_versions_before, rule_versions_after from recomputations").iloc[0]
    assert (row["rule_versions_before"], row["rule_versions_after"]) == ("season-1", "season-1b")


def test_a_quarantined_file_posts_when_a_rule_version_reaches_back_to_its_date(tmp_path):
    """A game of 1999-12-20 comes before the league's first rule version (season-1, from
    2000-01-01): the file is quarantined whole. The league adds season-0, from 1999-01-01, with
    placing points 7 / 4 / 2 / 0 (A 35000 1st, B 2nd, C 3rd, D 15000 4th: no bust, no 3-koro under
    season-1's thresholds copied). A recompute over the whole range re-reads the quarantined
    version: A 7, B 4, C 2, D 0 posted under season-0, the file no longer in the quarantine; a
    ranged recompute would not have read it (its date is unknown until read), a second posts nothing."""
    office = Office(tmp_path)
    old_game = GAME_1.replace("2026-09-03", "1999-12-20")
    office.post("sofu-mahjong/1999-12-20.txt", old_game)
    assert office.run().exit_code == nightly.EXIT_QUARANTINE
    reasons = office.query("select reason from quarantine where source_file = 'sofu-mahjong/1999-12-20.txt'")["reason"]
    assert any("before the league's first rule version (season-1, in force from 2000-01-01)" in r for r in reasons)

    rules = office.data / "rules" / "mahjong"
    versions = (rules / "rule_versions.csv").read_text(encoding="utf-8").splitlines()
    season_1 = next(v for v in versions if v.startswith("sofu-league,season-1,"))
    versions.insert(versions.index(season_1),
                    season_1.replace("season-1,2000-01-01", "season-0,1999-01-01").split(',"')[0] + ',"Season 0"')
    (rules / "rule_versions.csv").write_text("\n".join(versions) + "\n", encoding="utf-8")
    (rules / "placing_points.csv").write_text((rules / "placing_points.csv").read_text(encoding="utf-8")
                                              + "".join(f"sofu-league,season-0,{p},{v}\n" for p, v in [(1, 7), (2, 4), (3, 2), (4, 0)]),
                                              encoding="utf-8")
    ranged = _recompute(office, date_from=date(1999, 1, 1), dry_run=True)
    assert ranged.report["recomputation"]["files"] == 0

    done = _recompute(office, reason="season 0 added, from 1999-01-01")
    assert done.report["recomputation"]["files"] == 1
    lines = office.query("select entry_type, player_id, points, rule_version from awards where run_id = ? order by player_id",
                         [done.run_id])
    assert list(zip(lines["entry_type"], lines["player_id"], lines["points"], lines["rule_version"])) == [
        ("award", "A", Decimal("7.00"), "season-0"), ("award", "B", Decimal("4.00"), "season-0"),
        ("award", "C", Decimal("2.00"), "season-0"), ("award", "D", Decimal("0.00"), "season-0")]
    q = office.query("select is_open, resolved_by_run from quarantine where source_file = 'sofu-mahjong/1999-12-20.txt'")
    assert q.astype(str).values.tolist() == [["False", done.run_id]]
    assert office.query("select status from sources where source_file = 'sofu-mahjong/1999-12-20.txt' and is_current"
                        )["status"].tolist() == ["posted"]
    again = _recompute(office)
    assert again.report["award_lines"] == {"posted": 0, "reversals": 0}


def test_recompute_and_run_exclude_each_other(tmp_path):
    import fcntl

    from pipelines.core.settings import StatePaths

    office = Office(tmp_path)
    office.post("sofu-mahjong/2026-09-03.txt", GAME_1)
    office.run()
    paths = StatePaths(office.state)
    with open(paths.lock, "a+") as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        try:
            _recompute(office)
        except nightly.RunLocked as error:
            assert "another pointledger run" in str(error)
        else:
            raise AssertionError("recompute ran while the state folder was locked")


def test_recompute_refuses_a_system_it_would_find_nothing_for(tmp_path):
    # an unknown rule system, or one the organisation does not use, would re-derive nothing and
    # say "0 line(s) changed": read as "the rule change changes nothing"
    from office import pointledger

    office = Office(tmp_path)
    office.post("sofu-mahjong/2026-11-03.txt", "2026-11-03\n・1位A 40000\n・2位B 30000\n・3位C 20000\n・4位D 10000\n")
    assert office.run().exit_code == 0
    where = ["--inbox", office.inbox, "--state", office.state, "--data-dir", office.data_dir()]
    unknown = pointledger("recompute", "--system", "nosuch", *where)
    assert unknown.returncode == 2 and "'nosuch' is not one of" in unknown.stderr
    other = pointledger("recompute", "--organisation", "sofu-mahjong", "--system", "bridge", *where)
    assert other.returncode == 2
    assert "--organisation sofu-mahjong uses the rule system 'mahjong', not 'bridge'" in " ".join(other.stderr.split())
    # a system's name in capitals is the system
    assert pointledger("recompute", "--system", "Mahjong", "--dry-run", *where).returncode == 0


def test_a_dry_run_into_a_file_lists_each_change_on_one_line(tmp_path):
    # cron mails or a redirect: not a terminal, so one tab-separated line per change, never a
    # table folded to 80 columns (the hand computation of test_recompute_after_a_placing_point_change)
    from office import pointledger

    office = Office(tmp_path)
    office.post("sofu-mahjong/2026-09-03.txt", GAME_1)
    office.post("sofu-mahjong/2026-09-10.txt", GAME_2)
    assert office.run().exit_code == nightly.EXIT_OK
    _set_second_place(office, "5")
    done = pointledger("recompute", "--organisation", "sofu-mahjong", "--dry-run", "--inbox", office.inbox,
                       "--state", office.state, "--data-dir", office.data_dir(), "--as-of", "2026-12-03")
    assert done.returncode == nightly.EXIT_QUARANTINE
    lines = done.stdout.splitlines()
    at = lines.index("organisation\tplayer\tevent\tdenom.\tbefore\tafter\tdelta\tbasis after (before)")
    changes = sorted(tuple(line.split("\t")[1:2] + line.split("\t")[4:7]) for line in lines[at + 1:])
    assert changes == [("B", "4.00", "5.00", "1.00"), ("C", "4.00", "5.00", "1.00")]


GAME_3 = "2026-09-17\n・1位C 36000\n・2位D 29000\n・3位A 21000\n・4位B 14000\n"


def test_a_posted_file_gone_from_the_inbox_or_changed_is_named_not_passed_over(tmp_path):
    """Three posted nights; then 2nd place is made 5, 2026-09-03.txt is removed from the inbox and
    2026-09-10.txt changed. The recomputation re-derives the one file it can (2026-09-17: D's 2nd
    place, 4 -> 5) and names the two others (it said "1 file version(s) re-derived" and nothing
    more: the removed file's lines stood under the old rules without a word, and the next run no
    longer warned). Its source record then counts the file's 4 standing lines, not the 2 lines of
    the difference, and replaces no earlier content."""
    from office import pointledger

    office = Office(tmp_path)
    for name, game in (("2026-09-03", GAME_1), ("2026-09-10", GAME_2), ("2026-09-17", GAME_3)):
        office.post(f"sofu-mahjong/{name}.txt", game)
    assert office.run().exit_code == nightly.EXIT_OK
    _set_second_place(office, "5")
    (office.inbox / "sofu-mahjong" / "2026-09-03.txt").unlink()
    office.post("sofu-mahjong/2026-09-10.txt", GAME_2 + "\n")
    done = pointledger("recompute", "--organisation", "sofu-mahjong", "--inbox", office.inbox, "--state", office.state,
                       "--data-dir", office.data_dir(), "--as-of", "2026-12-03")
    assert done.returncode == nightly.EXIT_OK
    said = " ".join(done.stdout.split())
    assert "1 file version(s) re-derived, 1 line(s) changed" in said
    assert ("not re-derived: sofu-mahjong/2026-09-03.txt is no longer in the inbox; its lines stand as posted under the "
            "earlier rule data") in said
    assert "not re-derived: sofu-mahjong/2026-09-10.txt has changed since it was posted; the next run posts" in said
    # B keeps the 4 of game 1 (file removed); D's 2nd place of game 3 is now 5
    lines = office.query("select player_id, points from awards where source_file like '%09-17%' and entry_type = 'award' "
                         "and run_id = (select max(run_id) from runs)")
    assert lines.astype(str).values.tolist() == [["D", "5.00"]]
    source = office.query("select award_lines, supersedes_sha256 from sources where is_current and source_file like '%09-17%'")
    assert source["award_lines"].tolist() == [4] and source["supersedes_sha256"].isna().all()

"""The fuzz harness of `make fuzz` (issue 14), run small: it runs every parser, reports, saves
what crashes, and its oracle sees the crashes it must see. The long campaign is `make fuzz`."""
from __future__ import annotations

import json
import random
from datetime import date
from decimal import Decimal
from pathlib import Path

import pandas as pd
import pytest

from pipelines.core.system import SystemBatch, get_system
from pipelines.fuzz import mutate as m
from pipelines.fuzz.campaign import DEFAULT_SEED, check_batch, generate, run_campaign, targets
from schemas.common import empty_frame
from schemas.ledger import AwardDraft, EventRecord, QuarantineDraft

FILES = 5  # per parser: the suite's share of a shared 2-core machine; `make fuzz` runs 10,000
PARSERS = {"mahjong-text", "mahjong-csv", "bridge-pbn", "bridge-xml", "bridge-csv", "jcbl-event", "jcbl-standings",
           "backgammon-results", "backgammon-matchlog", "sweden-event", "sweden-standings", "sweden-travellers",
           "sweden-register", "sweden-match", "sweden-series-file", "sweden-series-final"}


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    out = tmp_path_factory.mktemp("fuzz")
    return out, run_campaign(FILES, seed=DEFAULT_SEED, jobs=1, out_dir=out, timeout=120)


def test_every_parser_gets_its_files_and_a_report(campaign):
    out, summary = campaign
    assert set(summary["targets"]) == PARSERS
    for name, t in summary["targets"].items():
        assert t["files"] == FILES, name
        assert 0 <= t["crashes"] <= FILES
        assert sum(s["count"] for s in t["signatures"].values()) == t["crashes"]
        assert t["seed_files"], name
    written = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert written["files_per_target"] == FILES and set(written["targets"]) == PARSERS


def test_every_crashing_input_is_saved_with_its_traceback_and_can_be_made_again(campaign):
    out, summary = campaign
    inbox = Path(__file__).resolve().parents[2] / "data" / "samples" / "inbox"
    by_name = {t.name: t for t in targets()}
    for name, t in summary["targets"].items():
        for signature, s in t["signatures"].items():
            smallest = s["smallest"]
            saved = Path(smallest["saved_as"])
            assert saved.parent == out / t["system"]
            assert signature in saved.with_name(saved.name + ".traceback.txt").read_text(encoding="utf-8")
            # deterministic: file i of a parser is the same file whatever ran before it
            seed_file, data, applied = generate(by_name[name], smallest["index"], DEFAULT_SEED, inbox)
            assert (seed_file, applied) == (smallest["seed_file"], smallest["mutations"])
            assert data == saved.read_bytes()


def test_no_generated_file_crashes_any_parser(campaign):
    _, summary = campaign
    crashes = {name: list(t["signatures"]) for name, t in summary["targets"].items() if t["crashes"]}
    assert crashes == {}


# -- the oracle: what counts as a crash ---------------------------------------------------------------


class _Ctx:
    run_id, as_of = "fuzz", date(2026, 12, 2)


def _batch(awards=None, quarantine=None, posted=0, source="sofu-mahjong/a.txt"):
    return SystemBatch(
        events=empty_frame(EventRecord).drop(columns="run_id"),
        awards=awards if awards is not None else empty_frame(AwardDraft),
        quarantine=quarantine if quarantine is not None else empty_frame(QuarantineDraft),
        records=pd.DataFrame({"source_file": [source], "records_posted": [posted], "records_quarantined": [0]}),
    )


def test_a_file_with_nothing_posted_and_nothing_quarantined_is_a_crash():
    found = check_batch(_batch(), get_system("mahjong"), ["sofu-mahjong/a.txt"], _Ctx())
    assert [sig for sig, _ in found] == ["Accounting: no record posted and no quarantine row (silently empty)"]
    quarantined = pd.DataFrame({"source_file": ["sofu-mahjong/a.txt"], "location": ["line 3"],
                                "reason": ["a result line without a score"], "record": ["・1位A"]})
    assert check_batch(_batch(quarantine=quarantined), get_system("mahjong"), ["sofu-mahjong/a.txt"], _Ctx()) == []


def test_an_award_with_null_points_is_a_crash():
    award = pd.DataFrame([{
        "organisation": "sofu-mahjong", "system": "mahjong", "event_id": "e1", "event_date": date(1970, 1, 1),
        "player_id": "A", "denomination": "league", "points": None, "rule_version": "v1", "basis": "place 1",
        "season": "1970", "source_file": "sofu-mahjong/a.txt", "source_sha256": "0" * 64, "location": "line 2",
    }])
    found = check_batch(_batch(awards=award, posted=1), get_system("mahjong"), ["sofu-mahjong/a.txt"], _Ctx())
    assert [sig for sig, _ in found] == ["OutputInvalid AwardLine.points check not_nullable"]
    good = award.assign(points=[Decimal("2.5")])
    assert check_batch(_batch(awards=good, posted=1), get_system("mahjong"), ["sofu-mahjong/a.txt"], _Ctx()) == []


def test_rows_naming_a_file_outside_the_batch_are_a_crash():
    found = check_batch(_batch(posted=1, source="sofu-mahjong/other.txt"), get_system("mahjong"),
                        ["sofu-mahjong/a.txt"], _Ctx())
    assert "Accounting: a file has no records row" in [sig for sig, _ in found]
    assert "Accounting: records rows name a file not in the batch" in [sig for sig, _ in found]


# -- the mutations --------------------------------------------------------------------------------


def test_mutations_do_what_their_names_say():
    rng = random.Random(1)
    text = "2026-11-03\n・1位A 40000\n\n・2位B 30000\n".encode()
    assert m.crlf(text, rng) == "2026-11-03\r\n・1位A 40000\r\n\r\n・2位B 30000\r\n".encode()
    assert m.cr_only(text, rng) == "2026-11-03\r・1位A 40000\r\r・2位B 30000\r".encode()
    assert b"99999999999999999999" in m.huge_number(text, rng)
    assert m.date_1970(text, rng).startswith(b"1970-11-03") and m.date_9999(text, rng).startswith(b"9999-11-03")
    assert len(m.long_field(text, rng)) >= len(text) + 200 * 1024 // 3
    assert m.many_commas(b"a,b\nc,d", random.Random(3)).count(b",") >= 2 + 3
    assert b"\x00" in m.nul_bytes(text, rng)
    assert m.bom(text, rng)[:2] in (b"\xef\xbb", b"\xff\xfe", b"\xfe\xff")
    widened = {m.fullwidth_digits(b"score 1", random.Random(i)).decode() for i in range(20)}
    assert widened == {"score 1", "score １"}  # a digit is either left alone or made full-width, nothing else
    assert m.remove_blank_lines(b"a\n\nb", rng) == b"a\nb"
    cut = m.truncate(text, rng)
    assert text.startswith(cut) and len(cut) <= len(text)
    assert len(m.MUTATIONS) >= 21


def test_mutate_is_deterministic_by_seed():
    data = "2026-11-03\n・1位A 40000\n・2位B 30000\n".encode()
    first = [m.mutate(data, random.Random(f"14/x/{i}")) for i in range(50)]
    again = [m.mutate(data, random.Random(f"14/x/{i}")) for i in range(50)]
    assert first == again
    assert len({d for d, _ in first}) > 25  # and they differ from file to file


def test_batched_files_share_a_process_call_and_a_failing_batch_is_judged_file_by_file(tmp_path, monkeypatch):
    from pipelines.fuzz import campaign as c

    calls = []
    real = c.Harness.process

    def process(self, target, files, groups=None):
        outcome = real(self, target, files, groups)
        calls.append(len(set((groups or {}).values())) or 1)
        if groups and len(set(groups.values())) == 4 and "3" in groups.values():
            return c.Outcome(False, "Injected: the batch of files 0-3 fails together")
        return outcome

    monkeypatch.setattr(c.Harness, "process", process)
    monkeypatch.setattr(c, "_BATCHABLE", {})
    summary = run_campaign(8, seed=DEFAULT_SEED, jobs=1, out_dir=tmp_path, only=["mahjong-text"], timeout=120,
                           chunk=8, batch=4)
    t = summary["targets"]["mahjong-text"]
    assert t["files"] == 8 and t["batched"] and summary["files_per_process_call"] == 4
    assert 4 in calls  # two calls of 4 generated files each (besides the baselines, alone)
    # files 0-3 failed together and each passed alone: one BatchOnly crash on file 0, saved
    assert t["batches_rerun_file_by_file"] == 1
    assert list(t["signatures"]) == ["BatchOnly: Injected: the batch of files 0-3 fails together"]
    assert t["signatures"]["BatchOnly: Injected: the batch of files 0-3 fails together"]["smallest"]["index"] == 0


def test_fewer_records_and_no_quarantine_row_is_a_silent_loss(monkeypatch):
    """The oracle's silent-loss rule: a mutated file (not a lossy mutation) that posts fewer records
    than its unmutated seed file and says nothing is a crash. With a quarantine row it is not, and
    the seed file is not run for its count at all."""
    from pipelines.fuzz import campaign as c

    asked = []

    def baseline(harness, target, seed_file, partner, inbox):
        asked.append(seed_file)
        return 10  # the unmutated seed posts 10 records

    monkeypatch.setattr(c, "_baseline", baseline)
    target = c.Target("t", "mahjong", "club", ("club/a.txt",))
    made = ("club/a.txt", b"x", ["swap_fields"])

    silent = c.ChunkResult("t")
    c._judge(None, target, 0, made, c.Outcome(True), 7, 0, None, None, silent)
    assert [k.signature.split(":")[0] for k in silent.crashes] == ["SilentLoss"] and asked == ["club/a.txt"]
    assert "7 record(s) posted, 10 from the unmutated club/a.txt" in silent.crashes[0].detail

    said = c.ChunkResult("t")
    c._judge(None, target, 1, made, c.Outcome(True), 7, 1, None, None, said)
    assert said.crashes == [] and said.posted_files == 1 and asked == ["club/a.txt"]  # no second count

    lossy = c.ChunkResult("t")
    c._judge(None, target, 2, ("club/a.txt", b"x", ["delete_line"]), c.Outcome(True), 7, 0, None, None, lossy)
    assert lossy.crashes == [] and asked == ["club/a.txt"]

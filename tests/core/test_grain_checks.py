"""The ledger lines' grain (award_id) is checked on sort-based codes (`schemas.common.repeated_rows`)
instead of pandera's `unique`, which spells every id of a history's million lines out as a Python
string. The same rows are found: compared here with pandas' `duplicated(keep=False)`, the method
pandera's `unique` uses."""
from __future__ import annotations

import datetime
from decimal import Decimal

import numpy as np
import pandas as pd

from pipelines.core import ledger
from pipelines.core.memory import texts_held_once
from pipelines.core.validation import failure_cases
from schemas.common import TEXT, repeated_rows
from schemas.ledger import AwardDraft, AwardLine


def test_repeated_rows_are_the_rows_pandas_finds_duplicated():
    rng = np.random.default_rng(7)
    for n in (1, 2, 7, 60, 2000):
        frame = pd.DataFrame({"a": pd.Series(rng.choice(["x", "y", None, "åäö"], n), dtype=TEXT),
                              "b": rng.integers(0, 3, n), "c": pd.Series(rng.choice(["p", "q"], n), dtype=TEXT)})
        # several chunks, as a history's slices are; and the texts held once per slice
        frame = pd.concat([frame.iloc[: n // 2], frame.iloc[n // 2:]], ignore_index=True)
        held = pd.concat([texts_held_once(frame.iloc[: n // 2], ["a", "c"]), texts_held_once(frame.iloc[n // 2:], ["a", "c"])],
                         ignore_index=True)
        for columns in (["a"], ["b"], ["a", "b"], ["a", "b", "c"]):
            expected = frame.duplicated(columns, keep=False).to_numpy()
            assert (repeated_rows(frame, columns) == expected).all(), (n, columns)
            assert (repeated_rows(held, columns) == expected).all(), (n, columns, "held once")


def test_a_large_frame_is_checked_first_by_hashes_and_finds_the_same_rows():
    """From 10,000 rows the check compares one hash per row first (all different: nothing
    repeats); a repeated row makes hashes equal and the exact comparison names the rows."""
    n = 30_000
    ids = pd.Series([f"a-{i:024x}" for i in range(n)], dtype=TEXT)
    for repeat_at in (None, (12, 29_006)):  # rows 12 and 29,006 have the same k too
        frame = pd.DataFrame({"award_id": ids.copy(), "k": np.arange(n) % 7})
        if repeat_at:
            frame.loc[repeat_at[1], "award_id"] = frame.loc[repeat_at[0], "award_id"]
        held = pd.concat([texts_held_once(frame.iloc[: n // 3], ["award_id"]),
                          texts_held_once(frame.iloc[n // 3:], ["award_id"])], ignore_index=True)
        for columns in (["award_id"], ["award_id", "k"]):
            expected = frame.duplicated(columns, keep=False).to_numpy()
            assert expected.sum() == (0 if repeat_at is None else 2)
            assert (repeated_rows(frame, columns) == expected).all(), (repeat_at, columns)
            assert (repeated_rows(held, columns) == expected).all(), (repeat_at, columns, "held once")


def _draft(**change):
    row = dict(organisation="svensk-bridge", system="sweden", event_id="e1", event_date=datetime.date(2024, 9, 3),
               player_id="100100", denomination="bp", points=Decimal("3.00"), rule_version="se-2009", basis="3 bp",
               season="2024/25", source_file="svensk-bridge/k/e1.standings.csv", source_sha256="a" * 64, location="rad 2")
    return {**row, **change}


def test_a_draft_twice_still_fails_the_draft_s_own_grain():
    drafts = pd.DataFrame([_draft(), _draft(points=Decimal("1.00")), _draft(player_id="100101")])
    _, cases = failure_cases(AwardDraft, drafts)
    assert sorted(set(cases["index"].tolist())) == [0, 1]
    _, cases = failure_cases(AwardDraft, drafts.iloc[1:])
    assert cases.empty


def test_a_ledger_line_s_grain_is_its_id_and_a_reversal_may_repeat_the_draft_s_key():
    lines = ledger.post(pd.DataFrame([_draft()]), "run-1", datetime.date(2024, 9, 4))
    reversal = ledger.reverse(lines, pd.Series({lines["source_file"].iloc[0]: "b" * 64}), "run-2", datetime.date(2024, 9, 5))
    both = pd.concat([lines, reversal], ignore_index=True)
    _, cases = failure_cases(AwardLine, both)
    assert cases.empty  # the same event, player and denomination twice: an award and its reversal
    _, cases = failure_cases(AwardLine, pd.concat([lines, lines], ignore_index=True))
    assert set(cases["check"]) == {"award_id must be unique: two lines have the same id"}
    assert sorted(cases["index"].tolist()) == [0, 1]
    assert cases["failure_case"].iloc[0] == {"award_id": lines["award_id"].iloc[0]}  # the id, for the office

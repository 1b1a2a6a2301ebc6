"""pipelines/core/ranks.py: competition ranks and repeated keys on NumPy arrays, against hand-made
lists and against pandas (an independent implementation) on generated ones."""
from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines.core import ranks as ranks_module
from pipelines.core.ranks import competition_ranks, repeated


def test_ties_share_the_lowest_place_and_the_next_is_placed_after_them():
    # places as a result list prints them: 1, 2=, 2=, 4; within each section separately
    assert competition_ranks([1, 2, 2, 4], ["", "", "", ""]).tolist() == [1, 2, 2, 4]
    # a list whose places skip nothing where they should skip: the 4th line should be 4, not 3
    assert competition_ranks([1, 2, 2, 3], ["", "", "", ""]).tolist() == [1, 2, 2, 4]
    # two sections (NS and ÖV of a Mitchell), lines interleaved and out of order
    assert competition_ranks([2, 1, 1, 1, 2], ["NS", "ÖV", "NS", "ÖV", "NS"]).tolist() == [2, 1, 1, 1, 2]
    assert competition_ranks([], []).tolist() == []


def test_every_line_of_a_repeated_combination_is_marked():
    assert repeated(["", "", ""], ["3", "4", "3"]).tolist() == [True, False, True]
    # the same entrant in two sections is two entrants
    assert repeated(["NS", "ÖV"], ["3", "3"]).tolist() == [False, False]
    assert repeated([], []).tolist() == []


rows = st.lists(st.tuples(st.sampled_from(["", "A", "B", "ÖV"]), st.integers(1, 9), st.sampled_from(["1", "2", "10", "x"])),
                max_size=40)


@settings(max_examples=300, deadline=None)
@given(rows)
def test_the_same_as_pandas(lines):
    frame = pd.DataFrame(lines, columns=["section", "place", "entrant"]).astype({"place": "int64"})
    # both ways of counting: in plain Python (a short list) and with NumPy (a long one)
    for small in (0, 10**6):
        before, ranks_module._SMALL = ranks_module._SMALL, small
        try:
            ranks = competition_ranks(frame["place"], frame["section"])
            assert ranks.tolist() == frame.groupby("section")["place"].rank(method="min").astype("int64").tolist()
            # two keys (a JCBL field: unit and flight), and none (one field)
            assert competition_ranks(frame["place"], frame["section"], frame["entrant"]).tolist() == \
                frame.groupby(["section", "entrant"])["place"].rank(method="min").astype("int64").tolist()
            assert competition_ranks(frame["place"]).tolist() == frame["place"].rank(method="min").astype("int64").tolist()
            assert repeated(frame["section"], frame["entrant"]).tolist() == \
                frame.duplicated(["section", "entrant"], keep=False).tolist()
            assert isinstance(ranks, np.ndarray)
        finally:
            ranks_module._SMALL = before


def test_keys_compare_as_text_both_ways():
    """A key's values are compared by their text, in plain Python as with NumPy: the number 1 and
    the text "1" are one section; a missing value (None) is one section of its own."""
    places, sections = [1, 1, 3, 1], [1, "1", "1", None]
    for small in (0, 10**6):
        before, ranks_module._SMALL = ranks_module._SMALL, small
        try:
            assert competition_ranks(places, sections).tolist() == [1, 1, 3, 1]
            assert repeated(sections, ["a", "a", "b", "a"]).tolist() == [True, True, False, False]
        finally:
            ranks_module._SMALL = before

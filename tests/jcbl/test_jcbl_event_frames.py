"""make_event's frames are validated once (issue 13): compute_awards takes them as they are while
the dict holds those very frames, and validates again whatever replaced them."""
from __future__ import annotations

from decimal import Decimal

import pytest

from jcbl_helpers import field, rules
from pipelines.jcbl import compute_awards, make_event
from schemas import jcbl as S

CCG3 = dict(event_id="ccg", event_date="2024-06-02", kind="ccg_pairs", class_level=3, sessions=1, boards_per_session=24)


def _counting(monkeypatch) -> list[int]:
    """The rows of each validation of an event frame (pipelines.jcbl.awards validates through
    pipelines.core.validation.validate_frame)."""
    from pipelines.jcbl import awards

    calls: list[int] = []
    original = awards.validate_frame

    def validate_frame(model, frame):
        if model is S.EventFrame:
            calls.append(len(frame))
        return original(model, frame)

    monkeypatch.setattr(awards, "validate_frame", validate_frame)
    return calls


def test_make_events_frames_are_scored_without_a_second_validation(monkeypatch):
    calls = _counting(monkeypatch)
    frames = make_event(**CCG3)
    assert calls == [1]
    with_frames = compute_awards(frames, field("pair", 10, session_1_pct=Decimal(50)), None, rules())
    assert calls == [1]
    # the same awards as from the settings themselves (make_event inside, validated there)
    from_settings = compute_awards(CCG3, field("pair", 10, session_1_pct=Decimal(50)), None, rules())
    assert calls == [1, 1]
    assert with_frames.astype(str).values.tolist() == from_settings.astype(str).values.tolist()


def test_a_frame_put_in_place_of_make_events_is_validated(monkeypatch):
    frames = make_event(**CCG3)
    frames["event"] = frames["event"].assign(sessions=3)  # the model allows 1 or 2
    calls = _counting(monkeypatch)
    with pytest.raises(Exception, match="sessions"):
        compute_awards(frames, field("pair", 10, session_1_pct=Decimal(50)), None, rules())
    assert calls == [1]

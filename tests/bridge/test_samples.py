"""The bundled sample inbox: reproducible from the seeded generator, parses cleanly, and scores
into frames that satisfy the pandera contracts."""

from pathlib import Path

import pytest

from pipelines.bridge.parse_csv import parse_csv
from pipelines.bridge.parse_pbn import parse_pbn
from pipelines.bridge.parse_usebio import parse_usebio
from pipelines.bridge.samples import write_samples
from pipelines.bridge.standings import compute_standings
from schemas.bridge import BoardResults, SessionStandings, TeamMatches, TravellerLines

INBOX = Path(__file__).resolve().parents[2] / "data" / "samples" / "inbox"
PARSERS = {".pbn": parse_pbn, ".xml": parse_usebio, ".csv": parse_csv}
FILES = sorted((INBOX / "tokyo-bridge-club").glob("*"))


def test_samples_are_reproducible(tmp_path):
    written = write_samples(tmp_path)
    assert [p.name for p in written] == [p.name for p in FILES]
    for p in written:
        assert p.read_bytes() == (INBOX / "tokyo-bridge-club" / p.name).read_bytes(), p.name


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_sample_parses_and_scores(path):
    frames, q = PARSERS[path.suffix](str(path.relative_to(INBOX)), path.read_bytes())
    assert q.empty, q.to_string()
    TravellerLines.validate(frames["traveller_lines"])
    r = compute_standings(frames["traveller_lines"], frames["events"], frames["entrants"])
    BoardResults.validate(r["board_results"])
    lines = frames["traveller_lines"]
    if frames["events"]["movement"].iloc[0] == "teams":
        assert len(TeamMatches.validate(r["team_matches"])) == 12
    else:
        st = SessionStandings.validate(r["session_standings"])
        assert (st["player_ids"] != "").all()
        # realism: a spread of contracts, some doubled, some passed out
        assert lines["contract"].nunique() >= 12
        assert (lines["doubled"] > 0).any() and (lines["contract"] == "PASS").any()

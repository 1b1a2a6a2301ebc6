"""pipelines/core/inbox.read_partner: the partner file a rule system reads beside its batch (JCBL's
and the Swedish event file and result list, a Swedish series' files), one lookup for them all."""
from __future__ import annotations

import hashlib
import os

from pipelines.core.inbox import read_partner


def test_the_partner_is_found_whatever_the_case_of_its_name(tmp_path):
    (tmp_path / "org" / "club").mkdir(parents=True)
    (tmp_path / "org" / "club" / "E.Standings.CSV").write_bytes(b"plac;par\n")
    f = read_partner(tmp_path, "org/club/e.standings.csv")
    assert f.source_file == "org/club/E.Standings.CSV" and f.data == b"plac;par\n" and not f.in_batch
    assert f.sha256 == hashlib.sha256(b"plac;par\n").hexdigest()


def test_nothing_is_read_through_a_link_or_from_a_folder(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "e.standings.csv").write_bytes(b"secret\n")
    inbox = tmp_path / "inbox"
    (inbox / "org" / "club").mkdir(parents=True)
    (inbox / "org" / "club" / "e.standings.csv").symlink_to(outside / "e.standings.csv")  # a linked file
    (inbox / "org" / "linked").symlink_to(outside, target_is_directory=True)  # a linked folder on the way
    (inbox / "org" / "club" / "d.standings.csv").mkdir()  # a folder with the partner's name
    os.mkfifo(inbox / "org" / "club" / "p.standings.csv")  # a named pipe: opening it would block for ever
    assert read_partner(inbox, "org/club/e.standings.csv") is None
    assert read_partner(inbox, "org/club/E.STANDINGS.CSV") is None
    assert read_partner(inbox, "org/linked/e.standings.csv") is None
    assert read_partner(inbox, "org/club/d.standings.csv") is None
    assert read_partner(inbox, "org/club/p.standings.csv") is None
    assert read_partner(inbox, "org/club/P.Standings.csv") is None
    assert read_partner(inbox, "org/club/missing.csv") is None

"""The bridge-week limit (seed p. 3, 'Tävlingsbestämmelser för mästarpoäng'): "Vid bridgeveckor får
arrangör spela högst två silvertävlingar eller en guld och en silvertävling": at most two silver
events, or one gold and one silver event, per bridge week of an organiser. The expected events
below are counted by hand from that sentence."""
from __future__ import annotations

from se_helpers import ORG, post_event, register

SILVER = {"nivå": "silver", "brickor": "42", "sanktion": "DFB-SK-7"}
GOLD = {"nivå": "guld", "brickor": "60", "sanktion": "FSB-G-3"}


def _posted(office):
    return set(office.query("select event_id from events")["event_id"])


def _reasons(office, name):
    q = office.query("select source_file, reason from quarantine")
    return [r for f, r in zip(q["source_file"], q["reason"]) if f.endswith(f"/{name}.standings.csv")]


def _three_silver_events(office) -> dict:
    """The register and three silver events of Malmö BK's bridge week, Monday to Wednesday."""
    register(office)
    week = {"bridgevecka": "Malmöveckan 2024"}
    for day, date in (("mon", "2024-10-14"), ("tue", "2024-10-15"), ("wed", "2024-10-16")):
        post_event(office, "malmo-bk", f"vecka-{day}", 16, datum=date, **SILVER, **week)
    return week


def test_a_third_silver_event_of_one_bridge_week_is_held(office):
    week = _three_silver_events(office)
    # a bronze event of the week is not counted; another bridge week of the club, and another
    # organiser's week of the same name, are weeks of their own
    post_event(office, "malmo-bk", "vecka-thu", 16, datum="2024-10-17", bridgevecka="Malmöveckan 2024")
    post_event(office, "malmo-bk", "host", 16, datum="2024-10-18", **SILVER, bridgevecka="Höstveckan")
    post_event(office, "uppsala-bk", "vecka", 16, datum="2024-10-16", **SILVER, **week)
    office.run()
    assert _posted(office) == {f"{ORG}/malmo-bk/vecka-mon", f"{ORG}/malmo-bk/vecka-tue", f"{ORG}/malmo-bk/vecka-thu",
                               f"{ORG}/malmo-bk/host", f"{ORG}/uppsala-bk/vecka"}
    [reason] = _reasons(office, "vecka-wed")
    assert "bridgevecka 'Malmöveckan 2024' of Malmö BK" in reason
    assert "with vecka-mon (silver), vecka-tue (silver) this silver event would be number 3, 0 of them gold" in reason
    assert "nivå: brons" in reason
    weeks = office.query("select distinct event_id, bridge_week from se_results order by event_id")
    assert dict(zip(weeks["event_id"], weeks["bridge_week"])) == {
        f"{ORG}/malmo-bk/host": "Höstveckan", f"{ORG}/malmo-bk/vecka-mon": "Malmöveckan 2024",
        f"{ORG}/malmo-bk/vecka-thu": "Malmöveckan 2024", f"{ORG}/malmo-bk/vecka-tue": "Malmöveckan 2024",
        f"{ORG}/uppsala-bk/vecka": "Malmöveckan 2024"}


def test_one_gold_and_one_silver_across_nights_and_a_correction_counts_once(office):
    register(office)
    week = {"bridgevecka": "Sommarveckan"}
    post_event(office, "malmo-bk", "guld", 32, datum="2024-10-19", **GOLD, **week)
    office.run()
    assert _posted(office) == {f"{ORG}/malmo-bk/guld"}
    # the next night: a second gold event (held: two of them gold), one silver (allowed beside the
    # gold), then another silver (held: a third event)
    post_event(office, "malmo-bk", "guld-2", 32, datum="2024-10-20", **GOLD, **week)
    post_event(office, "malmo-bk", "silver", 16, datum="2024-10-21", **SILVER, **week)
    post_event(office, "malmo-bk", "silver-2", 16, datum="2024-10-22", **SILVER, **week)
    office.run()
    assert _posted(office) == {f"{ORG}/malmo-bk/guld", f"{ORG}/malmo-bk/silver"}
    [gold] = _reasons(office, "guld-2")
    assert "with guld (guld) this guld event would be number 2, 2 of them gold" in gold
    [third] = _reasons(office, "silver-2")
    assert "with guld (guld), silver (silver) this silver event would be number 3, 1 of them gold" in third
    # the silver event's list corrected (same path): it replaces itself, it is not a third event
    office.post(f"{ORG}/malmo-bk/silver.standings.csv",
                office.inbox.joinpath(f"{ORG}/malmo-bk/silver.standings.csv").read_text(encoding="utf-8") + "# ändrad\n")
    office.run()
    assert _posted(office) == {f"{ORG}/malmo-bk/guld", f"{ORG}/malmo-bk/silver"}
    assert not _reasons(office, "silver")


def test_a_held_event_posts_when_another_event_of_the_week_is_corrected(office):
    # night 1: three silver events in the week, the third (Wednesday) held. Night 2: the club finds
    # that Tuesday's event was not part of the bridge week, removes its bridgevecka line and sends
    # its list again (a corrected event file goes with its list: docs/sweden.md); the week now has
    # two silver events, so Wednesday's posts without being sent again
    _three_silver_events(office)
    office.run()
    assert f"{ORG}/malmo-bk/vecka-wed" not in _posted(office)
    post_event(office, "malmo-bk", "vecka-tue", 16, datum="2024-10-15", **SILVER)
    office.post(f"{ORG}/malmo-bk/vecka-tue.standings.csv",
                office.inbox.joinpath(f"{ORG}/malmo-bk/vecka-tue.standings.csv").read_text(encoding="utf-8") + "# ändrad\n")
    assert office.run().exit_code == 0
    assert {f"{ORG}/malmo-bk/vecka-{d}" for d in ("mon", "tue", "wed")} <= _posted(office)
    weeks = office.query("select distinct event_id, bridge_week from se_results where event_id like '%vecka-%'")
    assert dict(zip(weeks["event_id"], weeks["bridge_week"])) == {
        f"{ORG}/malmo-bk/vecka-mon": "Malmöveckan 2024", f"{ORG}/malmo-bk/vecka-tue": "",
        f"{ORG}/malmo-bk/vecka-wed": "Malmöveckan 2024"}
    assert office.query("select count(*) as n from quarantine where source_file like '%vecka-wed%' and is_open")["n"][0] == 0

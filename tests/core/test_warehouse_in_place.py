"""The nightly warehouse update (issue 13): in place when nobody holds the file, so a night does
not copy the whole row store; a new file swapped in when an analyst's session holds it."""
from __future__ import annotations

import subprocess
import sys


def game(day: int, first: str) -> str:
    return f"2026-11-{day:02d}\n・1位{first} 40000\n・2位B 30000\n・3位C 20000\n・4位D 10000\n"


def test_a_night_updates_the_warehouse_file_in_place(office):
    office.post("sofu-mahjong/a.txt", game(3, "A"))
    office.run()
    before = (office.state / "warehouse.duckdb").stat().st_ino
    office.post("sofu-mahjong/b.txt", game(4, "E"))
    office.run()
    assert (office.state / "warehouse.duckdb").stat().st_ino == before  # the same file, not a copy
    assert not (office.state / "warehouse.duckdb.tmp").exists()
    # two games of 4 lines; E won the second: 7 points (placing 7/4/2/0, data/rules/mahjong)
    balances = office.query("select player_id, points from balances order by player_id")
    assert balances.astype(str).values.tolist() == [["A", "7.00"], ["B", "8.00"], ["C", "4.00"], ["D", "0.00"],
                                                    ["E", "7.00"]]


def test_a_reader_holding_the_warehouse_gets_a_new_file_swapped_in(office):
    office.post("sofu-mahjong/a.txt", game(3, "A"))
    office.run()
    before = (office.state / "warehouse.duckdb").stat().st_ino
    code = ("import duckdb, sys; con = duckdb.connect(sys.argv[1], read_only=True); print('ready', flush=True); "
            "sys.stdin.readline()")
    reader = subprocess.Popen([sys.executable, "-c", code, str(office.state / "warehouse.duckdb")],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert reader.stdout.readline().strip() == "ready"
        office.post("sofu-mahjong/b.txt", game(4, "E"))
        office.run()
    finally:
        reader.communicate("\n", timeout=30)
    assert (office.state / "warehouse.duckdb").stat().st_ino != before
    assert len(office.query("select * from awards")) == 8


def test_a_night_keeps_the_views_it_would_make_the_same_and_remakes_a_changed_one(office):
    """The views (and their comments) a night would make again from the same SQL and dictionary are
    left as they are; one whose recorded source differs (a new release's SQL) is made again, and
    every view and data table still says what it is (the dictionary's grain as its comment)."""
    import tomllib

    import duckdb

    from pipelines.core.dictionary import DICTIONARY

    grain = {name: spec["grain"] for name, spec in tomllib.loads(DICTIONARY.read_text(encoding="utf-8"))["relation"].items()}
    office.post("sofu-mahjong/a.txt", game(3, "A"))
    office.run()
    path = str(office.state / "warehouse.duckdb")
    con = duckdb.connect(path)
    made = dict(con.execute("select relation, digest from internal._views_made").fetchall())
    assert {"balances", "awards", "mahjong_leaderboard"} <= set(made)
    con.execute("update internal._views_made set digest = 'an older release' where relation = 'balances'")
    con.close()
    office.post("sofu-mahjong/b.txt", game(4, "E"))
    office.run()
    con = duckdb.connect(path, read_only=True)
    try:
        again = dict(con.execute("select relation, digest from internal._views_made").fetchall())
        assert again == made  # balances made again from its source; the others kept
        comments = dict(con.execute(
            "select view_name, comment from duckdb_views() where schema_name = 'main' and not internal "
            "union all select table_name, comment from duckdb_tables() where schema_name = 'main'").fetchall())
    finally:
        con.close()
    for relation, comment in comments.items():
        if relation in grain:
            assert comment == grain[relation], relation
    assert office.query("select cast(sum(points) as varchar) as p from balances")["p"].iloc[0] == "26.00"  # 2 × (7 + 4 + 2 + 0)


def test_a_night_copies_only_the_data_tables_whose_rows_changed(office):
    """A rule or calendar table that did not change since the last night is left in the warehouse
    as it is (with its comment); one that changed is copied again, and the views show it."""
    import duckdb

    office.post("sofu-mahjong/a.txt", game(3, "A"))
    office.run()
    path = str(office.state / "warehouse.duckdb")

    def tables():
        con = duckdb.connect(path, read_only=True)
        try:
            made = dict(con.execute("select relation, digest from internal._tables_made").fetchall())
            comment = con.execute("select comment from duckdb_tables() where table_name = 'mahjong_periods'").fetchone()[0]
            names = sorted({name for (name,) in con.execute("select period_name from mahjong_periods").fetchall()})
        finally:
            con.close()
        return made, comment, names

    made, comment, names = tables()
    assert {"mahjong_periods", "mahjong_snapshots", "mahjong_rule_versions"} <= set(made)
    assert names == ["桜華杯", "蒼風杯"] and comment
    office.post("sofu-mahjong/b.txt", game(4, "E"))
    office.run()
    assert tables() == (made, comment, names)  # nothing of the calendar or rules changed

    # the league renames its odd cups (data/calendars/sofu-mahjong.toml)
    calendar = office.data / "calendars" / "sofu-mahjong.toml"
    calendar.write_text(calendar.read_text(encoding="utf-8").replace('"蒼風杯"', '"青嵐杯"'), encoding="utf-8")
    office.post("sofu-mahjong/c.txt", game(5, "F"))
    office.run()
    again, comment_again, names_again = tables()
    assert names_again == ["桜華杯", "青嵐杯"] and comment_again == comment
    assert again["mahjong_periods"] != made["mahjong_periods"]
    assert again["mahjong_rule_versions"] == made["mahjong_rule_versions"]
    leaderboard = office.query("select distinct period_name from mahjong_leaderboard")["period_name"].tolist()
    assert leaderboard == ["青嵐杯"]  # October–November 2026: the third cup from the anchor (June–July), the first name again

import random, os, sys
from pathlib import Path
root = Path(sys.argv[1]); org = root / "svensk-bridge"
rnd = random.Random(2009)
first = ["Anna","Åsa","Björn","Örjan","Märta","Göran","Ulla","Lars","Karin","Sven","Ingrid","Håkan","Birgitta","Mats","Eva","Per","Kjell","Solveig","Ängla","Stig"]
last = ["Andersson","Öberg","Åström","Lindqvist","Sjöberg","Ek","Bäckström","Nyström","Hägg","Ström","Lövgren","Ångström","Fält","Källström","Dahl"]
clubs = ["10001","10002","10003","10004","10005","10006","10007","10008"]
members = []
for i in range(240):
    members.append((str(100000 + i), f"{rnd.choice(first)} {rnd.choice(last)}", clubs[i % 8]))
org.mkdir(parents=True, exist_ok=True)
(org / "medlemsregister.csv").write_text("medlemsnummer;namn;klubb\n" + "".join(f"{m};{n};{c}\n" for m, n, c in members), encoding="utf-8")
pool = [m for m, _, _ in members]
def standings(n, per, section=None, hcp=False, ties=(), played=None, start=0):
    ps = pool[start:start + n * per]
    head = ["plac", "par", "medlemmar"] + (["sektion"] if section else []) + (["hcp_plac"] if hcp else []) + (["spelat"] if played else [])
    out = [";".join(head)]
    hcp_order = list(range(1, n + 1)); rnd.shuffle(hcp_order)
    place = 1
    for i in range(n):
        p = str(i + 1)
        if i in ties:
            p = f"{i}="
        row = [p, str(i + 1), " ".join(ps[i * per:(i + 1) * per])]
        if section: row.append(section(i))
        if hcp: row.append(str(hcp_order[i]))
        if played: row.append(played(i))
        out.append(";".join(row))
    return "\n".join(out) + "\n"
def post(club, name, event, st, enc="utf-8"):
    d = org / club; d.mkdir(parents=True, exist_ok=True)
    (d / f"{name}.event.txt").write_bytes(event.encode(enc))
    if st is not None:
        (d / f"{name}.standings.csv").write_bytes(st.encode(enc))
# a bronze Tuesday Mitchell (two fields of 10), cp1252 as older Ruter writes it
def mitchell_st():
    ps = pool[0:40]; rows = ["plac;par;medlemmar;sektion"]
    for s, off in (("NS", 0), ("ÖV", 20)):
        for i in range(10):
            rows.append(f"{i+1};{i+1};{ps[off+2*i]} {ps[off+2*i+1]};{s}")
    return "\n".join(rows) + "\n"
post("bk-lavec", "2024-09-03-tisdag", "datum: 2024-09-03\nnamn: Tisdagsbridge – Mitchell\nnivå: brons\nform: par\nbrickor: 27\nmitchell: ja\n", mitchell_st(), "cp1252")
post("bk-lavec", "2024-09-05-grupp-b", "datum: 2024-09-05\nnamn: Torsdag grupp B\nnivå: brons\nform: par\nbrickor: 24\ngrupper: 3 B\n", standings(14, 2, ties=(13,)))
post("sundsvalls-bk", "2024-09-10-handikapp", "datum: 2024-09-10\nnamn: Handikapptävling\nnivå: brons\nform: par\nbrickor: 24\nhandikapp: ja\n", standings(12, 2, hcp=True, start=40))
post("malmo-bk", "2024-09-12-barometer", "datum: 2024-09-12\nnamn: Lagbarometer\nnivå: brons\nform: lagbarometer\nbrickor: 28\nmatcher: 7\n",
     standings(8, 5, played=lambda i: "7 7 7 7 4" if i % 2 == 0 else "7 7 7 7 2", start=70))
post("bk-skara", "2024-09-14-individuell", "datum: 2024-09-14\nnamn: Individuell\nnivå: brons\nform: individuell\nbrickor: 24\n", standings(16, 1, start=120))
post("bk-lavec", "2024-09-21-silver", "datum: 2024-09-21\nnamn: Höstsilver\nnivå: silver\nform: par\nbrickor: 52\nronder: 26\nmött: 15\n", standings(40, 2, start=0))
post("malmo-bk", "2024-09-28-guld", "datum: 2024-09-28\nnamn: Malmö Guld\nnivå: guld\nform: par\nbrickor: 60\nsanktion: FSB-G-2024-07\n", standings(52, 2, start=100))
post("uppsala-bk", "2024-09-29-kval-final", "datum: 2024-09-29\nnamn: Uppsala-silvret A-final\nnivå: silver\nform: par\nbrickor: 48\nfinal: A\nkval_ronder: 12\nfinal_ronder: 12\n", standings(60, 2, start=0))
# malformed
post("bk-lavec", "2024-09-17-trasig", "datum: 2024-09-17\nnivå: platina\nform: par\nbrickor: tjugo\n", standings(10, 2))
post("gavle-bk", "2024-09-18-okand", "datum: 2024-09-18\nnivå: brons\nform: par\nbrickor: 24\n",
     "plac;par;medlemmar\n1;1;100001 999999\n2;2;100003\n3;3;100005 100006\nx;4;100007 100008\n")
post("gavle-bk", "2024-09-19-fa-par", "datum: 2024-09-19\nnivå: brons\nform: par\nbrickor: 24\n", "plac;par;medlemmar\n1;1;100011 100012\n2;2;100013 100014\n3;3;100015 100016\n")
(org / "gavle-bk" / "resultat.xls").write_bytes(b"\xd0\xcf\x11\xe0 not a result list")
# the Tuesday Mitchell also as PBN (12 tables, NS and EW ranked separately), Swedish names, member
# numbers of the register; made from the bridge samples' Monday pairs file
import re as _re
src = Path(__file__).resolve().parents[2] / "data" / "samples" / "inbox" / "tokyo-bridge-club" / "2026-11-09-monday-pairs.pbn"
pbn = src.read_text(encoding="utf-8")
pbn = _re.sub(r"100810(\d\d)", lambda m: str(100100 + int(m.group(1))), pbn)
names = iter(f"{a} {b}" for a in first for b in last)
pbn = _re.sub(r'"([^"\x00-\x7f][^"]*) - ([^"]*)"', lambda m: f'"{next(names)} - {next(names)}"', pbn)
pbn = pbn.replace("月曜ペア戦 Monday Pairs", "Tisdagsbridge Mitchell").replace("Tokyo Bridge Club", "BK Ess, Göteborg")
pbn = pbn.replace("2026.11.09", "2024.09.10")
(org / "bk-ess").mkdir(parents=True, exist_ok=True)
(org / "bk-ess" / "2024-09-10-tisdag.pbn").write_text(pbn, encoding="utf-8")
(org / "bk-ess" / "2024-09-10-tisdag.event.txt").write_text(
    "datum: 2024-09-10\nnamn: Tisdagsbridge (Ruter, PBN)\nnivå: brons\nform: par\nbrickor: 24\nmitchell: ja\n", encoding="utf-8")
# a simultaneous silver event: two heats and the common list (the 1/5 bonus)
# (a trailing comment names the list: the same pairs in the same order as another sample list
# would make it that list sent twice, a duplicate that posts nothing)
post("bk-lavec", "2024-09-24-simultan-heat", "datum: 2024-09-24\nnamn: Simultansilver, heat Lavec\nnivå: silver\nform: par\nbrickor: 42\nsimultan: ja\n",
     standings(10, 2, start=0) + "# heat Lavec\n")
post("orebro-bs", "2024-09-24-simultan-heat", "datum: 2024-09-24\nnamn: Simultansilver, heat Örebro\nnivå: silver\nform: par\nbrickor: 42\nsimultan: ja\n",
     standings(10, 2, start=20))
post("bk-lavec", "2024-09-24-simultan-gemensam", "datum: 2024-09-24\nnamn: Simultansilver, gemensam lista\nnivå: silver\nform: par\nbrickor: 42\ngemensam_lista: ja\n",
     "plac;par;medlemmar\n" + "".join(f"{i + 1};{i + 1};{pool[2 * i]} {pool[2 * i + 1]}\n" for i in range(20)))
# malformed: an unknown member number, and a tie that skips no place
post("orebro-bs", "2024-09-26-okand-medlem", "datum: 2024-09-26\nnivå: brons\nform: par\nbrickor: 24\n",
     "plac;par;medlemmar\n1;1;100060 100061\n2;2;100062 777777\n3;3;100064 100065\n4;4;100066 100067\n")
post("orebro-bs", "2024-09-27-fel-placering", "datum: 2024-09-27\nnivå: brons\nform: par\nbrickor: 24\n",
     "plac;par;medlemmar\n1;1;100060 100061\n2=;2;100062 100063\n2=;3;100064 100065\n3;4;100066 100067\n")
# a silver qualification of 60 pairs with finals (seed p. 4): the A-final of the 10 best (kval_par),
# the B-final with carry-over by TK's permission (its winner 11th overall: 4 sp, then bronze), and
# the C-final without carry-over (a new bronze competition of its 30 pairs)
finals = "datum: 2024-10-06\nnivå: silver\nform: par\nbrickor: 48\nkval_ronder: 12\nfinal_ronder: 12\nkval_par: 60\n"
post("uppsala-bk", "2024-10-06-a-final", "namn: Uppsala-silvret, A-final\nfinal: A\n" + finals, standings(10, 2, start=0) + "# A-final\n")
post("uppsala-bk", "2024-10-06-b-final", "namn: Uppsala-silvret, B-final\nfinal: B\ncarry_over: ja\nförsta_plac: 11\n"
     "tk_tillstånd: TK 2024/17\n" + finals, standings(20, 2, start=20))
post("uppsala-bk", "2024-10-06-c-final", "namn: Uppsala-silvret, C-final\nfinal: C\ncarry_over: nej\n"
     "datum: 2024-10-06\nnivå: silver\nform: par\nbrickor: 24\n", standings(30, 2, start=60))
# two Tuesday evenings of 12 boards with the same 14 pairs, counted as one (seed p. 6)
double = ["plac;par;medlemmar;kväll1;kväll2"] + [f"{i + 1};{i + 1};{pool[2 * i]} {pool[2 * i + 1]};{round(62 - 1.5 * i, 1)};{58 - i}"
                                                 for i in range(14)]
post("bk-lavec", "2024-10-08-tva-tisdagar", "namn: Två korta tisdagar (12 + 12 brickor)\nnivå: brons\nform: par\n"
     "kvällar: 2024-10-01 12, 2024-10-08 12\n", "\n".join(double) + "\n")
# a bronze team series (docs/sweden-series.md): series file, three rounds of match files (one a
# walkover), and the final standings; the teams' players are member numbers of the register
def series_match(path, rnd_no, day, home, away, hvp, avp, h=None, a=None, walkover=False):
    text = f"series: hostserien\nround: {rnd_no}\ndate: {day}\nhome: {home}\naway: {away}\nhome_vp: {hvp}\naway_vp: {avp}\n"
    if walkover:
        text += "walkover: ja\n"
    for side, (first, second) in (("home", h), ("away", a)) if not walkover else ():
        text += f"{side}_first_half: {', '.join(first)}\n{side}_second_half: {', '.join(second)}\n"
    d = org / "malmo-bk" / "hostserien"; d.mkdir(parents=True, exist_ok=True)
    (d / f"{path}.match.txt").write_text(text, encoding="utf-8")
team = {t: pool[200 + 5 * i: 205 + 5 * i] for i, t in enumerate(["Lag Ek", "Lag Gran", "Lag Tall", "Lag Björk"])}
four = lambda t: (team[t][:4], team[t][:4])
subs = lambda t: (team[t][:4], team[t][1:5])
(org / "malmo-bk" / "hostserien.series.txt").write_text(
    "# Höstserien, bronze team series (table B2)\nseries: hostserien\nname: Höstserien 2024\ntable: B2\nboards: 24\nscale: 30\nteams: 4\ndouble: nej\n",
    encoding="utf-8")
series_match("omg1-ek-gran", 1, "2024-09-09", "Lag Ek", "Lag Gran", 18, 12, subs("Lag Ek"), four("Lag Gran"))
series_match("omg1-tall-bjork", 1, "2024-09-09", "Lag Tall", "Lag Björk", 15, 15, four("Lag Tall"), four("Lag Björk"))
series_match("omg2-ek-tall", 2, "2024-09-16", "Lag Ek", "Lag Tall", 20, 10, four("Lag Ek"), subs("Lag Tall"))
series_match("omg2-gran-bjork", 2, "2024-09-16", "Lag Gran", "Lag Björk", 18, 0, walkover=True)
series_match("omg3-ek-bjork", 3, "2024-09-23", "Lag Ek", "Lag Björk", 13, 17, four("Lag Ek"), four("Lag Björk"))
series_match("omg3-gran-tall", 3, "2024-09-23", "Lag Gran", "Lag Tall", 19, 11, four("Lag Gran"), four("Lag Tall"))
(org / "malmo-bk" / "hostserien.final.csv").write_text("plac;lag\n1;Lag Ek\n2;Lag Gran\n3;Lag Tall\n4;Lag Björk\n", encoding="utf-8")

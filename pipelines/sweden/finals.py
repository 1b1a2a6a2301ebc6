"""The finals of one qualification checked against each other (seed p. 4, "Guld- och silvertävlingar
med kval och A-, B- och eventuellt fler finaler"; docs/sweden.md, "Finals").

Each final is its own event file and result list, posted on its own (awards.py scores it). What only
the finals together show is checked here, before a final is scored:

* a pair plays in one final: a member listed in another final of the same club, day and level
  (tonight's or an earlier night's) is a misreport that would award the same pair twice;
* the places of the whole field that finals with carry-over cover do not overlap: the A-final covers
  1 .. its pairs, a B- or C-final `första_plac` .. `första_plac` + its pairs − 1. Finals are of the
  same qualification when they share the club, day, level, `kval_par`, `kval_ronder` and
  `final_ronder` (two qualifications of one club on one day stay apart).

The final checked later (in date and file order) is the one held; its reason names the other one.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath


@dataclass(frozen=True)
class Final:
    """One final as the checks need it."""
    event_id: str
    letter: str
    carry_over: bool
    first: int | None  # the whole field's place of its winner (None: a final without carry-over)
    pairs: int  # the entrants of its list
    qualification: tuple | None  # (kval_par, kval_ronder, final_ronder) of a final with carry-over
    members: frozenset[str]

    @property
    def last(self) -> int:
        return (self.first or 0) + self.pairs - 1

    def name(self) -> str:
        return f"the {self.letter}-final ({PurePosixPath(self.event_id).name})"


def final_of(event_id: str, ev: dict, pairs: int, members) -> Final:
    """The Final of a parsed event file (parse.py's keys) and its list's entrants and members."""
    carry = bool(ev.get("carry_over"))
    first = 1 if ev["final"] == "A" else ev.get("first_place") if carry else None
    key = (ev.get("field"), ev.get("qual_rounds"), ev.get("final_rounds")) if carry else None
    return Final(event_id, ev["final"], carry, first, pairs, key, frozenset(members))


def conflicts(this: Final, others: list[Final], location_of: dict[str, str]) -> list[tuple[str, str]]:
    """(location in this final's list, reason) of each conflict with the other finals of the same club,
    day and level; location_of maps this list's members to their lines."""
    out: list[tuple[str, str]] = []
    for other in sorted(others, key=lambda f: (f.letter, f.event_id)):
        if other.event_id == this.event_id:
            continue
        by_line: dict[str, list[str]] = {}
        for member in sorted(this.members & other.members):
            by_line.setdefault(location_of.get(member, "whole file"), []).append(member)
        for location, members in by_line.items():
            out.append((location, f"medlemmar: {'members' if len(members) > 1 else 'member'} {' '.join(members)} also "
                                  f"{'play' if len(members) > 1 else 'plays'} in {other.name()} of the same club and day; a pair "
                                  f"plays in one final of a qualification only (seed p. 4): correct the member numbers here or "
                                  f"in the list of {other.name()}, and send the corrected list again"))
        if this.qualification is not None and this.qualification == other.qualification \
                and this.first <= other.last and other.first <= this.last:
            after = f"; after the {other.pairs} pairs of {other.name()} this final starts at place {other.last + 1}" \
                if other.letter < this.letter else ""
            out.append(("whole file",
                        f"första_plac: this {this.letter}-final's {this.pairs} pairs would be places {this.first}–{this.last} of the "
                        f"whole field, but {other.name()} of the same qualification (kval_par {this.qualification[0]}) already "
                        f"has places {other.first}–{other.last}{after}. Correct första_plac in the event file, or the other "
                        "final's list"))
    return out

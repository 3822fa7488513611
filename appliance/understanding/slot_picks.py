"""Which of the slots just offered the caller took: "the first one", "the
later one", "8 o'clock", "the 12:15", "quarter past twelve", "the Thursday
one", "the one with Dr Roe"; "either is fine" takes the first. None when
nothing matches or the words fit more than one slot.

Failing all that, a short answer whose digits spell one offered time, the
way speech-to-text writes "the 8:30 one" ("V831", "8.31", "8, 31") or "the
12:45 one" ("the 1245-1"), picks that slot (`time_echo`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime, time

from ..domain import Slot
from .choice_constraints import Constraints, apply_position, filter_by


def pick_slot(c: Constraints, slots: tuple[Slot, ...]) -> int | None:
    if not slots:
        return None
    picked = _pick(c, slots)
    return picked if picked is not None else time_echo(c.digits, [slot.start for slot in slots])


def time_echo(digits: str, starts: Sequence[datetime]) -> int | None:
    """The one of `starts` (slots offered, or the caller's own appointments read out) whose time `digits`
    spells (see `time_spellings`), else None."""
    if not digits:
        return None
    hits = [i for i, start in enumerate(starts) if digits in time_spellings(start.time())]
    return hits[0] if len(hits) == 1 else None


def time_spellings(moment: time) -> set[str]:
    """The digits speech-to-text may write for "<moment>" or "the <moment> one": 8:30 -> 830, 8301, 831
    ("thirty one" run together); 12:45 -> 1245, 12451; 14:15 -> 215, 2151, 1415, 14151; 9:00 -> 9, 900, 9001."""
    hours = {str(moment.hour % 12 or 12), str(moment.hour)}
    if moment.minute == 0:
        minutes = {"", "00", "001"}     # "the 10:00 one" -> "1000-1"
    else:
        said = f"{moment.minute:02d}"
        minutes = {said, said + "1"}
        if moment.minute % 10 == 0:
            minutes.add(f"{moment.minute // 10}1")
    return {hour + minute for hour in hours for minute in minutes}


def _pick(c: Constraints, slots: tuple[Slot, ...]) -> int | None:
    starts = [s.start for s in slots]
    keep = filter_by(c, starts, [s.practitioner_id for s in slots], [s.location_id for s in slots],
                     [s.service_id for s in slots])
    if keep is None:
        if c.lone_number is not None:   # "1" fits no slot's time: speech-to-text's "the first one"
            return apply_position(replace(c, position=c.lone_number), list(range(len(slots))), starts)
        return None
    if c.position is not None:
        if len(keep) == 1 and len(keep) < len(slots):
            return keep[0]  # "the later one with Dr Roe": theirs is the only one left
        return apply_position(c, keep, starts)
    if c.none_of_them:
        return None   # "none of those work", "neither": no pick, whatever else was said
    if len(keep) == 1 and not c.empty:
        return keep[0]
    if c.any_is_fine:
        return keep[0]
    if c.the_other and c.refused:
        # "nine's kinda early, I'll take the other one": the one offered whose time was not turned down
        left = [i for i in keep if slots[i].start.time() not in c.refused]
        if len(left) == 1 and len(left) < len(keep):
            return left[0]
    return None

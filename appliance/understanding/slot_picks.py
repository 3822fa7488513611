"""Which of the slots just offered the caller took: "the first one", "the
later one", "8 o'clock", "the 12:15", "quarter past twelve", "the Thursday
one", "the one with Raj"; "either is fine" takes the first. None when
nothing matches or the words fit more than one slot.
"""

from __future__ import annotations

from dataclasses import replace

from ..domain import Slot
from .choice_constraints import Constraints, apply_position, filter_by


def pick_slot(c: Constraints, slots: tuple[Slot, ...]) -> int | None:
    if not slots:
        return None
    starts = [s.start for s in slots]
    keep = filter_by(c, starts, [s.practitioner_id for s in slots], [s.location_id for s in slots],
                     [s.service_id for s in slots])
    if keep is None:
        if c.lone_number is not None:   # "1" fits no slot's time: speech-to-text's "the first one"
            return apply_position(replace(c, position=c.lone_number), list(range(len(slots))), starts)
        return None
    if c.position is not None:
        if len(keep) == 1 and len(keep) < len(slots):
            return keep[0]  # "the later one with Raj": Raj's is the only one left
        return apply_position(c, keep, starts)
    if c.none_of_them and c.empty:
        return None
    if len(keep) == 1 and not c.empty:
        return keep[0]
    if c.any_is_fine:
        return keep[0]
    return None

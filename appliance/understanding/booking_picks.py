"""Which of the caller's own appointments they mean: "the one tomorrow",
"Tuesday's", "the 24th", "the follow-up", "the one with Dr Roe", "the 10
o'clock", "the first one"; "both" / "all of them" mean every one. A
singular description that fits several appointments picks none. A time
written as bare digits picks the one appointment at that time, as a slot
pick does (`slot_picks.time_echo`).
"""

from __future__ import annotations

import re

from ..domain import AppointmentRecord
from .choice_constraints import Constraints, apply_position, filter_by
from .normalise import CallerText
from .slot_picks import time_echo

_ALL = re.compile(r"\b(?:both|all of them|all of those|all of these|all (?:of )?(?:my|the|our|three|four|five) "
                  r"(?:appointments|bookings|of them)|every one|them all|the lot|all three|all four|"
                  r"each of them|all (?:my|the|our|of my) (?:appointments|bookings)|all appointments|all bookings|"
                  r"(?:cancel|move|change|reschedule)\w* everything)\b|^(?:all|all please|all of it|everything|"
                  r"everything please)$")
_PLURAL = re.compile(r"\b(?:ones|appointments|bookings|them|those|these)\b")


def mentions_every_booking(ct: CallerText) -> bool:
    """ "both", "all of them", "everything"."""
    return _ALL.search(ct.text) is not None


def pick_bookings(
    ct: CallerText,
    c: Constraints,
    bookings: tuple[AppointmentRecord, ...],
    plural_named: bool = False,
) -> tuple[int, ...]:
    """`plural_named`: the caller named a service in the plural ("the follow-ups")."""
    if not bookings:
        return ()
    everything = _ALL.search(ct.text) is not None
    starts = [b.start for b in bookings]
    if c.empty and not everything:
        return _time_echoed(c, starts)
    keep = filter_by(c, starts, [b.practitioner_id for b in bookings], [b.location_id for b in bookings],
                     [b.service_id for b in bookings])
    if keep is None:
        return _time_echoed(c, starts)
    if c.position is not None and not everything:
        picked = apply_position(c, keep, starts)
        return () if picked is None else (picked,)
    if everything or plural_named or _PLURAL.search(ct.text):
        return tuple(keep)
    if len(keep) == 1 and not c.empty:
        return (keep[0],)
    return ()


def _time_echoed(c: Constraints, starts: list) -> tuple[int, ...]:
    """The one appointment whose time a short answer's bare digits spell ("the 1045-1" for "the 10:45
    one"), else none."""
    echoed = time_echo(c.digits, starts)
    return () if echoed is None else (echoed,)

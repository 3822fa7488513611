"""How a date of birth heard on the phone is compared with the one on file.

A year's last two digits said as a "-teen" and as a "-ty" number differ in one unstressed syllable
("seventeen", "seventy"), and speech-to-text writes either for the other. So do a day said as a "-teenth"
ordinal and the one without it ("eighteenth", "eighth": the unstressed "teen" is lost), and the thirteenth
and the thirtieth. The question's repair table
(config/flows/questions.yaml, `teen_as_ty`) undoes it where the year heard is no caller's; where both years
are possible ("seventeen" is a child's year), only the record can say which was meant.
"""

from __future__ import annotations

from datetime import date

_TEENS = range(13, 20)


def sound_alike_years(year: int, this_year: int) -> tuple[int, ...]:
    """The years a caller may have said when `year` was heard: its last two digits' "-teen" / "-ty" twin
    (17 <-> 70), in either century, none still to come."""
    tail = year % 100
    if tail in _TEENS:
        twin = (tail - 10) * 10
    elif tail % 10 == 0 and tail // 10 + 10 in _TEENS:
        twin = tail // 10 + 10
    else:
        return ()
    return tuple(y for y in (1900 + twin, 2000 + twin) if y <= this_year)


def sound_alike_days(day: int) -> tuple[int, ...]:
    """The days of the month a caller may have said when `day` was heard: "-teenth" with its "teen" lost or
    added (8 <-> 18, "eighth", "eighteenth"), and the thirteenth for the thirtieth (13 <-> 30)."""
    twins = {3: (13,), 13: (3, 30), 30: (13,)}
    if day in twins:
        return twins[day]
    if 4 <= day <= 9:
        return (day + 10,)
    if 14 <= day <= 19:
        return (day - 10,)
    return ()


def sound_alike_dates(heard: date, today: date) -> tuple[date, ...]:
    """`heard` with its year swapped for each year that sounds like it (see `sound_alike_years`), or its day
    for each day that does (`sound_alike_days`): one part misheard, not both."""
    out = []
    swaps = [{"year": year} for year in sound_alike_years(heard.year, today.year)]
    swaps += [{"day": day} for day in sound_alike_days(heard.day)]
    for swap in swaps:
        try:
            twin = heard.replace(**swap)
        except ValueError:   # the 29th of February in a year without one, the 30th of February
            continue
        if twin <= today:
            out.append(twin)
    return tuple(out)

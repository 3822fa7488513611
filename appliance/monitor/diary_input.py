"""What staff type on the Diary screen, read into times: "12:00" on the day shown, "2026-12-24" (a whole
day), "2026-12-24 12:00"."""

from __future__ import annotations

import re
from datetime import date, datetime, time, timedelta

_CLOCK = re.compile(r"^(\d{1,2})[:.](\d{2})$")


class NotUnderstood(ValueError):
    """The message says what was typed and what is expected."""


def read_moment(text: str, day: date, *, is_end: bool = False) -> datetime:
    """A moment from what staff typed; a bare date is its start, or as an end the start of the day after
    (so "from 2026-12-24 to 2026-12-26" blocks three whole days), and "24:00" the end of the day shown."""
    text = text.strip()
    match = _CLOCK.match(text)
    if match:
        hours, minutes = int(match[1]), int(match[2])
        if hours == 24 and minutes == 0:
            return datetime.combine(day + timedelta(days=1), time())
        try:
            return datetime.combine(day, time(hours, minutes))
        except ValueError:
            raise NotUnderstood(f"{text!r} is not a time of day (HH:MM)") from None
    try:
        if len(text) == 10:
            whole = date.fromisoformat(text)
            return datetime.combine(whole + timedelta(days=1) if is_end else whole, time())
        return datetime.fromisoformat(text.replace(" ", "T"))
    except ValueError:
        raise NotUnderstood(f"{text!r} is not a time: write HH:MM, YYYY-MM-DD or YYYY-MM-DD HH:MM") from None


def read_range(start_text: str, end_text: str, day: date) -> tuple[datetime, datetime]:
    start = read_moment(start_text, day)
    end = read_moment(end_text or start_text, day, is_end=True)
    if not start < end:
        raise NotUnderstood(f"the end ({end:%Y-%m-%d %H:%M}) must come after the start ({start:%Y-%m-%d %H:%M})")
    return start, end


def minute_text(moment: datetime) -> str:
    return f"{moment:%Y-%m-%dT%H:%M}"

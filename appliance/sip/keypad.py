"""Keypad presses (RFC 2833 or SIP INFO) turned into a caller turn.

Digits are collected until '#' or a pause, then handed to the engine as words
it already understands:

- a lone 0 is the front desk in every state ("keypad 0", see
  understanding/intents.py), even while a number is being asked for;
- where the question just asked reads keypad digits as a date (its `keypad:`
  in config/flows/questions.yaml), eight digits become "DD MM YYYY" (read in
  the clinic's numeric date order by the understanding);
- any other digits go as they are ("0412345678" is a phone number);
- '*' clears what was typed so far.

Where the question reads digits as a number or a date, the caller gets a
longer pause between digits.
"""

from __future__ import annotations

import asyncio
from typing import Awaitable, Callable

NUMBER_PAUSE_S = 3.0      # between digits while a number or a date is asked for
PAUSE_S = 1.5             # otherwise
FRONT_DESK = "keypad 0"


def keys_to_words(digits: str, reads: str) -> str:
    """`reads`: what the question just asked makes of keypad digits: "words", "number" or "date"."""
    if digits == "0":
        return FRONT_DESK
    if reads == "date" and len(digits) == 8 and digits.isdigit():
        return f"{digits[:2]} {digits[2:4]} {digits[4:]}"
    return digits


class KeypadCollector:
    def __init__(self, send: Callable[[str], Awaitable[None]], reads: Callable[[], str]):
        self._send = send
        self._reads = reads
        self._digits = ""
        self._timer: asyncio.TimerHandle | None = None

    def press(self, key: str) -> None:
        """One key (on the event loop)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if key == "*":
            self._digits = ""
            return
        if key == "#":
            self._flush()
            return
        if not key.isdigit():
            return
        self._digits += key
        pause = NUMBER_PAUSE_S if self._reads() in ("number", "date") else PAUSE_S
        self._timer = asyncio.get_running_loop().call_later(pause, self._flush)

    def _flush(self) -> None:
        self._timer = None
        digits, self._digits = self._digits, ""
        if digits:
            asyncio.get_running_loop().create_task(self._send(keys_to_words(digits, self._reads())))

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

"""An EngineProcessor with its speech timed instead of synthesised: each line takes `line_s` to say."""

from __future__ import annotations

import asyncio
import itertools
import time

from appliance.voice.conversation import EngineProcessor, _Speech


def timed(processor: EngineProcessor, *, line_s: float = 0.9) -> list[list]:
    """Patch `processor` to play lines as timers; returns the list it fills with [start, end, text] per line."""
    said: list[list] = []
    ids = itertools.count(1)

    async def say(text, *, seq, kind):
        speech = _Speech(next(ids), kind)
        line = [time.monotonic(), None, text]
        said.append(line)

        async def played():
            await asyncio.sleep(line_s)
            line[1] = time.monotonic()
            speech.finished.set()

        asyncio.get_running_loop().create_task(played())
        return speech

    async def cancel(task, timeout=None):
        task.cancel()

    processor._say = say
    processor.create_task = lambda coro, name=None: asyncio.get_running_loop().create_task(coro)
    processor.cancel_task = cancel
    return said

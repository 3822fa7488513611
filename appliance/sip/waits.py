"""Waiting on whichever comes first, for the calls' asyncio side."""

from __future__ import annotations

import asyncio


async def wait_first(*awaitables, timeout: float | None = None) -> None:
    """Until the first of `awaitables` is done (or `timeout`); the others are cancelled."""
    tasks = [asyncio.ensure_future(item) for item in awaitables]
    try:
        await asyncio.wait(tasks, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            if not task.done():
                task.cancel()

"""An input transport fed by one pump task: started with the pipeline, cancelled when it stops.

The in-memory line and the SIP line differ only in where their frames come
from (`_pump`); starting and stopping the pump is the same for both.
"""

from __future__ import annotations

import asyncio
from abc import abstractmethod

from pipecat.frames.frames import CancelFrame, EndFrame, StartFrame
from pipecat.transports.base_input import BaseInputTransport


class PumpedInput(BaseInputTransport):
    _pump_task: asyncio.Task | None = None

    @abstractmethod
    async def _pump(self) -> None:
        """Push the line's frames until cancelled (each subclass knows where they come from)."""

    async def start(self, frame: StartFrame):
        await super().start(frame)
        await self.set_transport_ready(frame)
        if self._pump_task is None:
            self._pump_task = self.create_task(self._pump())

    async def _stop_pump(self):
        if self._pump_task is not None:
            await self.cancel_task(self._pump_task)
            self._pump_task = None

    async def stop(self, frame: EndFrame):
        await self._stop_pump()
        await super().stop(frame)

    async def cancel(self, frame: CancelFrame):
        await self._stop_pump()
        await super().cancel(frame)

    async def cleanup(self):
        await self._stop_pump()
        await super().cleanup()

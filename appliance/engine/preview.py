"""A turn's reply worked out ahead, on a copy of the call that changes nothing.

The voice waits out a short quiet after the caller's words before the engine
takes them (a pause mid-sentence must not split a turn), and the reply is
then synthesised. With the words already transcribed, the reply the engine
would give can be worked out during that quiet and its first phrase made, so
it plays the moment the quiet is over. The engine still takes the turn for
real afterwards, with whatever words the caller ended up saying: the preview
only says which words to make ready.

A preview never writes and never records: it runs on a shallow copy of the
engine with its own call context and ledger, no recorder, and a tool runner
that refuses anything that changes the store (a write or a handoff). A turn
that would write, ask the language model, or break gives no preview; those
turns are only ever worked out for real.
"""

from __future__ import annotations

import copy
import logging
from typing import Any

from .tools import TOOLS, ToolRunner

log = logging.getLogger("appliance.engine")


class _WouldChangeStore(Exception):
    """The previewed turn reached a tool that writes: the preview stops there."""


class _ReadOnlyRunner(ToolRunner):
    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.refused = False

    def run(self, name, args, *, state, state_tools):
        tool = TOOLS.get(name)
        if tool is None or tool.transactional:
            self.refused = True
            raise _WouldChangeStore(name)
        return super().run(name, args, state=state, state_tools=state_tools)


def preview_reply(engine: Any, text: str, *, doubtful: tuple[str, ...] = ()) -> str | None:
    """The reply `engine` would give `text` now, or None where the turn would change the store, ask the language
    model, or fail. `engine` is left exactly as it was."""
    ctx = engine.ctx
    if ctx is None or ctx.ended:
        return None
    shadow = copy.copy(engine)
    shadow.ctx = copy.deepcopy(ctx)
    shadow.ledger = copy.deepcopy(engine.ledger)
    shadow._side_origin = list(engine._side_origin)
    shadow._unsaved = []
    shadow.recorder = None
    asked_model: list[bool] = []
    if engine.classifier is not None:
        def classifier(*_args: Any, **_kwargs: Any) -> None:
            asked_model.append(True)
            return None
        shadow.classifier = classifier
    runner = _ReadOnlyRunner(store=engine.store, ledger=shadow.ledger, call_id=ctx.call_id, now=engine.clock.now,
                             record=lambda run: None)
    shadow.runner = runner
    shadow._guarded = lambda work: work()   # a failure is the real turn's to handle, with its fallback
    try:
        result = shadow.turn(text, doubtful=doubtful)
    except Exception as exc:
        if not runner.refused:
            log.debug("call %s: no preview of the turn (%s)", ctx.call_id, type(exc).__name__)
        return None
    if runner.refused or asked_model:
        return None
    return result.reply

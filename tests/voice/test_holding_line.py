"""A turn held up by a locked database: the caller hears a filler, then holding lines, never 2 s of quiet.

The engine here is a stand-in whose turn writes its record through the real recorder while another connection
holds SQLite's write lock (as a backup or a monitor would); the recorder keeps trying within its budget. The
speech side is timed as if each line took `LINE_S` to say.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from datetime import datetime

import pytest

pytest.importorskip("pipecat")

from appliance.engine.types import TurnResult  # noqa: E402
from appliance.store import open_database  # noqa: E402
from appliance.store.records import CallRecorder, RecordError  # noqa: E402
from appliance.store.write_budget import WriteBudget  # noqa: E402
from appliance.voice.conversation import EngineProcessor, TurnTiming  # noqa: E402
from appliance.voice.engine_host import EngineHost  # noqa: E402
from appliance.voice.speech_cache import FILLERS, HOLDING_LINES  # noqa: E402

from .timed_speech import timed  # noqa: E402

LINE_S = 0.9
LOCK_S = 5.0


class LockedStoreEngine:
    """Its turn records one entry; the database is locked, so the write waits out the recorder's budget."""

    def __init__(self, path):
        self.recorder = CallRecorder(open_database(path), budget=WriteBudget(wait_s=LOCK_S))
        self.llm_ms = None

    def turn(self, text):
        try:
            self.recorder.call_started(call_id="c", clinic="x", caller_id="", started_at=datetime(2026, 1, 1))
        except RecordError:
            pass
        return TurnResult(reply="Sorry, I could not do that. I've asked the team to call you back.", state="s",
                          waiting_for="none")


def held_turn(tmp_path, *, after=None, turn_ended_s_ago: float | None = None, text: str = "yes please"
              ) -> tuple[float, list[list]]:
    """One caller turn while another connection holds the write lock: (when the engine was asked, lines said).
    `after`: the result the caller is answering (a read-back, say)."""
    async def run() -> tuple[float, list[list]]:
        path = tmp_path / "appliance.db"
        open_database(path).close()
        holder = sqlite3.connect(path, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        host = EngineHost("hold")
        engine = await host.call(LockedStoreEngine, path)
        processor = EngineProcessor(host=host, engine=engine, filler_after_ms=700)
        if after is not None:
            processor.results.append(after)
        said = timed(processor, line_s=LINE_S)
        started = time.monotonic()
        turn_end = None if turn_ended_s_ago is None else time.time() - turn_ended_s_ago
        try:
            await processor._ask_engine(TurnTiming(seq=-1, kind="reply", turn_end=turn_end), engine.turn, text)
        finally:
            holder.execute("ROLLBACK")
            holder.close()
            host.close()
        return started, said

    return asyncio.run(run())


def test_a_locked_database_gets_holding_lines_never_two_seconds_of_quiet(tmp_path):
    started, said = held_turn(tmp_path)
    texts = [text for _, _, text in said]
    assert texts[0] in FILLERS and set(texts[1:]) <= set(HOLDING_LINES) and len(texts) >= 3, texts
    assert said[0][0] - started < 0.9                     # the filler, as soon as the engine is late
    for (_, ended, _), (next_start, _, _) in zip(said, said[1:]):
        assert next_start - ended < 2.0                   # never two seconds of quiet between lines


def test_after_a_read_back_the_filler_counts_the_caller_s_wait_from_the_end_of_their_turn(tmp_path):
    from appliance.understanding.questions import Question

    read_back = TurnResult(reply="Shall I book that?", state="confirm_booking", waiting_for="confirm",
                           question=Question("confirm", expects=frozenset({"confirmation"})))
    # the caller's turn ended 0.6 s ago: transcription took that long on a busy box
    started, said = held_turn(tmp_path, after=read_back, turn_ended_s_ago=0.6, text="yes")
    assert said and said[0][0] - started < 0.35       # 0.7 s after the turn ended, 0.1 s after the engine began

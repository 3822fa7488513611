"""A turn's reply worked out ahead (engine/preview.py): the same words the turn then gives, with nothing changed,
written or recorded, and none at all where the turn would write or ask the language model."""

import pytest

from appliance.engine.clock import CountingIds
from appliance.engine.engine import Engine
from appliance.engine.types import CallInfo
from appliance.understanding import Signal

SARAH = "+61400000001"
# the example call, booking a change of appointment: lookups, a read-back, a write, the goodbye
STEPS = [
    "Hi, I need to move my appointment tomorrow",
    "Sarah Johnson",
    "fourth of March eighty five",
    "Thursday afternoon",
    "sorry, how much is a follow-up again?",
    "the second one",
    "yes that's right",
    "no thanks, that's all",
]


@pytest.fixture
def engine(flow, store, clock, recorder):
    return Engine(flow=flow, store=store, clock=clock, new_id=CountingIds(), recorder=recorder)


def _tables(db) -> dict[str, list[dict]]:
    return {name: list(db[name].rows) for name in db.table_names()}


def test_a_previewed_reply_is_the_reply_the_turn_then_gives_and_changes_nothing(engine, db):
    engine.start(CallInfo(caller_id=SARAH))
    previewed = 0
    for line in STEPS:
        before = (_tables(db), engine.state, engine.seq, repr(engine.ctx), repr(engine.ledger))
        reply = engine.preview(line)
        assert (_tables(db), engine.state, engine.seq, repr(engine.ctx), repr(engine.ledger)) == before, line
        result = engine.turn(line)
        if reply is not None:
            previewed += 1
            assert reply == result.reply, line
    assert previewed == len(STEPS) - 1        # all but the yes that moves the booking
    assert engine.ended


def test_a_turn_that_would_write_gives_no_preview_and_writes_nothing(engine, db):
    engine.start(CallInfo(caller_id=SARAH))
    for line in STEPS[:6]:
        result = engine.turn(line)
    assert result.waiting_for == "confirm"         # the new time read back
    before = _tables(db)
    assert engine.preview("yes that's right") is None
    assert _tables(db) == before
    engine.turn("yes that's right")
    assert _tables(db)["appointments"] != before["appointments"]   # the real turn moves the booking


def test_a_turn_that_would_ask_the_language_model_gives_no_preview(flow, store, clock, recorder):
    asked = []

    def classifier(text, allowed):
        asked.append(text)
        return Signal("book", 0.9, "llm") if "book" in allowed else None

    engine = Engine(flow=flow, store=store, clock=clock, new_id=CountingIds(), recorder=recorder,
                    classifier=classifier)
    engine.start(CallInfo(caller_id=SARAH))
    assert engine.preview("mumble grumble wibble") is None
    assert asked == []                         # the model is only ever asked on the real turn
    assert engine.preview("I'd like to book an appointment") is not None


def test_no_preview_before_the_call_starts_or_after_it_ends(engine):
    assert engine.preview("hello") is None
    engine.start(CallInfo(caller_id=SARAH))
    for line in STEPS:
        engine.turn(line)
    assert engine.preview("hello") is None

"""The bus numbers events, keeps the calls in progress for replay, and drops a subscriber that falls behind."""

import time

from appliance.events import EventBus
from appliance.events.replay_buffer import ReplayBuffer


def test_events_are_numbered_in_publishing_order():
    bus = EventBus(clock=lambda: 100.0)
    events = [bus.publish("turn", "c1", {"seq": n}) for n in range(3)]
    assert [e.seq for e in events] == [1, 2, 3] and events[0].ts == 100.0 and bus.last_seq == 3


def test_replay_holds_the_calls_in_progress_and_forgets_a_call_when_it_ends():
    bus = EventBus()
    bus.publish("call_started", "a", {})
    bus.publish("call_started", "b", {})
    bus.publish("turn", "a", {"seq": 0})
    bus.publish("call_ended", "b", {"outcome": "booked"})
    bus.publish("turn", "b", {"seq": 3})          # the ended call's last turn comes after its end
    bus.publish("service_note", None, {"text": "started"})
    replay = bus.subscribe(lambda: None).replay
    assert [(e.kind, e.call_id) for e in replay] == [("call_started", "a"), ("turn", "a"), ("service_note", None)]
    assert bus.calls_in_progress() == ["a"]


def test_a_long_call_keeps_its_start_and_its_latest_events():
    buffer = ReplayBuffer(per_call=5)
    bus = EventBus(replay=buffer)
    bus.publish("call_started", "a", {})
    for n in range(20):
        bus.publish("turn", "a", {"seq": n})
    replay = bus.subscribe(lambda: None).replay
    assert replay[0].kind == "call_started" and len(replay) == 5
    assert [e.fields["seq"] for e in replay[1:]] == [16, 17, 18, 19]


def test_at_most_max_calls_are_kept_the_least_recently_active_go_first():
    bus = EventBus(replay=ReplayBuffer(max_calls=2))
    for call in ("a", "b", "c"):
        bus.publish("call_started", call, {})
    assert bus.calls_in_progress() == ["b", "c"]


def test_a_subscriber_gets_the_replay_then_exactly_the_events_after_it():
    bus = EventBus()
    bus.publish("call_started", "a", {})
    woken = []
    subscription = bus.subscribe(lambda: woken.append(1))
    bus.publish("turn", "a", {"seq": 0})
    assert [e.kind for e in subscription.replay] == ["call_started"]
    assert [e.seq for e in subscription.drain()] == [2] and woken == [1]
    assert subscription.drain() == []


def test_a_subscriber_that_never_drains_is_dropped_and_publishing_never_waits():
    bus = EventBus(client_queue=100)
    woken = []
    slow = bus.subscribe(lambda: woken.append(1))
    quick = bus.subscribe(lambda: None)
    started = time.perf_counter()
    for n in range(5000):
        bus.publish("turn", "a", {"seq": n, "agent_text": "x" * 200})
        quick.drain()
    assert time.perf_counter() - started < 5.0
    assert slow.overflowed and slow.closed and bus.dropped == 1 and bus.subscribers == 1
    assert len(quick.drain()) == 0 and not quick.closed


def test_a_wake_callback_that_fails_does_not_stop_publishing():
    bus = EventBus()

    def broken():
        raise RuntimeError("loop closed")

    bus.subscribe(broken)
    assert bus.publish("turn", "a", {}).seq == 1

"""Folding the recorded stream: the live calls and each call's timeline (no Textual)."""

from appliance.events.messages import CallEvent
from appliance.monitor.live_board import LiveBoard

from .recorded_stream import until


def test_both_calls_appear_and_follow_their_events(stream):
    board = LiveBoard()
    for event in until(stream, lambda e: e.kind == "turn" and e.call_id == "call-2" and e.fields["seq"] == 0):
        board.apply(event)
    calls = board.in_progress()
    assert [c.call_id for c in calls] == ["call-1", "call-2"]
    assert calls[0].who == "0491 570 006" and calls[0].state == "greeting"
    assert calls[0].last_said.startswith("receptionist: Thank you for calling")


def test_the_patient_name_replaces_the_number_once_identified(stream):
    board = LiveBoard()
    for event in until(stream, lambda e: e.kind == "tool_call" and e.fields["result"].get("status") == "matched"):
        board.apply(event)
    assert board.get("call-1").who == "Sarah Johnson"


def test_a_turn_reads_caller_then_steps_then_reply(stream):
    board = LiveBoard()
    for event in stream:
        board.apply(event)
    call = board.get("call-1")
    turn = call.turns[3]
    assert turn.caller_text == "the fourth of March, nineteen eighty five"
    assert [s.kind for s in turn.steps][:3] == ["state", "state", "tool"]
    assert "GetPatientDetails: ok" in turn.steps[2].text and "matched" in turn.steps[2].text
    assert turn.agent_text.startswith("Which clinic")


def test_an_ended_call_leaves_the_live_list_but_keeps_its_last_turn(stream):
    board = LiveBoard()
    for event in stream:
        board.apply(event)
    assert [c.call_id for c in board.in_progress()] == ["call-2"]
    ended = board.get("call-1")
    assert ended.ended and ended.outcome == "booked" and ended.turns[9].agent_text.endswith("Goodbye.")


def test_a_replay_from_the_same_service_is_not_applied_twice(stream):
    board = LiveBoard()
    board.reset("s1")
    for event in stream[:30]:
        board.apply(event)
    turns_before = len(board.get("call-1").turns)
    board.reset("s1")
    board.begin_replay()
    for event in stream[:30]:
        board.apply(event)
    board.end_replay()
    assert len(board.get("call-1").turns) == turns_before and not board.get("call-1").ended


def test_a_call_missing_from_a_new_replay_ended_while_away(stream):
    board = LiveBoard()
    board.reset("s1")
    for event in stream[:30]:
        board.apply(event)
    board.begin_replay()
    for event in [e for e in stream[:30] if e.call_id == "call-2"]:
        board.apply(event)
    assert board.end_replay() == ["call-1"] and board.get("call-1").ended


def test_a_new_service_process_starts_a_fresh_board(stream):
    board = LiveBoard()
    board.reset("s1")
    for event in stream[:10]:
        board.apply(event)
    board.reset("s2")
    assert board.calls == {} and board.last_seq == 0


def test_kinds_the_monitor_does_not_know_are_shown_as_they_are():
    board = LiveBoard()
    board.apply(CallEvent("call_started", "c", {"caller_id": "123"}, seq=1, ts=1.0))
    board.apply(CallEvent("escalation", "c", {"turn_seq": 0, "reason": "caller upset"}, seq=2, ts=2.0))
    board.apply(CallEvent("latency", "c", {"seq": 0, "total_ms": 812.0}, seq=3, ts=3.0))
    call = board.get("c")
    assert call.turns[0].steps[0].text == "! escalation: reason caller upset" and not call.turns[0].steps[0].ok
    assert call.last_latency_ms == 812.0


def test_a_desk_leg_says_whether_the_desk_was_connected_and_what_it_was_told():
    from appliance.monitor.widgets.transcript_view import transcript_text

    board = LiveBoard()
    board.apply(CallEvent("call_started", "c", {"caller_id": "123"}, seq=1, ts=1.0))
    for seq, connected, answer in ((2, False, "no answer"), (3, True, "answered")):
        board.apply(CallEvent("tool_call", "c", {
            "turn_seq": 4, "name": "DeskLeg", "result_kind": "ok", "duration_ms": 8000.0,
            "arguments": {"purpose": "warm_transfer", "desk": "sip:desk@127.0.0.1:5062", "by": None},
            "result": {"connected": connected, "answer": answer, "waited_s": 8.0, "brief": "A caller for you."}},
            seq=seq, ts=float(seq)))
    text = transcript_text(board.get("c")).plain
    assert "no answer after 8.0 s, not connected; brief to the desk: A caller for you." in text
    assert "answered after 8.0 s, connected with the caller; brief to the desk: A caller for you." in text

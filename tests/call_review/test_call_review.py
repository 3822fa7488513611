"""Summaries and review flags of whole calls played through the engine in text (the project's scenario files,
and calls driven turn by turn where a scenario cannot say it: a silence, the voice layer's timings, a slot taken
meanwhile), read back from the database as the store kept them."""

from __future__ import annotations

from datetime import datetime, timedelta

import sqlite_utils

from appliance import paths
from appliance.call_review import flags_from_text, summary_of_call
from appliance.domain import Slot
from appliance.engine.flow import load_flow
from appliance.engine.types import CallInfo
from appliance.simulate.runner import play_scenario, set_up_scenario
from appliance.simulate.scenario import load_scenario
from appliance.store.records import CallRecorder
from appliance.store.recovery import recover

SCENARIOS = paths.REPO_ROOT / "tests" / "scenarios"
FLOW = load_flow(paths.REPO_ROOT / "config" / "flows" / "clinic.yaml")


def play(name: str):
    scenario, clinic = load_scenario(SCENARIOS / name)
    played = play_scenario(scenario, clinic, FLOW)
    return played.store.db.conn, played.call_id


def stored(conn, call_id):
    summary, flags = conn.execute("SELECT summary, review_flags FROM calls WHERE id = ?", [call_id]).fetchone()
    return summary, flags_from_text(flags)


def kinds(flags, *, timed: bool = False) -> list[str]:
    """The flags' kinds. A text call's wait is the engine's own time, which a loaded test machine can stretch past
    LONG_WAIT_MS on a cold start: only a test that sets the voice layer's moments (`timed`) counts long waits."""
    return [flag.kind for flag in flags if timed or flag.kind != "long_wait"]


def reasons(flags, kind: str) -> list[str]:
    return [flag.reason for flag in flags if flag.kind == kind]


def engine_call(name: str = "example-reschedule.yaml"):
    """A scenario's clinic, clock and engine, to drive turn by turn; the call started."""
    scenario, clinic = load_scenario(SCENARIOS / name)
    setup = set_up_scenario(scenario, clinic, FLOW)
    setup.engine.start(CallInfo(caller_id=scenario.caller_id))
    return setup


# ------------------------------------------------------------------ summaries


def test_a_reschedule_says_who_what_was_asked_and_what_was_moved():
    conn, call_id = play("example-reschedule.yaml")
    summary, _ = stored(conn, call_id)
    assert summary == ("Sarah Johnson, identified by name and date of birth (from +61400000001). "
                       "Asked to reschedule and about a price. "
                       "Done: moved Follow-up with Dr Anna Lee at City from Tue 2026-11-24 10:00 to Thu 2026-11-26 12:15; "
                       "answered their question about a price. Pending: nothing.")


def test_a_new_patients_booking_says_the_record_was_set_up():
    conn, call_id = play("new-patient-with-caller-id.yaml")
    summary, _ = stored(conn, call_id)
    assert summary.startswith("Aroha Ngata, a new patient set up on this call (from +64211234567). Asked to book ")
    assert "Done: set up a new patient record; booked Initial assessment with Sophie Chen at Herne Bay, Mon 2027-02-08 07:30" in summary


def test_a_callback_says_why_and_what_is_pending_and_is_the_callbacks_first_note():
    conn, call_id = play("medical-advice-callback.yaml")
    summary, _ = stored(conn, call_id)
    assert summary.startswith("Ruby Tawhiri by their own account, not verified (from +64215550133). "
                              "Asked for medical advice. Done: took a callback request. Pending: call back on +64215550133.")
    assert summary.endswith("Call back because the caller asked for medical advice: “Hi, I hurt my knee playing netball "
                            "last week. Should I be icing it or using heat?”.")
    note, = conn.execute("SELECT note FROM callback_requests WHERE call_id = ?", [call_id]).fetchone()
    assert note == "Summary: " + summary


def test_a_transfer_says_why():
    conn, call_id = play("human-request-transferred.yaml")
    summary, flags = stored(conn, call_id)
    assert summary.endswith("Done: transferred the call to the front desk. Pending: nothing. "
                            "Transferred: the caller asked for a person.")
    assert kinds(flags) == ["asked_for_human"]


def test_an_identity_not_verified_says_so():
    conn, call_id = play("wrong-dob-ends-in-callback.yaml")
    summary, _ = stored(conn, call_id)
    assert "not verified" in summary and "Call back because the caller's identity could not be verified" in summary


def test_a_task_left_undone_is_pending():
    conn, call_id = play("cancel-declined-confirmation.yaml")
    summary, _ = stored(conn, call_id)
    assert "Done: nothing. Pending: not done: to cancel." in summary


def test_a_live_call_is_summarised_from_its_record_so_far_and_nothing_is_stored_yet():
    setup = engine_call()
    setup.engine.turn("Hi, I need to move my appointment tomorrow")
    setup.engine.turn("Sarah Johnson")
    conn, call_id = setup.store.db.conn, setup.engine.ctx.call_id
    recap = summary_of_call(conn, call_id)
    assert recap.in_progress and not recap.identified
    assert recap.asked == ("to reschedule",)
    assert recap.pending == ("the call is in progress (at ask_dob)",)
    assert stored(conn, call_id) == (None, [])
    setup.engine.turn("fourth of March eighty five")
    assert summary_of_call(conn, call_id).who.startswith("Sarah Johnson, identified")


def test_a_call_cut_off_by_a_crash_is_summarised_at_recovery_and_its_callback_carries_it():
    setup = engine_call()
    setup.engine.turn("Hi, I need to move my appointment tomorrow")
    conn, call_id = setup.store.db.conn, setup.engine.ctx.call_id
    recover(setup.store.db)
    summary, _ = stored(conn, call_id)
    assert "Cut off: the service stopped during the call" in summary
    assert "Pending: call back on +61400000001" in summary
    note, = conn.execute("SELECT note FROM callback_requests WHERE call_id = ?", [call_id]).fetchone()
    assert note == "Summary: " + summary


def test_a_summary_that_cannot_be_built_never_loses_the_end_of_the_call(monkeypatch):
    import appliance.call_review.stored as stored_module

    def broken(call):
        raise KeyError("a record this version does not understand")

    monkeypatch.setattr(stored_module, "summarise", broken)
    conn, call_id = play("question-price-only.yaml")
    assert conn.execute("SELECT outcome FROM calls WHERE id = ?", [call_id]).fetchone() == ("info",)
    assert stored(conn, call_id) == (None, [])


# ------------------------------------------------------------------ review flags


def test_a_call_that_went_well_has_no_flags():
    conn, call_id = play("book-returning-patient-with-caller-id.yaml")
    assert kinds(stored(conn, call_id)[1]) == []


def test_repeated_reprompts_are_flagged():
    conn, call_id = play("unclear-caller-callback.yaml")
    _, flags = stored(conn, call_id)
    assert kinds(flags) == ["reprompts"]
    assert reasons(flags, "reprompts") == ["not understood 3 times (turns 1, 2, 3; at callback, greeting)"]


def test_one_reprompt_is_not_flagged():
    setup = engine_call()
    setup.engine.turn("uh, the thing with the, um")
    setup.engine.turn("Sorry, how much is a follow-up?")
    setup.engine.turn("no, that's all, thanks")
    conn, call_id = setup.store.db.conn, setup.engine.ctx.call_id
    assert setup.engine.ended and "reprompts" not in kinds(stored(conn, call_id)[1])


def test_check_ins_for_silence_are_flagged():
    setup = engine_call()
    setup.engine.check_in(1)
    setup.engine.check_in(2)
    setup.engine.silence_goodbye()
    _, flags = stored(setup.store.db.conn, setup.engine.ctx.call_id)
    assert reasons(flags, "silence") == ["checked in on a silence 2 times; ended the call when nobody answered "
                                         "(turns 1, 2, 3)"]


def test_asking_for_a_person_is_flagged_even_when_nobody_can_take_the_call():
    conn, call_id = play("human-request-no-transfer-number.yaml")
    assert reasons(stored(conn, call_id)[1], "asked_for_human") == ["the caller asked for a person (turn 1)"]


def test_a_corrected_name_is_flagged():
    conn, call_id = play("new-patient-name-correction.yaml")
    assert reasons(stored(conn, call_id)[1], "correction") == [
        "the name used, Jon Smyth, is not the one first heard (“Jon Smith”)"]


def test_a_name_said_again_differently_is_flagged():
    conn, call_id = play("new-patient-name-correction-at-readback.yaml")
    assert reasons(stored(conn, call_id)[1], "correction") == [
        "the name changed during the call: Chris Baker → Kris Baker (turn 7)"]   # put right at the read-back


def test_a_corrected_date_of_birth_is_flagged():
    setup = engine_call()
    for line in ("Hi, I need to move my appointment tomorrow", "Sarah Johnson", "fifth of March eighty five",
                 "sorry, the fourth of March nineteen eighty five"):
        setup.engine.turn(line)
    assert setup.engine.state == "ask_time_preference"        # identified with the corrected date
    setup.engine.hangup()
    _, flags = stored(setup.store.db.conn, setup.engine.ctx.call_id)
    assert reasons(flags, "correction") == ["the date of birth changed during the call: 1985-03-05 → 1985-03-04 (turn 4)"]


def test_a_guard_refusal_is_flagged():
    setup = engine_call()
    engine = setup.engine
    for line in ("I'd like to book a follow-up", "Sarah Johnson", "fourth of March eighty five", "City",
                 "Thursday afternoon"):
        engine.turn(line)
    # a write the caller never confirmed, asked of the engine's own runner as a faulty flow would
    slot = Slot(datetime(2026, 11, 26, 12, 0), "followup", "lee", "city", 30)
    run, _ = engine.runner.run("CreateAppointment", {"patient_id": "p1", "slot": slot}, state=engine.state,
                               state_tools=("CreateAppointment",))
    assert engine.state == "offer_slots" and run.kind == "guard"
    engine.hangup()
    _, flags = stored(setup.store.db.conn, engine.ctx.call_id)
    assert len(reasons(flags, "guard_refusal")) == 1
    assert reasons(flags, "guard_refusal")[0].startswith("CreateAppointment refused by its guard at turn 5: ")


def test_a_tool_that_failed_is_flagged():
    setup = engine_call()
    engine = setup.engine
    for line in ("I'd like to book a follow-up", "Sarah Johnson", "fourth of March eighty five", "City",
                 "Thursday afternoon", "the first one"):
        engine.turn(line)
    assert engine.state == "confirm_booking"
    # someone else takes the slot while the caller is hearing the read-back
    setup.store.db.conn.execute("INSERT INTO patients (id, first_name, last_name, dob) VALUES "
                                "('p-other', 'Other', 'Person', '1990-01-01')")
    setup.store.create_appointment(patient_id="p-other",
                                   slot=Slot(datetime(2026, 11, 26, 12, 0), "followup", "lee", "city", 30))
    engine.turn("yes please")
    engine.hangup()
    _, flags = stored(setup.store.db.conn, engine.ctx.call_id)
    failed = reasons(flags, "tool_failed")
    assert len(failed) == 1 and failed[0].startswith("CreateAppointment failed at turn 7: ")


def test_a_long_wait_and_a_barge_in_from_the_voice_layers_timings_are_flagged():
    conn, call_id = play("question-price-only.yaml")
    assert kinds(stored(conn, call_id)[1]) == []            # a text call has no voice moments
    recorder = CallRecorder(sqlite_utils.Database(conn))     # as the voice layer writes them, after the replies
    heard = datetime(2026, 11, 24, 10, 0, 5)
    # turn 1: the caller waited 4.2 s; its reply played until 10:00:15, and the caller spoke from 10:00:14
    recorder.turn_timing(call_id=call_id, seq=1, speech_end=heard, agent_speech_start=heard + timedelta(seconds=4.2),
                         agent_speech_end=heard + timedelta(seconds=10))
    recorder.turn_timing(call_id=call_id, seq=2, speech_start=heard + timedelta(seconds=9),
                         speech_end=heard + timedelta(seconds=10.5),
                         agent_speech_start=heard + timedelta(seconds=11.1))
    _, flags = stored(conn, call_id)
    assert kinds(flags, timed=True) == ["long_wait", "barge_in"]
    assert reasons(flags, "long_wait") == ["waited 4.2 s for a reply at turn 1"]
    assert reasons(flags, "barge_in") == ["the caller spoke over the receptionist 1 time (turn 2)"]

"""The front desk's phone as a second SIP party: warm transfers (connected, no answer, rejected), and listen-in
and take-over from the monitor socket. `appliance run` with `[sip] transfer = "warm"`, a short desk timeout
and the desk's URI; the caller and the desk are the project's caller agent, each in its own process."""

from __future__ import annotations

import asyncio
import getpass
import json
import time

import numpy as np
import pytest

from appliance.events.messages import LISTEN_IN, TAKE_OVER

from .conftest import free_sip_port, need_the_sip_stack, rows, send_staff, Service, start_service, stop_service

CALLER = "+61400000555"
DESK_TIMEOUT_S = 4


@pytest.fixture(scope="module")
def desk_port():
    return free_sip_port()


@pytest.fixture(scope="module")
def warm(tmp_path_factory, desk_port):
    need_the_sip_stack()
    running = start_service(tmp_path_factory.mktemp("sip-front-desk"), transfer="warm",
                            desk_answer_timeout_s=DESK_TIMEOUT_S, transfer_uri=f"sip:desk@127.0.0.1:{desk_port}")
    yield running
    assert stop_service(running) == 0, running.log_text()[-3000:]
    log = running.log_text()
    assert "Assertion" not in log and "Traceback" not in log and "Task was destroyed" not in log, log[-3000:]


def tone(seconds: float = 1.5, rate: int = 8000) -> bytes:
    """What the desk says in these tests: a loud tone the talk detector cannot miss."""
    t = np.arange(int(seconds * rate)) / rate
    return (0.4 * 32767 * np.sin(2 * np.pi * 440 * t)).astype(np.int16).tobytes()


class Parties:
    """The caller and the desk on one service, with waits that say what was missing."""

    def __init__(self, service: Service, caller, desk):
        self.service, self.caller, self.desk = service, caller, desk

    async def step(self, what: str, awaitable, timeout: float):
        try:
            return await asyncio.wait_for(awaitable, timeout)
        except asyncio.TimeoutError:
            raise AssertionError(f"{what}: nothing in {timeout:.0f} s\ncaller: {self.caller.history[-12:]}\n"
                                 f"desk: {self.desk.history[-12:]}\nservice log:\n"
                                 f"{self.service.log_text()[-2500:]}") from None

    async def until(self, what: str, condition, timeout: float = 20.0):
        until = time.monotonic() + timeout
        while time.monotonic() < until:
            found = condition()
            if found:
                return found
            await asyncio.sleep(0.2)
        raise AssertionError(f"{what}: not so after {timeout:.0f} s\ncaller: {self.caller.history[-12:]}\n"
                             f"desk: {self.desk.history[-12:]}\nservice log:\n{self.service.log_text()[-2500:]}")

    async def call_in(self) -> str:
        """The caller calls and hears the greeting out; the call's id."""
        before = len(self.service.calls())
        await self.caller.call(f"sip:receptionist@127.0.0.1:{self.service.port}", caller_id=CALLER)
        await self.step("the greeting", self.caller.until_speaking(), 20)
        await self.step("the greeting's end", self.caller.until_quiet(), 40)
        return self.service.new_call(before, ended=False)["id"]

    async def hears(self, what: str, listener, speaker, sound: bytes) -> None:
        """`speaker` says `sound` and `listener` hears it."""
        await self.step(f"quiet before: {what}", listener.until_quiet(), 30)
        heard = asyncio.ensure_future(listener.until_speaking(timeout=10))
        await speaker.say(sound, 8000)
        await self.step(what, heard, 12)


def desk_legs(service: Service, call_id: str) -> list[tuple[dict, dict]]:
    found = rows(service, "SELECT arguments, result FROM tool_calls WHERE call_id = ? AND name = 'DeskLeg' "
                          "ORDER BY id", call_id)
    return [(json.loads(arguments), json.loads(result)) for arguments, result in found]


def run_parties(warm: Service, desk_port: int, scenario, *, desk_answers: str, code: int = 486):
    from appliance.simulate.sip_caller_client import CallerAgent

    async def go():
        async with CallerAgent(quiet_ms=1200) as caller, CallerAgent(quiet_ms=1200, sip_port=desk_port) as desk:
            await desk.desk(desk_answers, code=code)
            parties = Parties(warm, caller, desk)
            try:
                return await scenario(parties)
            finally:
                if not caller.ended.is_set():
                    await caller.hangup()

    return asyncio.run(go())


def test_a_warm_transfer_briefs_the_desk_and_joins_it_with_the_caller(warm, desk_port):
    async def scenario(p: Parties):
        call_id = await p.call_in()
        await p.caller.dtmf("0")                                     # a person, please
        await p.step("the desk's phone rings and is answered", p.desk.answered.wait(), 30)
        await p.step("the brief", p.desk.until_speaking(), 40)
        legs = await p.until("the desk leg joined", lambda: desk_legs(warm, call_id), 60)
        await p.hears("the desk heard by the caller once joined", p.caller, p.desk, tone())
        await p.hears("the caller heard by the desk once joined", p.desk, p.caller, tone())
        await p.desk.hangup()
        end = await p.step("the caller hung up after the desk", p.caller.wait_ended(), 15)
        return call_id, legs, end

    call_id, legs, end = run_parties(warm, desk_port, scenario, desk_answers="answer")
    assert end["by"] == "remote"
    [(arguments, result)] = legs
    assert arguments == {"purpose": "warm_transfer", "desk": f"sip:desk@127.0.0.1:{desk_port}", "by": None}
    assert result["connected"] is True and result["answer"] == "answered" and 0 < result["waited_s"] < 30
    assert result["brief"].startswith("Hello, this is the automated receptionist with a caller for you. "
                                      f"Caller not identified (from {CALLER}). They asked for a person.")
    record = [c for c in warm.calls() if c["id"] == call_id][0]
    assert record["outcome"] == "transferred"
    assert "warm transfer: the front desk answered" in warm.log_text()


@pytest.mark.parametrize("desk_answers, answer", [("ring", "no answer"), ("reject", "rejected 486")])
def test_a_warm_transfer_the_desk_does_not_take_comes_back_with_a_callback_and_anything_else(
        warm, desk_port, desk_answers, answer):
    async def scenario(p: Parties):
        call_id = await p.call_in()
        await p.caller.dtmf("0")
        await p.step("the desk's phone rings", p.desk.wait_for_event(lambda e: e["event"] == "incoming"), 30)
        started = time.monotonic()
        turn = await p.until("the apology and anything else", lambda: [
            t for t in warm.turns(call_id) if "no one from the team could pick up" in (t["agent_text"] or "")], 30)
        waited = time.monotonic() - started
        await p.step("the desk's phone stops ringing", p.desk.ended.wait(), 10)
        await p.until("the apology played to the caller", lambda: [
            t for t in warm.turns(call_id) if t["seq"] == turn[0]["seq"] and t["agent_speech_end"]], 30)
        return call_id, turn[0], waited

    call_id, turn, waited = run_parties(warm, desk_port, scenario, desk_answers=desk_answers)
    assert turn["agent_text"].endswith("Is there anything else I can help you with?")
    assert turn["waiting_for"] == "anything_else"
    if desk_answers == "ring":
        assert DESK_TIMEOUT_S - 0.5 <= waited <= DESK_TIMEOUT_S + 10
    [(arguments, result)] = desk_legs(warm, call_id)
    assert arguments["purpose"] == "warm_transfer" and result["connected"] is False and result["answer"] == answer
    assert result["brief"].startswith("Hello, this is the automated receptionist")
    callbacks = rows(warm, "SELECT reason, phone, status FROM callback_requests WHERE call_id = ?", call_id)
    assert callbacks == [("desk_unanswered: " + result["brief"], CALLER, "open")]


def test_a_caller_who_hangs_up_on_hold_stops_the_desks_phone(warm, desk_port):
    async def scenario(p: Parties):
        call_id = await p.call_in()
        await p.caller.dtmf("0")
        await p.step("the desk's phone rings", p.desk.wait_for_event(lambda e: e["event"] == "incoming"), 30)
        await p.caller.hangup()
        await p.step("the desk's phone stops ringing", p.desk.ended.wait(), DESK_TIMEOUT_S - 1)
        await p.until("the call record closed", lambda: [c for c in warm.calls() if c["id"] == call_id
                                                         and c["outcome"] not in ("transferred", None)], 15)
        return call_id

    call_id = run_parties(warm, desk_port, scenario, desk_answers="ring")
    [(arguments, result)] = desk_legs(warm, call_id)
    assert (result["connected"], result["answer"]) == (False, "caller hung up")
    # they asked for a person and nobody took the call: the desk still gets it to call back, with the brief
    assert rows(warm, "SELECT reason FROM callback_requests WHERE call_id = ?", call_id) == [
        ("desk_unanswered: " + result["brief"],)]


def test_listen_in_then_take_over_from_the_monitor(warm, desk_port):
    me = getpass.getuser()

    async def scenario(p: Parties):
        call_id = await p.call_in()
        result = await send_staff(warm, LISTEN_IN, call_id)
        assert result.ok, result.message
        await p.step("the desk's phone rings and is answered", p.desk.answered.wait(), 20)
        await p.until("the listen-in recorded", lambda: desk_legs(warm, call_id), 15)
        # the desk hears the caller ...
        await p.hears("the caller heard by the desk listening in", p.desk, p.caller, tone(1.0))
        # ... but the caller does not hear the desk (muted), and the receptionist goes on
        await p.step("the caller's quiet", p.caller.until_quiet(), 30)
        await p.step("the desk's quiet", p.desk.until_quiet(), 30)
        spoke = [e for e in p.caller.history if e.get("event") == "audio" and e.get("speaking")]
        await p.desk.say(tone(), 8000)
        await asyncio.sleep(0.5)
        desk_heard_by_caller = [e for e in p.caller.history if e.get("event") == "audio" and e.get("speaking")
                                and e not in spoke]
        result = await send_staff(warm, TAKE_OVER, call_id)
        assert result.ok, result.message
        await p.until("the record ends taken over", lambda: [
            c for c in warm.calls() if c["id"] == call_id and c["outcome"] == "taken_over"], 20)
        await p.step("the caller is told a person joins", p.caller.until_speaking(), 15)
        await p.hears("the desk heard by the caller once it took over", p.caller, p.desk, tone())
        await p.caller.hangup()
        await p.step("the desk hung up after the caller", p.desk.wait_ended(), 15)
        return call_id, desk_heard_by_caller

    call_id, desk_heard_by_caller = run_parties(warm, desk_port, scenario, desk_answers="answer")
    assert desk_heard_by_caller == [], desk_heard_by_caller            # muted while listening in
    record = [c for c in warm.calls() if c["id"] == call_id][0]
    assert (record["outcome"], record["ended_by"]) == ("taken_over", me)
    [(arguments, result)] = desk_legs(warm, call_id)
    assert arguments["purpose"] == "listen_in" and arguments["by"] == me and result["connected"] is True
    actions = rows(warm, "SELECT user, claimed_user, action, ok FROM staff_actions WHERE call_id = ? ORDER BY id",
                   call_id)
    assert actions == [(me, "someone-else", "listen_in", 1), (me, "someone-else", "take_over", 1)]
    turns = warm.turns(call_id)
    assert (turns[-1]["trigger_route"], turns[-1]["trigger_evidence"]) == ("staff", "front_desk_took_call")

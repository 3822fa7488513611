"""The caller agent process against sipp on loopback: it calls, speaks, hears, hangs up and is transferred."""

from __future__ import annotations

import asyncio
import shutil
import socket
import subprocess
import time
import wave
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pjsua2")

from appliance.simulate.sip_caller_client import CallerAgent, CallerAgentError  # noqa: E402

SIP_TESTS = Path(__file__).resolve().parents[1] / "sip"
needs_sipp = pytest.mark.skipif(shutil.which("sipp") is None, reason="sipp (Debian sip-tester) is not installed")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Sipp:
    """One sipp answering one call on loopback and echoing its RTP."""

    def __init__(self, tmp_path: Path, scenario: list[str]):
        self.port = free_port()
        self.process = subprocess.Popen(
            ["sipp", *scenario, "-rtp_echo", "-i", "127.0.0.1", "-p", str(self.port), "-mp", str(free_port()),
             "-m", "1", "-nostdin", "-trace_err"],
            cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        time.sleep(0.3)

    @property
    def uri(self) -> str:
        return f"sip:receptionist@127.0.0.1:{self.port}"

    def finish(self) -> int:
        try:
            return self.process.wait(10)
        finally:
            if self.process.poll() is None:
                self.process.kill()


def tone(seconds: float, rate: int = 8000, hz: float = 440.0) -> bytes:
    t = np.arange(int(seconds * rate)) / rate
    return (np.sin(2 * np.pi * hz * t) * 8000).astype(np.int16).tobytes()


def read_stereo(path: Path) -> tuple[int, np.ndarray]:
    with wave.open(str(path)) as wav:
        assert wav.getnchannels() == 2 and wav.getsampwidth() == 2
        return wav.getframerate(), np.frombuffer(wav.readframes(wav.getnframes()), dtype=np.int16).reshape(-1, 2)


@needs_sipp
def test_the_caller_hears_its_own_words_echoed_and_hangs_up(tmp_path):
    sipp = Sipp(tmp_path, ["-sn", "uas"])
    wav = tmp_path / "call.wav"

    async def call():
        async with CallerAgent(record=wav) as caller:
            await caller.call(sipp.uri, caller_id="+61400000001")
            said = await caller.say(tone(1.0), 8000)
            await asyncio.wait_for(caller.until_quiet(), 5)     # the echo has come back and stopped
            end = await caller.hangup()
        return caller, said, end

    caller, said, end = asyncio.run(call())

    assert sipp.finish() == 0
    assert caller.returncode == 0, caller.stderr_tail
    assert not any("Assert" in line for line in caller.stderr_tail)
    kinds = [event["event"] for event in caller.history]
    assert kinds[:2] == ["ready", "calling"] and "answered" in kinds
    assert said["event"] == "said" and not said.get("cut")
    audio = [event["speaking"] for event in caller.history if event["event"] == "audio"]
    assert audio == [True, False]                  # the echo: one stretch of talking, then quiet
    assert end["event"] == "ended" and end["by"] == "local"
    assert (wav.stat().st_mode & 0o777) == 0o600
    rate, stereo = read_stereo(wav)
    assert rate == 8000
    left, right = stereo[:, 0].astype(float), stereo[:, 1].astype(float)
    assert 1.0 <= len(stereo) / rate <= 6.0
    loud = lambda side: float(np.sqrt(np.mean(side ** 2)))  # noqa: E731
    assert loud(left) > 1000 and loud(right) > 1000    # both sides hold the tone
    # the echo is the same tone, a little later: the right side lags the left
    lag = int(np.argmax(np.correlate(right, left[: rate], mode="valid")))
    assert 0 <= lag < rate // 2


@needs_sipp
def test_a_refer_is_reported_and_the_far_end_hangs_up(tmp_path):
    sipp = Sipp(tmp_path, ["-sf", str(SIP_TESTS / "uas_refer_bye.xml")])

    async def call():
        async with CallerAgent() as caller:
            await caller.call(sipp.uri, caller_id="")
            end = await caller.wait_ended(10)
            transfer = next(event for event in caller.history if event["event"] == "transferred")
        return caller, transfer, end

    caller, transfer, end = asyncio.run(call())

    assert sipp.finish() == 0
    assert transfer["to"] == "sip:+61290000001@127.0.0.1:9"
    assert end["by"] == "remote" and caller.transferred_to == transfer["to"]
    assert caller.returncode == 0, caller.stderr_tail


def test_an_unanswered_call_raises_and_the_agent_still_quits_cleanly():
    async def call():
        async with CallerAgent() as caller:
            with pytest.raises(CallerAgentError):
                await caller.call(f"sip:nobody@127.0.0.1:{free_port()}", caller_id="+61400000001", timeout=3)
        return caller

    caller = asyncio.run(call())
    assert caller.end is not None and caller.end["code"] >= 400
    assert caller.returncode == 0, caller.stderr_tail


@needs_sipp
def test_between_its_lines_the_caller_sends_its_background_not_silence(tmp_path):
    sipp = Sipp(tmp_path, ["-sn", "uas"])
    wav = tmp_path / "call.wav"
    room = (np.random.default_rng(0).standard_normal(8000) * 600).astype(np.int16).tobytes()

    async def call():
        async with CallerAgent(record=wav) as caller:
            await caller.background(room, 8000)
            await caller.call(sipp.uri, caller_id="+61400000001")
            await asyncio.sleep(1.0)
            await caller.hangup()
        return caller

    caller = asyncio.run(call())
    assert sipp.finish() == 0 and caller.returncode == 0, caller.stderr_tail
    rate, stereo = read_stereo(wav)
    sent = stereo[rate // 2:, 0].astype(float)
    assert 400 < float(np.sqrt(np.mean(sent ** 2))) < 800       # the room, looped, at its level

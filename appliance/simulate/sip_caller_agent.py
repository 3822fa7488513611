"""A caller's phone: a SIP user agent in its own process, driven by JSON lines.

pjsua2 allows one Endpoint per process, and the appliance's own phone service
holds it, so the caller that tests and simulations put on the line runs here,
as `python -m appliance.simulate.sip_caller_agent`. Commands come on stdin, events go
out on stdout, one JSON object a line (logs go to stderr, never stdout):

    {"cmd": "call", "uri": "sip:receptionist@127.0.0.1:5070", "caller_id": "+61400000001"}
    {"cmd": "say", "pcm": "/tmp/line.raw", "rate": 8000, "id": 3}   16-bit mono PCM into the call
    {"cmd": "background", "pcm": "/tmp/room.raw", "rate": 8000}     looped while the caller is quiet
    {"cmd": "dtmf", "digits": "0"}          RFC 2833
    {"cmd": "hangup"}
    {"cmd": "desk", "answer": "answer", "user": "desk"}   be the front desk: answer calls that come in
                                            ("answer"), refuse them with "code" ("reject"), or let them ring
    {"cmd": "quit"}

    {"event": "ready", "port": 41234}       the SIP port it listens on
    {"event": "answered"}
    {"event": "desk_ready", "uri": "sip:desk@127.0.0.1:41234"}   where to call the desk
    {"event": "incoming", "from": "..."}    a call rang the desk (then answered/ended as above)
    {"event": "said", "id": 3}              the last frame of that line has gone out
    {"event": "audio", "speaking": true}    the far end started (false: stopped) talking
    {"event": "transferred", "to": "sip:..."}   the far end sent a REFER
    {"event": "ended", "reason": "Normal call clearing", "code": 200, "by": "remote"}
    {"event": "error", "message": "..."}

Over TLS (`--transport tls`, the call's URI with `;transport=tls`) the agent shows `--tls-cert`/`--tls-key`
when the far end asks for a certificate and checks the far end's against `--tls-ca`; `--srtp optional` or
`mandatory` offers SRTP (SDES keys), `off` plain RTP. The "media" event names the codec and whether the
audio is encrypted (`"srtp": true`).

Every event carries `t` (time.time()). Everything the caller hears and says
goes to a stereo WAV (`--record`; caller left, far end right, one 20 ms frame
per conference clock tick on both sides, so the two stay aligned).

The library runs with threadCnt=0 and mainThreadOnly: SIP callbacks run inside
`libHandleEvents` on the main loop here and only queue work. The audio port's
callbacks run on pjmedia's clock thread and only move bytes between deques.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import random
import sys
import threading
import time
import wave
from collections import deque
from pathlib import Path

import numpy as np
import pjsua2 as pj

from ..sip.media import retire_port

FRAME_MS = 20
POLL_MS = 10
SPEECH_RMS = 300.0          # int16 RMS above which a received frame counts as voiced
SPEECH_START_FRAMES = 3     # voiced frames in a row before "speaking": true
QUIET_MS = 600              # unvoiced time before "speaking": false (covers the pauses between phrases)
QUIT_GRACE_S = 2.0          # time given to hang-ups on quit before the library goes down


def emit(event: str, **data) -> None:
    data = {"event": event, "t": round(time.time(), 3), **data}
    sys.stdout.write(json.dumps(data) + "\n")
    sys.stdout.flush()


class LinePort(pj.AudioMediaPort):
    """The caller's mouth and ear on the conference bridge. Runs on the clock thread: bytes in, bytes out."""

    def __init__(self, rate: int, background: list[bytes] | None = None):
        super().__init__()
        self.frame_bytes = rate * FRAME_MS // 1000 * 2
        self.silence = bytes(self.frame_bytes)
        self.background = background or [self.silence]   # frames sent in turn while the caller is quiet
        self._background_at = 0
        self.outgoing: deque = deque()    # (pcm frame, id of the line it ends, or None)
        self.finished: deque = deque()    # ids of lines whose last frame has gone out
        self.sent: deque = deque()        # every frame sent (the recording's left side)
        self.heard: deque = deque()       # every frame received (its right side)

    def onFrameRequested(self, frame):
        try:
            pcm, ends = self.outgoing.popleft()
        except IndexError:
            background = self.background
            pcm, ends = background[self._background_at % len(background)], None
            self._background_at = (self._background_at + 1) % len(background)
        frame.type = pj.PJMEDIA_FRAME_TYPE_AUDIO
        frame.buf = pj.ByteVector(pcm)
        frame.size = len(pcm)
        self.sent.append(pcm)
        if ends is not None:
            self.finished.append(ends)

    def onFrameReceived(self, frame):
        if frame.type == pj.PJMEDIA_FRAME_TYPE_AUDIO and frame.size:
            self.heard.append(bytes(frame.buf))
        else:
            self.heard.append(self.silence)

    def queue_line(self, pcm: bytes, line_id) -> None:
        frames = self.frames_of(pcm)
        for i, chunk in enumerate(frames):
            self.outgoing.append((chunk, line_id if i == len(frames) - 1 else None))

    def frames_of(self, pcm: bytes) -> list[bytes]:
        pcm += bytes((-len(pcm)) % self.frame_bytes)
        size = self.frame_bytes
        return [pcm[i: i + size] for i in range(0, len(pcm), size)] or [self.silence]

    def drop_pending(self) -> list:
        """Forget unsent speech; the ids of the lines cut short."""
        cut = []
        while self.outgoing:
            _, ends = self.outgoing.popleft()
            if ends is not None:
                cut.append(ends)
        return cut


class TalkDetector:
    """Is the far end talking? Frame energy with a start count and a quiet hang-over."""

    def __init__(self, quiet_ms: int = QUIET_MS, threshold: float = SPEECH_RMS):
        self.threshold = threshold
        self.quiet_frames = max(1, quiet_ms // FRAME_MS)
        self.speaking = False
        self._voiced = 0
        self._unvoiced = 0

    def frame(self, pcm: bytes) -> bool | None:
        """Feed one received frame; returns True/False when the far end starts/stops talking."""
        samples = np.frombuffer(pcm, dtype=np.int16).astype(np.float32)
        voiced = bool(len(samples)) and float(np.sqrt(np.mean(samples * samples))) > self.threshold
        if voiced:
            self._voiced += 1
            self._unvoiced = 0
        else:
            self._voiced = 0
            self._unvoiced += 1
        if not self.speaking and self._voiced >= SPEECH_START_FRAMES:
            self.speaking = True
            return True
        if self.speaking and self._unvoiced >= self.quiet_frames:
            self.speaking = False
            return False
        return None


class Recorder:
    """The stereo WAV (caller left, far end right), written as the call goes; readable by its owner only."""

    def __init__(self, path: Path, rate: int):
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.fchmod(fd, 0o600)
        self._file = os.fdopen(fd, "wb")
        self._wav = wave.open(self._file, "wb")
        self._wav.setnchannels(2)
        self._wav.setsampwidth(2)
        self._wav.setframerate(rate)
        self._left = bytearray()
        self._right = bytearray()

    def add(self, left: list[bytes], right: list[bytes]) -> None:
        self._left.extend(b"".join(left))
        self._right.extend(b"".join(right))
        both = min(len(self._left), len(self._right))
        if both:
            self._write(both)

    def _write(self, size: int) -> None:
        stereo = np.empty((size // 2, 2), dtype=np.int16)
        stereo[:, 0] = np.frombuffer(bytes(self._left[:size]), dtype=np.int16)
        stereo[:, 1] = np.frombuffer(bytes(self._right[:size]), dtype=np.int16)
        self._wav.writeframes(stereo.tobytes())
        del self._left[:size]
        del self._right[:size]

    def close(self) -> None:
        longest = max(len(self._left), len(self._right))
        if longest:
            self._left.extend(bytes(longest - len(self._left)))
            self._right.extend(bytes(longest - len(self._right)))
            self._write(longest)
        self._wav.close()
        self._file.close()


class CallerCall(pj.Call):
    """SIP callbacks only note what happened; the agent's loop acts on it."""

    def __init__(self, agent: CallerAgentProcess, account: pj.Account, call_id: int = pj.PJSUA_INVALID_ID):
        super().__init__(account, call_id)
        self.agent = agent
        self.connected = False

    def onCallState(self, prm):
        info = self.getInfo()
        self.agent.notes.append(("state", self, info.state, info.lastStatusCode, info.lastReason))

    def onCallMediaState(self, prm):
        self.agent.notes.append(("media", self))

    def onCallTransferRequest(self, prm):
        self.agent.notes.append(("refer", self, prm.dstUri))
        # a simulated caller does not dial the staff line: accept the REFER, and the new leg is hung up at once
        leg = TransferLeg(self.agent, self.agent.account)
        self.agent.transfer_legs.append(leg)
        prm.newCall = leg

    def onDtmfDigit(self, prm):
        self.agent.notes.append(("dtmf", self, prm.digit))


class TransferLeg(pj.Call):
    """The call a REFER makes (to the staff line): hung up as soon as it is answered or fails."""

    def __init__(self, agent: CallerAgentProcess, account: pj.Account, call_id: int = pj.PJSUA_INVALID_ID):
        super().__init__(account, call_id)
        self.agent = agent

    def onCallState(self, prm):
        self.agent.notes.append(("leg", self, self.getInfo().state))


class CallerAccount(pj.Account):
    """The caller's identity; a call coming in (a transfer pointed back at this agent) is answered as the
    front desk would, so the REFER completes with 200."""

    def __init__(self, agent: CallerAgentProcess):
        super().__init__()
        self.agent = agent

    def onIncomingCall(self, prm):
        if self.agent.desk is not None and self.agent.call is None:
            call = CallerCall(self.agent, self, prm.callId)
            self.agent.call = call
            self.agent.notes.append(("desk", call, str(call.getInfo().remoteUri)))
            return
        call = TransferLeg(self.agent, self, prm.callId)
        self.agent.transfer_legs.append(call)
        self.agent.notes.append(("incoming", call, None))


SRTP_USE = {"off": "PJMEDIA_SRTP_DISABLED", "optional": "PJMEDIA_SRTP_OPTIONAL",
            "mandatory": "PJMEDIA_SRTP_MANDATORY"}


class CallerAgentProcess:
    def __init__(self, *, rate: int, record: Path | None, bind: str, log_level: int, quiet_ms: int,
                 port: int = 0, transport: str = "udp", tls_ca: Path | None = None, tls_cert: Path | None = None,
                 tls_key: Path | None = None, srtp: str = "off"):
        self.rate = rate
        self.bind = bind
        self.srtp = srtp
        self.notes: list = []                 # filled by SIP callbacks, read by the loop
        self.commands: queue.Queue = queue.Queue()
        self.recorder = Recorder(record, rate) if record else None
        self.detector = TalkDetector(quiet_ms)
        self.quiet_ms = quiet_ms
        self.call: CallerCall | None = None
        self.account: pj.Account | None = None
        self.accounts: list[pj.Account] = []
        self.transfer_legs: list[TransferLeg] = []
        self.port: LinePort | None = None
        self.background: bytes | None = None  # the caller's room, looped while they are quiet (at `rate`)
        self.hung_up_here = False
        self.desk: dict | None = None         # {"answer": "answer" | "reject" | "ring", "code": 486} as the desk
        self.running = True

        from ..sip.endpoint import quiet_pjlib

        quiet_pjlib(log_level)                # pjlib's start-up lines would go to stdout, the JSON lines' channel
        self.ep = pj.Endpoint()
        self.ep.libCreate()
        config = pj.EpConfig()
        config.uaConfig.threadCnt = 0
        config.uaConfig.mainThreadOnly = True
        config.uaConfig.userAgent = "appliance-caller-agent"
        config.logConfig.level = log_level
        config.logConfig.consoleLevel = log_level
        config.medConfig.clockRate = rate
        config.medConfig.sndClockRate = rate
        config.medConfig.ecTailLen = 0        # no echo canceller: the caller must hear the far end as sent
        config.medConfig.noVad = True         # send every frame, silence included
        self._log_writer = StderrLog()
        config.logConfig.writer = self._log_writer
        self.ep.libInit(config)
        self.ep.audDevManager().setNullDev()
        udp = pj.TransportConfig()
        udp.boundAddress = bind
        udp.port = port
        self.transport_id = self.ep.transportCreate(pj.PJSIP_TRANSPORT_UDP, udp)
        self.sip_port = self.ep.transportGetInfo(self.transport_id).localName.rsplit(":", 1)[1]
        self.call_transport_id = self.transport_id
        self.contact = ""                     # over TCP or TLS: the listener, where the far end can connect back
        if transport_name := {"tcp": "TCP", "tls": "TLS"}.get(transport):
            extra = pj.TransportConfig()
            extra.boundAddress = bind
            extra.port = 0
            if transport == "tls":
                _tls_client(extra.tlsConfig, tls_ca, tls_cert, tls_key)
            self.call_transport_id = self.ep.transportCreate(getattr(pj, f"PJSIP_TRANSPORT_{transport_name}"),
                                                             extra)
            listener = self.ep.transportGetInfo(self.call_transport_id).localName
            self.contact = f"{listener};transport={transport}"
        self.ep.libStart()
        self.rtp_base = random.randrange(20000, 60000, 2)

    # ------------------------------------------------------------------ commands

    def handle(self, command: dict) -> None:
        name = command.get("cmd")
        try:
            if name == "call":
                self.place_call(command["uri"], str(command.get("caller_id") or ""))
            elif name == "say":
                self.say(Path(command["pcm"]), int(command.get("rate", self.rate)), command.get("id"))
            elif name == "background":
                self.set_background(Path(command["pcm"]), int(command.get("rate", self.rate)))
            elif name == "dtmf":
                self._need_call().dialDtmf(str(command["digits"]))
                emit("dtmf_sent", digits=str(command["digits"]))
            elif name == "hangup":
                self.hang_up()
            elif name == "desk":
                self.be_desk(str(command.get("answer", "answer")), int(command.get("code", 486)),
                             str(command.get("user") or "desk"))
            elif name == "quit":
                self.running = False
            else:
                emit("error", message=f"unknown command {name!r}")
        except Exception as exc:
            emit("error", message=f"{name}: {type(exc).__name__}: {exc}")

    def place_call(self, uri: str, caller_id: str) -> None:
        if self.call is not None:
            raise RuntimeError("a call is already up: hang it up first")
        self.account = self._account_for(caller_id)
        self.hung_up_here = False
        self.detector = TalkDetector(self.quiet_ms)
        call = CallerCall(self, self.account)
        self.call = call
        call.makeCall(uri, pj.CallOpParam(True))
        emit("calling", uri=uri, caller_id=caller_id)

    def _account_for(self, caller_id: str) -> pj.Account:
        config = pj.AccountConfig()
        user = caller_id or "anonymous"
        display = f'"{caller_id}" ' if caller_id else '"Anonymous" '
        config.idUri = f"{display}<sip:{user}@{self.bind}:{self.sip_port}>"
        if self.contact:
            # pjsip's own Contact names the outgoing connection's port, which is gone once pjsip closes the idle
            # connection (33 s): the far end's BYE would have nowhere to go
            config.sipConfig.contactForced = f"<sip:{user}@{self.contact}>"
        else:                                 # over TCP or TLS, pjsip picks the transport by the call's URI
            config.sipConfig.transportId = self.transport_id
        config.mediaConfig.srtpUse = getattr(pj, SRTP_USE[self.srtp])
        config.mediaConfig.srtpSecureSignaling = 0
        media = config.mediaConfig.transportConfig
        media.boundAddress = self.bind
        media.port = self.rtp_base
        media.portRange = 2000
        account = CallerAccount(self)
        account.create(config)
        self.accounts.append(account)
        return account

    def be_desk(self, answer: str, code: int, user: str) -> None:
        """Answer the calls that come in as the front desk would (or refuse them, or let them ring)."""
        if answer not in ("answer", "reject", "ring"):
            raise ValueError(f"answer must be answer, reject or ring, not {answer!r}")
        if self.desk is None:
            self.account = self._account_for(user)
        self.desk = {"answer": answer, "code": code}
        emit("desk_ready", uri=f"sip:{user}@{self.bind}:{self.sip_port}", answer=answer)

    def _desk_rings(self, call: CallerCall, caller: str) -> None:
        emit("incoming", **{"from": caller})
        self.hung_up_here = False
        self.detector = TalkDetector(self.quiet_ms)
        op = pj.CallOpParam(True)
        op.statusCode = {"answer": 200, "reject": self.desk["code"], "ring": 180}[self.desk["answer"]]
        call.answer(op)

    def say(self, path: Path, rate: int, line_id) -> None:
        if self.port is None:
            raise RuntimeError("no call with audio up")
        pcm = path.read_bytes()
        if rate != self.rate:
            pcm = _resample(pcm, rate, self.rate)
        self.port.queue_line(pcm, line_id if line_id is not None else 0)

    def set_background(self, path: Path, rate: int) -> None:
        pcm = path.read_bytes()
        self.background = _resample(pcm, rate, self.rate) if rate != self.rate else pcm
        if self.port is not None:
            self.port.background = self.port.frames_of(self.background)

    def hang_up(self) -> None:
        call = self._need_call()
        self.hung_up_here = True
        self._cut_speech()
        call.hangup(pj.CallOpParam(True))

    def _need_call(self) -> CallerCall:
        if self.call is None:
            raise RuntimeError("no call")
        return self.call

    # ------------------------------------------------------------------ what the callbacks noted

    def drain_notes(self) -> None:
        notes, self.notes = self.notes, []
        for note in notes:
            kind, call = note[0], note[1]
            if kind in ("leg", "incoming"):
                self._transfer_leg(kind, call, note[2])
                continue
            if kind == "desk" and call is self.call:
                self._desk_rings(call, note[2])
                continue
            if call is not self.call:
                continue
            if kind == "state":
                self._state(call, *note[2:])
            elif kind == "media":
                self._connect_media(call)
            elif kind == "refer":
                emit("transferred", to=note[2].strip().strip("<>"))
            elif kind == "dtmf":
                emit("dtmf", digit=note[2])

    def _state(self, call: CallerCall, state: int, code: int, reason: str) -> None:
        if state == pj.PJSIP_INV_STATE_EARLY:
            emit("progress", code=code)
        elif state == pj.PJSIP_INV_STATE_CONFIRMED:
            emit("answered")
        elif state == pj.PJSIP_INV_STATE_DISCONNECTED:
            self._release_media()
            by = "local" if self.hung_up_here else "remote"
            emit("ended", reason=reason, code=code, by=by)
            self.call = None            # the Call object goes once its callback has returned

    def _connect_media(self, call: CallerCall) -> None:
        info = call.getInfo()            # keep the CallInfo alive while reading its media list
        for media in info.media:
            if media.type == pj.PJMEDIA_TYPE_AUDIO and media.status == pj.PJSUA_CALL_MEDIA_ACTIVE:
                audio = call.getAudioMedia(media.index)
                if self.port is None:
                    port = LinePort(self.rate)
                    if self.background:
                        port.background = port.frames_of(self.background)
                    fmt = pj.MediaFormatAudio()
                    fmt.init(pj.PJMEDIA_FORMAT_PCM, self.rate, 1, FRAME_MS * 1000, 16)
                    port.createPort("caller", fmt)
                    self.port = port
                audio.startTransmit(self.port)
                self.port.startTransmit(audio)
                call.connected = True
                emit("media", codec=_codec(call, media.index), srtp=_encrypted(call))
                return

    def _release_media(self) -> None:
        if self.port is None:
            return
        self._cut_speech()
        self.drain_audio()
        port, self.port = self.port, None
        retire_port(port)                # off the bridge before Python lets go of it

    def _cut_speech(self) -> None:
        if self.port is not None:
            for line_id in self.port.drop_pending():
                emit("said", id=line_id, cut=True)

    def _transfer_leg(self, kind: str, leg: TransferLeg, state: int | None) -> None:
        """The legs a transfer makes: answer the one that rings here, hang up the one we placed once it is
        answered; forget both once they are over."""
        try:
            if kind == "incoming":
                op = pj.CallOpParam(True)
                op.statusCode = 200
                leg.answer(op)
                emit("transfer_leg", state="answered here")
            elif state == pj.PJSIP_INV_STATE_CONFIRMED:
                emit("transfer_leg", state="connected")
                if leg.isActive():
                    leg.hangup(pj.CallOpParam(True))
            elif state == pj.PJSIP_INV_STATE_DISCONNECTED:
                if leg in self.transfer_legs:
                    self.transfer_legs.remove(leg)
        except pj.Error as exc:
            emit("error", message=f"transfer leg: {exc.reason.strip()}")

    def _drop_legs(self) -> None:
        for leg in list(self.transfer_legs):
            try:
                if leg.isActive():
                    if not getattr(leg, "hanging_up", False):
                        leg.hanging_up = True
                        leg.hangup(pj.CallOpParam(True))
                    continue
            except pj.Error:
                pass
            self.transfer_legs.remove(leg)

    # ------------------------------------------------------------------ audio

    def drain_audio(self) -> None:
        port = self.port
        if port is None:
            return
        for line_id in _take(port.finished):
            emit("said", id=line_id)
        sent, heard = _take(port.sent), _take(port.heard)
        for frame in heard:
            change = self.detector.frame(frame)
            if change is not None:
                emit("audio", speaking=change)
        if self.recorder is not None:
            self.recorder.add(sent, heard)

    # ------------------------------------------------------------------ the loop

    def run(self) -> None:
        reader = threading.Thread(target=_read_commands, args=(self.commands,), daemon=True, name="stdin")
        reader.start()
        emit("ready", port=int(self.sip_port))
        while self.running:
            self.ep.libHandleEvents(POLL_MS)
            self.drain_notes()
            self.drain_audio()
            while True:
                try:
                    command = self.commands.get_nowait()
                except queue.Empty:
                    break
                if command is None:          # stdin closed: the controller is gone
                    self.running = False
                    break
                self.handle(command)
        self.shut_down()

    def shut_down(self) -> None:
        """In order: calls hung up, the audio port deleted, accounts shut down, then the library."""
        if self.call is not None:
            try:
                self.hang_up()
            except pj.Error:
                pass
        deadline = time.monotonic() + QUIT_GRACE_S
        while (self.call is not None or self.transfer_legs) and time.monotonic() < deadline:
            self.ep.libHandleEvents(POLL_MS)
            self.drain_notes()
            self._drop_legs()
        self.ep.hangupAllCalls()
        for _ in range(10):
            self.ep.libHandleEvents(POLL_MS)
        self.drain_notes()
        self._release_media()
        self.call = None
        self.transfer_legs.clear()
        for account in self.accounts:
            account.shutdown()
        self.accounts.clear()
        self.account = None
        if self.recorder is not None:
            self.recorder.close()
        self.ep.libDestroy()
        emit("bye")


class StderrLog(pj.LogWriter):
    def write(self, entry):
        sys.stderr.write(entry.msg if entry.msg.endswith("\n") else entry.msg + "\n")


def _read_commands(commands: queue.Queue) -> None:
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            commands.put(json.loads(line))
        except json.JSONDecodeError:
            emit("error", message=f"not JSON: {line[:80]}")
    commands.put(None)


def _take(frames: deque) -> list[bytes]:
    out = []
    while True:
        try:
            out.append(frames.popleft())
        except IndexError:
            return out


def _resample(pcm: bytes, from_rate: int, to_rate: int) -> bytes:
    samples = np.frombuffer(pcm, dtype=np.int16).astype(np.float32)
    if not len(samples):
        return b""
    count = int(round(len(samples) * to_rate / from_rate))
    positions = np.linspace(0, len(samples) - 1, count)
    return np.interp(positions, np.arange(len(samples)), samples).astype(np.int16).tobytes()


def _tls_client(tls, ca: Path | None, cert: Path | None, key: Path | None) -> None:
    """The agent's side of TLS: its certificate (when the far end asks for one), the far end's checked
    against `ca` when one is given."""
    if cert is not None:
        tls.certFile = str(cert)
        tls.privKeyFile = str(key)
    if ca is not None:
        tls.CaListFile = str(ca)
        tls.verifyServer = True
    tls.proto = pj.PJ_SSL_SOCK_PROTO_TLS1_2 | pj.PJ_SSL_SOCK_PROTO_TLS1_3


def _encrypted(call: pj.Call) -> bool:
    """Whether the call's audio runs over SRTP (pjsua's call dump names the media transport's SRTP state)."""
    try:
        dump = call.dump(True, "")
    except pj.Error:
        return False
    return "SRTP status: Active" in dump


def _codec(call: pj.Call, index: int) -> str:
    try:
        return call.getStreamInfo(index).codecName
    except pj.Error:
        return ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m appliance.simulate.sip_caller_agent", description=__doc__.split("\n")[0])
    parser.add_argument("--record", type=Path, help="stereo WAV of the call (caller left, far end right)")
    parser.add_argument("--rate", type=int, default=8000, choices=(8000, 16000), help="the caller's audio rate")
    parser.add_argument("--bind", default="127.0.0.1", help="address for SIP and RTP")
    parser.add_argument("--port", type=int, default=0, help="SIP port (0: any free one)")
    parser.add_argument("--quiet-ms", type=int, default=QUIET_MS, help="silence that ends the far end's talking")
    parser.add_argument("--log-level", type=int, default=1, help="pjsip log level on stderr (0-6)")
    parser.add_argument("--transport", choices=("udp", "tcp", "tls"), default="udp", help="SIP transport for calls")
    parser.add_argument("--tls-ca", type=Path, help="CA (PEM) the far end's certificate must chain to")
    parser.add_argument("--tls-cert", type=Path, help="the agent's certificate (PEM), for far ends that ask")
    parser.add_argument("--tls-key", type=Path, help="the key of --tls-cert (PEM)")
    parser.add_argument("--srtp", choices=tuple(SRTP_USE), default="off", help="offer SRTP (SDES) on calls")
    args = parser.parse_args(argv)
    if (args.tls_cert is None) != (args.tls_key is None):
        parser.error("--tls-cert and --tls-key go together")
    agent = CallerAgentProcess(rate=args.rate, record=args.record, bind=args.bind, port=args.port,
                               log_level=args.log_level,
                               quiet_ms=args.quiet_ms, transport=args.transport, tls_ca=args.tls_ca,
                               tls_cert=args.tls_cert, tls_key=args.tls_key, srtp=args.srtp)
    agent.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())

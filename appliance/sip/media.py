"""Audio between pjsip's conference bridge and asyncio, 20 ms frames both ways.

pjsip's media clock thread calls `onFrameReceived` (caller audio) and
`onFrameRequested` (audio to play) every 20 ms. Both stay trivial: a received
frame is copied and handed to the event loop with `call_soon_threadsafe`; a
requested frame is popped from a deque the pipeline filled beforehand (or is
silence). Nothing here blocks, locks or awaits.

A port is never deleted by dropping its last reference: `retire_port` takes it
off the bridge first (see there). The port is created at the bridge's clock rate, which the endpoint sets to the
pipeline's rate ([voice] sample_rate), so pjmedia converts between the codec's
rate (8 kHz PCMU/PCMA, 16 kHz G722) and ours. `Resampler` covers a port at
another rate than the pipeline's.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Any, Callable

from ..voice import FRAME_MS, frame_bytes, resample_pcm


class OutgoingAudio:
    """PCM waiting to be played to the caller, in whole 20 ms frames (thread-safe by deque's atomic ops)."""

    def __init__(self, rate: int):
        self.rate = rate
        self.frame = frame_bytes(rate)
        self._silence = bytes(self.frame)
        self._frames: deque[bytes] = deque()
        self._partial = b""
        self.played_frames = 0

    def push(self, pcm: bytes) -> None:
        data = self._partial + pcm
        whole = len(data) - len(data) % self.frame
        for offset in range(0, whole, self.frame):
            self._frames.append(data[offset: offset + self.frame])
        self._partial = data[whole:]

    def flush(self) -> None:
        """Pad and queue the last part frame (end of an utterance)."""
        if self._partial:
            self._frames.append(self._partial + bytes(self.frame - len(self._partial)))
            self._partial = b""

    def clear(self) -> None:
        self._frames.clear()
        self._partial = b""

    def next_frame(self) -> bytes:
        try:
            data = self._frames.popleft()
        except IndexError:
            return self._silence
        self.played_frames += 1
        return data

    @property
    def pending(self) -> int:
        return len(self._frames)

    @property
    def pending_s(self) -> float:
        return len(self._frames) * FRAME_MS / 1000


class Resampler:
    """Whole frames from one rate to another (a no-op when the rates match)."""

    def __init__(self, from_rate: int, to_rate: int):
        self.from_rate = from_rate
        self.to_rate = to_rate

    def __call__(self, pcm: bytes) -> bytes:
        return resample_pcm(pcm, self.from_rate, self.to_rate)


def _port_class():
    import pjsua2 as pj

    audio_type = pj.PJMEDIA_FRAME_TYPE_AUDIO

    class CallAudioPort(pj.AudioMediaPort):
        """One call's audio, both ways. Create and delete it on the SIP thread."""

        def __init__(self, loop: asyncio.AbstractEventLoop, on_audio: Callable[[bytes], None],
                     outgoing: OutgoingAudio):
            super().__init__()
            self._loop = loop
            self._on_audio = on_audio
            self._outgoing = outgoing
            self._silence = bytes(outgoing.frame)
            self.receiving = True

        def onFrameReceived(self, frame):
            # getattr: pjsip's clock thread can still call a port whose Python side is being torn down
            # (its attributes already gone); an exception here would reach pjsip's C++ and crash it
            if not getattr(self, "receiving", False):
                return
            # no RTP this tick (a quiet or stalled caller): the line carries silence, as a phone line would
            data = bytes(frame.buf) if frame.type == audio_type and frame.size else self._silence
            try:
                self._loop.call_soon_threadsafe(self._on_audio, data)
            except RuntimeError:  # the loop has closed: the service is stopping
                self.receiving = False

        def onFrameRequested(self, frame):
            outgoing = getattr(self, "_outgoing", None)
            if outgoing is None:
                return
            data = outgoing.next_frame()
            frame.type = audio_type
            frame.buf = pj.ByteVector(data)
            frame.size = len(data)

    return CallAudioPort


_PORT_CLASS: Any = None


def create_call_port(name: str, rate: int, loop: asyncio.AbstractEventLoop, on_audio: Callable[[bytes], None],
                     outgoing: OutgoingAudio) -> Any:
    """A CallAudioPort registered with the bridge at `rate` (call on the SIP thread)."""
    import pjsua2 as pj

    global _PORT_CLASS
    if _PORT_CLASS is None:
        _PORT_CLASS = _port_class()
    port = _PORT_CLASS(loop, on_audio, outgoing)
    fmt = pj.MediaFormatAudio()
    fmt.init(pj.PJMEDIA_FORMAT_PCM, rate, 1, FRAME_MS * 1000, 16, 0, 0)
    port.createPort(name, fmt)
    return port


def retire_port(port: Any) -> None:
    """Take an AudioMediaPort off the bridge and destroy its C++ side while its Python side is still alive
    (on the thread that pumps pjsua; never twice for one port; do not touch the port afterwards).

    Dropping the last reference instead lets Python tear the object down while pjsip's clock thread can
    still call it: SWIG releases the GIL for the C++ destructor, a frame callback then holds the dying
    object for a moment, and Python frees it twice: a SIGSEGV in libpython (seen after 9 SIP calls;
    reproduced here within about 2,000 port deletions, and not once in 5,000 retired this way). A
    callback that runs while the port is being unregistered finds it alive, told to stop.
    """
    import pjsua2 as pj

    port.receiving = False
    if hasattr(port, "_outgoing"):
        port._outgoing = None
    pj.AudioMediaPort.__swig_destroy__(port)

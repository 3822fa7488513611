"""Hand-made SIP over a plain UDP socket: INVITEs that never ACK, and what comes back.

    with RawSip("127.0.0.1") as sip:
        sip.invite(service_port, caller="+61400000999")      # returns the Call-ID
        replies = sip.replies(2.0)                           # [(seconds since sent, first line, text)]

A forged INVITE names someone else in its Via (`reply_to=`, no rport): the service answers there, as it
would answer the real PBX whose address a forger put on the packet, and the sender hears nothing back.
"""

from __future__ import annotations

import socket
import time
import uuid


def invite_text(*, to_port: int, local: tuple[str, int], caller: str, call_id: str, branch: str,
                media_port: int = 40000, profile: str = "RTP/AVP", crypto: str = "", rport: bool = True) -> bytes:
    host, port = local
    sdp = (f"v=0\r\no=- 1 1 IN IP4 {host}\r\ns=-\r\nc=IN IP4 {host}\r\nt=0 0\r\n"
           f"m=audio {media_port} {profile} 0 101\r\na=rtpmap:0 PCMU/8000\r\n"
           "a=rtpmap:101 telephone-event/8000\r\na=fmtp:101 0-15\r\n" + (f"a=crypto:{crypto}\r\n" if crypto else "")
           + "a=sendrecv\r\n")
    return (f"INVITE sip:service@127.0.0.1:{to_port} SIP/2.0\r\n"
            f"Via: SIP/2.0/UDP {host}:{port};branch=z9hG4bK{branch}{';rport' if rport else ''}\r\n"
            f"From: <sip:{caller}@{host}:{port}>;tag={branch[:8]}\r\n"
            f"To: <sip:service@127.0.0.1:{to_port}>\r\n"
            f"Call-ID: {call_id}\r\nCSeq: 1 INVITE\r\n"
            f"Contact: <sip:{caller}@{host}:{port}>\r\nMax-Forwards: 70\r\n"
            f"Content-Type: application/sdp\r\nContent-Length: {len(sdp)}\r\n\r\n{sdp}").encode()


class RawSip:
    """One UDP socket on `host` (any free port) that sends INVITEs and never ACKs anything."""

    def __init__(self, host: str = "127.0.0.1"):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind((host, 0))
        self.local = self.sock.getsockname()
        self.sent_at = time.monotonic()

    def invite(self, port: int, *, caller: str, reply_to: tuple[str, int] | None = None, **sdp) -> str:
        """Send an INVITE; `reply_to`: the address its Via and Contact name instead of this socket's."""
        call_id = f"{uuid.uuid4().hex}@raw"
        text = invite_text(to_port=port, local=reply_to or self.local, caller=caller, call_id=call_id,
                           branch=uuid.uuid4().hex[:16], rport=reply_to is None, **sdp)
        self.sent_at = time.monotonic()
        self.sock.sendto(text, ("127.0.0.1", port))
        return call_id

    def replies(self, seconds: float) -> list[tuple[float, str, str]]:
        """Everything that arrives within `seconds`: (seconds since the last INVITE, first line, whole text)."""
        got = []
        until = time.monotonic() + seconds
        while (left := until - time.monotonic()) > 0:
            self.sock.settimeout(left)
            try:
                data, _ = self.sock.recvfrom(65535)
            except (socket.timeout, TimeoutError):
                break
            text = data.decode(errors="replace")
            got.append((time.monotonic() - self.sent_at, text.split("\r\n", 1)[0], text))
        return got

    def close(self) -> None:
        self.sock.close()

    def __enter__(self) -> RawSip:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

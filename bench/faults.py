"""Reliability under faults: what the appliance does when callers or the network misbehave.

    python bench/faults.py [--seed 7] [--invites 500] [--rate 100] [--messages 1000]

The SIP part ("Reliability: SIP" in bench/RESULTS.md) runs the real `appliance run` on loopback, one
line (`max_calls = 1`) and the default INVITE limit, and plays three faults at it, each followed by a
legitimate call that must be answered:

- forged INVITEs: sent from one socket with another address in their Via, as a forger would name the PBX;
  the service answers that address, nobody ACKs, and the bench (listening there, as the PBX) times the
  BYE that frees the line; nothing may be written under the forged caller ID;
- a flood: sipp sends `--invites` INVITEs at `--rate` a second from one address (full calls where
  answered), with five caller IDs in turn; the limit answers the excess 503, and each number may have at
  most one callback row;
- `--messages` malformed SIP messages (seeded: the same seed sends the same bytes), half over UDP, half
  over TCP; the service must not crash.

The storage part ("Reliability: recovery and storage", `--part storage [--kills 20]`, in storage_faults.py)
kills `appliance run` mid-call at seeded moments and restarts it, holds the database's write lock and fills
the disk during a booking, and scans the logs for patient data; its docstring says how.

Every loop is bounded and stops by itself; all traffic goes to 127.0.0.1.

    python bench/faults.py [--part sip|storage|all]
"""

from __future__ import annotations

import argparse
import platform
import random
import re
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from results_file import write_section  # noqa: E402

from sip.conftest import Service, free_port, rows, sipp, start_service, stop_service  # noqa: E402
from sip.raw_sip import RawSip, invite_text  # noqa: E402

FLOOD = Path(__file__).resolve().parent / "sip" / "flood.xml"
FORGED_CALLERS = [f"+6140000070{i}" for i in range(5)]
FLOOD_CALLERS = [f"+6140000080{i}" for i in range(5)]
FUZZ_CALLER = "+61400000900"
RELEASE_LIMIT_S = 5.0
LEGIT_TRIES = 4


# ---------------------------------------------------------------- the legitimate call after each fault

@dataclass
class LegitCall:
    answered: bool
    waited_s: float            # time spent waiting out 503 Retry-After before it got through
    tries: int


def legit_call(service: Service, work: Path) -> LegitCall:
    """A real call (sipp's call scenario, ACKed, BYE after a second) from the same address, retried after any
    503's Retry-After; answered when its call record closes."""
    waited, started = 0.0, time.monotonic()
    for attempt in range(1, LEGIT_TRIES + 1):
        before = len(service.calls())
        code, report = sipp(service, "call", work, pause_ms=1000, timeout_s=30)
        if code == 0:
            try:
                service.new_call(before, timeout=20)
                return LegitCall(True, waited, attempt)
            except AssertionError:
                return LegitCall(False, waited, attempt)
        retry = re.search(r"Retry-After: (\d+)", report)
        pause = int(retry[1]) if retry else 3
        time.sleep(pause)
        waited = time.monotonic() - started
    return LegitCall(False, waited, LEGIT_TRIES)


# ---------------------------------------------------------------- forged INVITEs

@dataclass
class ForgedResult:
    release_s: list[float] = field(default_factory=list)     # INVITE -> BYE to the forged address
    unreleased: int = 0
    written: int = 0
    legit: LegitCall | None = None


def forged_invites(service: Service, work: Path, count: int = len(FORGED_CALLERS)) -> ForgedResult:
    result = ForgedResult()
    with RawSip() as pbx, RawSip() as forger:              # the PBX whose address is forged, and the forger
        for caller in FORGED_CALLERS[:count]:
            call_id = forger.invite(service.port, caller=caller, reply_to=pbx.local)
            pbx.sent_at = forger.sent_at
            replies = pbx.replies(RELEASE_LIMIT_S + 3.0)
            # this call's BYE (pjsip resends an earlier call's unanswered BYE for a while)
            bye = [t for t, line, text in replies if line.startswith("BYE ") and f"Call-ID: {call_id}" in text]
            if bye:
                result.release_s.append(bye[0])
            else:
                result.unreleased += 1
            assert not forger.replies(0.05), "the forger was answered"
            time.sleep(0.5)
    result.legit = legit_call(service, work)
    result.written = sum(len(_written_for(service, caller)) for caller in FORGED_CALLERS[:count])
    return result


def _written_for(service: Service, number: str) -> list[tuple]:
    return (rows(service, "SELECT id FROM calls WHERE caller_id = ?", number)
            + rows(service, "SELECT id FROM callback_requests WHERE phone = ?", number))


# ---------------------------------------------------------------- a flood of INVITEs

@dataclass
class FloodResult:
    sent: int
    seconds: float
    answered: int
    refused_503: int
    refused_486: int
    callbacks_per_number: dict[str, int]
    alive: bool
    legit: LegitCall


def invite_flood(service: Service, work: Path, *, invites: int, rate: int) -> FloodResult:
    numbers = work / "callers.csv"
    numbers.write_text("SEQUENTIAL\n" + "".join(f"{n}\n" for n in FLOOD_CALLERS))
    started = time.monotonic()
    done = subprocess.run(
        ["sipp", f"127.0.0.1:{service.port}", "-sf", str(FLOOD), "-inf", str(numbers), "-i", "127.0.0.1",
         "-p", str(free_port()), "-mp", str(free_port() & ~1), "-m", str(invites), "-r", str(rate), "-rp", "1000",
         "-l", str(invites), "-recv_timeout", "15s", "-timeout", "90s", "-nostdin", "-s", "service", "-trace_msg"],
        cwd=work, capture_output=True, text=True, timeout=150)
    seconds = time.monotonic() - started
    counts = _final_responses(work)
    time.sleep(8.0)                                         # answered busy lines finish their message
    callbacks = {n: len(rows(service, "SELECT id FROM callback_requests WHERE phone = ?", n)) for n in FLOOD_CALLERS}
    legit = legit_call(service, work)
    if done.returncode not in (0, 1):                       # 1: some calls "failed" (refused), as intended
        print(done.stdout[-2000:], file=sys.stderr)
    return FloodResult(invites, seconds, counts.get("200", 0), counts.get("503", 0), counts.get("486", 0),
                       callbacks, service.alive(), legit)


def _final_responses(work: Path) -> dict[str, int]:
    """How many calls got each final response to their INVITE, from sipp's -trace_msg log (a response
    resent counts once: by Call-ID)."""
    final: dict[str, str] = {}
    for log in work.glob("*_messages.log"):
        for block in log.read_text(errors="replace").split("message received")[1:]:
            status = re.search(r"^SIP/2\.0 ([2-6]\d\d) ", block, re.M)
            call = re.search(r"^Call-ID:\s*(\S+)", block, re.M | re.I)
            cseq = re.search(r"^CSeq:\s*\d+ INVITE", block, re.M | re.I)
            if status and call and cseq:
                final.setdefault(call[1], status[1])
    totals: dict[str, int] = {}
    for code in final.values():
        totals[code] = totals.get(code, 0) + 1
    return totals


# ---------------------------------------------------------------- malformed messages

@dataclass
class FuzzResult:
    udp: int
    tcp: int
    seconds: float
    alive: bool
    log_problems: int
    written: int
    legit: LegitCall


def _base_messages(port: int) -> list[bytes]:
    invite = invite_text(to_port=port, local=("127.0.0.1", 5999), caller=FUZZ_CALLER, call_id="fuzz@bench",
                         branch="fuzz0001")
    options = (f"OPTIONS sip:service@127.0.0.1:{port} SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:5999;branch=z9hG4bKo1\r\n"
               f"From: <sip:{FUZZ_CALLER}@127.0.0.1>;tag=1\r\nTo: <sip:service@127.0.0.1>\r\nCall-ID: o@bench\r\n"
               "CSeq: 1 OPTIONS\r\nMax-Forwards: 70\r\nContent-Length: 0\r\n\r\n").encode()
    bye = options.replace(b"OPTIONS", b"BYE")
    response = b"SIP/2.0 200 OK\r\nVia: SIP/2.0/UDP 127.0.0.1:5999;branch=z9hG4bKr\r\nCSeq: 1 INVITE\r\n\r\n"
    return [invite, options, bye, response]


def _mutate(rng: random.Random, message: bytes) -> bytes:
    """One malformed variant of `message`: each kind of damage a broken or hostile peer sends."""
    lines = message.split(b"\r\n")
    kind = rng.randrange(10)
    if kind == 0:                                           # cut anywhere
        return message[:rng.randrange(1, len(message))]
    if kind == 1:                                           # bytes flipped
        data = bytearray(message)
        for _ in range(rng.randrange(1, 30)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        return bytes(data)
    if kind == 2:                                           # a header dropped
        del lines[rng.randrange(1, max(2, len(lines) - 2))]
    elif kind == 3:                                         # a header repeated many times
        at = rng.randrange(1, max(2, len(lines) - 2))
        lines[at:at] = [lines[at]] * rng.randrange(2, 200)
    elif kind == 4:                                         # Content-Length lies
        value = rng.choice([b"-1", b"99999999", b"abc", b"", b"18446744073709551617"])
        lines = [b"Content-Length: " + value if line.lower().startswith(b"content-length") else line
                 for line in lines]
    elif kind == 5:                                         # an endless header
        lines.insert(1, b"X-Long: " + b"A" * rng.randrange(1000, 20000))
    elif kind == 6:                                         # a broken start line
        lines[0] = rng.choice([b"INVITE", b"INVITE sip: SIP/2.0", b"SIP/3.0 200", b"\x00\x00\x00",
                               b"INVITE <sip:a@b> SIP/2.0", lines[0][::-1]])
    elif kind == 7:                                         # NUL bytes and stray CRs inside headers
        at = rng.randrange(len(lines))
        lines[at] = lines[at].replace(b":", b":\x00\r", 1)
    elif kind == 8:                                         # CSeq and Via nonsense
        lines = [b"CSeq: " + rng.choice([b"x INVITE", b"-5 INVITE", b"1 BYE", b"99999999999 INVITE"])
                 if line.startswith(b"CSeq") else
                 (b"Via: SIP/2.0/UDP [::1:;branch=" if line.startswith(b"Via") and rng.random() < 0.5 else line)
                 for line in lines]
    else:                                                   # plain garbage
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 3000)))
    return b"\r\n".join(lines)


def malformed_messages(service: Service, work: Path, *, count: int, seed: int) -> FuzzResult:
    rng = random.Random(seed)
    bases = _base_messages(service.port)
    messages = [_mutate(rng, rng.choice(bases)) for _ in range(count)]
    udp, tcp = messages[: count // 2], messages[count // 2:]
    started = time.monotonic()
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        for datagram in udp:
            try:
                sock.sendto(datagram[:60000], ("127.0.0.1", service.port))
            except OSError:
                pass
            time.sleep(0.002)
    for start in range(0, len(tcp), 5):                     # five messages a connection
        try:
            with socket.create_connection(("127.0.0.1", service.port), timeout=2) as stream:
                for message in tcp[start:start + 5]:
                    stream.sendall(message)
        except OSError:
            pass
    seconds = time.monotonic() - started
    time.sleep(5.0)                                         # anything answered but never ACKed is let go
    alive = service.alive()
    legit = legit_call(service, work) if alive else LegitCall(False, 0.0, 0)
    log = service.log_text()
    problems = log.count("Traceback") + log.count("Assertion")
    return FuzzResult(len(udp), len(tcp), seconds, alive and service.alive(), problems,
                      len(_written_for(service, FUZZ_CALLER)), legit)


# ---------------------------------------------------------------- the section

def sip_reliability(args) -> str:
    with tempfile.TemporaryDirectory(prefix="bench-faults-") as scratch:
        work = Path(scratch)
        for part in ("service", "forged", "flood", "fuzz"):
            (work / part).mkdir()
        service = start_service(work / "service", max_calls=1)
        try:
            forged = forged_invites(service, work / "forged")
            flood = invite_flood(service, work / "flood", invites=args.invites, rate=args.rate)
            fuzz = malformed_messages(service, work / "fuzz", count=args.messages, seed=args.seed)
        finally:
            exit_code = stop_service(service)
    return _sip_section(args, forged, flood, fuzz, exit_code)


def _legit(call: LegitCall) -> str:
    if not call.answered:
        return f"**not answered** after {call.tries} tries"
    return "answered" + (f" after waiting out Retry-After ({call.waited_s:.1f} s)" if call.waited_s else " at once")


def _sip_section(args, forged: ForgedResult, flood: FloodResult, fuzz: FuzzResult, exit_code: int) -> str:
    callbacks = max(flood.callbacks_per_number.values(), default=0)
    release = (f"{min(forged.release_s):.1f}-{max(forged.release_s):.1f} s" if forged.release_s else "never")
    lines = [
        "## Reliability: SIP (`bench/faults.py`)",
        "",
        f"`python bench/faults.py --seed {args.seed} --invites {args.invites} --rate {args.rate} --messages "
        f"{args.messages}` on {platform.machine()} ({platform.processor() or 'cpu'}), `appliance run` on loopback "
        "with one line (`max_calls = 1`) and the default INVITE limit (a burst of 10, then 20 a minute per address). "
        "Each fault is followed by a legitimate call from the same address.",
        "",
        "| fault | what happened | legitimate call after |",
        "|---|---|---|",
        f"| {len(forged.release_s) + forged.unreleased} forged INVITEs (raw UDP, the PBX's address in the Via; "
        f"nobody ACKs) | released (BYE) {release} after the INVITE; {forged.unreleased} held past "
        f"{RELEASE_LIMIT_S:.0f} s; {forged.written} rows written under the forged caller IDs | "
        f"{_legit(forged.legit)} |",
        f"| {flood.sent} INVITEs at {args.rate}/s from sipp ({flood.seconds:.1f} s), 5 caller IDs | "
        f"{flood.answered} answered, {flood.refused_503} refused 503 (rate limit), {flood.refused_486} refused 486 "
        f"(no line or call slot); service {'up' if flood.alive else '**down**'}; at most {callbacks} callback "
        f"row(s) per number | {_legit(flood.legit)} |",
        f"| {fuzz.udp + fuzz.tcp} malformed SIP messages (seed {args.seed}: {fuzz.udp} over UDP, {fuzz.tcp} over "
        f"TCP, {fuzz.seconds:.1f} s) | {0 if fuzz.alive else 1} crash(es); {fuzz.log_problems} tracebacks or "
        f"assertions in the log; {fuzz.written} rows written | {_legit(fuzz.legit)} |",
        "",
        f"The service stopped cleanly afterwards (exit status {exit_code}). Forged INVITEs cost a call slot for the "
        "seconds before the ACK is given up on; over a network where addresses can be forged, use TLS with the "
        "PBX's certificate pinned (docs/sip.md).",
    ]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=7, help="seed of the malformed messages")
    parser.add_argument("--invites", type=int, default=500, help="INVITEs in the flood")
    parser.add_argument("--rate", type=int, default=100, help="INVITEs a second in the flood")
    parser.add_argument("--messages", type=int, default=1000, help="malformed messages (half UDP, half TCP)")
    parser.add_argument("--part", choices=("sip", "storage", "all"), default="all", help="which faults to play")
    parser.add_argument("--kills", type=int, default=20, help="kill -9 moments across booking calls (storage)")
    args = parser.parse_args()
    if args.part in ("sip", "all"):
        body = sip_reliability(args)
        print(body)
        print(f"\nwritten to {write_section('reliability-sip', body)}")
    if args.part in ("storage", "all"):
        from storage_faults import storage_reliability

        body = storage_reliability(args)
        print(body)
        print(f"\nwritten to {write_section('reliability-storage', body)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

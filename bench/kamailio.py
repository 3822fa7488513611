"""Kamailio in front of two appliances that share one PostgreSQL, with real spoken calls (docs/scale.md).

Everything on loopback: a throw-away PostgreSQL (the tests' helper, initdb and pg_ctl in a temporary folder)
loaded with the demo clinic by `appliance db init`, two `appliance run` boxes in peer mode on their own SIP
ports and data folders with the proxy as their only allowed peer, and Kamailio with the shipped
config/kamailio/kamailio.cfg (defines set with -A, the two boxes in a temporary dispatcher.list). The callers
are the project's SIP caller agent, speaking Piper-rendered lines. Three parts:

1. spread: short calls one after another (the greeting heard, then hung up): which box took each;
2. race: two callers book through different boxes, line for line in step, so that both are offered the same
   first slot and say "yes" to it within the same second; the shared store must keep one booking and the
   other caller must be offered new times;
3. failover: one box is stopped (SIGTERM, as systemctl stop) and calls go on being placed: when the other box
   answers the first one, how long the proxy takes to mark the stopped box down, and whether a call is lost.

    .venv/bin/python bench/kamailio.py [--calls 6] [--failover-calls 6] [--failover-spacing 1.5] [--ping-interval 10]

Each box loads Whisper and Piper (about 1.2 GB and most of a core), so the counts stay small. Writes the
"kamailio" section of bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import re
import shutil
import signal
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
from sip.conftest import APPLIANCE, Service, start_service, stop_service  # noqa: E402
from sip.kamailio_proxy import KamailioProxy  # noqa: E402
from store.postgres_server import PostgresServer, binaries  # noqa: E402

from appliance.simulate.sip_caller_client import CallerAgent, CallerAgentError  # noqa: E402

CLINIC = ROOT / "config" / "clinic.demo.yaml"
# Two patients of the demo clinic (their numbers in E.164: a caller ID is the user part of a SIP URI) booking the same service at the same clinic on the same day: both are
# offered the same first slot and take it.
RACE_CALLERS = {
    "+61491570006": ["Hi, I'd like to book a remedial massage please", "Sarah Johnson",
                     "the fourth of March, nineteen eighty five", "Neutral Bay please", "Thursday afternoon",
                     "the first one", "yes please"],
    "+61491570159": ["Hi, I'd like to book a remedial massage please", "James White",
                     "the thirtieth of December, two thousand and one", "Neutral Bay please",
                     "Thursday afternoon", "the first one", "yes please"],
}
GOODBYE = "Sorry, wrong number. Goodbye."     # the box says goodbye and hangs up
RACE_ATTEMPTS = 2            # a misheard line can send one caller elsewhere; then the race is run again
ANSWER_TIMEOUT_S = 20.0      # the proxy tries the next box after 2 s; an answer later than this is a lost call
TURN_TIMEOUT_S = 60.0        # a reply that has not finished playing by then fails the race
HANG_UP_TIMEOUT_S = 90.0     # a box hangs up on a silent caller after its check-ins (10, 20, 40 s)
ANSWERING = re.compile(r"call (\S+) from \S+: answering")
DOUBLE_BOOKINGS = """SELECT count(*) FROM appointments a JOIN appointments b ON a.id < b.id
    AND a.practitioner_id = b.practitioner_id AND a.status = 'booked' AND b.status = 'booked'
    AND appliance_slot(a.start, a.minutes) && appliance_slot(b.start, b.minutes)"""


@dataclass
class Box:
    name: str
    service: Service

    def took(self, call_id: str) -> bool:
        return call_id in ANSWERING.findall(self.service.log_text())


@dataclass
class PlacedCall:
    number: str
    answered: bool = False
    answer_s: float | None = None      # INVITE to 200 OK, through the proxy
    box: str | None = None
    call_id: str | None = None
    error: str = ""
    placed_at: float = 0.0             # time.monotonic()
    ended_by: str = ""                 # "remote": the box hung up


@dataclass
class Bench:
    dsn: str
    proxy: KamailioProxy
    boxes: list[Box]
    server_log: Path
    speech: dict[str, bytes] = field(default_factory=dict)
    numbers: int = 0
    seen_calls: set[str] = field(default_factory=set)

    @property
    def uri(self) -> str:
        return f"sip:receptionist@127.0.0.1:{self.proxy.port}"

    def query(self, sql: str, *args):
        import psycopg

        with psycopg.connect(self.dsn, autocommit=True) as conn:
            return conn.execute(sql, args).fetchall()

    def next_number(self) -> str:
        """A caller ID no patient has, a new one per call so that its record is found by number."""
        self.numbers += 1
        return f"+61491571{self.numbers:03d}"

    def call_id_of(self, number: str) -> str | None:
        """The call from `number` not yet seen (the race's callers may call twice)."""
        digits = re.sub(r"\D", "", number)[-8:]
        found = self.query("SELECT id FROM calls WHERE right(regexp_replace(coalesce(caller_id, ''), '[^0-9]', '', "
                           "'g'), 8) = %s AND NOT (id = ANY(%s)) ORDER BY started_at DESC LIMIT 1", digits,
                           list(self.seen_calls))
        return found[0][0] if found else None

    async def wait_call_id(self, number: str, timeout: float = 10.0) -> str:
        until = time.monotonic() + timeout
        while time.monotonic() < until:
            if call_id := self.call_id_of(number):
                self.seen_calls.add(call_id)
                return call_id
            await asyncio.sleep(0.2)
        raise RuntimeError(f"no call record for {number} in {timeout:.0f} s")

    def box_of(self, call_id: str) -> str | None:
        return next((box.name for box in self.boxes if box.took(call_id)), None)

    async def short_call(self, *, goodbye: bool = False) -> PlacedCall:
        """One call through the proxy: answered, the greeting starts, hung up by the caller; with `goodbye`,
        the caller says goodbye instead and waits for the box to hang up (its BYE comes through the proxy)."""
        placed = PlacedCall(self.next_number(), placed_at=time.monotonic())
        async with CallerAgent() as phone:
            started = time.monotonic()
            try:
                await phone.call(self.uri, caller_id=placed.number, timeout=ANSWER_TIMEOUT_S)
            except CallerAgentError as error:
                placed.error = str(error)[:200]
                return placed
            placed.answered, placed.answer_s = True, time.monotonic() - started
            placed.call_id = await self.wait_call_id(placed.number)
            if goodbye:
                await self.reply_played(phone, placed.call_id, 0)
                await phone.say(self.speech[GOODBYE], 8000)
                with contextlib.suppress(asyncio.TimeoutError):    # misheard, the silence check-ins end it
                    await phone.wait_ended(timeout=HANG_UP_TIMEOUT_S)
                placed.ended_by = (phone.end or {}).get("by", "")
            else:
                try:
                    await phone.until_speaking(timeout=15)
                except asyncio.TimeoutError:
                    placed.error = "answered, but no greeting in 15 s"
            await phone.hangup()
        placed.box = self.box_of(placed.call_id)
        return placed

    async def reply_played(self, phone: CallerAgent, call_id: str, seq: int) -> None:
        """Wait until the box has played its reply of turn `seq` (0: the greeting) and the line is quiet."""
        until = time.monotonic() + TURN_TIMEOUT_S
        while time.monotonic() < until:
            row = self.query("SELECT agent_speech_end FROM turns WHERE call_id = %s AND seq = %s", call_id, seq)
            if row and row[0][0]:
                await phone.until_quiet(timeout=10)
                await asyncio.sleep(0.3)
                return
            if phone.ended.is_set():
                raise RuntimeError(f"call {call_id} ended before turn {seq}: {phone.end}")
            await asyncio.sleep(0.2)
        raise RuntimeError(f"call {call_id}: turn {seq} was not played in {TURN_TIMEOUT_S:.0f} s")

    async def booking_caller(self, number: str, lines: list[str], step: asyncio.Barrier) -> dict:
        """One caller of the race; each line waits for the other caller's (`step`), so that both say the
        last one, "yes" to the slot read back to them, at the same moment."""
        try:
            async with CallerAgent() as phone:
                await phone.call(self.uri, caller_id=number, timeout=ANSWER_TIMEOUT_S)
                call_id = await self.wait_call_id(number)
                yes_at, read_back = None, ("", "")
                for seq, line in enumerate(lines):
                    await self.reply_played(phone, call_id, seq)
                    await asyncio.wait_for(step.wait(), TURN_TIMEOUT_S)
                    if seq == len(lines) - 1:
                        yes_at = time.time()
                        read_back = self.query("SELECT state, agent_text FROM turns WHERE call_id = %s "
                                               "ORDER BY seq DESC LIMIT 1", call_id)[0]
                    await phone.say(self.speech[line], 8000)
                await self.reply_played(phone, call_id, len(lines))
                await phone.hangup()
        except BaseException:
            await step.abort()                      # the other caller stops waiting for this one
            raise
        return {"number": number, "call_id": call_id, "box": self.box_of(call_id), "yes_at": yes_at,
                "read_back": read_back}


def race_outcome(bench: Bench, callers: list[dict], log_from: int) -> dict:
    """Bookings the two calls made, what each asked the store for, and what the refused one heard next."""
    ids = [c["call_id"] for c in callers]
    attempts = bench.query("SELECT call_id, arguments, result_kind, result FROM tool_calls "
                           "WHERE name = 'CreateAppointment' AND call_id = ANY(%s) ORDER BY id", ids)
    booked = bench.query("SELECT created_by_call, practitioner_id, start FROM appointments "
                         "WHERE status = 'booked' AND created_by_call = ANY(%s)", ids)
    last_words = {}
    for call_id in ids:
        rows = bench.query("SELECT agent_text, state FROM turns WHERE call_id = %s ORDER BY seq DESC LIMIT 1", call_id)
        last_words[call_id] = rows[0] if rows else ("", "")
    constraint = "slot_taken_practitioner" in bench.server_log.read_text(errors="replace")[log_from:]
    refused_by = ("the exclusion constraint (slot_taken_practitioner, in the server's log)" if constraint else
                  "the store's re-check before the insert (the constraint did not fire)")
    return {"attempts": attempts, "booked": booked, "last": last_words, "refused_by": refused_by}


async def spread(bench: Bench, count: int) -> list[PlacedCall]:
    calls = []
    for number in range(count):
        calls.append(await bench.short_call(goodbye=number == count - 1))
        print(f"  call {len(calls)}: {describe(calls[-1])}", flush=True)
    return calls


async def failover(bench: Bench, count: int, spacing_s: float) -> dict:
    """Stop the first box and place `count` calls, one every `spacing_s` from that moment (each its own
    caller), while watching when the proxy marks the box down."""
    stopped, other = bench.boxes[0], bench.boxes[1]
    down_uri = f"sip:127.0.0.1:{stopped.service.port}"
    log_before = len(bench.proxy.log_text())
    stop_at = time.monotonic()
    stopping = asyncio.create_task(asyncio.to_thread(stop_service, stopped.service))
    marked_down_s = None

    async def watch_proxy():
        nonlocal marked_down_s
        while marked_down_s is None and time.monotonic() - stop_at < 60:
            flags = await asyncio.to_thread(bench.proxy.destinations)
            if flags.get(down_uri, "").startswith("I"):
                marked_down_s = time.monotonic() - stop_at
            await asyncio.sleep(0.2)

    async def call_at(delay: float) -> PlacedCall:
        await asyncio.sleep(delay)
        return await bench.short_call()

    watcher = asyncio.create_task(watch_proxy())
    calls = await asyncio.gather(*(call_at(i * spacing_s) for i in range(count)))
    for i, call in enumerate(calls):
        print(f"  {i * spacing_s:4.1f} s after the stop: {describe(call)}", flush=True)
    exit_status = await stopping
    await asyncio.wait_for(watcher, 70)
    answered_by_other = [c.placed_at + c.answer_s - stop_at for c in calls if c.box == other.name]
    moved = re.findall(r"(\d{3}) from a box, trying", bench.proxy.log_text()[log_before:])
    return {"calls": calls, "marked_down_s": marked_down_s, "exit": exit_status, "moved": moved,
            "first_other_s": min(answered_by_other) if answered_by_other else None, "spacing_s": spacing_s}


def describe(call: PlacedCall) -> str:
    if not call.answered:
        return f"NOT answered ({call.error})"
    hung_up = ", the box hung up" if call.ended_by == "remote" else ""
    return f"answered by {call.box} in {call.answer_s * 1000:.0f} ms{hung_up}" + (f" ({call.error})" if call.error else "")


def start_boxes(work: Path, dsn_file: Path) -> list[Box]:
    boxes = []
    for name in ("box-a", "box-b"):
        folder = work / name
        folder.mkdir()
        started = time.monotonic()
        service = start_service(folder, allowed_peers=["127.0.0.1/32"], mode="peer",
                                extra_toml=f'[data]\ndatabase_file = "{dsn_file}"')
        print(f"{name}: answering on port {service.port} after {time.monotonic() - started:.0f} s", flush=True)
        boxes.append(Box(name, service))
    return boxes


def load_clinic(server: PostgresServer) -> str:
    import psycopg

    with psycopg.connect(server.dsn(), autocommit=True) as admin:
        admin.execute('CREATE DATABASE "clinic"')
    dsn = server.dsn("clinic")
    env = {k: v for k, v in os.environ.items() if k not in ("APPLIANCE_DB", "APPLIANCE_CONFIG")}
    done = subprocess.run([str(APPLIANCE), "db", "init", "--clinic", str(CLINIC), "--db", dsn], capture_output=True,
                          text=True, timeout=120, env=env)
    if done.returncode != 0:
        raise RuntimeError(f"appliance db init failed:\n{done.stdout}{done.stderr}")
    return dsn


def render_speech() -> dict[str, bytes]:
    """Every caller line as 8 kHz phone audio, by the runtime's Piper voice (as the SIP tests' caller)."""
    from appliance.models import resolve
    from appliance.settings import load_settings
    from appliance.voice.tts import PiperSynthesizer

    synthesizer = PiperSynthesizer(resolve("tts", load_settings()).path)
    lines = {GOODBYE, *(line for lines in RACE_CALLERS.values() for line in lines)}
    return {line: synthesizer.speak(line, 8000) for line in lines}


async def race_once(bench: Bench) -> dict:
    step = asyncio.Barrier(len(RACE_CALLERS))
    log_from = len(bench.server_log.read_text(errors="replace"))
    callers = await asyncio.gather(*(bench.booking_caller(number, lines, step)
                                     for number, lines in RACE_CALLERS.items()), return_exceptions=True)
    errors = [f"{type(c).__name__}: {c}" for c in callers if isinstance(c, BaseException)]
    callers = [c for c in callers if not isinstance(c, BaseException)]
    race = race_outcome(bench, callers, log_from) if len(callers) == 2 else {}
    # lined up: both heard the same slot read back and were asked to confirm it when they said yes
    lined_up = (len(callers) == 2 and callers[0]["read_back"] == callers[1]["read_back"]
                and callers[0]["read_back"][0] == "confirm_booking")
    return {"callers": callers, "errors": errors, "lined_up": lined_up, **race}


async def run(bench: Bench, args) -> dict:
    print(f"spread: {args.calls} calls one after another", flush=True)
    spread_calls = await spread(bench, args.calls)
    for attempt in range(1, RACE_ATTEMPTS + 1):
        print(f"race, attempt {attempt}: two callers for the same slot, in step", flush=True)
        race = await race_once(bench)
        race["attempt"] = attempt
        for row in race_rows(race):
            print(f"  {row}", flush=True)
        if race["lined_up"]:
            break
    print(f"failover: {bench.boxes[0].name} stopped, {args.failover_calls} calls", flush=True)
    fail = await failover(bench, args.failover_calls, args.failover_spacing)
    doubles = bench.query(DOUBLE_BOOKINGS)[0][0]
    return {"spread": spread_calls, "race": race, "failover": fail, "double_bookings": doubles}


def report(results: dict, args, load_before: tuple, seconds: float) -> str:
    spread_calls, fail, race = results["spread"], results["failover"], results["race"]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip()
    per_box = {name: sum(c.box == name for c in spread_calls) for name in ("box-a", "box-b")}
    answered = [c for c in spread_calls if c.answered]
    answer_ms = sorted(c.answer_s * 1000 for c in answered)
    load = " ".join(f"{x:.2f}" for x in load_before)
    load_after = " ".join(f"{x:.2f}" for x in os.getloadavg())
    lines = [
        "## Kamailio: several appliances on one PostgreSQL (`bench/kamailio.py`)",
        "",
        f"`python bench/kamailio.py --calls {args.calls} --failover-calls {args.failover_calls} --failover-spacing "
        f"{args.failover_spacing} --ping-interval {args.ping_interval}` at commit {commit} on {platform.machine()}, {os.cpu_count()} cores (cpu), "
        f"{seconds:.0f} s. Loopback: one PostgreSQL ({binaries().parent.name}) loaded by `appliance db init` with "
        "the demo clinic; Kamailio with the shipped config/kamailio/kamailio.cfg (round robin, OPTIONS every "
        f"{args.ping_interval} s, 2 s to a box's first reply); two `appliance run` boxes (peer mode, the proxy as "
        "their only allowed peer, `max_calls` 2, separate data folders, `[data] database_file` naming the "
        "one database). Callers: the project's SIP caller agent with Piper-spoken lines. "
        f"Load average before: {load}; after: {load_after}.",
        "",
        "| what | result |",
        "|---|---|",
        f"| calls placed through the proxy, one after another | {len(spread_calls)}, {len(answered)} answered"
        + (f" (INVITE to answer {answer_ms[len(answer_ms) // 2]:.0f} ms median, {answer_ms[-1]:.0f} ms max) |"
           if answer_ms else " |"),
        "| per box | " + ", ".join(f"{name}: {n}" for name, n in per_box.items()) + " |",
        f"| the box hangs up (the last call: the caller says goodbye) | "
        + ("its BYE reached the caller through the proxy |" if spread_calls[-1].ended_by == "remote" else
           f"the caller saw no hang-up from the box ({spread_calls[-1].ended_by or 'none'}) |"),
    ]
    lines += race_rows(results["race"])
    lines += failover_rows(fail)
    lines.append(f"| double bookings in the shared store at the end (goal 0) | {results['double_bookings']} |")
    lines += ["", "The two boxes run on one host here, so the `calls.box` column names the same host for both; "
              "each call's box is read from the box's own log (`call ID from ADDRESS: answering`)."]
    return "\n".join(lines)


def race_rows(race: dict) -> list[str]:
    attempt = f"race (attempt {race['attempt']} of at most {RACE_ATTEMPTS})"
    if race["errors"] or len(race["callers"]) < 2:
        return [f"| {attempt} | not completed: {'; '.join(race['errors'])[:300]} |"]
    callers = race["callers"]
    if not race["lined_up"]:
        states = ", ".join(c["read_back"][0] for c in callers)
        return [f"| {attempt} | did not line up: the callers were in states {states} when they said yes (a line "
                "misheard); no race to judge |"]
    yes_gap = abs(callers[0]["yes_at"] - callers[1]["yes_at"])
    boxes = " and ".join(f"{c['box']}" for c in callers)
    slots = {(json.loads(a[1])["slot"]["practitioner_id"], json.loads(a[1])["slot"]["start"]) for a in race["attempts"]}
    kinds = ", ".join(f"{a[2]}" + (f" {json.loads(a[3]).get('code')}" if a[2] != "ok" else "") for a in race["attempts"])
    refused = [c for c in callers if c["call_id"] not in {b[0] for b in race["booked"]}]
    offered = "; ".join(f"\"{race['last'][c['call_id']][0]}\" (state {race['last'][c['call_id']][1]})" for c in refused)
    return [
        f"| {attempt}: two callers, the same slot read back to both, through {boxes} | \"yes\" said "
        f"{yes_gap * 1000:.0f} ms apart; {len(race['attempts'])} booking attempts ({kinds}) for {len(slots)} "
        f"slot(s); {len(race['booked'])} booking made; the second refused by {race['refused_by']} |",
        f"| what the refused caller heard next | {offered or 'no caller was refused'} |",
    ]


def failover_rows(fail: dict) -> list[str]:
    calls = fail["calls"]
    lost = [c for c in calls if not c.answered]
    detail = "; ".join(f"{i * fail['spacing_s']:.1f} s: {describe(c)}" for i, c in enumerate(calls))
    first = f"{fail['first_other_s']:.1f} s" if fail["first_other_s"] is not None else "never"
    marked = f"{fail['marked_down_s']:.1f} s" if fail["marked_down_s"] is not None else "not within 60 s"
    moved = ", ".join(fail["moved"]) or "none"
    slowest = f"{max(c.answer_s for c in calls if c.answered):.1f} s" if len(lost) < len(calls) else "never"
    return [
        f"| failover: box-a stopped (SIGTERM, exit {fail['exit']}), then {len(calls)} calls, one every "
        f"{fail['spacing_s']:.1f} s | first call answered by box-b {first} after the stop; box-a marked down by "
        f"the proxy's pings after {marked}; calls the proxy moved on from box-a (its reason): {len(fail['moved'])} "
        f"({moved}), the slowest answered {slowest} after it was placed; {len(lost)} call(s) lost |",
        f"| calls after the stop (when placed: who answered, INVITE to answer) | {detail} |",
    ]


def _interrupted(*_) -> None:
    raise KeyboardInterrupt


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=6, help="short calls for the spread part")
    parser.add_argument("--failover-calls", type=int, default=6, help="calls placed once a box is stopped")
    parser.add_argument("--failover-spacing", type=float, default=1.5, help="seconds between those calls")
    parser.add_argument("--ping-interval", type=int, default=10, help="Kamailio's OPTIONS interval (s)")
    parser.add_argument("--keep", action="store_true", help="keep the boxes' folders and logs (printed)")
    parser.add_argument("--no-write", action="store_true", help="print the section; leave bench/RESULTS.md alone")
    args = parser.parse_args()
    if binaries() is None:
        sys.exit("PostgreSQL's server programs are not installed: apt-get install postgresql")
    signal.signal(signal.SIGTERM, _interrupted)         # a kill stops everything as Ctrl-C does
    load_before, started = os.getloadavg(), time.monotonic()
    work = Path(tempfile.mkdtemp(prefix="bench-kamailio-"))
    print(f"working in {work}", flush=True)
    server, proxy, boxes = PostgresServer(binaries()), None, []
    try:
        server.start()
        dsn = load_clinic(server)
        dsn_file = work / "database.dsn"
        dsn_file.write_text(dsn + "\n")
        dsn_file.chmod(0o600)
        speech = render_speech()
        boxes = start_boxes(work, dsn_file)
        proxy = KamailioProxy(work / "proxy", boxes=[b.service.port for b in boxes],
                              ping_interval_s=args.ping_interval)
        proxy.start()
        proxy.wait_for(lambda state: len(state) == 2 and all(f.startswith("A") for f in state.values()))
        bench = Bench(dsn, proxy, boxes, server.log, speech)
        results = asyncio.run(run(bench, args))
        body = report(results, args, load_before, time.monotonic() - started)
    finally:
        if proxy is not None:
            proxy.stop()
        for box in boxes:
            stop_service(box.service)
        server.stop()
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    print(body)
    if not args.no_write:
        print(f"\nwritten to {write_section('kamailio', body)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

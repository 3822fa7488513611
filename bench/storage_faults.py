"""Reliability: recovery and storage, the second part of bench/faults.py (`--part storage`).

Booking calls are placed with the project's SIP caller (appliance/simulate/sip_caller_client.py: a real SIP
phone in its own process, speaking Piper's lines at 8 kHz) to the real `appliance run` on loopback, and faults
are played at them:

- kill -9 of `appliance run` at `--kills` seeded moments across booking calls (after a seeded line of the
  caller's, a seeded 0-4 s later), each followed by a restart; after each restart the database is audited:
  calls without an outcome, bookings without their tool-call record (or the caller's turn that asked for
  them), interrupted callers without a callback request, and what the monitor's Needs attention shows;
- the database's write lock held (as a backup or a monitor could) for 5 s, 15 s and 60 s from the moment
  the caller says "yes" to the booking's read-back; and a full disk (the data folder on a small tmpfs, the
  WAL truncated as after the nightly prune, then filled): the longest silence the caller hears waiting for
  the reply (from the call's own recording), the outcome, and whether the callback and the call record are
  in the database once the fault has cleared;
- a log scan: a spoken call and a SIP call in which the caller gives a name, date of birth and phone
  number, and the service's log of every call above: how many log lines hold any of them.

Every loop is bounded; all traffic goes to 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import re
import signal
import sqlite3
import statistics
import subprocess
import tempfile
import threading
import time
import wave
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from sip.conftest import APPLIANCE, START_TIMEOUT_S, Service, free_sip_port, stop_service, write_config  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CALLER = "+61491570006"                       # Sarah Johnson, a patient of the demo clinic
BOOKING = ["Hi, I'd like to book a remedial massage please", "Sarah Johnson", "the fourth of March, nineteen eighty five",
           "Neutral Bay please", "Thursday afternoon", "the first one", "yes please", "no, that's all, thanks"]
YES = BOOKING.index("yes please")
SARAH = ["Sarah", "Johnson", "1985-03-04", "04/03/1985", "fourth of March", "0491570006", "491570006", "491 570 006"]
LIAM = ["Liam", "O'Connor", "Connor", "2001-01-09", "09/01/2001", "9th of January", "0412345678", "412345678",
        "412 345 678", "four one two three"]
NEW_PATIENT = ROOT / "tests" / "scenarios" / "new-patient-withheld-spoken-phone.yaml"
QUIET_MS = 2500                               # the caller takes the receptionist as done after this much quiet
VOICED_RMS = 300                              # a 20 ms frame louder than this is speech (int16)
LOCK_HOLDS_S = (5, 15, 60)
TMPFS_MB = 24


# ---------------------------------------------------------------- the service, started and restarted

def launch(config: Path, log: Path, data: Path, port: int) -> Service:
    """`appliance run --config CONFIG`, appending to `log`; returns once it answers calls."""
    env = {k: v for k, v in os.environ.items() if k not in ("APPLIANCE_DB", "APPLIANCE_MONITOR_SOCKET",
                                                            "NOTIFY_SOCKET", "WATCHDOG_USEC")}
    env["APPLIANCE_CONFIG"] = str(config)
    ready_before = log.read_text(errors="replace").count("answering calls on port") if log.exists() else 0
    with open(log, "ab") as out:
        process = subprocess.Popen([str(APPLIANCE), "run", "--config", str(config)], stdout=out,
                                   stderr=subprocess.STDOUT, env=env)
    service = Service(process, port, data / "appliance.db", log, data, data / "recordings")
    until = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < until:
        if service.log_text().count("answering calls on port") > ready_before:
            return service
        if process.poll() is not None:
            raise RuntimeError(f"`appliance run` exited with {process.returncode}:\n{service.log_text()[-3000:]}")
        time.sleep(0.2)
    process.kill()
    raise RuntimeError(f"`appliance run` did not start in {START_TIMEOUT_S} s")


def fresh_service(folder: Path, *, data_on_tmpfs: bool = False) -> tuple[Service, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    port = free_sip_port()
    config = write_config(folder, port=port)
    data = folder / "data"
    if data_on_tmpfs:
        cache = (data / "voice-cache").resolve() if (data / "voice-cache").exists() else None
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={TMPFS_MB}m,mode=0750", "tmpfs", str(data)], check=True)
        if cache is not None:
            (data / "voice-cache").symlink_to(cache)
    return launch(config, folder / "service.log", data, port), config


def query(db: Path, sql: str, *args) -> list[tuple]:
    conn = sqlite3.connect(db, timeout=10)
    try:
        return conn.execute(sql, args).fetchall()
    finally:
        conn.close()


# ---------------------------------------------------------------- a booking call from the SIP caller

@dataclass
class CallTrace:
    said: int = 0                    # caller lines sent
    answered: bool = False
    said_at: list[float] = field(default_factory=list)
    error: str = ""


def caller_lines() -> dict[str, bytes]:
    from appliance.models import resolve
    from appliance.settings import load_settings
    from appliance.voice.tts import PiperSynthesizer

    synthesizer = PiperSynthesizer(resolve("tts", load_settings()).path)
    return {line: synthesizer.speak(line, 8000) for line in BOOKING}


async def booking_call(service: Service, speech: dict[str, bytes], *, before_line=None, after_line=None,
                       stopped=None, record: Path | None = None, limit_s: float = 240.0) -> CallTrace:
    """Sarah Johnson books a massage. `before_line(i)` runs before line i is said, `after_line(i)` once it has
    been sent; `stopped()` true ends the call at once (the service was killed)."""
    from appliance.simulate.sip_caller_client import CallerAgent

    trace = CallTrace()
    deadline = time.monotonic() + limit_s

    async def wait(awaitable, seconds: float) -> bool:
        try:
            await asyncio.wait_for(awaitable, min(seconds, max(0.1, deadline - time.monotonic())))
            return True
        except asyncio.TimeoutError:
            return False

    async with CallerAgent(record=record, quiet_ms=QUIET_MS) as agent:
        try:
            await agent.call(f"sip:receptionist@127.0.0.1:{service.port}", caller_id=CALLER)
        except Exception as exc:
            trace.error = f"not answered: {exc}"
            return trace
        trace.answered = True
        await wait(agent.until_speaking(), 20)
        await wait(agent.until_quiet(), 60)
        for i, line in enumerate(BOOKING):
            if agent.ended.is_set() or (stopped and stopped()):
                break
            if before_line is not None:
                await before_line(i)
            await agent.say(speech[line], 8000)
            trace.said += 1
            trace.said_at.append(time.monotonic())
            if after_line is not None:
                after_line(i)
            if not await wait(agent.until_speaking(), 30) or (stopped and stopped()):
                break
            await wait(agent.until_quiet(), 120)
        if not agent.ended.is_set():
            await wait(agent.wait_ended(), 20 if not (stopped and stopped()) else 0.5)
            with contextlib.suppress(Exception):
                await agent.hangup(timeout=5)
    return trace


# ---------------------------------------------------------------- kill -9 and restart

@dataclass
class Audit:
    calls: int
    open_calls: int                  # without an end or an outcome (goal 0)
    bookings: int
    bookings_without_tool: int       # goal 0
    bookings_without_turn: int       # the caller's turn that asked for it (goal 0)
    interrupted: int
    interrupted_without_callback: int  # with a known number (goal 0)
    unheard: int                     # bookings the caller may not have heard (asked of staff)
    monitor_callbacks: int
    monitor_unheard: int
    monitor_cut_off: int


def audit(db: Path) -> Audit:
    from appliance.engine.clock import ClinicClock
    from appliance.monitor.attention_items import failed_calls, open_callbacks, unheard_bookings

    one = lambda sql: query(db, sql)[0][0]  # noqa: E731
    conn = sqlite3.connect(db, timeout=10)
    try:
        today = ClinicClock(one("SELECT timezone FROM clinic")).now().date()     # the monitor's day is the clinic's
        shown = (len(open_callbacks(conn)), len(unheard_bookings(conn, today)), len(failed_calls(conn, today)))
    finally:
        conn.close()
    return Audit(
        calls=one("SELECT count(*) FROM calls"),
        open_calls=one("SELECT count(*) FROM calls WHERE ended_at IS NULL OR outcome IS NULL"),
        bookings=one("SELECT count(*) FROM appointments WHERE created_by_call IS NOT NULL"),
        bookings_without_tool=one(
            "SELECT count(*) FROM appointments a WHERE a.created_by_call IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "
            "tool_calls t WHERE t.call_id = a.created_by_call AND t.result_kind = 'ok' "
            "AND json_extract(t.result, '$.appointment.id') = a.id)"),
        bookings_without_turn=one(
            "SELECT count(*) FROM appointments a JOIN tool_calls t ON t.call_id = a.created_by_call "
            "AND json_extract(t.result, '$.appointment.id') = a.id AND t.result_kind = 'ok' WHERE NOT EXISTS "
            "(SELECT 1 FROM turns u WHERE u.call_id = t.call_id AND u.seq = t.turn_seq AND u.caller_text != '')"),
        interrupted=one("SELECT count(*) FROM calls WHERE outcome = 'interrupted'"),
        interrupted_without_callback=one(
            "SELECT count(*) FROM calls c WHERE c.outcome = 'interrupted' AND coalesce(c.caller_id, '') != '' "
            "AND NOT EXISTS (SELECT 1 FROM callback_requests r WHERE r.call_id = c.id)"),
        unheard=one("SELECT count(*) FROM appointments WHERE confirmed_aloud = 0 AND status = 'booked'"),
        monitor_callbacks=shown[0], monitor_unheard=shown[1], monitor_cut_off=shown[2])


@dataclass
class KillResult:
    moments: list[tuple[int, float]]
    audit: Audit
    restarts_s: list[float]
    recovery_lines: list[str]


def kill_runs(folder: Path, speech: dict[str, bytes], *, kills: int, seed: int) -> KillResult:
    rng = random.Random(seed)
    moments = [(rng.randrange(len(BOOKING)), round(rng.uniform(0.0, 4.0), 2)) for _ in range(kills)]
    service, config = fresh_service(folder)
    restarts: list[float] = []
    try:
        for line, delay in moments:
            killed = threading.Event()

            async def run(line=line, delay=delay, killed=killed) -> None:
                loop = asyncio.get_running_loop()

                def kill() -> None:
                    if service.process.poll() is None:
                        service.process.send_signal(signal.SIGKILL)
                    killed.set()

                def after_line(i: int) -> None:
                    if i == line:
                        loop.call_later(delay, kill)

                await booking_call(service, speech, after_line=after_line, stopped=killed.is_set)
                if not killed.is_set():          # the call ended first (misheard, cut short): kill between calls
                    kill()

            asyncio.run(run())
            service.process.wait()
            started = time.monotonic()
            service = launch(config, service.log, service.data, service.port)
            restarts.append(time.monotonic() - started)
        result = audit(service.db)
    finally:
        stop_service(service)
    lines = [line for line in service.log_text().splitlines() if "recovery:" in line]
    return KillResult(moments, result, restarts, lines)


# ---------------------------------------------------------------- a held lock and a full disk

@dataclass
class FaultResult:
    name: str
    longest_silence_s: float | None
    holding_lines: int
    outcome: str | None
    booked: bool
    callback: bool
    turns: int
    journal_left: int | None
    cleared_after_s: float


def _frames(record: Path) -> tuple[np.ndarray, np.ndarray, int]:
    with wave.open(str(record), "rb") as wav:
        rate = wav.getframerate()
        data = np.frombuffer(wav.readframes(wav.getnframes()), dtype=np.int16).reshape(-1, 2).astype(np.float32)
    step = rate // 50
    n = len(data) // step
    frames = data[: n * step].reshape(n, step, 2)
    rms = np.sqrt((frames ** 2).mean(axis=1))
    return rms[:, 0] > VOICED_RMS, rms[:, 1] > VOICED_RMS, 50


def _segments(voiced: np.ndarray, min_gap: int = 15) -> list[tuple[int, int]]:
    """Runs of voiced frames, joining runs less than `min_gap` frames apart (pauses inside one utterance)."""
    runs, start, last = [], None, None
    for i, v in enumerate(voiced):
        if not v:
            continue
        if start is None:
            start = i
        elif i - last > min_gap:
            runs.append((start, last + 1))
            start = i
        last = i
    if start is not None:
        runs.append((start, last + 1))
    return runs


def longest_wait(record: Path, line: int) -> tuple[float | None, int]:
    """The longest quiet the caller heard between saying caller line `line` (counted in the recording) and the
    receptionist's last speech before the caller spoke again or the call ended; and how many utterances it
    heard meanwhile (fillers and holding lines, then the reply)."""
    caller, agent, per_s = _frames(record)
    said = _segments(caller, min_gap=25)
    if len(said) <= line:
        return None, 0
    start = said[line][1]
    end = said[line + 1][0] if len(said) > line + 1 else len(agent)
    heard = [seg for seg in _segments(agent, min_gap=5) if seg[1] > start and seg[0] < end]
    if not heard:
        return (end - start) / per_s, 0
    gaps = [max(0, heard[0][0] - start)] + [b[0] - a[1] for a, b in zip(heard, heard[1:])]
    # utterances: stretches of speech more than 0.8 s apart (a reply's phrases are closer than that)
    utterances = [seg for seg in _segments(agent, min_gap=40) if seg[1] > start and seg[0] < end]
    return max(gaps) / per_s, len(utterances)


def _result(name: str, service: Service, before: int, record: Path, cleared_after_s: float) -> FaultResult:
    from appliance.store.fallback_journal import unreplayed

    calls = service.calls()
    call = calls[before] if len(calls) > before else None
    silence, heard = longest_wait(record, YES)
    if call is None:
        return FaultResult(name, silence, max(0, heard - 1), None, False, False, 0,
                           unreplayed(service.data, service.db), cleared_after_s)
    booked = bool(query(service.db, "SELECT 1 FROM appointments WHERE created_by_call = ?", call["id"]))
    callback = bool(query(service.db, "SELECT 1 FROM callback_requests WHERE call_id = ?", call["id"]))
    return FaultResult(name, silence, max(0, heard - 1), call["outcome"], booked, callback,
                       len(service.turns(call["id"])), unreplayed(service.data, service.db), cleared_after_s)


def _wait_replayed(service: Service, call_count: int, limit_s: float = 40.0) -> float:
    """Seconds until the journal is empty and the call is in the database with its end (or `limit_s`)."""
    from appliance.store.fallback_journal import unreplayed

    started = time.monotonic()
    while time.monotonic() - started < limit_s:
        calls = service.calls()
        if unreplayed(service.data, service.db) == 0 and len(calls) >= call_count and calls[-1]["ended_at"]:
            break
        time.sleep(0.5)
    return time.monotonic() - started


def lock_runs(folder: Path, speech: dict[str, bytes]) -> list[FaultResult]:
    service, _ = fresh_service(folder)
    results = []
    try:
        for hold_s in LOCK_HOLDS_S:
            record = folder / f"lock-{hold_s}s.wav"
            before = len(service.calls())
            released = threading.Event()

            async def before_line(i: int, hold_s=hold_s, released=released) -> None:
                if i != YES:
                    return
                holder = sqlite3.connect(service.db, isolation_level=None, check_same_thread=False, timeout=10)
                holder.execute("BEGIN IMMEDIATE")          # a backup or a monitor holding the write lock

                def release() -> None:
                    holder.execute("ROLLBACK")
                    holder.close()
                    released.set()

                threading.Timer(hold_s, release).start()

            asyncio.run(booking_call(service, speech, before_line=before_line, record=record))
            released.wait(hold_s + 5)
            cleared = _wait_replayed(service, before + 1)
            results.append(_result(f"database write lock held {hold_s} s from the caller's yes", service, before,
                                   record, cleared))
    finally:
        stop_service(service)
    return results


def full_disk_run(folder: Path, speech: dict[str, bytes]) -> FaultResult:
    service, _ = fresh_service(folder, data_on_tmpfs=True)
    filler = service.data / "filler"
    record = folder / "full-disk.wav"
    try:
        before = len(service.calls())

        async def before_line(i: int) -> None:
            if i != YES:
                return
            query(service.db, "PRAGMA wal_checkpoint(TRUNCATE)")      # as after the nightly prune
            fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)         # then the disk fills up
            try:
                for size in (1 << 20, 4096, 512):
                    with contextlib.suppress(OSError):
                        while True:
                            os.write(fd, b"\0" * size)
            finally:
                os.close(fd)

        asyncio.run(booking_call(service, speech, before_line=before_line, record=record))
        time.sleep(2.0)
        filler.unlink()                                                 # space is freed
        cleared = _wait_replayed(service, before + 1)
        return _result(f"full disk (a {TMPFS_MB} MiB tmpfs) from the caller's yes", service, before, record, cleared)
    finally:
        stop_service(service)
        with contextlib.suppress(FileNotFoundError):
            filler.unlink()
        import gc

        gc.collect()                    # the bench's own sqlite3 connections (tests' helpers leave them to GC)
        if subprocess.run(["umount", str(service.data)], capture_output=True).returncode:
            subprocess.run(["umount", "-l", str(service.data)], check=False)


# ---------------------------------------------------------------- synchronous FULL: what it costs

def commit_cost(folder: Path, commits: int = 200) -> dict[str, float]:
    """Median milliseconds for one commit of a booking-sized transaction, NORMAL vs FULL, on this disk."""
    from appliance.store.database import open_database

    costs = {}
    for mode in ("NORMAL", "FULL"):
        db = open_database(folder / f"cost-{mode}.db")
        conn = db.conn
        conn.execute("CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, a TEXT, b TEXT)")
        conn.execute(f"PRAGMA synchronous = {mode}")
        times = []
        for n in range(commits):
            started = time.perf_counter()
            conn.execute("BEGIN IMMEDIATE")
            for _ in range(6):                   # the booking, its tool call, the turn, a few transitions
                conn.execute("INSERT INTO t (a, b) VALUES (?, ?)", ["x" * 200, "y" * 400])
            conn.execute("COMMIT")
            times.append((time.perf_counter() - started) * 1000)
        costs[mode] = statistics.median(times)
        db.close()
    return costs


# ---------------------------------------------------------------- logs hold no patient data

class Captured(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.lines.append(self.format(record))
        except Exception:
            self.lines.append(str(record.msg))


def leaks(lines: list[str], words: list[str]) -> int:
    patterns = [re.compile(r"(?<![A-Za-z0-9])" + re.escape(word) + r"(?![A-Za-z0-9])", re.I) for word in words]
    return sum(1 for line in lines if any(p.search(line) for p in patterns))


@dataclass
class LogScan:
    spoken_lines: int
    spoken_leaks: int
    spoken_passed: bool
    sip_lines: int
    sip_leaks: int
    sip_passed: bool
    service_lines: int
    service_leaks: int


def log_scan(service_logs: list[Path]) -> LogScan:
    """The new patient of new-patient-withheld-spoken-phone.yaml (name, date of birth, phone number), spoken
    through the in-memory line and over SIP, with every log record at DEBUG captured; and the logs of the
    services above (Sarah Johnson's name, date of birth and number)."""
    from appliance import paths
    from appliance.engine.flow import load_flow
    from appliance.settings import load_settings
    from appliance.simulate.sip_call import SipLine, play_over_sip
    from appliance.simulate.spoken_call import play_spoken
    from appliance.voice import VoiceRuntime

    flow = load_flow(paths.REPO_ROOT / "config" / "flows" / "clinic.yaml")
    runtime = VoiceRuntime.shared(load_settings())
    root = logging.getLogger()
    results = []
    for sip in (False, True):
        handler = Captured()
        handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
        level = root.level
        root.addHandler(handler)
        root.setLevel(logging.DEBUG)
        try:
            if sip:
                with SipLine(flow, runtime) as line:
                    result = asyncio.run(play_over_sip(NEW_PATIENT, flow, runtime, line=line))
            else:
                result = asyncio.run(play_spoken(NEW_PATIENT, flow, runtime, fast=True))
        finally:
            root.removeHandler(handler)
            root.setLevel(level)
        results.append((len(handler.lines), leaks(handler.lines, LIAM), result.verdict.passed))
    service_lines = [line for log in service_logs if log.exists() for line in log.read_text(errors="replace").splitlines()]
    return LogScan(*results[0], *results[1], len(service_lines), leaks(service_lines, SARAH))


# ---------------------------------------------------------------- the section

def storage_reliability(args) -> str:
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="bench-storage-") as scratch:
        work = Path(scratch)
        speech = caller_lines()
        cost = commit_cost(work)
        kills = kill_runs(work / "kills", speech, kills=args.kills, seed=args.seed)
        locks = lock_runs(work / "locks", speech)
        disk = full_disk_run(work / "disk", speech)
        scan = log_scan([work / "kills" / "service.log", work / "locks" / "service.log",
                         work / "disk" / "service.log"])
    return _storage_section(args, cost, kills, locks + [disk], scan, time.monotonic() - started)


def _yes_no(value: bool) -> str:
    return "yes" if value else "**no**"


def _storage_section(args, cost: dict[str, float], kills: KillResult, faults: list[FaultResult], scan: LogScan,
                     seconds: float) -> str:
    a = kills.audit
    moments = ", ".join(f"{line + 1}+{delay:.1f}s" for line, delay in kills.moments)
    lines = [
        "## Reliability: recovery and storage (`bench/faults.py --part storage`)",
        "",
        f"`python bench/faults.py --part storage --seed {args.seed} --kills {args.kills}` "
        f"({seconds / 60:.0f} min). Booking calls from the project's SIP caller (Piper's voice at 8 kHz; "
        f"Sarah Johnson books a massage in {len(BOOKING)} lines) to the real `appliance run` on loopback.",
        "",
        f"**kill -9 at {len(kills.moments)} seeded moments**, each followed by a restart (after caller line + delay: "
        f"{moments}); the database after the last restart:",
        "",
        "| measure | count | goal |",
        "|---|---|---|",
        f"| calls recorded | {a.calls} | |",
        f"| calls without an end or an outcome | {a.open_calls} | 0 |",
        f"| calls closed as `interrupted` at restart | {a.interrupted} | |",
        f"| interrupted callers (number known) without a callback request | {a.interrupted_without_callback} | 0 |",
        f"| bookings made on calls | {a.bookings} | |",
        f"| bookings without their tool-call record | {a.bookings_without_tool} | 0 |",
        f"| bookings without the caller's turn that asked for them | {a.bookings_without_turn} | 0 |",
        f"| bookings the caller may not have heard confirmed (`confirmed_aloud = 0`) | {a.unheard} | |",
        f"| the monitor's Needs attention: open callbacks / bookings to confirm / calls cut off or failed | "
        f"{a.monitor_callbacks} / {a.monitor_unheard} / {a.monitor_cut_off} | |",
        "",
        f"Restart to answering again: median {statistics.median(kills.restarts_s):.1f} s "
        f"(max {max(kills.restarts_s):.1f} s), models loaded again each time.",
        "",
        "**A held lock and a full disk** during the booking (from the caller's \"yes\" to the read-back):",
        "",
        "| fault | longest silence the caller heard | holding lines | outcome | booked | callback in the "
        "database | turns recorded | journal entries left | cleared in |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for f in faults:
        silence = f"{f.longest_silence_s:.1f} s" if f.longest_silence_s is not None else "-"
        lines.append(f"| {f.name} | {silence} | {f.holding_lines} | `{f.outcome}` | {_yes_no(f.booked)} | "
                     f"{'yes' if f.callback else ('not needed' if f.booked else '**no**')} | {f.turns} | "
                     f"{f.journal_left} | {f.cleared_after_s:.0f} s |")
    lines += [
        "",
        "The silence is measured in the call's own recording (caller left, receptionist right): the longest "
        "stretch with no receptionist speech from the end of the caller's \"yes\" to the reply (goal: at most "
        "2 s; it includes the end-of-turn wait and speech-to-text before the first filler). \"cleared in\": from "
        "the end of the call to the journal replayed and the call's end in the database.",
        "",
        f"**Logs** (every record at DEBUG): a spoken call ({scan.spoken_lines} lines, "
        f"{'passed' if scan.spoken_passed else 'did not pass'}) and a SIP call ({scan.sip_lines} lines, "
        f"{'passed' if scan.sip_passed else 'did not pass'}) of a new patient who gives a name, date of birth and "
        f"phone number: **{scan.spoken_leaks}** and **{scan.sip_leaks}** lines hold any of them; the services' "
        f"logs above ({scan.service_lines} lines): **{scan.service_leaks}** hold the booking caller's name, date "
        "of birth or number (goal 0).",
        "",
        f"**synchronous**: one booking-sized commit (6 rows) takes a median {cost['NORMAL']:.2f} ms with NORMAL "
        f"and {cost['FULL']:.2f} ms with FULL on this disk; clinic writes use FULL, record-only commits NORMAL "
        "(docs/ARCHITECTURE.md).",
    ]
    return "\n".join(lines)

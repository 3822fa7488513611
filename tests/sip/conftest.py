"""The SIP tests: the real `appliance run` in a subprocess (models loaded once per module), real sipp on loopback.

sipp comes from Debian's sip-tester (`.ci/run` installs it); the tests skip without it.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

from appliance import paths
from appliance.settings import load_settings

HERE = Path(__file__).resolve().parent
SCENARIOS = HERE / "scenarios"
APPLIANCE = Path(sys.executable).parent / "appliance"
START_TIMEOUT_S = 180


def need_the_sip_stack() -> None:
    """Skip, saying what is missing, where sipp, pjsua2 or pipecat is not installed."""
    if shutil.which("sipp") is None:
        pytest.skip("sipp is not installed (apt-get install sip-tester)")
    pytest.importorskip("pjsua2")
    pytest.importorskip("pipecat")


def free_port(kind: int = socket.SOCK_DGRAM) -> int:
    with socket.socket(socket.AF_INET, kind) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def free_sip_port() -> int:
    """A port free for both UDP and TCP."""
    for _ in range(50):
        port = free_port()
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as tcp:
            try:
                tcp.bind(("127.0.0.1", port))
            except OSError:
                continue
        return port
    raise RuntimeError("no free port")


@dataclass
class Service:
    process: subprocess.Popen
    port: int
    db: Path
    log: Path
    data: Path
    recordings: Path
    metrics_port: int | None = None

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")

    def scrape(self) -> dict[tuple[str, tuple], float]:
        """GET /metrics, as Prometheus would: (name, sorted labels) -> value."""
        direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        with direct.open(f"http://127.0.0.1:{self.metrics_port}/metrics", timeout=5) as response:
            return metric_samples(response.read().decode())

    def calls(self) -> list[dict]:
        with sqlite3.connect(f"file:{self.db}?mode=ro", uri=True) as conn:
            conn.row_factory = sqlite3.Row
            return [dict(row) for row in conn.execute("SELECT * FROM calls ORDER BY rowid")]

    def turns(self, call_id: str) -> list[dict]:
        with sqlite3.connect(f"file:{self.db}?mode=ro", uri=True) as conn:
            conn.row_factory = sqlite3.Row
            return [dict(row) for row in conn.execute("SELECT * FROM turns WHERE call_id = ? ORDER BY seq", [call_id])]

    def call_closed(self, before: int) -> bool:
        """Whether the first call recorded after `before` calls has its record closed."""
        calls = self.calls()
        return len(calls) > before and bool(calls[before]["ended_at"])

    def new_call(self, before: int, *, ended: bool = True, timeout: float = 15.0) -> dict:
        """The first call recorded after `before` calls, waiting until its record is closed."""
        until = time.monotonic() + timeout
        while time.monotonic() < until:
            calls = self.calls()
            if len(calls) > before and (not ended or calls[before]["ended_at"]):
                return calls[before]
            time.sleep(0.2)
        raise AssertionError(f"no closed call record after {before}; log:\n{self.log_text()[-3000:]}")

    def alive(self) -> bool:
        return self.process.poll() is None


def sipp(service: Service, scenario: str, tmp_path: Path, *, local_ip: str = "127.0.0.1", pause_ms: int = 1000,
         timeout_s: int = 60, background: bool = False, extra: tuple[str, ...] = ()):
    """Run one sipp call against the service; returns (returncode, output) (or the Popen when background)."""
    work = tmp_path / f"sipp-{scenario}-{time.monotonic_ns()}"
    work.mkdir()
    command = ["sipp", f"127.0.0.1:{service.port}", "-sf", str(SCENARIOS / f"{scenario}.xml"),
               "-i", local_ip, "-p", str(free_port()), "-mp", str(free_port() & ~1), "-m", "1",
               "-d", str(pause_ms), "-timeout", f"{timeout_s}s", "-timeout_error", "-trace_err", "-trace_msg",
               "-nostdin", "-s", "service", *extra]
    if background:
        return subprocess.Popen(command, cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    done = subprocess.run(command, cwd=work, capture_output=True, text=True, timeout=timeout_s + 20)
    return done.returncode, sipp_report(work, done.stdout + done.stderr)


def sipp_report(work: Path, output: str = "") -> str:
    parts = [output[-1500:]]
    for log in sorted(work.glob("*_errors.log")) + sorted(work.glob("*_messages.log")):
        parts.append(f"--- {log.name}\n{log.read_text(errors='replace')[-12000:]}")
    return "\n".join(parts)


def metric_samples(text: str) -> dict[tuple[str, tuple], float]:
    """A Prometheus exposition text's samples: (name, sorted labels) -> value."""
    from prometheus_client.parser import text_string_to_metric_families

    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def write_config(tmp: Path, *, port: int, metrics_port: int | None = None, extra_toml: str = "", **sip) -> Path:
    base = load_settings()
    data = tmp / "data"
    data.mkdir()
    cache = paths.data_dir() / "voice-cache"     # the checkout's greeting cache: a warm start in seconds
    if cache.is_dir():
        (data / "voice-cache").symlink_to(cache)
    rtp = free_port() & ~1
    peers = sip.pop("allowed_peers", ["127.0.0.1/32"])
    transports = sip.pop("transports", ["udp", "tcp"])
    lines = [
        "[device]", 'device = "cpu"',
        "[models]", f'stt = "{base.models.stt}"', f'tts = "{base.models.tts}"', f'data_dir = "{base.models_dir}"',
        "[llm]", "classify = false", "rephrase = false",
        "[paths]", f'data_dir = "{data}"', f'clinic = "{paths.REPO_ROOT / "config" / "clinic.demo.yaml"}"',
        f'flow = "{paths.REPO_ROOT / "config" / "flows" / "clinic.yaml"}"',
        "[sip]", 'bind_address = "127.0.0.1"', f"port = {port}",
        "transports = [" + ", ".join(f'"{t}"' for t in transports) + "]",
        f"rtp_port = {max(1024, min(rtp, 60000))}", "rtp_port_range = 40",
        "allowed_peers = [" + ", ".join(f'"{p}"' for p in peers) + "]",
    ]
    for key, value in sip.items():
        lines.append(f"{key} = {str(value).lower() if isinstance(value, bool) else repr(value)}")
    if metrics_port is not None:
        lines += ["[metrics]", f'listen = "127.0.0.1:{metrics_port}"']
    if extra_toml:
        lines.append(extra_toml.rstrip())
    config = tmp / "appliance.toml"
    config.write_text("\n".join(lines) + "\n")
    return config


def start_service(tmp: Path, *, metrics: bool = False, extra_toml: str = "", **sip) -> Service:
    """`appliance run` with these [sip] keys (`metrics`: Prometheus metrics served on a free port too;
    `extra_toml`: further sections, e.g. [data] for the shared store)."""
    port = free_sip_port()
    metrics_port = free_port(socket.SOCK_STREAM) if metrics else None
    config = write_config(tmp, port=port, metrics_port=metrics_port, extra_toml=extra_toml, **sip)
    log = tmp / "service.log"
    env = {k: v for k, v in os.environ.items() if k not in ("APPLIANCE_DB", "APPLIANCE_MONITOR_SOCKET",
                                                            "NOTIFY_SOCKET", "WATCHDOG_USEC")}
    env["APPLIANCE_CONFIG"] = str(config)
    with open(log, "wb") as out:
        process = subprocess.Popen([str(APPLIANCE), "run", "--config", str(config)], stdout=out,
                                   stderr=subprocess.STDOUT, env=env)
    service = Service(process, port, tmp / "data" / "appliance.db", log, tmp / "data", tmp / "data" / "recordings",
                      metrics_port)
    until = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < until:
        if "answering calls on port" in service.log_text():
            return service
        if process.poll() is not None:
            raise AssertionError(f"`appliance run` exited with {process.returncode}:\n{service.log_text()[-3000:]}")
        time.sleep(0.2)
    process.kill()
    raise AssertionError(f"`appliance run` did not start in {START_TIMEOUT_S} s:\n{service.log_text()[-3000:]}")


def stop_service(service: Service, timeout: float = 30.0) -> int:
    if service.process.poll() is None:
        service.process.send_signal(signal.SIGTERM)
        try:
            service.process.wait(timeout)
        except subprocess.TimeoutExpired:
            service.process.kill()
            service.process.wait()
    return service.process.returncode


def heard_turns(service: Service, call_id: str) -> list[str]:
    """What the service transcribed of the caller in one call (the greeting's turn has no caller words)."""
    return [t["caller_text"] for t in service.turns(call_id) if t["seq"] > 0 and t["caller_text"]]


def rows(service: Service, sql: str, *args) -> list[tuple]:
    with sqlite3.connect(f"file:{service.db}?mode=ro", uri=True) as conn:
        try:
            return conn.execute(sql, args).fetchall()
        except sqlite3.OperationalError:       # staff_actions is made with the first action
            return []


async def send_staff(service: Service, action: str, call_id: str, *, user: str = "someone-else"):
    """Send one staff command over the service's monitor socket with the monitor's own client; its result."""
    from appliance.events.messages import StaffCommand
    from appliance.events.monitor_client import MonitorClient

    client = await MonitorClient.connect(service.data / "monitor.sock")
    reading = asyncio.create_task(client.run(lambda kind, payload: None))
    try:
        return await client.send(StaffCommand(action=action, user=user, call_id=call_id), timeout=10)
    finally:
        await client.close()
        reading.cancel()


def staff(service: Service, action: str, call_id: str, *, user: str = "someone-else"):
    return asyncio.run(send_staff(service, action, call_id, user=user))


@pytest.fixture(scope="session")
def caller_speech():
    """The caller's lines spoken by the runtime's Piper voice, as 8 kHz 16-bit phone audio."""
    pytest.importorskip("piper")
    from appliance.models import resolve
    from appliance.voice.tts import PiperSynthesizer

    synthesizer = PiperSynthesizer(resolve("tts", load_settings()).path)
    return lambda text: synthesizer.speak(text, 8000)


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    need_the_sip_stack()
    running = start_service(tmp_path_factory.mktemp("sip-service"), record_calls=True, metrics=True)
    yield running
    stop_service(running)

"""Kamailio (Debian's package) on loopback with the project's dispatcher config, for the tests and the bench.

The shipped config/kamailio/kamailio.cfg is used as it is: its defines (listen address, who may call, dispatcher
list, ping interval, control socket) are set with `-A NAME=value` and the list of boxes is written to a temporary
dispatcher.list, so what is tested is the file an IT admin installs.

    proxy = KamailioProxy(tmp_path, boxes=[5071, 5072])
    proxy.start()                      # waits until it answers its control socket
    proxy.wait_for(lambda state: all(flags.startswith("A") for flags in state.values()))
    proxy.stop()
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "config" / "kamailio" / "kamailio.cfg"
START_TIMEOUT_S = 15.0


def program(name: str) -> str | None:
    """Kamailio's programs live in /usr/sbin, which an ordinary user's PATH may lack."""
    return shutil.which(name) or shutil.which(name, path="/usr/sbin:/sbin")


def free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class KamailioProxy:
    def __init__(self, folder: Path, *, boxes: list[int], port: int | None = None, ping_interval_s: int = 1):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.port = port or free_udp_port()
        self.boxes = [f"sip:127.0.0.1:{box}" for box in boxes]
        self.dispatcher_list = self.folder / "dispatcher.list"
        self.dispatcher_list.write_text("".join(f"1 {uri}\n" for uri in self.boxes))
        self.ctl = self.folder / "kamailio_ctl"
        self.log = self.folder / "kamailio.log"
        self.ping_interval_s = ping_interval_s
        self.process: subprocess.Popen | None = None

    def arguments(self) -> list[str]:
        return ["-f", str(CONFIG), "-A", f"LISTEN=udp:127.0.0.1:{self.port}",
                "-A", f'DISPATCHER_LIST="{self.dispatcher_list}"', "-A", f'CTL_SOCKET="unix:{self.ctl}"',
                "-A", f"PING_INTERVAL={self.ping_interval_s}", "-A", 'CALLERS="127.0.0.1/32"']

    def check(self) -> subprocess.CompletedProcess:
        """`kamailio -c`: the config parses and its modules load."""
        return subprocess.run([program("kamailio"), "-c", *self.arguments()], capture_output=True, text=True,
                              timeout=30)

    def start(self) -> None:
        # -DD: stays in the foreground (its children with it), -E: logs to stderr, -Y/-P: runtime files here
        command = [program("kamailio"), *self.arguments(), "-DD", "-E", "-Y", str(self.folder),
                   "-P", str(self.folder / "kamailio.pid"), "-m", "32", "-M", "4"]
        with open(self.log, "wb") as out:
            self.process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        until = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < until:
            if self.process.poll() is not None:
                raise RuntimeError(f"kamailio exited with {self.process.returncode}:\n{self.log_text()[-3000:]}")
            if self.ctl.exists() and self.destinations():
                return
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"kamailio did not start in {START_TIMEOUT_S:.0f} s:\n{self.log_text()[-3000:]}")

    def stop(self) -> None:
        process = self.process
        if process is None or process.poll() is not None:
            return
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()

    def destinations(self) -> dict[str, str]:
        """Each box's dispatcher flags, from `kamcmd dispatcher.list`: "AP" up, "IP" down (and probed)."""
        done = subprocess.run([program("kamcmd"), "-s", f"unix:{self.ctl}", "dispatcher.list"],
                              capture_output=True, text=True, timeout=10)
        state, uri = {}, None
        for line in done.stdout.splitlines():
            key, _, value = line.strip().partition(": ")
            if key == "URI":
                uri = value
            elif key == "FLAGS" and uri:
                state[uri] = value
        return state

    def wait_for(self, condition, timeout: float = 10.0) -> dict[str, str]:
        """The boxes' flags once `condition(flags by URI)` holds; AssertionError with them when it never does."""
        until = time.monotonic() + timeout
        while True:
            state = self.destinations()
            if condition(state):
                return state
            if time.monotonic() > until:
                raise AssertionError(f"kamailio's boxes stayed {state}; log:\n{self.log_text()[-2000:]}")
            time.sleep(0.1)

    def log_text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def __enter__(self) -> KamailioProxy:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

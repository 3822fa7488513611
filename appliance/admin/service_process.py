"""Is the phone service (`appliance run`) running, and which process holds a port?

Read from /proc, so it works without systemd and without `ss`. Another user's
open files are only visible to root; without them a port's owner is known by
its user id alone (from /proc/net), which is still enough to tell the
appliance user's service from a stranger.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

PROC = Path("/proc")
SERVICE_UNIT = "appliance.service"
_LISTENING = {"tcp": {"0A"}, "udp": {"07"}}   # TCP_LISTEN; UDP sockets are "unconnected" (7)


@dataclass(frozen=True)
class PortOwner:
    uid: int
    pid: int | None          # None when the process could not be seen (another user's, not root)
    argv: tuple[str, ...]    # empty when pid is None

    @property
    def user(self) -> str:
        try:
            return pwd.getpwuid(self.uid).pw_name
        except KeyError:
            return str(self.uid)

    @property
    def is_service(self) -> bool:
        return bool(self.argv) and is_appliance_run(self.argv)

    def describe(self) -> str:
        if self.pid is None:
            return f"a process of user {self.user} (run as root to see which)"
        program = " ".join(self.argv)[:80] or "?"
        return f"pid {self.pid} ({program}) of user {self.user}"


def is_appliance_run(argv: list[str] | tuple[str, ...]) -> bool:
    """`.../appliance run ...` or `python .../appliance run ...`: the phone service."""
    for i, arg in enumerate(argv):
        if os.path.basename(arg) == "appliance":
            rest = [a for a in argv[i + 1:] if not a.startswith("-")]
            return bool(rest) and rest[0] == "run"
    return False


def _argv(pid: int, proc: Path = PROC) -> tuple[str, ...]:
    try:
        raw = (proc / str(pid) / "cmdline").read_bytes()
    except OSError:
        return ()
    return tuple(part.decode(errors="replace") for part in raw.split(b"\0") if part)


def _pids(proc: Path = PROC) -> list[int]:
    try:
        return [int(entry.name) for entry in proc.iterdir() if entry.name.isdigit()]
    except OSError:
        return []


def service_pids(proc: Path = PROC) -> list[int]:
    """Processes running `appliance run` (any user's: /proc/PID/cmdline is readable by all)."""
    me = os.getpid()
    return sorted(pid for pid in _pids(proc) if pid != me and is_appliance_run(_argv(pid, proc)))


def systemd_state(unit: str = SERVICE_UNIT) -> str | None:
    """`systemctl is-active UNIT` ("active", "inactive", "failed"...), or None without a running systemd."""
    if not Path("/run/systemd/system").is_dir() or shutil.which("systemctl") is None:
        return None
    try:
        done = subprocess.run(["systemctl", "is-active", unit], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() or None


def service_running() -> str | None:
    """A sentence saying how the service is known to be running, or None when it is not."""
    if systemd_state() in ("active", "activating", "reloading", "deactivating"):
        return f"systemd reports {SERVICE_UNIT} active"
    pids = service_pids()
    if pids:
        return "`appliance run` is running (pid " + ", ".join(map(str, pids)) + ")"
    return None


def _socket_inodes(port: int, transport: str, proc: Path = PROC) -> list[tuple[int, int]]:
    """(uid, inode) of every bound socket on local `port` for 'udp' or 'tcp' (IPv4 and IPv6)."""
    found = []
    for table in (transport, transport + "6"):
        try:
            lines = (proc / "net" / table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if len(fields) < 10:
                continue
            local, state = fields[1], fields[3]
            if int(local.rsplit(":", 1)[1], 16) != port or state not in _LISTENING[transport]:
                continue
            found.append((int(fields[7]), int(fields[9])))
    return found


def port_owners(port: int, transport: str, proc: Path = PROC) -> list[PortOwner]:
    """Who has `port` bound for `transport` ('udp' or 'tcp')."""
    sockets = _socket_inodes(port, transport, proc)
    if not sockets:
        return []
    wanted = {f"socket:[{inode}]": uid for uid, inode in sockets}
    owners: dict[int, PortOwner] = {}
    seen_uids: set[int] = set()
    for pid in _pids(proc):
        fd_dir = proc / str(pid) / "fd"
        try:
            fds = list(fd_dir.iterdir())
        except OSError:
            continue
        for fd in fds:
            try:
                target = os.readlink(fd)
            except OSError:
                continue
            if target in wanted:
                owners.setdefault(pid, PortOwner(wanted[target], pid, _argv(pid, proc)))
                seen_uids.add(wanted[target])
    unseen = [PortOwner(uid, None, ()) for uid in sorted({uid for uid, _ in sockets} - seen_uids)]
    return list(owners.values()) + unseen

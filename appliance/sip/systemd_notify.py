"""sd_notify without libsystemd: READY=1, WATCHDOG=1 and STOPPING=1 over $NOTIFY_SOCKET.

    notify("READY=1")                    # a no-op when NOTIFY_SOCKET is not set
    interval = watchdog_interval()       # half of $WATCHDOG_USEC in seconds, or None
"""

from __future__ import annotations

import os
import socket


def notify(message: str) -> bool:
    """Send one datagram to systemd; False when there is no socket or it failed."""
    address = os.environ.get("NOTIFY_SOCKET", "")
    if not address:
        return False
    if address.startswith("@"):           # an abstract socket name
        address = "\0" + address[1:]
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            sock.connect(address)
            sock.sendall(message.encode())
        return True
    except OSError:
        return False


def watchdog_interval() -> float | None:
    """How often to send WATCHDOG=1: half of $WATCHDOG_USEC (when it is meant for this process)."""
    usec = os.environ.get("WATCHDOG_USEC", "")
    pid = os.environ.get("WATCHDOG_PID", "")
    if not usec.isdigit() or int(usec) <= 0:
        return None
    if pid and pid != str(os.getpid()):
        return None
    return int(usec) / 1_000_000 / 2

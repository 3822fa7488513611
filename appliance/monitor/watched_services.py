"""The services one monitor watches, each with its own connection and its own board of live calls.

One box: its own monitor socket. A group ([monitor] services in appliance.toml):
each box by name, through a socket on this machine (its own, or another box's
forwarded over SSH: `ssh -L /tmp/north.sock:/run/appliance/monitor.sock`) or
over TLS by address with this desk's certificate (events/monitor_tls.py). The
live board shows the calls of all of them, each row naming its box, and a live
call's action goes to the box the call is on. One that cannot be reached is
shown as such and tried again; it never stops the others.
"""

from __future__ import annotations

import ssl
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Awaitable, Callable

from ..events.monitor_client import MonitorClient
from .live_board import LiveBoard

if TYPE_CHECKING:
    from ..settings import MonitorSettings

Connect = Callable[[], Awaitable[MonitorClient]]


@dataclass(eq=False)
class ServiceLink:
    name: str                  # the box, as rows name it ("" when the monitor watches only its own)
    where: str                 # the socket path or the address, as the screen names it
    connect: Connect
    board: LiveBoard = field(default_factory=LiveBoard)
    client: MonitorClient | None = None
    connected: bool = False
    problem: str | None = None  # why the last try to connect failed

    @property
    def label(self) -> str:
        return self.name or "service"


def socket_link(path: str | Path, name: str = "") -> ServiceLink:
    """A service through a Unix socket on this machine."""
    return ServiceLink(name, str(path), lambda: MonitorClient.connect(path))


def tls_link(name: str, host: str, port: int, context: ssl.SSLContext) -> ServiceLink:
    """A service on another machine, over TLS with this desk's certificate."""
    return ServiceLink(name, f"{host}:{port}", lambda: MonitorClient.connect_tls(host, port, context))


def links_from_settings(monitor: MonitorSettings) -> list[ServiceLink]:
    """[monitor] services as links (empty when none are listed). MonitorSocketError, naming the setting and the
    file, when this desk's certificate, key or CA cannot be used."""
    from ..events.monitor_tls import client_context
    from ..settings import split_address

    context = None
    links = []
    for service in monitor.services:
        if service.socket is not None:
            links.append(socket_link(service.socket, service.name))
            continue
        if context is None:
            context = client_context(monitor.desk_certificate, monitor.desk_key, monitor.service_ca)
        host, port = split_address(service.address)
        links.append(tls_link(service.name, host, port, context))
    return links


def describe_failure(exc: BaseException) -> str:
    """Why a service could not be reached, in a few words for the screen."""
    if isinstance(exc, TimeoutError):
        return "no answer"
    if isinstance(exc, ssl.SSLCertVerificationError):
        return f"its certificate was not accepted ({exc.verify_message})"
    if isinstance(exc, ssl.SSLError):
        return f"TLS refused ({exc.reason or exc})"
    if isinstance(exc, FileNotFoundError):
        return "no socket there"
    if isinstance(exc, ConnectionRefusedError):
        return "refused (not running)"
    if isinstance(exc, PermissionError):
        return "not allowed (this user may not open the socket)"
    return exc.strerror if isinstance(exc, OSError) and exc.strerror else type(exc).__name__

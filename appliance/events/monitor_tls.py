"""The monitor socket over TLS, for a monitor on another machine: both ends show a certificate.

The service listens on [monitor] listen with its certificate and asks every
monitor for one signed by [monitor] client_ca (`ssl.CERT_REQUIRED`): a monitor
without one is refused in the handshake, before any call data is sent. The
monitor checks the service's certificate against [monitor] service_ca and the
address it dialled. A certificate's common name is who the service records a
staff action as (the desk), beside the OS user the monitor names.
"""

from __future__ import annotations

import ssl
from pathlib import Path
from typing import Any

from .socket_file import MonitorSocketError

MINIMUM_VERSION = ssl.TLSVersion.TLSv1_2


def _load(context: ssl.SSLContext, certificate: Path, key: Path, ca: Path, *, keys: tuple[str, str, str]) -> None:
    """Certificate, key and CA into `context`; MonitorSocketError naming the setting and the file when one
    cannot be used."""
    try:
        context.load_cert_chain(certificate, key)
    except FileNotFoundError as exc:
        raise MonitorSocketError(f"[monitor] {keys[0]} / {keys[1]}: {exc.filename or certificate}: no such file") \
            from None
    except (ssl.SSLError, OSError) as exc:
        raise MonitorSocketError(f"[monitor] {keys[0]} / {keys[1]}: {certificate} and {key} cannot be used as a "
                                 f"certificate and its key ({exc})") from None
    try:
        context.load_verify_locations(cafile=ca)
    except FileNotFoundError:
        raise MonitorSocketError(f"[monitor] {keys[2]}: {ca}: no such file") from None
    except (ssl.SSLError, OSError) as exc:
        raise MonitorSocketError(f"[monitor] {keys[2]}: {ca} is not a CA certificate in PEM ({exc})") from None


def server_context(certificate: Path, key: Path, client_ca: Path) -> ssl.SSLContext:
    """The service's side: its certificate, and a certificate required of every monitor."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = MINIMUM_VERSION
    context.verify_mode = ssl.CERT_REQUIRED
    _load(context, certificate, key, client_ca, keys=("certificate", "key", "client_ca"))
    return context


def client_context(certificate: Path, key: Path, service_ca: Path) -> ssl.SSLContext:
    """A desk's side: its certificate, and the service's checked against the CA and the address dialled."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)       # check_hostname and CERT_REQUIRED by default
    context.minimum_version = MINIMUM_VERSION
    _load(context, certificate, key, service_ca, keys=("desk_certificate", "desk_key", "service_ca"))
    return context


def certificate_name(peer_certificate: dict[str, Any] | None) -> str | None:
    """The common name of a verified peer certificate (`SSLObject.getpeercert()`), or None."""
    for rdn in (peer_certificate or {}).get("subject", ()):
        for key, value in rdn:
            if key == "commonName":
                return str(value)
    return None

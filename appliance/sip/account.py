"""The SIP account that answers: a local one (peer mode) or a registered extension (register mode).

    account = ApplianceAccount(on_incoming=service.incoming, on_registration=report)
    account.create(account_config(settings.sip, domain_host))

Register mode reads the password from [sip] password_file, which must be
readable by its owner only; `read_password` refuses anything else with the fix.
pjsua2 calls `onIncomingCall` and `onRegState` on the SIP thread: they only
hand over to the service.
"""

from __future__ import annotations

import logging
import stat
from pathlib import Path
from typing import Any, Callable

from ..settings import SipSettings
from .peers import host_of

log = logging.getLogger("appliance.sip")


class SipConfigError(ValueError):
    """The [sip] settings cannot be used; the message names the key and the fix."""


def read_password(path: Path | None) -> str:
    """The register-mode password: the file's first line, the file readable by its owner only."""
    if path is None:
        raise SipConfigError("[sip] password_file: register mode needs a password file "
                             "(one line, chmod 600, owned by the appliance user)")
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise SipConfigError(f"[sip] password_file: {path} does not exist; write the extension's password "
                             "there (one line) and chmod 600 it") from None
    except OSError as exc:
        raise SipConfigError(f"[sip] password_file: {path} cannot be read ({exc.strerror})") from None
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise SipConfigError(f"[sip] password_file: {path} is readable by group or others "
                             f"(mode {stat.S_IMODE(mode):04o}); run chmod 600 {path}")
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SipConfigError(f"[sip] password_file: {path} cannot be read ({exc.strerror})") from None
    password = text.splitlines()[0].strip() if text.strip() else ""
    if not password:
        raise SipConfigError(f"[sip] password_file: {path} is empty; put the extension's password on its first line")
    return password


def registrar_host(sip: SipSettings) -> str:
    """"sip:pbx.clinic.lan:5060;transport=udp" -> "pbx.clinic.lan:5060"."""
    uri = sip.registrar.strip()
    for prefix in ("sips:", "sip:"):
        if uri.lower().startswith(prefix):
            uri = uri[len(prefix):]
            break
    return uri.split(";", 1)[0].split("@")[-1]


def digest_realm(sip: SipSettings) -> str:
    """The one realm the password answers: [sip] realm, else the registrar's host (never "*", which would hand
    the digest to whoever challenges)."""
    return sip.realm or host_of(registrar_host(sip))


def account_config(sip: SipSettings, *, local_host: str, port: int) -> Any:
    """The pj.AccountConfig for this mode (RTP ports from [sip] rtp_port and rtp_port_range, SRTP from srtp)."""
    import pjsua2 as pj

    cfg = pj.AccountConfig()
    media = cfg.mediaConfig.transportConfig
    media.port = sip.rtp_port
    media.portRange = sip.rtp_port_range
    if sip.bind_address not in ("0.0.0.0", "::"):
        media.boundAddress = sip.bind_address
    _srtp(pj, cfg.mediaConfig, sip)
    if sip.mode == "register":
        host = registrar_host(sip)
        password = read_password(sip.password_file)
        cfg.idUri = f"sip:{sip.user}@{host.split(':')[0]}"
        cfg.regConfig.registrarUri = sip.registrar if sip.registrar.startswith("sip") else f"sip:{sip.registrar}"
        cfg.regConfig.timeoutSec = sip.register_expires_s
        cfg.regConfig.retryIntervalSec = 30
        cred = pj.AuthCredInfo("digest", digest_realm(sip), sip.user, 0, password)
        cfg.sipConfig.authCreds.append(cred)
    else:
        cfg.idUri = f"sip:appliance@{local_host}:{port}"
    return cfg


SRTP_USE = {"off": "PJMEDIA_SRTP_DISABLED", "optional": "PJMEDIA_SRTP_OPTIONAL",
            "mandatory": "PJMEDIA_SRTP_MANDATORY"}


def _srtp(pj: Any, media: Any, sip: SipSettings) -> None:
    """SRTP with SDES keys. Mandatory with TLS configured also requires the INVITE to come over TLS
    (srtpSecureSignaling 1): an SRTP key sent over UDP or TCP is readable by anyone on the path, so such a call
    is refused (488) rather than encrypted in name only."""
    media.srtpUse = getattr(pj, SRTP_USE[sip.srtp])
    media.srtpSecureSignaling = 1 if sip.srtp == "mandatory" and "tls" in sip.transports else 0
    keyings = pj.IntVector()
    keyings.append(pj.PJMEDIA_SRTP_KEYING_SDES)
    media.srtpOpt.keyings = keyings


def _account_class():
    import pjsua2 as pj

    class ApplianceAccount(pj.Account):
        def __init__(self, on_incoming: Callable[[Any, Any], None],
                     on_registration: Callable[[int, str, int], None] | None = None):
            super().__init__()
            self._on_incoming = on_incoming
            self._on_registration = on_registration

        def onIncomingCall(self, prm):
            self._on_incoming(self, prm)

        def onRegState(self, prm):
            if self._on_registration is not None:
                self._on_registration(int(prm.code), str(prm.reason), int(prm.expiration))

    return ApplianceAccount


def make_account(on_incoming: Callable[[Any, Any], None],
                 on_registration: Callable[[int, str, int], None] | None = None) -> Any:
    return _account_class()(on_incoming, on_registration)


def log_registration(code: int, reason: str, expiration: int) -> None:
    """Registration state for the journal (no credentials, no numbers)."""
    if 200 <= code < 300 and expiration > 0:
        log.info("registered with the registrar (%d %s), expires in %d s", code, reason, expiration)
    elif 200 <= code < 300:
        log.info("unregistered from the registrar")
    else:
        hint = ("realm (the password answers one realm only), user and password_file" if code in (401, 407)
                else "registrar, user and password_file")
        log.warning("registration failed: %d %s (check [sip] %s)", code, reason, hint)

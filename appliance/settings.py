"""The appliance's settings: one TOML file, checked before anything starts.

Lookup order: `$APPLIANCE_CONFIG`, `/etc/appliance/appliance.toml`, then the
checkout's `config/appliance.toml` (the commented template, every key at its
default). Every key has a default, so an empty file works. Unknown keys are
errors, and every error names the file and the key path:

    /etc/appliance/appliance.toml: voice.silence_checkins_s[1]: must be greater than 0

Adding a section is one class: subclass `Section`, then give `Settings` a
field of that type (and add the section, commented, to config/appliance.toml).
"""

from __future__ import annotations

import logging
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator, model_validator

from . import paths

log = logging.getLogger("appliance.settings")

CONFIG_ENV = "APPLIANCE_CONFIG"
CONFIG_NAME = "appliance.toml"
TEMPLATE_PATH = paths.REPO_ROOT / "config" / CONFIG_NAME

# CTranslate2 compute types (faster-whisper's `compute_type`).
ComputeType = Literal["default", "auto", "int8", "int8_float32", "int8_float16", "int8_bfloat16", "int16",
                      "float16", "bfloat16", "float32"]


class ConfigError(ValueError):
    """The settings file cannot be used; the message names the file, the key and the problem."""


class Section(BaseModel):
    """A `[section]` of appliance.toml: unknown keys are errors, values are read-only."""

    model_config = ConfigDict(extra="forbid", frozen=True, validate_default=True)


class DeviceSettings(Section):
    device: Literal["cpu", "cuda"] = "cpu"
    # unset: "int8" on cpu, "float16" on cuda
    stt_compute_type: ComputeType = "int8"
    # unset: 0 on cpu; -1 (every layer) on cuda
    llm_gpu_layers: int = Field(0, ge=-1)
    threads: int = Field(1, ge=1, le=64)

    @model_validator(mode="before")
    @classmethod
    def _device_defaults(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("device") == "cuda":
            data = dict(data)
            data.setdefault("stt_compute_type", "float16")
            data.setdefault("llm_gpu_layers", -1)
        return data

    @model_validator(mode="after")
    def _gpu_layers_need_cuda(self) -> DeviceSettings:
        if self.device == "cpu" and self.llm_gpu_layers != 0:
            raise _At(("llm_gpu_layers",), 'must be 0 when device = "cpu" (set device = "cuda" to use a GPU)')
        return self


class ModelsSettings(Section):
    # a name from models/manifest.toml, or a path (absolute, or relative to this file's folder)
    stt: str = Field("whisper-base", min_length=1)
    tts: str = Field("piper-joe", min_length=1)
    llm: str = Field("smollm2-135m", min_length=1)
    # where assembled models are kept; unset: <paths.data_dir>/models
    data_dir: Path | None = None


class LlmSettings(Section):
    classify: bool = False   # measured: bench/RESULTS.md, "The language model's place"
    rephrase: bool = False
    rephrase_budget_ms: int = Field(600, gt=0, le=10_000)
    classify_budget_ms: int = Field(800, gt=0, le=10_000)
    max_tokens: int = Field(48, gt=0, le=1024)


class VoiceSettings(Section):
    sample_rate: Literal[8000, 16000] = 16000
    vad_stop_secs: float = Field(0.5, gt=0, le=5)
    vad_start_secs: float = Field(0.2, gt=0, le=5)
    smart_turn: bool = True
    filler_after_ms: int = Field(400, ge=0)
    silence_checkins_s: tuple[float, ...] = Field((10, 20, 40), min_length=1)
    barge_in_min_s: float = Field(0.5, ge=0)
    # quiet after the caller's words at which the reply worked out for them starts, before the turn is handed over
    # (appliance/voice/listener.py); 0: only once it is
    speak_ahead_s: float = Field(0.35, ge=0, le=2)
    greeting_cache: bool = True
    stt_hotwords: bool = True
    # score the answers a question expects against the audio where Whisper's words understood nothing
    # (appliance/voice/answer_scoring.py)
    stt_answer_scoring: bool = True
    stt_beam_size: int = Field(1, ge=1, le=10)
    # below about 8 s Whisper has too little quiet after the words to end on, and repeats them
    stt_window_s: float = Field(10.0, ge=8, le=30)
    # who hears the caller and who speaks: "appliance" (its own Pipecat services: the question's prompt, decoding
    # while the caller speaks, the speech cache), "whisper" / "piper" (Pipecat's own, on the same local model
    # files), or the dotted path of a Pipecat STT / TTS service class; the options are its keyword arguments
    # (`settings`, a table, its Settings). See appliance/voice/service_choice.py.
    stt_service: str = Field("appliance", min_length=1)
    stt_options: dict[str, Any] = Field(default_factory=dict)
    tts_service: str = Field("appliance", min_length=1)
    tts_options: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _services_can_be_built(self) -> VoiceSettings:
        for kind in ("stt", "tts"):
            name, options = getattr(self, f"{kind}_service"), getattr(self, f"{kind}_options")
            if name == "appliance" and not options:
                continue   # the default needs no Pipecat import to check
            from .voice.service_choice import ServiceChoiceError, check_choice, service_class

            if name != "appliance":
                try:
                    service_class(kind, name)
                except ServiceChoiceError as exc:
                    raise _At((f"{kind}_service",), str(exc)) from None
            try:
                check_choice(kind, name, options)
            except ServiceChoiceError as exc:
                raise _At((f"{kind}_options",), str(exc)) from None
        return self

    @field_validator("silence_checkins_s")
    @classmethod
    def _increasing(cls, value: tuple[float, ...]) -> tuple[float, ...]:
        for i, seconds in enumerate(value):
            if seconds <= 0:
                raise _At((i,), "must be greater than 0")
            if i and seconds <= value[i - 1]:
                raise _At((i,), f"must be later than the check-in before it ({value[i - 1]:g} s)")
        return value


@dataclass(frozen=True)
class SettingWarning:
    """A setting that works but should be looked at: its key, what is wrong, what to do."""
    key: str
    problem: str
    fix: str

    def __str__(self) -> str:
        return f"{self.key}: {self.problem}; {self.fix}"


class SipSettings(Section):
    """The phone line (`appliance run`): which peers may call, how the appliance is reached."""
    # "peer": the PBX sends calls straight here (only from allowed_peers);
    # "register": the appliance registers as an extension with digest authentication
    mode: Literal["peer", "register"] = "peer"
    bind_address: str = "0.0.0.0"
    port: int = Field(5060, ge=1, le=65535)
    transports: tuple[Literal["udp", "tcp", "tls"], ...] = Field(("udp", "tcp"), min_length=1)
    # TLS (transports includes "tls"): its own port, the appliance's certificate and key (PEM), and the CA
    # that signed the PBX's certificate (or the PBX's own certificate: pinned)
    tls_port: int = Field(5061, ge=1, le=65535)
    tls_cert_file: Path | None = None
    tls_key_file: Path | None = None
    tls_ca_file: Path | None = None
    # the peer must present a certificate that tls_ca_file vouches for (else the TLS connection is closed)
    tls_verify_peer: bool = False
    # SRTP (SDES keys in the SDP): "off", "optional" (when the caller offers it) or "mandatory"
    srtp: Literal["off", "optional", "mandatory"] = "off"
    rtp_port: int = Field(4000, ge=1024, le=65000)
    rtp_port_range: int = Field(200, ge=2, le=10000)
    codecs: tuple[Literal["PCMU", "PCMA", "G722"], ...] = Field(("PCMU", "PCMA", "G722"), min_length=1)
    # addresses or networks (CIDR) whose INVITEs are answered; everyone else gets 403
    allowed_peers: tuple[str, ...] = ("127.0.0.1/32", "::1/128")
    # new calls (INVITEs) one source address may start: a burst, refilled at a steady rate; beyond it 503
    invite_burst: int = Field(10, ge=1, le=1000)
    invite_rate_per_min: float = Field(20.0, gt=0, le=6000)
    # register mode
    registrar: str = ""                  # e.g. "sip:pbx.clinic.lan"
    user: str = ""                       # the extension, e.g. "201"
    password_file: Path | None = None    # readable only by the appliance user
    # the digest realm the password is for; empty: the registrar's host
    realm: str = ""
    register_expires_s: int = Field(300, ge=30, le=86400)
    # where a transfer goes; empty: the clinic file's transfer_number at the registrar's domain
    transfer_uri: str = ""
    # a transfer to a person: "blind" (a REFER: the PBX puts the caller through) or "warm" (the appliance rings
    # the desk itself, tells whoever answers who is calling and why, then joins the two calls)
    transfer: Literal["blind", "warm"] = "blind"
    # a warm transfer, a listen-in or a take-over gives up on the desk's phone after this long
    desk_answer_timeout_s: float = Field(25.0, ge=1, le=300)
    # what a caller on hold hears during a warm transfer: a 16-bit WAV file; unset: two soft notes
    hold_audio: Path | None = None
    max_calls: int = Field(2, ge=1, le=64)
    # one caller more than max_calls: "message" (the busy message and a callback request; 486 for a withheld
    # number), or "reject" (486 Busy Here for every one: behind a proxy such as Kamailio, which then tries the
    # next box)
    when_busy: Literal["message", "reject"] = "message"
    # a stereo WAV per call (caller left, agent right), mode 0600, under <data_dir>/recordings
    record_calls: bool = False

    @field_validator("allowed_peers")
    @classmethod
    def _networks(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        import ipaddress

        for i, peer in enumerate(value):
            try:
                ipaddress.ip_network(peer, strict=False)
            except ValueError:
                raise _At((i,), f"{peer!r} is not an IP address or network (e.g. 192.168.1.10 or 10.0.0.0/24)") from None
        return value

    @field_validator("realm")
    @classmethod
    def _one_realm(cls, value: str) -> str:
        if value.strip() == "*":
            raise ValueError('must name the PBX\'s realm (e.g. "asterisk"), not "*": the password is answered '
                             "to that realm only")
        return value.strip()

    @model_validator(mode="after")
    def _register_needs_account(self) -> SipSettings:
        if self.mode == "register":
            missing = [key for key in ("registrar", "user") if not getattr(self, key)]
            if missing:
                raise ValueError(f"register mode needs {' and '.join(missing)}")
        return self

    @model_validator(mode="after")
    def _tls_needs_its_files(self) -> SipSettings:
        if "tls" in self.transports:
            missing = [key for key in ("tls_cert_file", "tls_key_file") if getattr(self, key) is None]
            if missing:
                raise _At((missing[0],), f'transports includes "tls", which needs {" and ".join(missing)} '
                                         "(the appliance's certificate and private key, PEM files)")
            if "tcp" in self.transports and self.tls_port == self.port:
                raise _At(("tls_port",), f"must differ from port ({self.port}), which TCP uses")
        if self.tls_verify_peer and self.tls_ca_file is None:
            raise _At(("tls_ca_file",), "tls_verify_peer = true needs tls_ca_file (the CA, or the PBX's own "
                                        "certificate, that the peer's certificate must match)")
        return self

    def warnings(self) -> list[SettingWarning]:
        """Settings that work but are risky or useless."""
        import ipaddress

        found = []
        only_pbx = "list the PBX's address only (e.g. allowed_peers = [\"192.168.1.10\"])"
        networks = [ipaddress.ip_network(peer, strict=False) for peer in self.allowed_peers]
        if not networks:
            found.append(SettingWarning("sip.allowed_peers", "is empty: no one can call (every INVITE gets 403)",
                                        only_pbx.replace(" only", "")))
        for peer, net in zip(self.allowed_peers, networks):
            if net.prefixlen == 0:
                found.append(SettingWarning("sip.allowed_peers", f"{peer!r} lets any address send calls (and "
                                            "choose the caller ID they are recorded under)", only_pbx))
            elif net.prefixlen < (WIDE_V4_PREFIX if net.version == 4 else WIDE_V6_PREFIX):
                found.append(SettingWarning("sip.allowed_peers", f"{peer!r} is a very wide network "
                                            f"({net.num_addresses:,} addresses)", only_pbx))
        if self.srtp == "mandatory" and "tls" not in self.transports:
            found.append(SettingWarning("sip.srtp", '"mandatory" without "tls" in transports: the SRTP keys '
                                        "cross the network in clear in the SDP, so whoever sees the signalling "
                                        "can decrypt the audio", 'add "tls" to transports (and use it on the PBX)'))
        return found


# allowed_peers networks wider than this draw a warning (IPv4 /16 is 65,536 addresses: a whole site)
WIDE_V4_PREFIX = 16
WIDE_V6_PREFIX = 48


class DataSettings(Section):
    """Where the clinic database is (SQLite, or the shared PostgreSQL store); retention and backups."""
    # the shared store on PostgreSQL (docs/it-admin.md): "postgresql://appliance@db.clinic.lan/appliance";
    # empty: the SQLite file ([paths] database)
    database: str = ""
    # or a file holding that address, readable only by the appliance's user (mode 0600): keeps a password out
    # of this file
    database_file: Path | None = None
    transcript_days: int = Field(90, ge=1)
    recording_days: int = Field(30, ge=1)
    backup_dir: Path | None = None       # default: <paths.data_dir>/backups
    backups_kept: int = Field(7, ge=1)
    # practitioners' calendar feeds (<data>/calendars/*.ics) name no patient; true: the patient's initials only
    calendar_initials: bool = False

    @field_validator("database")
    @classmethod
    def _postgres_address(cls, value: str) -> str:
        value = value.strip()
        if value and not value.startswith(POSTGRES_SCHEMES):
            raise ValueError(f"must be a PostgreSQL address starting with postgresql:// (the SQLite file is set by "
                             f"[paths] database), not {value[:20]!r}")
        return value

    @model_validator(mode="after")
    def _one_address(self) -> DataSettings:
        if self.database and self.database_file is not None:
            raise _At(("database_file",), "set either database or database_file, not both")
        return self

    def warnings(self) -> list[SettingWarning]:
        if self.database and _has_password(self.database):
            return [SettingWarning("data.database", "the address holds a password, written in the settings file "
                                   "(which installs, copies and diffs show)",
                                   "put the address in a file named by [data] database_file (mode 0600)")]
        return []


POSTGRES_SCHEMES = ("postgresql://", "postgres://")
DSN_FILE_SECRET_BITS = 0o077       # a DSN file others may read or write is refused


def _has_password(dsn: str) -> bool:
    from psycopg.conninfo import conninfo_to_dict

    try:
        return bool(conninfo_to_dict(dsn).get("password"))
    except Exception:
        return False


def read_dsn_file(path: Path) -> str:
    """The PostgreSQL address kept in `path` ([data] database_file): the first line that is not blank or a
    comment. ConfigError, naming the file and the key, when it is missing, readable by others or holds
    no address."""
    where = f"{path} ([data] database_file)"
    try:
        mode = path.stat().st_mode
        if mode & DSN_FILE_SECRET_BITS:
            raise ConfigError(f"{where}: readable by others than its owner (mode {mode & 0o777:04o}); it may hold "
                              "the database's password: chmod 600 it, owned by the appliance's user")
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise ConfigError(f"{where}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{where}: cannot be read: {exc}") from None
    for line in lines:
        line = line.strip()
        if line and not line.startswith("#"):
            if not line.startswith(POSTGRES_SCHEMES):
                raise ConfigError(f"{where}: must hold a PostgreSQL address starting with postgresql://")
            return line
    raise ConfigError(f"{where}: holds no address (one line: postgresql://user:password@host/database)")


class MetricsSettings(Section):
    """Prometheus metrics from `appliance run` (no patient data: counts, durations and states only)."""
    # "host:port" to serve /metrics on, e.g. "127.0.0.1:9464" or "[::1]:9464"; empty: not served
    listen: str = ""

    @field_validator("listen")
    @classmethod
    def _host_and_port(cls, value: str) -> str:
        return _checked_address(value, split_listen)

    @property
    def address(self) -> tuple[str, int] | None:
        """(host, port) to serve on, or None when metrics are off."""
        return split_listen(self.listen) if self.listen else None


def _checked_address(value: str, split: Callable[[str], tuple[str, int]]) -> str:
    """A "host:port" setting, stripped; empty is allowed (not set); `split` raises for a malformed one."""
    value = value.strip()
    if value:
        split(value)
    return value


def split_listen(value: str, example_port: int = 9464) -> tuple[str, int]:
    """'127.0.0.1:9464' or '[::1]:9464' as (host, port); ValueError naming what is wrong."""
    import ipaddress

    example = f'e.g. "127.0.0.1:{example_port}" or "[::1]:{example_port}"'
    host, colon, port_text = value.rpartition(":")
    if not colon or not host:
        raise ValueError(f"{value!r} must be an address and a port, {example}")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    try:
        ipaddress.ip_address(host)
    except ValueError:
        raise ValueError(f"{host!r} is not an IP address ({example}; 0.0.0.0 serves on every address)") from None
    if not port_text.isdigit() or not 1 <= int(port_text) <= 65535:
        raise ValueError(f"{port_text!r} is not a port (1 to 65535), {example}")
    return host, int(port_text)


class MonitorWebSettings(Section):
    """`appliance monitor --serve`: the monitor in a browser on the clinic LAN, over HTTPS, each member of staff
    signed in with their own account (`appliance staff add NAME`)."""
    # "address:port" pairs to listen on, e.g. ["192.168.1.20:8443"]; only these (no wildcard by default)
    listen: tuple[str, ...] = ("127.0.0.1:8443",)
    # the HTTPS certificate (PEM, the chain after it) and its private key (PEM, unencrypted, readable only by the
    # service's user); unset: tls/monitor-web.crt and tls/monitor-web.key beside this file (what the installer makes)
    certificate: Path | None = None
    key: Path | None = None
    # the staff accounts (names and argon2 password hashes, mode 0600); unset: <paths.data_dir>/staff-accounts
    staff_file: Path | None = None
    # a session ends after this many minutes without a key or a click, and in any case after session_hours
    session_idle_minutes: float = Field(30.0, gt=0, le=24 * 60)
    session_hours: float = Field(12.0, gt=0, le=7 * 24)
    # failed sign-ins allowed per account and per address within sign_in_window_minutes; then sign-in is refused
    # for that account or address until the window has passed since the first of them
    sign_in_failures: int = Field(5, ge=1, le=100)
    sign_in_window_minutes: float = Field(15.0, gt=0, le=24 * 60)

    @field_validator("listen")
    @classmethod
    def _addresses(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if not value:
            raise ValueError('must name at least one address to listen on, e.g. ["192.168.1.20:8443"]')
        cleaned = []
        for i, item in enumerate(value):
            try:
                split_listen(item.strip(), example_port=8443)
            except ValueError as exc:
                raise _At((i,), str(exc)) from None
            if item.strip() in cleaned:
                raise _At((i,), f"{item.strip()!r} is listed twice")
            cleaned.append(item.strip())
        return tuple(cleaned)

    @model_validator(mode="after")
    def _idle_within_session(self) -> MonitorWebSettings:
        if self.session_idle_minutes > self.session_hours * 60:
            raise _At(("session_idle_minutes",), f"must not be longer than session_hours ({self.session_hours:g} h)")
        return self

    @property
    def addresses(self) -> list[tuple[str, int]]:
        return [split_listen(item) for item in self.listen]


class WatchedService(Section):
    """One service `appliance monitor` watches: its monitor socket on this machine (an SSH-forwarded one too),
    or its TLS address on another."""
    name: str = Field(min_length=1, max_length=20)     # the box, as the live board's rows name it
    socket: Path | None = None
    address: str = ""                                   # "host:port" of its [monitor] listen, e.g. "10.0.0.21:7443"

    @field_validator("name")
    @classmethod
    def _plain_name(cls, value: str) -> str:
        value = value.strip()
        if not value or not all(ch.isalnum() or ch in "-_." for ch in value):
            raise ValueError(f"{value!r} must be a short name of letters, digits, - _ or . (e.g. \"north\")")
        return value

    @field_validator("address")
    @classmethod
    def _host_and_port(cls, value: str) -> str:
        return _checked_address(value, split_address)

    @model_validator(mode="after")
    def _one_way_there(self) -> WatchedService:
        if (self.socket is None) == (not self.address):
            raise ValueError("give the service either a socket (a path on this machine) or an address "
                             '("host:port" of its [monitor] listen), not both and not neither')
        return self


class MonitorSettings(Section):
    """The monitor socket over TLS for monitors on other machines (the service's side), and the services one
    `appliance monitor` watches (a desk's side): docs/monitor.md, "One monitor for the group"."""
    # the service: also serve the monitor over TLS on "address:port" (e.g. "10.0.0.21:7443"), to monitors that
    # present a certificate signed by client_ca; empty: the local socket only
    listen: str = ""
    certificate: Path | None = None     # this service's certificate (PEM), for listen
    key: Path | None = None             # its private key (PEM, readable only by the service's user)
    client_ca: Path | None = None       # the CA that signs the desks' certificates
    # a desk: the services to watch, e.g. [{name = "main", socket = "/run/appliance/monitor.sock"},
    # {name = "north", address = "10.0.0.21:7443"}]; empty: this machine's own monitor socket
    services: tuple[WatchedService, ...] = ()
    desk_certificate: Path | None = None   # this desk's certificate (PEM), for the services given by address
    desk_key: Path | None = None           # its private key (PEM, readable only by the desk's user)
    service_ca: Path | None = None         # the CA that signs the services' certificates

    @field_validator("listen")
    @classmethod
    def _listen_address(cls, value: str) -> str:
        value = value.strip()
        if value:
            split_listen(value, example_port=7443)
        return value

    @field_validator("services")
    @classmethod
    def _distinct_names(cls, value: tuple[WatchedService, ...]) -> tuple[WatchedService, ...]:
        seen: set[str] = set()
        for i, service in enumerate(value):
            if service.name in seen:
                raise _At((i, "name"), f"{service.name!r} names two services: each box needs its own name")
            seen.add(service.name)
        return value

    @model_validator(mode="after")
    def _tls_files(self) -> MonitorSettings:
        if self.listen:
            for key in ("certificate", "key", "client_ca"):
                if getattr(self, key) is None:
                    raise _At((key,), "must be set when listen is: the service's certificate and key, and the CA "
                                      "that signs the desks' certificates (docs/it-admin.md)")
        remote = [i for i, service in enumerate(self.services) if service.address]
        if remote:
            for key in ("desk_certificate", "desk_key", "service_ca"):
                if getattr(self, key) is None:
                    raise _At((key,), f"must be set when a service is watched by address (services[{remote[0]}]): "
                                      "this desk's certificate and key, and the CA that signs the services' ones")
        return self


def split_address(value: str) -> tuple[str, int]:
    """'host:port' (a name or an IP address; '[::1]:7443' for IPv6) as (host, port); ValueError naming the fault."""
    host, colon, port_text = value.rpartition(":")
    if not colon or not host:
        raise ValueError(f"{value!r} must be a host and a port, e.g. \"10.0.0.21:7443\"")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if not port_text.isdigit() or not 1 <= int(port_text) <= 65535:
        raise ValueError(f"{port_text!r} is not a port (1 to 65535), e.g. \"10.0.0.21:7443\"")
    return host, int(port_text)


class PathsSettings(Section):
    data_dir: Path = Field(default_factory=paths.data_dir)
    # unset: appliance.db in data_dir ($APPLIANCE_DB wins when set)
    database: Path | None = None
    clinic: Path = Field(default_factory=paths.clinic_path)
    flow: Path = Field(default_factory=paths.flow_path)

    @model_validator(mode="after")
    def _database_in_data_dir(self) -> PathsSettings:
        if self.database is None:
            default = paths.database_path()
            if not os.environ.get("APPLIANCE_DB"):
                default = self.data_dir / default.name
            object.__setattr__(self, "database", default)
        return self


class Settings(Section):
    device: DeviceSettings = Field(default_factory=DeviceSettings)
    models: ModelsSettings = Field(default_factory=ModelsSettings)
    llm: LlmSettings = Field(default_factory=LlmSettings)
    voice: VoiceSettings = Field(default_factory=VoiceSettings)
    sip: SipSettings = Field(default_factory=SipSettings)
    data: DataSettings = Field(default_factory=DataSettings)
    metrics: MetricsSettings = Field(default_factory=MetricsSettings)
    monitor: MonitorSettings = Field(default_factory=MonitorSettings)
    monitor_web: MonitorWebSettings = Field(default_factory=MonitorWebSettings)
    paths: PathsSettings = Field(default_factory=PathsSettings)

    _source: Path | None = PrivateAttr(default=None)

    @property
    def source(self) -> Path | None:
        """The file these settings came from (None: built-in defaults)."""
        return self._source

    @property
    def models_dir(self) -> Path:
        """Where assembled models live: [models] data_dir, else <paths.data_dir>/models."""
        return self.models.data_dir or self.paths.data_dir / "models"

    @property
    def backup_dir(self) -> Path:
        """Where database backups go: [data] backup_dir, else <paths.data_dir>/backups."""
        return self.data.backup_dir or self.paths.data_dir / "backups"

    @property
    def recordings_dir(self) -> Path:
        """Where call recordings go (when [sip] record_calls is on)."""
        return self.paths.data_dir / "recordings"

    @property
    def monitor_web_certificate(self) -> Path:
        """The browser monitor's HTTPS certificate: [monitor_web] certificate, else tls/monitor-web.crt beside the
        settings file (/etc/appliance when there is none)."""
        return self.monitor_web.certificate or self.config_folder() / "tls" / "monitor-web.crt"

    @property
    def monitor_web_key(self) -> Path:
        return self.monitor_web.key or self.config_folder() / "tls" / "monitor-web.key"

    @property
    def staff_file(self) -> Path:
        """The staff accounts of the browser monitor: [monitor_web] staff_file, else <paths.data_dir>/staff-accounts."""
        return self.monitor_web.staff_file or self.paths.data_dir / "staff-accounts"

    def config_folder(self) -> Path:
        """The settings file's folder (/etc/appliance when there is no file)."""
        return self._source.parent if self._source is not None else paths.ETC

    def warnings(self) -> list[SettingWarning]:
        """What works but should be looked at: logged at load, shown by `appliance doctor`."""
        return self.sip.warnings() + self.data.warnings()

    @property
    def uses_postgres(self) -> bool:
        return bool(self.data.database or self.data.database_file)

    def database_target(self) -> str | Path:
        """The clinic database: a PostgreSQL address ([data] database, or the file [data] database_file names),
        else the SQLite file ([paths] database). ConfigError when the DSN file cannot be used."""
        if self.data.database:
            return self.data.database
        if self.data.database_file is not None:
            return read_dsn_file(self.data.database_file)
        return self.paths.database

    def relative_to_config(self, value: str | Path) -> Path:
        """A path from the settings file: ~ expanded, relative paths taken from the file's folder."""
        path = Path(value).expanduser()
        if not path.is_absolute() and self._source is not None:
            path = self._source.parent / path
        return path


class _At(ValueError):
    """A validator's error about one key or list item inside the value it checks."""

    def __init__(self, loc: tuple[str | int, ...], message: str):
        super().__init__(message)
        self.loc = loc
        self.message = message


def config_path() -> Path | None:
    """The settings file this process uses, or None when there is none (defaults apply)."""
    if os.environ.get(CONFIG_ENV):
        return Path(os.environ[CONFIG_ENV])
    for candidate in (paths.ETC / CONFIG_NAME, TEMPLATE_PATH):
        if candidate.is_file():
            return candidate
    return None


def load_settings(path: str | Path | None = None, *, warn: bool = True) -> Settings:
    """Read and check the settings file (`path`, else the lookup order above).

    `warn`: log each of `Settings.warnings()` (naming the file) on the "appliance.settings" logger."""
    chosen = Path(path) if path is not None else config_path()
    if chosen is None:
        return Settings()
    if not chosen.is_file():
        hint = f" (named by ${CONFIG_ENV})" if path is None else ""
        raise ConfigError(f"{chosen}: no such settings file{hint}; copy {TEMPLATE_PATH} there or unset it")
    try:
        data = tomllib.loads(chosen.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{chosen}: not valid TOML: {exc}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{chosen}: cannot be read: {exc}") from None
    settings = settings_from_mapping(data, chosen)
    if warn:
        for warning in settings.warnings():
            log.warning("%s: warning: %s", chosen, warning)
    return settings


def settings_from_mapping(data: dict[str, Any], source: Path | str = CONFIG_NAME) -> Settings:
    """Check a parsed TOML mapping; errors name `source` and the key path."""
    try:
        settings = Settings.model_validate(data)
    except ValidationError as exc:
        raise ConfigError("\n".join(f"{source}: {_describe(err)}" for err in exc.errors())) from None
    if isinstance(source, Path):
        settings = _paths_from_file(settings, data, source)
        settings._source = source
    return settings


def _paths_from_file(settings: Settings, data: dict[str, Any], source: Path) -> Settings:
    """Paths written in the file: ~ expanded, relative ones taken from the file's folder."""
    def fix(value: Path) -> Path:
        value = value.expanduser()
        return value if value.is_absolute() else source.parent / value

    given = data.get("paths", {})
    updates = {key: fix(getattr(settings.paths, key)) for key in given if getattr(settings.paths, key) is not None}
    paths_section = settings.paths.model_copy(update=updates)
    if "data_dir" in given and "database" not in given and not os.environ.get("APPLIANCE_DB"):
        paths_section = paths_section.model_copy(update={"database": paths_section.data_dir / settings.paths.database.name})
    models_section = settings.models
    if models_section.data_dir is not None:
        models_section = models_section.model_copy(update={"data_dir": fix(models_section.data_dir)})
    sip_section, data_section = settings.sip, settings.data
    sip_files = ("password_file", "tls_cert_file", "tls_key_file", "tls_ca_file")
    sip_section = sip_section.model_copy(update={key: fix(getattr(sip_section, key)) for key in sip_files
                                                  if getattr(sip_section, key) is not None})
    for key in ("backup_dir", "database_file"):
        if getattr(data_section, key) is not None:
            data_section = data_section.model_copy(update={key: fix(getattr(data_section, key))})
    web_section = settings.monitor_web
    web_files = ("certificate", "key", "staff_file")
    web_section = web_section.model_copy(update={key: fix(getattr(web_section, key)) for key in web_files
                                                  if getattr(web_section, key) is not None})
    monitor_section = settings.monitor
    monitor_files = ("certificate", "key", "client_ca", "desk_certificate", "desk_key", "service_ca")
    monitor_section = monitor_section.model_copy(update={
        **{key: fix(getattr(monitor_section, key)) for key in monitor_files
           if getattr(monitor_section, key) is not None},
        "services": tuple(service.model_copy(update={"socket": fix(service.socket)}) if service.socket else service
                          for service in monitor_section.services)})
    return settings.model_copy(update={"paths": paths_section, "models": models_section, "sip": sip_section,
                                       "data": data_section, "monitor": monitor_section, "monitor_web": web_section})


def _describe(err: dict[str, Any]) -> str:
    loc = [part for part in err["loc"] if not (isinstance(part, str) and "[" in part)]  # drop union tags
    message = err["msg"]
    cause = (err.get("ctx") or {}).get("error")
    if isinstance(cause, _At):
        loc.extend(cause.loc)
        message = cause.message
    elif err["type"] == "extra_forbidden":
        message = ("unknown section" if len(loc) == 1 else "unknown key") + _known_keys(loc[:-1])
    elif err["type"] == "model_type":
        message = f"must be a [{_key_path(loc)}] table of keys" if loc else "the file must hold [sections] of keys"
    elif err["type"] == "string_too_short":
        message = "must not be empty"
    else:
        message = message.removeprefix("Value error, ")
        message = message.replace("Input should be", "must be").replace("input should be", "must be")
        message = message.replace("Input", "the value")
    return f"{_key_path(loc) or '(top level)'}: {message}"


def _key_path(loc: list[Any]) -> str:
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += ("." if text else "") + str(part)
    return text


def _known_keys(section_loc: list[Any]) -> str:
    model: type[BaseModel] = Settings
    for part in section_loc:
        field = model.model_fields.get(str(part)) if isinstance(part, str) else None
        annotation = field.annotation if field else None
        if not (isinstance(annotation, type) and issubclass(annotation, BaseModel)):
            return ""
        model = annotation
    kind = "sections" if model is Settings else "keys"
    return f" (known {kind}: {', '.join(model.model_fields)})"

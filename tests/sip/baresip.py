"""Debian's baresip as a caller the project did not write: its own config folder, a WAV as its voice.

    wav = caller_wav(tmp_path / "caller.wav", speak, ["What is your address?", "No, that's all. Goodbye."])
    result = call_with_baresip(tmp_path / "baresip", "sip:service@127.0.0.1:5060", wav, caller="+61400000888")
    result.srtp          # baresip said "SRTP is Enabled"

baresip dials at start (`-e /dial ...`), its `aufile` module plays the WAV as the microphone (then baresip
hangs up itself: "end of file"); it is stopped once `until()` is true (the call record is closed), and `-t`
stops it whatever happens. With `tls=` it shows a certificate
(cert and key in one PEM, as baresip wants) and checks the far end's against the CA; `srtp=True` makes
SRTP mandatory on its side (mediaenc=srtp-mand).
"""

from __future__ import annotations

import shutil
import signal
import socket
import subprocess
import time
import wave
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

RATE = 8000
FIRST_LINE_AFTER_S = 8.0     # the greeting ends before the caller speaks
BETWEEN_LINES_S = 12.0       # time for the receptionist's reply (a longer one is barged into, which is fine)
TAIL_S = 10.0                # after the last line: the receptionist's goodbye and BYE come before the file ends


@dataclass
class BaresipResult:
    returncode: int
    output: str

    @property
    def srtp(self) -> bool:
        return "SRTP is Enabled" in self.output

    @property
    def established(self) -> bool:
        return "Call established" in self.output


def available() -> bool:
    return shutil.which("baresip") is not None and Path("/usr/lib/baresip/modules/aufile.so").is_file()


def caller_wav(path: Path, speak: Callable[[str], bytes], lines: list[str]) -> Path:
    """16-bit mono 8 kHz WAV: quiet through the greeting, each line with room for a reply, a quiet tail."""
    def quiet(seconds: float) -> bytes:
        return bytes(int(seconds * RATE) * 2)

    pcm = quiet(FIRST_LINE_AFTER_S)
    for i, line in enumerate(lines):
        pcm += speak(line) + quiet(TAIL_S if i == len(lines) - 1 else BETWEEN_LINES_S)
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(RATE)
        out.writeframes(pcm)
    return path


def wav_seconds(path: Path) -> float:
    with wave.open(str(path)) as wav:
        return wav.getnframes() / wav.getframerate()


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def call_with_baresip(folder: Path, uri: str, wav: Path, *, caller: str, until: Callable[[], bool],
                      tls: tuple[Path, Path, Path] | None = None, srtp: bool = False) -> BaresipResult:
    """Dial `uri` with baresip playing `wav`; returns once `until()` holds and baresip has quit (bounded by
    the WAV's length). `tls`: (CA, certificate, key) PEM files."""
    folder.mkdir(parents=True, exist_ok=True)
    rtp = _free_port() & ~1
    lines = [
        "poll_method\t\tepoll",
        f"sip_listen\t\t127.0.0.1:{_free_port()}",
        "call_local_timeout\t30",
        "audio_player\t\taufile,/dev/null",       # what it hears is not the point: the service's record is
        f"audio_source\t\taufile,{wav}",
        "audio_alert\t\taufile,/dev/null",
        f"ausrc_srate\t\t{RATE}",
        "ausrc_channels\t\t1",
        f"rtp_ports\t\t{rtp}-{rtp + 20}",
        "module_path\t\t/usr/lib/baresip/modules",
        "module\t\t\tg711.so",
        "module\t\t\taufile.so",
        "module\t\t\tsrtp.so",
        "module_tmp\t\taccount.so",
        "module_app\t\tmenu.so",
    ]
    if tls is not None:
        ca, cert, key = tls
        both = folder / "caller.pem"
        both.write_bytes(cert.read_bytes() + key.read_bytes())
        both.chmod(0o600)
        lines += [f"sip_certificate\t\t{both}", f"sip_cafile\t\t{ca}"]
    (folder / "config").write_text("\n".join(lines) + "\n")
    account = f"<sip:{caller}@127.0.0.1>;regint=0;audio_codecs=pcmu" + (";mediaenc=srtp-mand" if srtp else "")
    (folder / "accounts").write_text(account + "\n")
    (folder / "contacts").write_text("")
    limit = int(wav_seconds(wav)) + 15
    log = folder / "baresip.log"
    with log.open("wb") as out:
        process = subprocess.Popen(["baresip", "-f", str(folder), "-e", f"/dial {uri}", "-t", str(limit)],
                                   stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + limit + 5
        while process.poll() is None and time.monotonic() < deadline and not until():
            time.sleep(0.5)
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)       # baresip hangs up what is left and quits
        try:
            code = process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            code = process.wait()
    return BaresipResult(code, log.read_bytes().decode(errors="replace").replace("\r", "\n"))

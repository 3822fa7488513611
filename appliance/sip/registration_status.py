"""The registration state, in a small file `appliance doctor` reads (register mode only).

    <data_dir>/sip-status.json, mode 0600, replaced atomically on every change and renewal:
    {"registration": "registered", "detail": "200 OK", "registrar": "sip:pbx.clinic.lan",
     "updated": "2026-05-01T10:00:00+00:00", "pid": 1234}
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from datetime import datetime, timezone
from pathlib import Path

log = logging.getLogger("appliance.sip")

STATUS_NAME = "sip-status.json"


def registration_word(code: int, expiration: int) -> str:
    if 200 <= code < 300:
        return "registered" if expiration > 0 else "unregistered"
    if 100 <= code < 200:
        return "registering"
    return "failed"


def write_registration_status(data_dir: Path, *, code: int, reason: str, expiration: int, registrar: str) -> None:
    """Never raises: a status file that cannot be written is logged, the line keeps working."""
    status = {"registration": registration_word(code, expiration), "detail": f"{code} {reason}".strip(),
              "registrar": registrar, "updated": datetime.now(timezone.utc).isoformat(timespec="seconds"),
              "pid": os.getpid()}
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(prefix=".sip-status.", dir=data_dir)   # created 0600
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(status, out)
        os.replace(temp, data_dir / STATUS_NAME)
    except OSError as exc:
        log.warning("could not write %s: %s", data_dir / STATUS_NAME, exc.strerror or exc)

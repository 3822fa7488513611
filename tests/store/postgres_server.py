"""A real PostgreSQL for the tests: Debian's server, started in a temporary folder as an ordinary user.

initdb and pg_ctl refuse to run as root, so under root (CI, this box) they run as the `postgres` user that
Debian's package creates (`nobody` without it) on a folder handed to that user. The server listens on a free
loopback port, keeps its unix socket inside the folder, trusts local connections (nothing else can reach
it) and skips fsync: the tests are about constraints and transactions, not about the disk.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

SUPERUSER = "appliance"


def binaries() -> Path | None:
    """The folder holding initdb, pg_ctl and postgres (the newest Debian version first), or None."""
    candidates = sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=lambda p: _version(p.parent.name),
                        reverse=True)
    on_path = shutil.which("initdb")
    if on_path:
        candidates.append(Path(os.path.realpath(on_path)).parent)
    for folder in candidates:
        if all((folder / name).is_file() for name in ("initdb", "pg_ctl", "postgres")):
            return folder
    return None


def _version(name: str) -> tuple[int, ...]:
    return tuple(int(part) for part in name.split(".") if part.isdigit())


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class PostgresServer:
    """One throw-away PostgreSQL cluster; `start()` then `stop()` (which also removes its folder)."""

    def __init__(self, bin_dir: Path):
        self.bin_dir = bin_dir
        self.folder = Path(tempfile.mkdtemp(prefix="appliance-postgres-"))
        self.data = self.folder / "data"
        self.log = self.folder / "server.log"
        self.port = _free_port()
        self._run_as = None
        if os.geteuid() == 0:
            self._run_as = "postgres" if _user_exists("postgres") else "nobody"
            account = pwd.getpwnam(self._run_as)
            os.chown(self.folder, account.pw_uid, account.pw_gid)

    def dsn(self, database: str = "postgres") -> str:
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/{database}"

    def start(self) -> None:
        self._run("initdb", "-D", str(self.data), "-U", SUPERUSER, "--auth=trust", "--encoding=UTF8",
                  "--no-locale", "--no-sync")
        options = (f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.folder} "
                   "-c fsync=off -c synchronous_commit=off -c full_page_writes=off")
        try:
            self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-o", options, "-w", "-t", "30", "start")
        except RuntimeError as error:
            log = self.log.read_text(errors="replace") if self.log.exists() else "(no log)"
            raise RuntimeError(f"{error}\nserver log:\n{log}") from None

    def stop(self) -> None:
        try:
            if (self.data / "postmaster.pid").exists():
                self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)

    def _run(self, program: str, *arguments: str) -> None:
        command = [str(self.bin_dir / program), *arguments]
        if self._run_as:
            command = ["runuser", "-u", self._run_as, "--", *command]
        done = subprocess.run(command, cwd=self.folder, capture_output=True, text=True, timeout=60)
        if done.returncode != 0:
            raise RuntimeError(f"{program} failed ({done.returncode}): {done.stderr.strip() or done.stdout.strip()}")


def _user_exists(name: str) -> bool:
    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True

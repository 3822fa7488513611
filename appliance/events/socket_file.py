"""Where the monitor socket lives, and who may use it: the front desk's group, `appliance-staff`.

Default `<data dir>/monitor.sock` (see appliance.paths), or `APPLIANCE_MONITOR_SOCKET`.
The socket is bound under a temporary name in a private (0700) folder beside
the final path, given mode 0660 and the staff group, and only then renamed
into place: there is no moment when anyone else could connect. The server
checks each connecting process too (`peer_allowed`, from SO_PEERCRED): the
service's own user, root, or a member of the staff group; anyone else is
refused even if the file's mode were loosened. Only the service's own user (and root) may name a staff
account signed in to the browser monitor as the one acting (`peer_may_name_staff`).
"""

from __future__ import annotations

import errno
import grp
import logging
import os
import pwd
import shutil
import socket
import stat
import struct
import tempfile
from pathlib import Path

from .. import paths

log = logging.getLogger("appliance.events")

SOCKET_ENV = "APPLIANCE_MONITOR_SOCKET"
STAFF_GROUP = "appliance-staff"     # front-desk staff: may watch calls and act on them (docs/it-admin.md)
SOCKET_MODE = 0o660
_MAX_PATH = 107   # sun_path holds 108 bytes with the terminating NUL


class MonitorSocketError(OSError):
    """The monitor socket cannot be made; the message names the path and the fix."""


def monitor_socket_path() -> Path:
    if os.environ.get(SOCKET_ENV):
        return Path(os.environ[SOCKET_ENV])
    return paths.data_dir() / "monitor.sock"


def appliance_gid(group: str | None = STAFF_GROUP) -> int | None:
    if not group:
        return None
    try:
        return grp.getgrnam(group).gr_gid
    except KeyError:
        return None


def is_served(path: Path, timeout: float = 0.5) -> bool:
    """True when a process is accepting connections on the socket at `path`."""
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(timeout)
    try:
        probe.connect(str(path))
        return True
    except OSError:
        return False
    finally:
        probe.close()


def _check_length(path: Path) -> None:
    if len(os.fsencode(str(path))) > _MAX_PATH:
        raise MonitorSocketError(
            errno.ENAMETOOLONG,
            f"{path}: too long for a Unix socket path ({_MAX_PATH} bytes at most): "
            f"set {SOCKET_ENV} to a shorter path")


class BoundSocket:
    """A listening socket and the file that names it."""

    def __init__(self, sock: socket.socket, path: Path):
        self.sock = sock
        self.path = path
        info = os.lstat(path)
        self._identity = (info.st_dev, info.st_ino)

    def remove(self) -> None:
        """Close the socket; unlink its file if it is still ours (a newer server may have replaced it)."""
        try:
            info = os.lstat(self.path)
            if (info.st_dev, info.st_ino) == self._identity:
                os.unlink(self.path)
        except OSError:
            pass
        self.sock.close()


def bind_private_socket(path: Path, *, group: str | None = STAFF_GROUP) -> BoundSocket:
    """A listening Unix socket at `path`, mode 0660, group `group` when that group exists."""
    path = Path(path)
    _check_length(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise MonitorSocketError(exc.errno, f"{path.parent}: cannot create the folder for the monitor socket: "
                                            f"{exc.strerror}") from None
    if path.exists() or path.is_symlink():
        if not stat.S_ISSOCK(os.lstat(path).st_mode):
            raise MonitorSocketError(errno.EEXIST, f"{path}: exists and is not a socket: move it away or set {SOCKET_ENV}")
        if is_served(path):
            raise MonitorSocketError(errno.EADDRINUSE, f"{path}: another appliance process is already publishing "
                                                       f"call events there (stop it, or set {SOCKET_ENV})")
    try:
        private = Path(tempfile.mkdtemp(prefix=".monitor-", dir=path.parent))   # 0700
    except OSError as exc:
        raise MonitorSocketError(exc.errno, f"{path.parent}: cannot write there: {exc.strerror}") from None
    temporary = private / "s"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        _check_length(temporary)
        sock.bind(str(temporary))
        os.chmod(temporary, SOCKET_MODE)
        gid = appliance_gid(group)
        if gid is not None:
            try:
                os.chown(temporary, -1, gid)
            except PermissionError:
                log.warning("monitor socket: cannot give it group %s (this user is not in it); "
                            "only this user's group can open it", group)
        sock.listen(16)
        os.replace(temporary, path)
        return BoundSocket(sock, path)
    except MonitorSocketError:
        sock.close()
        raise
    except OSError as exc:
        sock.close()
        raise MonitorSocketError(exc.errno, f"{path}: cannot create the monitor socket: {exc.strerror}") from None
    finally:
        shutil.rmtree(private, ignore_errors=True)


def peer_credentials(sock: socket.socket | None) -> tuple[int, int, int] | None:
    """(pid, uid, gid) of the process at the other end (Linux SO_PEERCRED), or None."""
    if sock is None or not hasattr(socket, "SO_PEERCRED"):
        return None
    try:
        raw = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        return struct.unpack("3i", raw)
    except (OSError, struct.error):
        return None


def peer_user(sock: socket.socket | None) -> str | None:
    """The OS user of the process at the other end, or None."""
    credentials = peer_credentials(sock)
    if credentials is None:
        return None
    try:
        return pwd.getpwuid(credentials[1]).pw_name
    except KeyError:
        return None


def peer_may_name_staff(sock: socket.socket | None) -> bool:
    """Whether the connecting process may act for a staff account signed in to the browser monitor: only the
    service's own user (the web monitor runs as it: systemd/appliance-monitor-web.service) or root. A member of
    staff's own monitor is recorded as its OS user and cannot name anyone else."""
    credentials = peer_credentials(sock)
    return credentials is not None and credentials[1] in (0, os.geteuid())


def peer_allowed(sock: socket.socket | None, group: str | None = STAFF_GROUP) -> bool:
    """Whether the connecting process may watch and act: root, this service's own user, or a user in `group`
    (by the group database, or the process's own group). Unknown credentials are refused."""
    credentials = peer_credentials(sock)
    if credentials is None:
        return not hasattr(socket, "SO_PEERCRED")     # no way to ask (not Linux): the file's mode decides
    _pid, uid, gid = credentials
    if uid in (0, os.geteuid()):
        return True
    staff = appliance_gid(group)
    if staff is None:
        return False
    if gid == staff:
        return True
    try:
        user = pwd.getpwuid(uid)
        return staff in os.getgrouplist(user.pw_name, user.pw_gid)
    except (KeyError, OSError):
        return False

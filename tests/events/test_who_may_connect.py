"""Who may watch calls and act on them: root, the service's own user, or a member of `appliance-staff`."""

from __future__ import annotations

import grp
import os
import pwd
import shutil
import struct
import subprocess
import sys

import pytest

from appliance.events import EventBus, MonitorServer
from appliance.events import socket_file
from appliance.events.socket_file import peer_allowed


class Peer:
    """A connected socket as SO_PEERCRED describes its other end."""

    def __init__(self, uid: int, gid: int):
        self.raw = struct.pack("3i", 4242, uid, gid)

    def getsockopt(self, *_):
        return self.raw


def a_stranger() -> pwd.struct_passwd:
    return next(user for user in pwd.getpwall() if user.pw_uid not in (0, os.geteuid()))


def test_the_service_user_and_root_may_connect_and_a_stranger_may_not(monkeypatch):
    monkeypatch.setattr(socket_file, "appliance_gid", lambda group=None: None)     # no staff group on this box
    stranger = a_stranger()
    assert peer_allowed(Peer(os.geteuid(), os.getegid()))
    assert peer_allowed(Peer(0, 0))
    assert not peer_allowed(Peer(stranger.pw_uid, stranger.pw_gid))


def test_a_member_of_the_staff_group_may_connect(monkeypatch):
    stranger = a_stranger()
    staff_gid = 54321
    monkeypatch.setattr(socket_file, "appliance_gid", lambda group=None: staff_gid)
    assert peer_allowed(Peer(stranger.pw_uid, staff_gid))                        # its process runs in the group
    assert not peer_allowed(Peer(stranger.pw_uid, stranger.pw_gid))
    monkeypatch.setattr(socket_file.os, "getgrouplist", lambda name, gid: [gid, staff_gid])
    assert peer_allowed(Peer(stranger.pw_uid, stranger.pw_gid))                  # a member by the group file


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to connect as another user")
def test_a_process_of_another_user_gets_no_call_data(short_dir):
    stranger = next(u for u in pwd.getpwall() if u.pw_name == "nobody")
    os.chmod(short_dir, 0o755)
    path = short_dir / "m.sock"
    with MonitorServer(EventBus(), path, group=grp.getgrgid(0).gr_name):
        os.chmod(path, 0o666)                            # even with the file opened to everyone by mistake
        probe = ("import socket; s = socket.socket(socket.AF_UNIX); s.connect(%r); s.settimeout(3); "
                 "print(s.recv(4096).decode())" % str(path))
        seen = subprocess.run([shutil.which("python3", path="/usr/bin:/bin") or sys.executable, "-c", probe], user=stranger.pw_uid, group=stranger.pw_gid,
                              extra_groups=[], capture_output=True, text=True, timeout=20)
    assert '"type":"refused"' in seen.stdout and "hello" not in seen.stdout, seen

"""A command may act for a staff account signed in to the browser monitor only when it comes from the service's
own user (the web monitor runs as it); a member of staff's own monitor cannot name anyone."""

from __future__ import annotations

import grp
import json
import os
import pwd
import shutil
import subprocess
import sys

import pytest

from appliance.events import EventBus, MonitorServer, StaffActionLog, StaffCommandHandler
from appliance.events import monitor_server

from .conftest import read_messages
from .test_monitor_server import command, connect, replay_done
from .test_staff_commands import open_callback

ME = pwd.getpwuid(os.geteuid()).pw_name


def serve(clinic, short_dir) -> MonitorServer:
    return MonitorServer(EventBus(), short_dir / "m.sock", handler=StaffCommandHandler(clinic.db_path),
                         action_log=StaffActionLog(clinic.db_path), group=grp.getgrgid(0).gr_name)


def actions(clinic):
    return clinic.db.execute("SELECT user, claimed_user, action, ok, via FROM staff_actions").fetchall()


def test_the_web_monitors_process_acts_as_the_signed_in_account(clinic, short_dir):
    callback_id = open_callback(clinic)
    with serve(clinic, short_dir):
        monitor = connect(short_dir / "m.sock")
        read_messages(monitor, replay_done)
        result = command(monitor, id="c1", action="mark_callback_done", callback_id=callback_id, user=ME,
                         staff="alice", note="rang back")
        assert result["ok"] is True and "done by alice" in result["message"]
        monitor.close()
    (row,) = clinic.store.callback_requests(None)
    assert (row["status"], row["done_by"], row["note"]) == ("done", "alice", "alice: rang back")
    assert actions(clinic) == [("alice", ME, "mark_callback_done", 1, "web")]


def test_anyone_else_naming_an_account_is_refused_and_recorded_as_themselves(clinic, short_dir, monkeypatch):
    monkeypatch.setattr(monitor_server, "peer_may_name_staff", lambda sock: False)   # a staff member's process
    callback_id = open_callback(clinic)
    with serve(clinic, short_dir):
        monitor = connect(short_dir / "m.sock")
        read_messages(monitor, replay_done)
        result = command(monitor, id="c1", action="mark_callback_done", callback_id=callback_id, user=ME,
                         staff="alice")
        assert result["ok"] is False and "only the browser monitor" in result["message"]
        plain = command(monitor, id="c2", action="add_callback_note", callback_id=callback_id, user=ME, note="hi")
        assert plain["ok"] is True                                   # without a name it is their own action
        monitor.close()
    assert clinic.store.callback_requests(None)[0]["status"] == "open"
    assert actions(clinic) == [(ME, "alice", "mark_callback_done", 0, "service"),
                               (ME, ME, "add_callback_note", 1, "service")]


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to connect as another user")
def test_a_real_process_of_a_staff_member_cannot_name_an_account(clinic, short_dir):
    """`nobody` in the staff group (here: root's group) may watch and act as itself, never as someone else."""
    stranger = pwd.getpwnam("nobody")
    callback_id = open_callback(clinic)
    os.chmod(short_dir, 0o755)
    wire = json.dumps({"type": "command", "id": "c1", "action": "mark_callback_done", "callback_id": callback_id,
                       "user": "nobody", "staff": "alice"})
    probe = (
        "import socket, time; s = socket.socket(socket.AF_UNIX); s.connect(%r); s.settimeout(10)\n"
        "s.sendall(%r.encode() + b'\\n'); data = b''\n"
        "while b'command_result' not in data:\n"
        "    chunk = s.recv(65536)\n"
        "    if not chunk: break\n"
        "    data += chunk\n"
        "print(data.decode())" % (str(short_dir / "m.sock"), wire))
    with serve(clinic, short_dir):
        seen = subprocess.run([shutil.which("python3", path="/usr/bin:/bin") or sys.executable, "-c", probe],
                              user=stranger.pw_uid, group=0, extra_groups=[], capture_output=True, text=True,
                              timeout=30)
    assert '"ok":false' in seen.stdout and "only the browser monitor" in seen.stdout, seen
    assert clinic.store.callback_requests(None)[0]["status"] == "open"
    assert actions(clinic) == [("nobody", "alice", "mark_callback_done", 0, "service")]

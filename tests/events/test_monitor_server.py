"""The monitor socket: private, replays the calls in progress, never lets a monitor slow a call."""

import grp
import json
import os
import signal
import socket
import stat
import subprocess
import sys
import time

import pytest

from appliance.events import (CallEventPublisher, CommandResult, EventBus, MonitorServer, MonitorSocketError,
                              StaffActionLog)
from appliance.events.socket_file import monitor_socket_path

from .conftest import DEMO_LINES, read_messages


def connect(path) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(str(path))
    return sock


def kinds(messages):
    return [m.get("kind", m["type"]) for m in messages]


def replay_done(messages):
    return any(m["type"] == "replay_done" for m in messages)


def test_the_socket_is_0660_in_the_appliance_group_and_never_world_accessible(short_dir):
    group = grp.getgrgid(os.getgid()).gr_name   # a group this process may give the socket
    with MonitorServer(EventBus(), short_dir / "monitor.sock", group=group):
        info = os.stat(short_dir / "monitor.sock")
        assert stat.S_ISSOCK(info.st_mode)
        assert stat.S_IMODE(info.st_mode) == 0o660
        assert info.st_gid == grp.getgrnam(group).gr_gid
        assert not list(short_dir.glob(".monitor-*"))     # the private bind folder is gone
    assert not (short_dir / "monitor.sock").exists()      # removed on close


def test_the_socket_defaults_under_the_data_folder_and_the_environment_overrides_it(monkeypatch, tmp_path):
    monkeypatch.delenv("APPLIANCE_MONITOR_SOCKET", raising=False)
    monkeypatch.setenv("APPLIANCE_DATA", str(tmp_path))
    assert monitor_socket_path() == tmp_path / "monitor.sock"
    monkeypatch.setenv("APPLIANCE_MONITOR_SOCKET", "/run/appliance/monitor.sock")
    assert str(monitor_socket_path()) == "/run/appliance/monitor.sock"


def test_a_monitor_joining_mid_call_gets_the_turns_so_far_then_the_rest_live(clinic, short_dir):
    bus = EventBus()
    with MonitorServer(bus, short_dir / "m.sock"):
        engine = clinic.start(CallEventPublisher(clinic.recorder, bus))
        engine.turn(DEMO_LINES[0])
        engine.turn(DEMO_LINES[1])
        monitor = connect(short_dir / "m.sock")
        joined = read_messages(monitor, replay_done)
        assert joined[0]["type"] == "hello" and joined[0]["replay"] == len(joined) - 2
        turns = [m["fields"]["seq"] for m in joined if m.get("kind") == "turn"]
        assert turns == [0, 1, 2] and kinds(joined)[1] == "call_started"
        engine.turn(DEMO_LINES[2])
        live = read_messages(monitor, lambda ms: any(m.get("kind") == "turn" for m in ms))
        assert [m["fields"]["seq"] for m in live if m.get("kind") == "turn"] == [3]
        seqs = [m["seq"] for m in joined + live if m["type"] == "event"]
        assert seqs == list(range(1, len(seqs) + 1))           # no gap, no repeat between replay and live
        monitor.close()


def test_several_monitors_watch_at_once(clinic, short_dir):
    bus = EventBus()
    with MonitorServer(bus, short_dir / "m.sock"):
        monitors = [connect(short_dir / "m.sock") for _ in range(3)]
        for monitor in monitors:
            read_messages(monitor, replay_done)
        engine = clinic.start(CallEventPublisher(clinic.recorder, bus))
        got = [read_messages(m, lambda ms: any(x.get("kind") == "turn" for x in ms)) for m in monitors]
        assert all(kinds(g)[0] == "call_started" for g in got)
        assert engine.ctx.call_id in {m["call_id"] for m in got[0]}
        for monitor in monitors:
            monitor.close()


def test_a_monitor_that_stops_reading_never_blocks_write_batch(clinic, short_dir):
    bus = EventBus(client_queue=200)
    publisher = CallEventPublisher(clinic.recorder, bus)
    with MonitorServer(bus, short_dir / "m.sock") as server:
        stuck = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        stuck.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        stuck.connect(str(short_dir / "m.sock"))                       # ...and never reads
        deadline = time.monotonic() + 5
        while bus.subscribers < 1 and time.monotonic() < deadline:
            time.sleep(0.01)
        engine = clinic.start(publisher)
        call_id = engine.ctx.call_id
        big = "a long reply " * 300
        slowest = 0.0
        started = time.perf_counter()
        for seq in range(1, 401):
            began = time.perf_counter()
            publisher.write_batch([("turn", {"call_id": call_id, "seq": seq, "caller_text": "hello",
                                             "agent_text": big, "state": "greeting", "waiting_for": "intent",
                                             "trigger": None, "at": clinic.clock.now()})])
            slowest = max(slowest, time.perf_counter() - began)
        assert time.perf_counter() - started < 10.0
        assert slowest < 0.5, f"one write_batch took {slowest:.3f} s"
        assert bus.dropped == 1 and bus.subscribers == 0
        deadline = time.monotonic() + 5
        while server.clients and time.monotonic() < deadline:
            time.sleep(0.01)
        assert server.clients == 0                                     # its connection was closed
        assert len(clinic.recorder.call_record(call_id)["turns"]) == 401
        stuck.close()


MONITOR_PROCESS = r"""
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
print("connected", flush=True)
while s.recv(65536):
    pass
"""


def test_killing_a_monitor_mid_call_does_not_disturb_the_call(clinic, short_dir):
    bus = EventBus()
    with MonitorServer(bus, short_dir / "m.sock") as server:
        engine = clinic.start(CallEventPublisher(clinic.recorder, bus))
        monitor = subprocess.Popen([sys.executable, "-c", MONITOR_PROCESS, str(short_dir / "m.sock")],
                                   stdout=subprocess.PIPE, text=True)
        try:
            assert monitor.stdout.readline().strip() == "connected"
            engine.turn(DEMO_LINES[0])
            engine.turn(DEMO_LINES[1])
            os.kill(monitor.pid, signal.SIGKILL)
            monitor.wait(5)
            for line in DEMO_LINES[2:]:
                engine.turn(line)                      # raises nothing; the record is complete
        finally:
            if monitor.poll() is None:
                monitor.kill()
                monitor.wait(5)
            monitor.stdout.close()
        assert engine.outcome() == "booked" and engine.unsaved_records == 0
        assert len(clinic.recorder.call_record(engine.ctx.call_id)["turns"]) == len(DEMO_LINES) + 1
        deadline = time.monotonic() + 5
        while server.clients and time.monotonic() < deadline:
            time.sleep(0.01)
        assert server.clients == 0
        again = connect(short_dir / "m.sock")          # and the next monitor is served as before
        assert read_messages(again, replay_done)[0]["type"] == "hello"
        again.close()


def test_a_stale_socket_is_replaced_but_a_live_one_is_refused(short_dir):
    path = short_dir / "m.sock"
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(path))
    stale.close()                                      # the file stays, nobody listens
    with MonitorServer(EventBus(), path):
        assert read_messages(connect(path), replay_done)[0]["type"] == "hello"
        with pytest.raises(MonitorSocketError, match="already publishing"):
            MonitorServer(EventBus(), path).start()


def test_a_path_that_is_not_a_socket_or_too_long_is_refused_naming_the_fix(short_dir):
    (short_dir / "file").write_text("not a socket")
    with pytest.raises(MonitorSocketError, match="not a socket"):
        MonitorServer(EventBus(), short_dir / "file").start()
    with pytest.raises(MonitorSocketError, match="APPLIANCE_MONITOR_SOCKET"):
        MonitorServer(EventBus(), short_dir / ("x" * 120)).start()


def command(sock, **fields):
    sock.sendall((json.dumps({"type": "command", **fields}) + "\n").encode())
    return next(m for m in read_messages(sock, lambda ms: any(m["type"] == "command_result" for m in ms))
                if m["type"] == "command_result")


def test_staff_commands_reach_the_handler_as_the_os_user_and_are_recorded(clinic, short_dir):
    received = []

    def handler(cmd):
        received.append(cmd)
        return CommandResult(True, f"transferring {cmd.call_id}")

    log = StaffActionLog(clinic.db_path)
    with MonitorServer(EventBus(), short_dir / "m.sock", handler=handler, action_log=log):
        monitor = connect(short_dir / "m.sock")
        read_messages(monitor, replay_done)
        result = command(monitor, id="c1", action="transfer_now", call_id="call-7", user="someone-else")
        assert result == {"type": "command_result", "id": "c1", "ok": True, "message": "transferring call-7"}
        refused = command(monitor, id="c2", action="dance", user="x")
        assert refused["ok"] is False and "unknown staff action" in refused["message"]
        monitor.close()
    me = __import__("pwd").getpwuid(os.getuid()).pw_name
    assert [(c.action, c.call_id, c.user) for c in received] == [("transfer_now", "call-7", me)]
    rows = clinic.db.execute("SELECT user, claimed_user, action, call_id, ok, via FROM staff_actions").fetchall()
    assert rows == [(me, "someone-else", "transfer_now", "call-7", 1, "service")]


def test_without_a_handler_commands_are_refused_and_still_recorded(clinic, short_dir):
    with MonitorServer(EventBus(), short_dir / "m.sock", action_log=StaffActionLog(clinic.db_path)):
        monitor = connect(short_dir / "m.sock")
        read_messages(monitor, replay_done)
        result = command(monitor, id="c1", action="end_call", call_id="call-1", user="alice")
        assert result["ok"] is False and "not taking staff actions" in result["message"]
        monitor.close()
    assert clinic.db.execute("SELECT action, ok FROM staff_actions").fetchall() == [("end_call", 0)]

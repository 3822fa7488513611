"""The text demo publishes its call: a monitor connected to the socket sees all of it."""

import threading

import yaml

from appliance import paths
from appliance.events import CallEventPublisher, EventBus, MonitorServer, live_demo_player, serve_for_demo
from appliance.simulate.runner import play_scenario, play_text
from appliance.simulate.scenario import scenario_from_mapping

from .test_monitor_server import connect, read_messages


def demo_scenario():
    data = yaml.safe_load((paths.REPO_ROOT / "config" / "demo" / "demo-call.yaml").read_text())
    data["clinic"] = yaml.safe_load((paths.REPO_ROOT / "config" / "clinic.demo.yaml").read_text())
    return scenario_from_mapping(data)


def test_a_monitor_sees_the_whole_demo_call_from_the_greeting_to_the_end(demo_flow, short_dir, tmp_path):
    scenario, clinic = demo_scenario()
    publisher = serve_for_demo(tmp_path / "demo.db", socket_path=short_dir / "m.sock")
    monitor = connect(short_dir / "m.sock")
    hello = read_messages(monitor, lambda ms: any(m["type"] == "replay_done" for m in ms))[0]
    assert hello["database"] == str((tmp_path / "demo.db").resolve())
    got: list[dict] = []
    reader = threading.Thread(target=lambda: got.extend(
        read_messages(monitor, lambda ms: any(m.get("kind") == "call_ended" for m in ms), timeout=20)))
    reader.start()
    played = play_scenario(scenario, clinic, demo_flow, db_path=tmp_path / "demo.db",
                           player=live_demo_player(play_text, publisher, turn_delay=0.01))
    reader.join(25)
    publisher.close()
    kinds = [m["kind"] for m in got if m["type"] == "event"]
    assert kinds[0] == "call_started" and "call_ended" in kinds
    greeting = next(m for m in got if m.get("kind") == "turn")
    assert greeting["fields"]["seq"] == 0 and greeting["fields"]["agent_text"] == played.results[0].reply
    assert not (short_dir / "m.sock").exists()
    monitor.close()


def test_the_demo_still_plays_when_the_socket_is_taken(demo_flow, short_dir, tmp_path):
    with MonitorServer(EventBus(), short_dir / "m.sock"):
        publisher = serve_for_demo(tmp_path / "demo.db", socket_path=short_dir / "m.sock")
        assert isinstance(publisher, CallEventPublisher) and publisher.bus is None
        scenario, clinic = demo_scenario()
        played = play_scenario(scenario, clinic, demo_flow, db_path=tmp_path / "demo.db",
                               player=live_demo_player(play_text, publisher))
        publisher.close()
        assert played.results[-1].outcome == "booked"
        assert played.recorder.call_record(played.call_id)["call"]["outcome"] == "booked"

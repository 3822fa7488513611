"""The `appliance` command as a person uses it."""

import os
import stat
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
DEMO_CLINIC = ROOT / "config" / "clinic.demo.yaml"


def appliance(*args, input=None, env=None):
    return subprocess.run([sys.executable, "-m", "appliance.cli", *map(str, args)], capture_output=True, text=True,
                          cwd=ROOT, input=input, env={**os.environ, **(env or {})}, timeout=120)


def test_db_init_builds_a_private_database(tmp_path):
    target = tmp_path / "clinic.db"
    run = appliance("db", "init", "--clinic", DEMO_CLINIC, "--db", target)
    assert run.returncode == 0, run.stderr
    assert "Harbourside Health" in run.stdout
    assert stat.S_IMODE(target.stat().st_mode) == 0o640        # the owner writes, the staff group reads
    again = appliance("db", "init", "--clinic", DEMO_CLINIC, "--db", target)
    assert again.returncode != 0 and "--replace" in again.stderr


def test_db_init_with_a_bad_clinic_names_file_and_path_and_writes_nothing(tmp_path):
    data = yaml.safe_load(DEMO_CLINIC.read_text())
    data["services"][1]["minutes"] = "half an hour"
    bad = tmp_path / "bad-clinic.yaml"
    bad.write_text(yaml.safe_dump(data))
    target = tmp_path / "clinic.db"
    run = appliance("db", "init", "--clinic", bad, "--db", target)
    assert run.returncode != 0
    assert "bad-clinic.yaml" in run.stderr and "services[1].minutes" in run.stderr
    assert not target.exists()
    assert list(tmp_path.iterdir()) == [bad]


def test_chat_at_the_keyboard(tmp_path):
    lines = "what are your opening hours?\nno thanks, bye\n"
    run = appliance("chat", "--clinic", DEMO_CLINIC, "--caller-id", "0491 570 006", input=lines)
    assert run.returncode == 0, run.stderr
    assert "Thank you for calling Harbourside Health" in run.stdout
    assert "greeting · waiting for intent" in run.stdout
    assert "Monday" in run.stdout
    assert "call ended: info" in run.stdout


def test_chat_hang_up_with_end_of_input():
    run = appliance("chat", "--clinic", DEMO_CLINIC, input="")
    assert run.returncode == 0
    assert "caller hung up · outcome abandoned" in run.stdout


def test_demo_call_completes_a_booking(tmp_path):
    run = appliance("demo", "--text", env={"APPLIANCE_DATA": str(tmp_path)})
    assert run.returncode == 0, run.stdout + run.stderr
    assert "call ended: outcome booked" in run.stdout
    assert run.stdout.strip().splitlines()[-1].startswith("PASS demo call")
    assert (tmp_path / "demo.db").exists()
    assert stat.S_IMODE((tmp_path / "demo.db").stat().st_mode) == 0o640

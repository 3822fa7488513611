"""The scenario runner as a command: every scenario file, broken files, JSON lines."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "tests" / "scenarios"
OUTSIDE = ROOT / "tests" / "scenarios_outside"
EXAMPLE = ROOT.parent / "shared" / "scenarios" / "example-reschedule.yaml"


def simulate(*args):
    return subprocess.run([sys.executable, "-m", "appliance.cli", "simulate", *map(str, args)],
                          capture_output=True, text=True, cwd=ROOT)


def test_every_project_scenario_passes():
    run = simulate(SCENARIOS)
    lines = run.stdout.strip().splitlines()
    files = sorted(SCENARIOS.glob("*.yaml"))
    assert len(files) >= 30
    assert len(lines) == len(files) + 1
    assert lines[-1] == f"{len(files)} passed, 0 failed", run.stdout
    assert run.returncode == 0


def test_every_scenario_written_from_outside_passes():
    """Calls written by someone who read only the scenario format (SCENARIOS.md), for clinics of their own, in
    their own words: what a clinic's callers say, not what the generator or the rules were written around."""
    run = simulate(OUTSIDE)
    files = sorted(OUTSIDE.glob("*.yaml"))
    assert len(files) >= 30
    assert run.stdout.strip().splitlines()[-1] == f"{len(files)} passed, 0 failed", run.stdout
    assert run.returncode == 0


def test_every_outside_scenario_left_failing_is_accounted_for_in_the_results():
    """A call from outside that still fails waits in pending/, and the results say why, so that a failure left is
    a decision on record rather than a file forgotten (and a benchmark rewriting its own section cannot lose
    the list: it has markers of its own)."""
    results = (ROOT / "bench" / "RESULTS.md").read_text(encoding="utf-8")
    start, end = "<!-- outside-scenarios:start -->", "<!-- outside-scenarios:end -->"
    assert start in results and end in results
    section = results[results.index(start):results.index(end)]
    unexplained = [f.stem for f in sorted((OUTSIDE / "pending").glob("*.yaml")) if f"`{f.stem}" not in section]
    assert not unexplained


@pytest.mark.skipif(not EXAMPLE.exists(), reason="shared/ not beside the checkout")
def test_the_shared_example_passes_unmodified():
    run = simulate(EXAMPLE)
    assert run.stdout.splitlines() == ["PASS returning patient moves her follow-up to Thursday", "1 passed, 0 failed"]


def _variant(tmp_path, name, change):
    data = yaml.safe_load((SCENARIOS / "example-reschedule.yaml").read_text())
    data["name"] = name
    change(data)
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def test_broken_files_fail_alone_with_the_yaml_path(tmp_path):
    shutil.copy(SCENARIOS / "example-reschedule.yaml", tmp_path / "a-good.yaml")
    _variant(tmp_path, "b-missing-opening", lambda d: d["caller"].pop("opening"))
    _variant(tmp_path, "c-bad-date", lambda d: d.update(now="2026-13-45T09:00"))
    _variant(tmp_path, "d-unknown-service", lambda d: d["clinic"]["practitioners"][0]["services"].append("yoga"))
    _variant(tmp_path, "e-unknown-expected-service", lambda d: d["expect"]["appointments"][0].update(service="yoga"))
    (tmp_path / "f-not-yaml.yaml").write_text("name: [unclosed\n")
    run = simulate(tmp_path)
    lines = run.stdout.strip().splitlines()
    assert lines[0] == "PASS returning patient moves her follow-up to Thursday"
    assert lines[1] == "FAIL b-missing-opening: invalid scenario: caller.opening: missing"
    assert lines[2].startswith("FAIL c-bad-date: invalid scenario: now: ")
    assert lines[3].startswith("FAIL d-unknown-service: invalid scenario: clinic.practitioners[0].services")
    assert "yoga" in lines[3]
    assert lines[4] == "FAIL e-unknown-expected-service: invalid scenario: expect.appointments[0].service: unknown service id 'yoga'"
    assert lines[5].startswith("FAIL f-not-yaml: invalid scenario: line ") and "not valid YAML" in lines[5]
    assert lines[-1] == "1 passed, 5 failed"
    assert run.returncode == 1


def test_wrong_expectation_is_a_fail_not_a_crash(tmp_path):
    _variant(tmp_path, "wrong-slot", lambda d: d["expect"]["appointments"][0].update(start="2026-11-26T12:00"))
    run = simulate(tmp_path)
    assert run.stdout.startswith("FAIL wrong-slot: missing appointment p1 followup 2026-11-26T12:00 booked")
    assert "unexpected appointment change p1 followup 2026-11-26T12:15 booked" in run.stdout


def test_json_lines(tmp_path):
    shutil.copy(SCENARIOS / "example-reschedule.yaml", tmp_path / "x.yaml")
    run = simulate("--json", tmp_path)
    records = [json.loads(line) for line in run.stdout.splitlines()]
    assert len(records) == 1
    rec = records[0]
    assert rec["passed"] is True and rec["failures"] == [] and rec["outcome"] == "rescheduled"
    assert rec["turns"][0]["caller"] == "" and rec["turns"][0]["waiting_for"] == "intent"
    assert {"name": "RescheduleAppointment", "state": "commit_reschedule", "kind": "ok"} in rec["tools"]
    assert {"patient": "p1", "service": "followup", "practitioner": "lee", "location": "city",
            "start": "2026-11-26T12:15", "status": "booked"} in rec["appointments"]
    assert rec["patients_created"] == [] and rec["callbacks"] == 0 and rec["transferred"] is False
    assert rec["identified"] == "p1"  # the patient the name and date of birth matched


@pytest.mark.parametrize("option, value, choices", [
    ("--caller-voice", "espeak-en-nz", "'piper-joe', 'espeak-en-us', 'espeak-en-gb', 'flite-slt', 'flite-rms', 'flite-awb'"),
    ("--line", "satellite", "'clean', 'g711', 'noisy', 'lossy'"),
])
def test_an_unknown_caller_voice_or_line_is_refused_with_the_choices(option, value, choices):
    run = simulate("--spoken", "--fast", option, value, SCENARIOS / "example-reschedule.yaml")
    assert run.returncode == 2
    assert f"'{value}' is not one of {choices}" in run.stderr


def test_a_clean_line_is_refused_over_sip_before_any_model_loads():
    run = simulate("--sip", "--line", "clean", SCENARIOS / "example-reschedule.yaml")
    assert run.returncode == 2 and "G.711" in run.stderr and "loading" not in run.stderr


def test_a_caller_voice_needs_a_spoken_call():
    run = simulate("--caller-voice", "flite-slt", SCENARIOS / "example-reschedule.yaml")
    assert run.returncode == 2 and "--spoken or --sip" in run.stderr

"""The seeded scenario generator (bench/generator): reproducible files, a frozen split, valid
scenarios, enough ways of saying each thing, and a slot oracle that follows SCENARIOS.md."""

from __future__ import annotations

import json
import sys
import unicodedata
from collections import Counter
from datetime import datetime
from pathlib import Path

import pytest
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from generator import phrasings, slot_oracle  # noqa: E402
from generator.clinics import clinic_plans, generated_clinics  # noqa: E402
from generator.write import LOADER, write  # noqa: E402

from appliance.clinic import clinic_from_mapping  # noqa: E402
from appliance.simulate.scenario import load_scenario, scenario_from_mapping  # noqa: E402

SEED = 2026
COUNT = 320


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    out = tmp_path_factory.mktemp("generated")
    return out, write(out, SEED, COUNT)


@pytest.fixture(scope="module")
def files(generated):
    """Every written file, read back: path -> its data."""
    out, _ = generated
    return {path: yaml.load(path.read_text(encoding="utf-8"), Loader=LOADER) for path in sorted(out.glob("*/*.yaml"))}


def test_the_same_seed_writes_the_same_bytes_and_a_shorter_run_keeps_them(generated, tmp_path):
    out, scenarios = generated
    shorter = write(tmp_path, SEED, 60)
    assert [g.path for g in shorter] == [g.path for g in scenarios[:60]]
    for g in shorter:  # the same files, byte for byte, in the same split: the test split never moves
        assert (tmp_path / g.path).read_bytes() == (out / g.path).read_bytes(), g.path


def test_another_seed_writes_other_scenarios(generated, tmp_path):
    _, scenarios = generated
    other = write(tmp_path, SEED + 1, 10)
    assert [g.text for g in other] != [g.text for g in scenarios[:10]]


def test_at_least_300_scenarios_named_by_family_and_mostly_bookings(generated):
    out, scenarios = generated
    files = sorted(out.glob("*/*.yaml"))
    assert len(files) == len(scenarios) >= 300
    for g in scenarios:
        assert (out / g.split / f"{g.family}-{g.index:04d}.yaml").exists()
    families = Counter(g.family for g in scenarios)
    assert len(families) >= 14
    assert sum(n for f, n in families.items() if f.startswith("book-")) > len(scenarios) / 2


def test_dev_and_test_are_disjoint(generated):
    out, scenarios = generated
    dev = {p.name for p in (out / "dev").glob("*.yaml")}
    test = {p.name for p in (out / "test").glob("*.yaml")}
    assert dev and test and not dev & test
    assert 0.5 <= len(dev) / len(scenarios) <= 0.7
    manifest = json.loads((out / "manifest.json").read_text())["scenarios"]
    assert [m["file"] for m in manifest] == [g.path for g in scenarios]


def test_every_file_is_a_valid_scenario(files):
    for path, data in files.items():
        scenario, _ = scenario_from_mapping(data)
        assert scenario.expect.outcome, path
        assert not {"closures", "blocks"} & set(scenario.clinic), path
    for path in list(files)[:: len(files) // 5]:  # the product's own file loader, on a few
        load_scenario(path)


def test_callers_differ_in_caller_id_names_and_bookings(files):
    data = list(files.values())
    assert any(d["caller_id"] == "" for d in data) and any(d["caller_id"] for d in data)
    names = [p["first_name"] + " " + p["last_name"] for d in data for p in d["clinic"]["patients"]]
    assert all(unicodedata.normalize("NFC", n) == n for n in names)
    assert any(not n.isascii() for n in names) and any(n.isascii() for n in names)
    shared = [d for d in data if d["caller_id"] and
              sum(p.get("phone") == d["caller_id"] for p in d["clinic"]["patients"]) == 2]
    assert shared
    created = [d for d in data if d["expect"].get("patients_created")]
    assert any(d["caller_id"] == "" for d in created) and any(d["caller_id"] for d in created)
    asked_which = [d for d in data if "booking_choice" in d["caller"]["answers"] and d["expect"]["outcome"] == "cancelled"]
    assert asked_which


def test_every_answer_kind_has_at_least_eight_phrasings():
    kinds = phrasings.phrasings()
    wanted = {"full_name", "dob", "phone", "yes", "no", "time_preference", "slot_choice", "service", "location",
              "booking_choice", "anything_else", "callback_reason", "price_question", "hours_question",
              "address_question", "dob_correction", "name_correction", "change_day"}
    wanted |= {f"intent.{f}" for f in ("book", "book_new", "reschedule", "cancel", "query", "price", "hours",
                                       "address", "callback", "human")}
    assert wanted <= kinds.keys()
    for kind, entries in kinds.items():
        assert len(entries) >= phrasings.MIN_PHRASINGS >= 8, kind


def test_three_clinics_in_three_regions_with_their_own_words():
    plans = clinic_plans()
    assert {p.region for p in plans} == {"US", "GB", "AU"}
    assert len({p.name for p in plans}) == len(plans) >= 3
    assert any(p.has_transfer for p in plans) and any(not p.has_transfer for p in plans)
    for block in generated_clinics():
        clinic = clinic_from_mapping(block)
        assert clinic.region in {"US", "GB", "AU"}
        assert all(s.get("aliases") for s in block["services"])


# ---- the slot oracle on small hand-made cases (SCENARIOS.md "Which slots the agent offers")

MONDAY = datetime(2026, 11, 23)


def _clinic(appointments=(), practitioners=None):
    return {
        "hours": {"mon": ["09:00-12:00", "13:00-17:00"]},
        "services": [{"id": "short", "minutes": 30}, {"id": "long", "minutes": 60}],
        "practitioners": practitioners or [
            {"id": "ann", "services": ["short", "long"], "locations": ["main"]},
            {"id": "bob", "services": ["short"], "locations": ["main"]},
        ],
        "appointments": [{"practitioner": p, "service": s, "start": f"2026-11-23T{t}"} for p, s, t in appointments],
    }


def _offer(clinic, service, window, now=MONDAY.replace(hour=8)):
    offered = slot_oracle.offer(clinic, service, "main", window, now)
    return [(s.start.strftime("%H:%M"), s.practitioner) for s in offered.slots], offered.in_window


MORNING = slot_oracle.Window(MONDAY, MONDAY.replace(day=24), None, datetime.min.replace(hour=12).time())
AFTERNOON = slot_oracle.Window(MONDAY, MONDAY.replace(day=24), datetime.min.replace(hour=12).time(),
                               datetime.min.replace(hour=17).time())


def test_oracle_two_earliest_distinct_times_the_first_listed_practitioner_takes_each():
    assert _offer(_clinic(), "short", MORNING) == ([("09:00", "ann"), ("09:15", "ann")], True)
    swapped = _clinic(practitioners=list(reversed(_clinic()["practitioners"])))
    assert _offer(swapped, "short", MORNING) == ([("09:00", "bob"), ("09:15", "bob")], True)


def test_oracle_a_booked_appointment_blocks_overlapping_candidates():
    busy = _clinic([("ann", "long", "09:00"), ("bob", "short", "09:00")])
    # 09:15 overlaps both; at 09:30 Ann is still busy, Bob is free
    assert _offer(busy, "short", MORNING) == ([("09:30", "bob"), ("09:45", "bob")], True)


def test_oracle_a_service_that_does_not_fit_before_closing_is_not_offered():
    starts = [s.strftime("%H:%M") for s in slot_oracle.candidate_starts(_clinic(), MONDAY.date(), 60)]
    assert "11:00" in starts and "11:15" not in starts and "12:00" not in starts and starts[-1] == "16:00"
    late = MONDAY.replace(hour=16, minute=10)
    offered, in_window = _offer(_clinic(), "long", AFTERNOON, now=late)
    assert not in_window and offered[0] == ("09:00", "ann")  # next Monday: nothing else fits


def test_oracle_starts_after_now_and_offers_the_first_after_a_full_window():
    assert _offer(_clinic(), "short", MORNING, now=MONDAY.replace(hour=9, minute=5))[0][0] == ("09:15", "ann")
    full = _clinic([(p, "long", f"{h:02d}:00") for p in ("ann",) for h in (9, 10, 11)]
                   + [("bob", "short", f"{h:02d}:{m:02d}") for h in (9, 10, 11) for m in (0, 30)])
    assert _offer(full, "short", MORNING) == ([("13:00", "ann"), ("13:15", "ann")], False)

from pathlib import Path

import pytest
import yaml

from appliance.clinic import ClinicFileError, load_clinic_file, load_clinic_text

ROOT = Path(__file__).resolve().parents[2]


def write(tmp_path, text, name="clinic.yaml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_top_level_clinic_block(tmp_path, clinic_data):
    path = write(tmp_path, yaml.safe_dump(clinic_data))
    assert load_clinic_file(path).name == "Harbour Physio"


def test_wrapped_in_clinic_key(tmp_path, clinic_data):
    path = write(tmp_path, yaml.safe_dump({"clinic": clinic_data}))
    assert load_clinic_file(path).name == "Harbour Physio"


def test_scenario_file_gives_its_clinic(tmp_path, clinic_data):
    scenario = {"name": "x", "now": "2026-11-23T09:05:00", "clinic": clinic_data, "caller": {}, "expect": {}}
    path = write(tmp_path, yaml.safe_dump(scenario))
    assert load_clinic_file(path).name == "Harbour Physio"


def test_error_names_file_path_and_line(tmp_path, clinic_data):
    clinic_data["services"][1]["minutes"] = 0
    path = write(tmp_path, yaml.safe_dump({"clinic": clinic_data}, sort_keys=False))
    with pytest.raises(ClinicFileError) as caught:
        load_clinic_file(path)
    error = caught.value
    assert error.problems[0][0] == "clinic.services[1].minutes"
    line = str(error)
    assert line.startswith(f"{path}: clinic.services[1].minutes: ")
    expected_line = next(
        n for n, text in enumerate(path.read_text().splitlines(), 1) if "minutes: 0" in text
    )
    assert line.endswith(f"(line {expected_line})")


def test_one_line_per_problem(tmp_path, clinic_data):
    clinic_data["timezone"] = "Nowhere/Special"
    del clinic_data["services"][0]["name"]
    path = write(tmp_path, yaml.safe_dump(clinic_data))
    with pytest.raises(ClinicFileError) as caught:
        load_clinic_file(path)
    lines = str(caught.value).splitlines()
    assert len(lines) == 2
    assert all(text.startswith(f"{path}: ") for text in lines)
    # a missing key points at the line of the item it is missing from
    assert any("services[0].name: required, but missing (line" in text for text in lines)


def test_yaml_syntax_error_names_line_and_column(tmp_path):
    path = write(tmp_path, "name: Harbour\ntimezone: Australia/Sydney\nhours: [mon: \n  - {unclosed\n")
    with pytest.raises(ClinicFileError) as caught:
        load_clinic_file(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: line ")
    assert "column" in message and "YAML syntax error" in message


def test_yaml_tab_indentation_error(tmp_path):
    path = write(tmp_path, "name: x\nhours:\n\tmon: []\n")
    with pytest.raises(ClinicFileError, match=r"line 3, column 1"):
        load_clinic_file(path)


def test_duplicate_key_is_an_error(tmp_path, clinic_data):
    text = yaml.safe_dump(clinic_data, sort_keys=False).replace("  tue:", "  mon: ['09:00-10:00']\n  tue:", 1)
    path = write(tmp_path, text)
    with pytest.raises(ClinicFileError) as caught:
        load_clinic_file(path)
    assert "duplicate key 'mon'" in str(caught.value)
    assert "line" in str(caught.value)


def test_missing_file(tmp_path):
    with pytest.raises(ClinicFileError, match="no such file"):
        load_clinic_file(tmp_path / "absent.yaml")


def test_empty_file(tmp_path):
    with pytest.raises(ClinicFileError, match="empty"):
        load_clinic_file(write(tmp_path, "# nothing\n"))


def test_top_level_list(tmp_path):
    with pytest.raises(ClinicFileError, match="mapping"):
        load_clinic_file(write(tmp_path, "- a\n- b\n"))


def test_clinic_key_beside_clinic_fields_is_an_unknown_key(tmp_path, clinic_data):
    data = dict(clinic_data, clinic={})
    with pytest.raises(ClinicFileError, match=r": clinic: unknown key"):
        load_clinic_text(yaml.safe_dump(data), file="x.yaml")


def test_unquoted_yaml_dates_work(tmp_path):
    text = (ROOT / "config" / "clinic.demo.yaml").read_text().replace('dob: "1985-03-04"', "dob: 1985-03-04")
    assert "dob: 1985-03-04" in text
    clinic = load_clinic_text(text)
    assert clinic.patients[0].dob.year == 1985


# -- the demo clinic -----------------------------------------------------------


def test_demo_clinic_loads_and_is_rich_enough():
    clinic = load_clinic_file(ROOT / "config" / "clinic.demo.yaml")
    profile = clinic.profile()
    catalog = clinic.catalog()
    assert profile.region == "AU" and profile.timezone == "Australia/Sydney"
    assert len(catalog.locations) >= 2
    assert len(catalog.practitioners) >= 3
    assert any(len(p.locations) >= 2 for p in catalog.practitioners)
    assert len(catalog.services) >= 4
    assert all(s.description and s.aliases and s.minutes and s.price for s in catalog.services)
    assert len(profile.hours[0]) == 2  # split Monday
    assert 5 in profile.hours  # Saturday morning
    assert profile.hours[4][-1].end < profile.hours[1][-1].end  # short Friday
    assert len(clinic.patients) >= 6
    phones = [p.phone for p in clinic.patients]
    shared = {phone for phone in phones if phones.count(phone) > 1}
    assert shared
    sharers = {p.id for p in clinic.patients if p.phone in shared}
    appointments = clinic.appointment_records()
    assert all(a.start.year >= 2026 and (a.start.year > 2026 or a.start.month == 12) for a in appointments)
    assert {a.patient_id for a in appointments} & sharers
    booked = [a.patient_id for a in appointments if a.status == "booked"]
    assert any(booked.count(pid) >= 2 for pid in booked)

from datetime import date, datetime, time

import pytest

from appliance.clinic.schema import ClinicDataError, clinic_from_mapping, format_path
from appliance.domain import TimeRange


def problems_of(data, **kwargs):
    with pytest.raises(ClinicDataError) as caught:
        clinic_from_mapping(data, **kwargs)
    return caught.value.problems


def paths_of(data, **kwargs):
    return [path for path, _ in problems_of(data, **kwargs)]


def test_example_clinic_is_valid(clinic_data):
    clinic = clinic_from_mapping(clinic_data)
    assert clinic.name == "Harbour Physio"
    assert [p.id for p in clinic.patients] == ["p1"]
    assert clinic.appointments[0].start == datetime(2026, 11, 24, 10, 0)
    assert clinic.appointments[0].status == "booked"


def test_profile(clinic_data):
    profile = clinic_from_mapping(clinic_data).profile()
    assert profile.region == "AU"
    assert profile.crisis_number == "13 11 14"
    assert profile.currency_symbol == "$"
    assert profile.transfer_number == "+61290000001"
    assert profile.hours[0] == (TimeRange(time(8), time(12)), TimeRange(time(13), time(17)))
    assert profile.hours[4] == (TimeRange(time(8), time(15)),)
    assert 5 not in profile.hours and 6 not in profile.hours


def test_catalog_keeps_file_order(clinic_data):
    catalog = clinic_from_mapping(clinic_data).catalog()
    assert [s.id for s in catalog.services] == ["initial", "followup"]
    assert [p.id for p in catalog.practitioners] == ["lee", "shah"]
    assert catalog.practitioner("shah").locations == ("city", "north")
    assert catalog.service("initial").aliases == ("first visit", "new patient")
    assert catalog.service("followup").price == 85


def test_records(clinic_data):
    clinic = clinic_from_mapping(clinic_data)
    (patient,) = clinic.patient_records()
    assert patient.dob == date(1985, 3, 4)
    (appointment,) = clinic.appointment_records()
    assert appointment.minutes == 30 and appointment.status == "booked"


def test_optional_extras(clinic_data):
    clinic_data["locations"][0]["aliases"] = ["CBD"]
    clinic_data["services"][0]["description"] = "A first look."
    clinic_data["practitioners"][0]["aliases"] = ["Anna"]
    clinic_data["appointments"][0]["status"] = "cancelled"
    clinic_data["currency_symbol"] = "A$"
    clinic_data["crisis_number"] = "1800 123 456"
    clinic = clinic_from_mapping(clinic_data)
    catalog = clinic.catalog()
    assert catalog.location("city").aliases == ("CBD",)
    assert catalog.service("initial").description == "A first look."
    assert catalog.practitioner("lee").aliases == ("Anna",)
    assert clinic.appointment_records()[0].status == "cancelled"
    assert clinic.profile().currency_symbol == "A$"
    assert clinic.profile().crisis_number == "1800 123 456"


def test_patients_and_appointments_may_be_absent(clinic_data):
    del clinic_data["patients"], clinic_data["appointments"], clinic_data["transfer_number"]
    clinic = clinic_from_mapping(clinic_data)
    assert clinic.patients == [] and clinic.appointments == []
    assert clinic.profile().transfer_number is None


@pytest.mark.parametrize(
    ("phone", "timezone", "region", "crisis"),
    [("+12025550123", "America/New_York", "US", "988"), ("+442079460000", "Europe/London", "GB", "116 123"),
     ("+6495551234", "Pacific/Auckland", "NZ", "1737"), ("+14165550123", "America/Toronto", "CA", "988"),
     ("+33142685300", "Europe/Paris", "FR", "112")],
)
def test_crisis_number_defaults_by_country(clinic_data, phone, timezone, region, crisis):
    clinic_data.update(phone=phone, timezone=timezone, emergency_number="112" if region == "FR" else "911")
    clinic_data.pop("transfer_number")
    clinic_data["patients"][0]["phone"] = None
    profile = clinic_from_mapping(clinic_data).profile()
    assert profile.region == region
    assert profile.crisis_number == crisis


def test_the_region_is_the_explicit_one_else_the_timezone_s_else_the_phone_s(clinic_data):
    clinic_data.pop("transfer_number")
    clinic_data["patients"][0]["phone"] = None
    clinic_data.update(phone="+442079460000", timezone="Europe/London")
    assert clinic_from_mapping(clinic_data).region == "GB"
    clinic_data.update(timezone="UTC")                       # a timezone the region table does not list
    assert clinic_from_mapping(clinic_data).region == "GB"
    clinic_data.update(region="ie")
    clinic = clinic_from_mapping(clinic_data)
    assert clinic.region == "IE" and clinic.profile().currency_symbol == "€"


def test_an_unknown_region_code_is_refused(clinic_data):
    clinic_data.update(region="Atlantis")
    with pytest.raises(ClinicDataError) as info:
        clinic_from_mapping(clinic_data)
    assert "region" in str(info.value)


def test_patient_phones_are_stored_e164_in_the_clinic_region(clinic_data):
    clinic_data["patients"][0]["phone"] = "0400 000 001"
    clinic_data["transfer_number"] = "(02) 9000 0001"
    clinic_data["phone"] = "+61 2 9000 0000"
    clinic = clinic_from_mapping(clinic_data)
    assert clinic.patients[0].phone == "+61400000001"
    assert clinic.phone == "+61290000000"
    assert clinic.profile().transfer_number == "+61290000001"


def test_yaml_native_dates_are_accepted(clinic_data):
    clinic_data["patients"][0]["dob"] = date(1985, 3, 4)
    clinic_data["appointments"][0]["start"] = datetime(2026, 11, 24, 10, 0)
    clinic = clinic_from_mapping(clinic_data)
    assert clinic.patients[0].dob == date(1985, 3, 4)


def test_numeric_ids_are_taken_as_text(clinic_data):
    clinic_data["patients"][0]["id"] = 7
    clinic_data["appointments"][0]["patient"] = 7
    assert clinic_from_mapping(clinic_data).appointments[0].patient == "7"


# -- every kind of mistake names its path ------------------------------------


def test_missing_field(clinic_data):
    del clinic_data["services"][1]["minutes"]
    assert problems_of(clinic_data) == [("services[1].minutes", "required, but missing")]


def test_missing_top_level_field(clinic_data):
    del clinic_data["timezone"]
    assert paths_of(clinic_data) == ["timezone"]


def test_path_prefix(clinic_data):
    clinic_data["services"][1]["minutes"] = 0
    (path, message), = problems_of(clinic_data, path_prefix="clinic")
    assert path == "clinic.services[1].minutes"
    assert "greater than 0" in message


def test_negative_price(clinic_data):
    clinic_data["services"][0]["price"] = -5
    assert paths_of(clinic_data) == ["services[0].price"]


@pytest.mark.parametrize("dob", ["1985-02-30", "04/03/1985", "yesterday", 19850304])
def test_bad_date_of_birth(clinic_data, dob):
    clinic_data["patients"][0]["dob"] = dob
    (path, message), = problems_of(clinic_data)
    assert path == "patients[0].dob"
    assert "YYYY-MM-DD" in message


def test_date_of_birth_must_be_past(clinic_data):
    clinic_data["patients"][0]["dob"] = "2026-11-23"
    (path, message), = problems_of(clinic_data, today=date(2026, 11, 23))
    assert path == "patients[0].dob" and "past" in message
    clinic_data["patients"][0]["dob"] = "2026-11-22"
    clinic_from_mapping(clinic_data, today=date(2026, 11, 23))


def test_date_of_birth_before_1900(clinic_data):
    clinic_data["patients"][0]["dob"] = "0985-03-04"
    assert paths_of(clinic_data) == ["patients[0].dob"]


@pytest.mark.parametrize("start", ["2026-11-24", "2026-11-24T25:00", "tomorrow 10am", "2026-11-24T10:00+11:00"])
def test_bad_appointment_start(clinic_data, start):
    clinic_data["appointments"][0]["start"] = start
    assert paths_of(clinic_data) == ["appointments[0].start"]


def test_unknown_service_in_practitioner(clinic_data):
    clinic_data["practitioners"][0]["services"] = ["initial", "folowup"]
    (path, message), = problems_of(clinic_data)
    assert path == "practitioners[0].services[1]"
    assert "unknown service 'folowup'" in message and "did you mean 'followup'" in message


def test_unknown_location_in_practitioner(clinic_data):
    clinic_data["practitioners"][1]["locations"] = ["city", "south"]
    assert paths_of(clinic_data) == ["practitioners[1].locations[1]"]


@pytest.mark.parametrize("key", ["patient", "service", "practitioner", "location"])
def test_unknown_reference_in_appointment(clinic_data, key):
    clinic_data["appointments"][0][key] = "nobody"
    (path, message), = problems_of(clinic_data)
    assert path == f"appointments[0].{key}"
    assert "unknown" in message and "'nobody'" in message


def test_appointment_with_a_practitioner_who_does_not_offer_it(clinic_data):
    clinic_data["appointments"][0].update(service="initial", practitioner="shah")
    assert paths_of(clinic_data) == ["appointments[0].service"]
    clinic_data["appointments"][0].update(service="followup", location="north", practitioner="lee")
    assert paths_of(clinic_data) == ["appointments[0].location"]


def test_overlapping_booked_appointments(clinic_data):
    clinic_data["appointments"].append(dict(clinic_data["appointments"][0], id="a2", start="2026-11-24T10:15"))
    (path, message), = problems_of(clinic_data)
    assert path == "appointments[1].start" and "'a1'" in message
    clinic_data["appointments"][1]["status"] = "cancelled"
    clinic_from_mapping(clinic_data)


def test_bad_appointment_status(clinic_data):
    clinic_data["appointments"][0]["status"] = "moved"
    (path, message), = problems_of(clinic_data)
    assert path == "appointments[0].status" and "booked or cancelled" in message


def test_bad_timezone(clinic_data):
    clinic_data["timezone"] = "Australia/Sydny"
    (path, message), = problems_of(clinic_data)
    assert path == "timezone" and "Australia/Sydny" in message


@pytest.mark.parametrize(
    ("ranges", "path"),
    [
        (["8-12"], "hours.mon[0]"),
        (["08:00-12:00", "13:00-25:00"], "hours.mon[1]"),
        (["12:00-08:00"], "hours.mon[0]"),
        (["08:00-08:00"], "hours.mon[0]"),
        (["08:00-12:00", "11:30-17:00"], "hours.mon[1]"),
        (["13:00-17:00", "08:00-13:30"], "hours.mon[0]"),
    ],
)
def test_bad_hours(clinic_data, ranges, path):
    clinic_data["hours"]["mon"] = ranges
    assert paths_of(clinic_data) == [path]


def test_touching_ranges_are_fine_and_sorted(clinic_data):
    clinic_data["hours"]["mon"] = ["13:00-17:00", "08:00-13:00"]
    hours = clinic_from_mapping(clinic_data).profile().hours
    assert [r.start for r in hours[0]] == [time(8), time(13)]


def test_unknown_weekday(clinic_data):
    clinic_data["hours"]["thur"] = ["08:00-17:00"]
    (path, message), = problems_of(clinic_data)
    assert path == "hours.thur" and "did you mean 'thu'" in message


def test_single_range_string_and_closed_days(clinic_data):
    clinic_data["hours"] = {"mon": "09:00-17:00", "tue": []}
    hours = clinic_from_mapping(clinic_data).profile().hours
    assert hours == {0: (TimeRange(time(9), time(17)),)}


@pytest.mark.parametrize("list_name", ["locations", "services", "practitioners", "patients", "appointments"])
def test_duplicate_id(clinic_data, list_name):
    clinic_data[list_name].append(dict(clinic_data[list_name][0]))
    problems = problems_of(clinic_data)
    assert (f"{list_name}[{len(clinic_data[list_name]) - 1}].id") in [p for p, _ in problems]
    assert any("duplicate id" in m for _, m in problems)


def test_unknown_key_suggests_the_right_one(clinic_data):
    clinic_data["services"][1]["minuts"] = 30
    problems = dict(problems_of(clinic_data))
    assert "did you mean 'minutes'" in problems["services[1].minuts"]


def test_unknown_top_level_key(clinic_data):
    clinic_data["opening_hours"] = {}
    problems = dict(problems_of(clinic_data))
    assert "unknown key" in problems["opening_hours"]


def test_practitioner_must_offer_something_somewhere(clinic_data):
    clinic_data["practitioners"][1]["services"] = []
    clinic_data["practitioners"][1]["locations"] = []
    assert sorted(paths_of(clinic_data)) == ["practitioners[1].locations", "practitioners[1].services"]


def test_practitioner_id_anyone_is_reserved(clinic_data):
    clinic_data["practitioners"][1]["id"] = "anyone"
    assert "practitioners[1].id" in paths_of(clinic_data)


@pytest.mark.parametrize(
    ("key", "value", "path"),
    [
        ("phone", "9000 0000", "phone"),  # the clinic's own number must be international
        ("phone", "+61 2", "phone"),
        ("phone", 61290000000, "phone"),
        ("transfer_number", "12", "transfer_number"),
        ("emergency_number", "call 000", "emergency_number"),
    ],
)
def test_bad_clinic_numbers(clinic_data, key, value, path):
    clinic_data[key] = value
    assert paths_of(clinic_data) == [path]


def test_bad_patient_phone(clinic_data):
    clinic_data["patients"][0]["phone"] = "04000"
    assert paths_of(clinic_data) == ["patients[0].phone"]


def test_empty_name(clinic_data):
    clinic_data["locations"][0]["name"] = "  "
    assert paths_of(clinic_data) == ["locations[0].name"]


def test_need_at_least_one_service(clinic_data):
    clinic_data["services"] = []
    clinic_data["practitioners"] = []
    clinic_data["appointments"] = []
    assert sorted(paths_of(clinic_data)) == ["practitioners", "services"]


def test_not_a_mapping():
    assert problems_of(["name"], path_prefix="clinic")[0][0] == "clinic"


def test_several_problems_reported_together(clinic_data):
    clinic_data["timezone"] = "Mars/Base"
    clinic_data["services"][0]["minutes"] = -1
    clinic_data["patients"][0]["dob"] = "1985-13-01"
    assert sorted(paths_of(clinic_data)) == ["patients[0].dob", "services[0].minutes", "timezone"]


def test_error_text_lists_path_and_message(clinic_data):
    del clinic_data["services"][1]["minutes"]
    with pytest.raises(ClinicDataError) as caught:
        clinic_from_mapping(clinic_data, path_prefix="clinic")
    assert str(caught.value) == "clinic.services[1].minutes: required, but missing"


def test_format_path():
    assert format_path(("services", 1, "minutes")) == "services[1].minutes"
    assert format_path(("hours", "mon", 0), "clinic") == "clinic.hours.mon[0]"
    assert format_path((), "clinic") == "clinic"

import dataclasses
import sqlite3
from datetime import date, datetime, time, timedelta

import pytest

from appliance.domain import Slot, TimeWindow
from appliance.store import (
    AlreadyCancelled,
    AppointmentNotFound,
    CallbackAlreadyDone,
    CallbackNotFound,
    ClinicAlreadyLoaded,
    ClinicStore,
    InvalidPatient,
    InvalidSlot,
    NoClinic,
    PatientNotFound,
    SlotTaken,
    StoreError,
    UnknownReference,
    open_database,
)
from appliance.store.backend import INTEGRITY_ERRORS

NOW = datetime(2026, 11, 23, 9, 5)
THURSDAY_AFTERNOON = TimeWindow(
    "thursday afternoon", start=datetime(2026, 11, 26), end=datetime(2026, 11, 27), time_from=time(12), time_to=time(17)
)


def slot(start, practitioner="lee", service="followup", location="city", minutes=30):
    return Slot(start=start, service_id=service, practitioner_id=practitioner, location_id=location, minutes=minutes)


@pytest.fixture
def more_patients(store):
    mum = store.create_patient(first_name="Tom", last_name="Morgan", dob=date(1979, 11, 19), phone="0491 570 156")
    kid = store.create_patient(first_name="Lily", last_name="Morgan", dob=date(2014, 6, 2), phone="+61491570156")
    zoe = store.create_patient(first_name="Zoë", last_name="O'Brien", dob=date(1985, 3, 4), phone=None)
    return mum, kid, zoe


# -- clinic ------------------------------------------------------------------


def test_profile_and_catalog_round_trip(store, clinic):
    assert store.profile() == clinic.profile()
    assert store.catalog() == clinic.catalog()


def test_load_clinic_twice_is_refused(store, clinic):
    with pytest.raises(ClinicAlreadyLoaded):
        store.load_clinic(clinic)


def test_empty_database_has_no_clinic(db):
    with pytest.raises(NoClinic):
        ClinicStore(db).profile()


def test_load_clinic_is_one_transaction(db, clinic, monkeypatch):
    store = ClinicStore(db)
    real_insert = store._insert

    def failing_insert(table, row):
        if table == "appointments":
            raise sqlite3.OperationalError("disk I/O error")
        real_insert(table, row)

    monkeypatch.setattr(store, "_insert", failing_insert)
    with pytest.raises(sqlite3.OperationalError):
        store.load_clinic(clinic)
    for table in ("clinic", "services", "patients", "opening_hours"):
        assert db[table].count == 0


def test_default_ids_and_clock(db, clinic):
    store = ClinicStore(db)
    store.load_clinic(clinic)
    patient = store.create_patient(first_name="Ann", last_name="Ray", dob=date(1990, 1, 1), phone=None)
    assert patient.id.startswith("pat-") and len(patient.id) == 12
    created = datetime.fromisoformat(db["patients"].get(patient.id)["created_at"])
    assert abs((created - store.now()).total_seconds()) < 5


# -- patients ----------------------------------------------------------------


def test_patient(store):
    patient = store.patient("p1")
    assert patient.full_name == "Sarah Johnson"
    assert patient.dob == date(1985, 3, 4)
    assert patient.phone == "+61400000001"
    assert store.patient("nobody") is None


def test_patients_with_phone(store, more_patients):
    mum, kid, _ = more_patients
    assert store.patients_with_phone("+61491570156") == [mum, kid]
    assert store.patients_with_phone("0491 570 156") == [mum, kid]  # national format also found
    assert store.patients_with_phone("+61400000009") == []
    assert store.patients_with_phone("") == []


def test_patients_born_on(store, more_patients):
    *_, zoe = more_patients
    assert [p.id for p in store.patients_born_on(date(1985, 3, 4))] == ["p1", zoe.id]
    assert store.patients_born_on(date(2000, 1, 1)) == []


def test_patients_named_is_case_insensitive(store, more_patients):
    mum, kid, zoe = more_patients
    assert store.patients_named("sarah", "JOHNSON") == [store.patient("p1")]
    assert store.patients_named(None, "morgan") == [mum, kid]
    assert store.patients_named("LILY", "Morgan") == [kid]
    assert store.patients_named("zoe", "o'brien") == [zoe]  # accents ignored too
    assert store.patients_named("Zoë", "O'BRIEN") == [zoe]
    assert store.patients_named("Sarah", "Morgan") == []
    assert store.patients_named(None, "  ") == []


def test_create_patient(store, clock):
    patient = store.create_patient(
        first_name=" Jon ", last_name="Smyth", dob=date(1990, 2, 3), phone="0400 000 009", call_id="call-1"
    )
    assert patient.id == "pat-1"
    assert (patient.first_name, patient.last_name, patient.phone) == ("Jon", "Smyth", "+61400000009")
    assert store.patient(patient.id) == patient
    row = store.db["patients"].get(patient.id)
    assert row["created_at"] == "2026-11-23T09:05:00"
    assert row["created_by_call"] == "call-1"
    assert store.patients_created_by_call("call-1") == [patient]


@pytest.mark.parametrize(
    "details",
    [
        {"first_name": "", "last_name": "Smyth", "dob": date(1990, 2, 3), "phone": None},
        {"first_name": "Jon", "last_name": " ", "dob": date(1990, 2, 3), "phone": None},
        {"first_name": "Jon", "last_name": "Smyth", "dob": date(2027, 1, 1), "phone": None},
        {"first_name": "Jon", "last_name": "Smyth", "dob": "1990-02-03", "phone": None},
        {"first_name": "Jon", "last_name": "Smyth", "dob": date(1990, 2, 3), "phone": "12"},
    ],
)
def test_create_patient_rejects_bad_details(store, details):
    with pytest.raises(InvalidPatient):
        store.create_patient(**details)
    assert store.db["patients"].count == 1


# -- appointments ------------------------------------------------------------


def test_appointment(store):
    appointment = store.appointment("a1")
    assert appointment.start == datetime(2026, 11, 24, 10, 0)
    assert (appointment.service_id, appointment.practitioner_id, appointment.minutes) == ("followup", "lee", 30)
    assert appointment.status == "booked" and appointment.rescheduled_from is None
    assert store.appointment("zzz") is None


def test_upcoming_appointments(store):
    later = store.create_appointment(patient_id="p1", slot=slot(datetime(2026, 12, 1, 9, 0)))
    sooner = store.create_appointment(patient_id="p1", slot=slot(datetime(2026, 11, 23, 9, 30)))
    gone = store.create_appointment(patient_id="p1", slot=slot(datetime(2026, 11, 25, 9, 0)))
    store.cancel_appointment(gone.id)
    assert [a.id for a in store.upcoming_appointments("p1", NOW)] == [sooner.id, "a1", later.id]
    # starting before `now` (even by seconds) is not upcoming
    assert [a.id for a in store.upcoming_appointments("p1", datetime(2026, 11, 23, 9, 30, 30))] == ["a1", later.id]
    assert store.upcoming_appointments("nobody", NOW) == []


def test_find_slots_scenarios_md_example(store):
    offer = store.find_slots(service_id="followup", location_id="city", practitioner_id="lee", window=THURSDAY_AFTERNOON, now=NOW)
    assert offer.in_window
    assert [s.start.time() for s in offer.slots] == [time(12, 0), time(12, 15)]


def test_find_slots_sees_bookings_in_the_database(store):
    store.create_appointment(patient_id="p1", slot=slot(datetime(2026, 11, 26, 12, 0)))
    offer = store.find_slots(service_id="followup", location_id="city", practitioner_id="lee", window=THURSDAY_AFTERNOON, now=NOW)
    assert [s.start.time() for s in offer.slots] == [time(12, 30), time(12, 45)]
    # with anyone, shah takes 12:00
    offer = store.find_slots(service_id="followup", location_id="city", practitioner_id=None, window=THURSDAY_AFTERNOON, now=NOW)
    assert [(s.start.time(), s.practitioner_id) for s in offer.slots] == [(time(12, 0), "shah"), (time(12, 15), "shah")]


def test_find_slots_count(store):
    offer = store.find_slots(service_id="followup", location_id="city", practitioner_id=None, window=TimeWindow("soonest"), now=NOW, count=3)
    assert len(offer.slots) == 3


@pytest.mark.parametrize(
    "request_",
    [
        {"service_id": "nope", "location_id": "city", "practitioner_id": None},
        {"service_id": "followup", "location_id": "nowhere", "practitioner_id": None},
        {"service_id": "followup", "location_id": "city", "practitioner_id": "who"},
    ],
)
def test_find_slots_unknown_ids(store, request_):
    with pytest.raises(UnknownReference):
        store.find_slots(**request_, window=TimeWindow("soonest"), now=NOW)


def test_slot_is_free(store):
    assert store.slot_is_free(slot(datetime(2026, 11, 24, 9, 0)))
    assert not store.slot_is_free(slot(datetime(2026, 11, 24, 10, 0)))  # a1
    assert not store.slot_is_free(slot(datetime(2026, 11, 24, 9, 45)))  # runs into a1
    assert store.slot_is_free(slot(datetime(2026, 11, 24, 10, 0), practitioner="shah"))
    assert not store.slot_is_free(slot(datetime(2026, 11, 24, 9, 5)))  # off the grid
    assert not store.slot_is_free(slot(datetime(2026, 11, 28, 9, 0)))  # closed Saturday
    assert not store.slot_is_free(slot(datetime(2026, 11, 23, 11, 45)))  # would run past 12:00
    assert not store.slot_is_free(slot(datetime(2026, 11, 24, 9, 0), location="north"))  # lee is not at north
    assert not store.slot_is_free(slot(datetime(2026, 11, 24, 9, 0), service="massage"))


def test_create_appointment(store):
    offered = store.find_slots(service_id="followup", location_id="city", practitioner_id="lee", window=THURSDAY_AFTERNOON, now=NOW)
    booked = store.create_appointment(patient_id="p1", slot=offered.slots[1], call_id="call-7")
    assert booked.id == "apt-1"
    assert (booked.start, booked.practitioner_id, booked.status) == (datetime(2026, 11, 26, 12, 15), "lee", "booked")
    assert store.appointment(booked.id) == booked
    row = store.db["appointments"].get(booked.id)
    assert row["start"] == "2026-11-26T12:15" and row["created_by_call"] == "call-7"
    assert row["created_at"] == "2026-11-23T09:05:00"
    assert not store.slot_is_free(offered.slots[1])


def test_slot_taken(store):
    wanted = slot(datetime(2026, 11, 26, 12, 15))
    store.create_appointment(patient_id="p1", slot=wanted)
    with pytest.raises(SlotTaken):
        store.create_appointment(patient_id="p1", slot=wanted)
    with pytest.raises(SlotTaken):
        store.create_appointment(patient_id="p1", slot=slot(datetime(2026, 11, 26, 12, 30)))  # overlaps
    assert issubclass(SlotTaken, StoreError)
    assert store.db["appointments"].count == 2


def test_slot_taken_by_another_process(tmp_path, clinic):
    from appliance.store import build_database

    path = build_database(clinic, tmp_path / "clinic.db")
    first, second = ClinicStore(open_database(path)), ClinicStore(open_database(path))
    wanted = slot(datetime(2026, 11, 26, 12, 15))
    assert second.slot_is_free(wanted)
    first.create_appointment(patient_id="p1", slot=wanted)
    assert not second.slot_is_free(wanted)
    with pytest.raises(SlotTaken):
        second.create_appointment(patient_id="p1", slot=wanted)
    first.db.close()
    second.db.close()


def test_invalid_slot(store):
    with pytest.raises(InvalidSlot):
        store.create_appointment(patient_id="p1", slot=slot(datetime(2026, 11, 28, 9, 0)))
    with pytest.raises(InvalidSlot):
        store.create_appointment(patient_id="p1", slot=slot(datetime(2026, 11, 24, 9, 0), minutes=45))
    with pytest.raises(InvalidSlot):
        store.create_appointment(patient_id="p1", slot=slot(datetime(2026, 11, 24, 9, 0), service="nope"))


def test_create_appointment_for_unknown_patient(store):
    with pytest.raises(PatientNotFound):
        store.create_appointment(patient_id="ghost", slot=slot(datetime(2026, 11, 24, 9, 0)))


def test_cancel_appointment(store):
    cancelled = store.cancel_appointment("a1", call_id="call-2")
    assert cancelled.status == "cancelled" and cancelled.id == "a1"
    assert store.appointment("a1") == cancelled
    row = store.db["appointments"].get("a1")
    assert row["cancelled_at"] == "2026-11-23T09:05:00" and row["cancelled_by_call"] == "call-2"
    assert store.slot_is_free(slot(datetime(2026, 11, 24, 10, 0)))  # freed
    assert store.upcoming_appointments("p1", NOW) == []
    with pytest.raises(AlreadyCancelled):
        store.cancel_appointment("a1")
    with pytest.raises(AppointmentNotFound):
        store.cancel_appointment("nope")


def test_reschedule_appointment(store):
    old, new = store.reschedule_appointment("a1", slot(datetime(2026, 11, 26, 12, 15)), call_id="call-3")
    assert old.id == "a1" and old.status == "cancelled"
    assert new.status == "booked" and new.rescheduled_from == "a1" and new.patient_id == "p1"
    assert store.appointment("a1").status == "cancelled"
    assert store.appointment(new.id) == new
    assert [a.id for a in store.appointments_for_call("call-3")] == ["a1", new.id]


def test_reschedule_into_an_overlapping_time_with_the_same_practitioner(store):
    # 10:00 -> 10:15 overlaps the old booking, which the reschedule itself frees
    old, new = store.reschedule_appointment("a1", slot(datetime(2026, 11, 24, 10, 15)))
    assert new.start == datetime(2026, 11, 24, 10, 15)


def test_reschedule_is_atomic_when_the_insert_fails(db, clinic, clock):
    # the new row's id collides with a1, so the insert fails after the cancel ran
    store = ClinicStore(db, new_id=lambda prefix: "a1", now=clock)
    store.load_clinic(clinic)
    with pytest.raises(INTEGRITY_ERRORS):     # either back end's driver
        store.reschedule_appointment("a1", slot(datetime(2026, 11, 26, 12, 15)))
    row = db["appointments"].get("a1")
    assert row["status"] == "booked" and row["cancelled_at"] is None
    assert db["appointments"].count == 1
    assert not db.conn.in_transaction


def test_reschedule_into_a_taken_slot_changes_nothing(store):
    other = store.create_appointment(patient_id="p1", slot=slot(datetime(2026, 11, 26, 12, 15)))
    with pytest.raises(SlotTaken):
        store.reschedule_appointment("a1", slot(datetime(2026, 11, 26, 12, 0)))
    assert store.appointment("a1").status == "booked"
    assert store.appointment(other.id).status == "booked"
    assert store.db["appointments"].count == 2


def test_reschedule_errors(store):
    with pytest.raises(AppointmentNotFound):
        store.reschedule_appointment("nope", slot(datetime(2026, 11, 26, 12, 15)))
    store.cancel_appointment("a1")
    with pytest.raises(AlreadyCancelled):
        store.reschedule_appointment("a1", slot(datetime(2026, 11, 26, 12, 15)))


# -- callbacks and waitlist --------------------------------------------------


def test_callback_requests(store, clock):
    first = store.add_callback_request(call_id="c1", patient_id="p1", name="Sarah Johnson", phone="0400 000 001", reason="billing question")
    clock.moment += timedelta(minutes=5)
    urgent = store.add_callback_request(call_id="c2", patient_id=None, name="Bob", phone="+61400000002", reason="pain after treatment", urgency="urgent")
    open_ = store.callback_requests()
    assert [r["id"] for r in open_] == [urgent, first]  # urgent first
    assert open_[1]["phone"] == "+61400000001" and open_[1]["status"] == "open"
    assert open_[1]["created_at"] == "2026-11-23T09:05:00"
    assert [r["id"] for r in store.callback_requests(call_id="c1")] == [first]

    store.mark_callback_done(first, done_by="reception", note="called back")
    assert [r["id"] for r in store.callback_requests()] == [urgent]
    (done,) = store.callback_requests("done")
    assert (done["done_by"], done["note"], done["done_at"]) == ("reception", "called back", "2026-11-23T09:10:00")
    assert len(store.callback_requests(None)) == 2
    with pytest.raises(CallbackAlreadyDone):
        store.mark_callback_done(first, done_by="x")
    with pytest.raises(CallbackNotFound):
        store.mark_callback_done("nope", done_by="x")


def test_a_repeated_callback_request_within_the_window_is_the_same_row(store, clock):
    def busy(phone):
        return store.add_callback_request(call_id=None, patient_id=None, name=None, phone=phone,
                                          reason="all lines busy", unless_open_within=timedelta(hours=1))

    first = busy("0400 000 001")
    clock.moment += timedelta(minutes=59)
    assert busy("+61400000001") == first                    # the same number, however it was written
    other_reason = store.add_callback_request(call_id=None, patient_id=None, name=None, phone="+61400000001",
                                              reason="wants a new booking", unless_open_within=timedelta(hours=1))
    assert other_reason != first
    clock.moment += timedelta(minutes=2)
    later = busy("+61400000001")                            # an hour on: a new row
    assert later != first
    store.mark_callback_done(later, done_by="reception")
    assert busy("+61400000001") not in (first, later)      # a done request is no reason to drop a new one
    assert len(store.callback_requests(None)) == 4


def test_callback_request_checks(store):
    with pytest.raises(ValueError):
        store.add_callback_request(call_id="c", patient_id=None, name="x", phone=None, reason="r", urgency="asap")
    with pytest.raises(PatientNotFound):
        store.add_callback_request(call_id="c", patient_id="ghost", name="x", phone=None, reason="r")
    with pytest.raises(ValueError):
        store.callback_requests("closed")


def test_waitlist(store):
    entry = store.add_to_waitlist(call_id="c1", patient_id="p1", service_id="followup", location_id="city", note="mornings")
    (row,) = store.waitlist()
    assert row["id"] == entry and row["note"] == "mornings" and row["created_at"] == "2026-11-23T09:05:00"
    with pytest.raises(UnknownReference):
        store.add_to_waitlist(call_id="c1", patient_id="p1", service_id="nope", location_id="city", note=None)


def test_records_are_plain_values(store):
    record = store.appointment("a1")
    with pytest.raises(dataclasses.FrozenInstanceError):
        record.status = "cancelled"


def test_find_slots_reads_bookings_weeks_ahead(store):
    # lee booked solid on a Tuesday four weeks out: the offer for that day goes to the next free time
    day = datetime(2026, 12, 22)
    start = day.replace(hour=8)
    while start.hour < 17:
        store.create_appointment(patient_id="p1", slot=slot(start))
        start += timedelta(minutes=30)
    window = TimeWindow("that tuesday", start=day, end=day + timedelta(days=1))
    offer = store.find_slots(service_id="followup", location_id="city", practitioner_id="lee", window=window, now=NOW)
    assert not offer.in_window
    assert [s.start for s in offer.slots] == [datetime(2026, 12, 23, 8, 0), datetime(2026, 12, 23, 8, 15)]
    # the same day with anyone: shah takes it
    offer = store.find_slots(service_id="followup", location_id="city", practitioner_id=None, window=window, now=NOW)
    assert offer.in_window and {s.practitioner_id for s in offer.slots} == {"shah"}


def test_find_slots_matches_the_pure_policy(store):
    from appliance.store import offer_slots

    for start in (datetime(2026, 11, 23, 9, 15), datetime(2026, 11, 30, 8, 0), datetime(2026, 12, 1, 8, 30)):
        store.create_appointment(patient_id="p1", slot=slot(start))
    booked = [store.appointment(row["id"]) for row in store.db["appointments"].rows]
    for window in (TimeWindow("soonest"), THURSDAY_AFTERNOON, TimeWindow("evening", time_from=time(17)),
                   TimeWindow("next week", start=datetime(2026, 11, 30), end=datetime(2026, 12, 7))):
        for practitioner in (None, "lee", "shah"):
            expected = offer_slots(catalog=store.catalog(), hours=store.profile().hours, booked=booked,
                                   service_id="followup", location_id="city", practitioner_id=practitioner,
                                   window=window, now=NOW, count=3)
            got = store.find_slots(service_id="followup", location_id="city", practitioner_id=practitioner,
                                   window=window, now=NOW, count=3)
            assert got == expected, (window.label, practitioner)

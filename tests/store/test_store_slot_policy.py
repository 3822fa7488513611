"""The slot policy of SCENARIOS.md, "Which slots the agent offers"."""

import dataclasses
import time as clock
from datetime import datetime, time, timedelta

import pytest

from appliance.clinic import clinic_from_mapping
from appliance.domain import AppointmentRecord, Catalog, TimeWindow
from appliance.store.slot_policy import SlotOffer, is_candidate, offer_slots

MON = datetime(2026, 11, 23)  # a Monday
NOW = datetime(2026, 11, 23, 9, 5)
SOONEST = TimeWindow("soonest")


@pytest.fixture
def setup(clinic_data):
    clinic = clinic_from_mapping(clinic_data)
    return clinic.catalog(), clinic.profile().hours


def booking(practitioner, start, minutes=30, *, location="city", status="booked", service="followup", id="b"):
    return AppointmentRecord(
        id=id, patient_id="p1", service_id=service, practitioner_id=practitioner, location_id=location,
        start=start, minutes=minutes, status=status,
    )


def offer(setup, *, service="followup", location="city", practitioner=None, window=SOONEST, now=NOW, booked=(), count=2,
          horizon_days=90, catalog=None):
    default_catalog, hours = setup
    return offer_slots(
        catalog=catalog or default_catalog, hours=hours, booked=booked, service_id=service, location_id=location,
        practitioner_id=practitioner, window=window, now=now, count=count, horizon_days=horizon_days,
    )


def starts(result: SlotOffer):
    return [f"{s.start:%a %H:%M}" for s in result.slots]


def day_window(day, label="day", **kwargs):
    return TimeWindow(label, start=day, end=day + timedelta(days=1), **kwargs)


def test_scenarios_md_example(setup):
    """Reschedule keeps lee: Thursday afternoon gives 12:00 and 12:15."""
    thursday_afternoon = day_window(datetime(2026, 11, 26), "thursday afternoon", time_from=time(12), time_to=time(17))
    result = offer(
        setup, practitioner="lee", window=thursday_afternoon,
        booked=[booking("lee", datetime(2026, 11, 24, 10, 0), id="a1")],
    )
    assert result.in_window
    assert [s.start for s in result.slots] == [datetime(2026, 11, 26, 12, 0), datetime(2026, 11, 26, 12, 15)]
    assert {(s.practitioner_id, s.service_id, s.location_id, s.minutes) for s in result.slots} == {("lee", "followup", "city", 30)}


def test_now_mid_range_rounds_up_to_the_grid(setup):
    assert starts(offer(setup)) == ["Mon 09:15", "Mon 09:30"]


def test_a_candidate_must_start_strictly_after_now(setup):
    assert starts(offer(setup, now=datetime(2026, 11, 23, 9, 15))) == ["Mon 09:30", "Mon 09:45"]


def test_candidates_are_every_15_minutes_from_range_start(setup, clinic_data):
    clinic_data["hours"]["mon"] = ["08:10-12:00"]
    clinic = clinic_from_mapping(clinic_data)
    result = offer_slots(
        catalog=clinic.catalog(), hours=clinic.profile().hours, booked=(), service_id="followup", location_id="city",
        practitioner_id=None, window=SOONEST, now=datetime(2026, 11, 23, 7, 0), count=3,
    )
    assert starts(result) == ["Mon 08:10", "Mon 08:25", "Mon 08:40"]


def test_split_opening_ranges(setup):
    """mon 08:00-12:00 and 13:00-17:00: a 45-minute service cannot start at 11:30."""
    window = day_window(MON, "monday from 11", time_from=time(11))
    result = offer(setup, service="initial", window=window, now=datetime(2026, 11, 23, 7, 0), count=4)
    assert starts(result) == ["Mon 11:00", "Mon 11:15", "Mon 13:00", "Mon 13:15"]


def test_service_must_fit_before_closing(setup):
    friday = day_window(datetime(2026, 11, 27), "friday", time_from=time(14))
    assert starts(offer(setup, service="initial", window=friday, count=3)) == ["Fri 14:00", "Fri 14:15"]


def test_existing_booking_blocks_its_practitioner(setup):
    tuesday = datetime(2026, 11, 24)
    booked = [booking("lee", datetime(2026, 11, 24, 10, 0))]  # 10:00-10:30
    result = offer(setup, service="initial", window=day_window(tuesday), now=datetime(2026, 11, 24, 9, 5), booked=booked, count=3)
    # 9:15-10:00 ends as the booking starts; 9:30 .. 10:15 overlap; 10:30 is free again
    assert starts(result) == ["Tue 09:15", "Tue 10:30", "Tue 10:45"]


def test_cancelled_bookings_do_not_block(setup):
    booked = [booking("lee", datetime(2026, 11, 23, 9, 15), status="cancelled")]
    assert starts(offer(setup, practitioner="lee", booked=booked)) == ["Mon 09:15", "Mon 09:30"]


def test_tie_break_by_clinic_order(setup):
    result = offer(setup)
    assert [s.practitioner_id for s in result.slots] == ["lee", "lee"]
    # lee busy at 9:15-9:45: shah (listed second) takes 9:15 and 9:30; lee is free again at 9:45
    booked = [booking("lee", datetime(2026, 11, 23, 9, 15))]
    result = offer(setup, booked=booked, count=3)
    assert [(f"{s.start:%H:%M}", s.practitioner_id) for s in result.slots] == [
        ("09:15", "shah"), ("09:30", "shah"), ("09:45", "lee")
    ]


def test_tie_break_follows_file_order_not_ids(setup):
    catalog, _ = setup
    reordered = Catalog(catalog.services, catalog.locations, tuple(reversed(catalog.practitioners)))
    assert {s.practitioner_id for s in offer(setup, catalog=reordered).slots} == {"shah"}


def test_practitioner_booked_at_another_location_is_blocked(setup):
    booked = [booking("shah", datetime(2026, 11, 23, 9, 15), location="north")]
    assert starts(offer(setup, practitioner="shah", booked=booked)) == ["Mon 09:45", "Mon 10:00"]
    # anyone: lee is free, so 9:15 is still offered
    assert starts(offer(setup, booked=booked)) == ["Mon 09:15", "Mon 09:30"]


def test_only_practitioners_offering_the_service_at_the_location(setup):
    # only shah works at north
    result = offer(setup, location="north")
    assert {s.practitioner_id for s in result.slots} == {"shah"}
    # lee does not work at north; shah does not do initial consultations
    assert offer(setup, location="north", practitioner="lee").slots == ()
    assert offer(setup, service="initial", practitioner="shah").slots == ()


def test_anyone_means_no_preference(setup):
    assert offer(setup, practitioner="anyone") == offer(setup)


def test_distinct_start_times(setup):
    result = offer(setup, count=4)
    assert len({s.start for s in result.slots}) == 4


def test_window_with_no_candidate_offers_earliest_after_its_end(setup):
    friday_evening = day_window(datetime(2026, 11, 27), "friday evening", time_from=time(17))
    result = offer(setup, window=friday_evening)
    assert not result.in_window
    # Saturday and Sunday are closed: Monday morning, any time of day
    assert [s.start for s in result.slots] == [datetime(2026, 11, 30, 8, 0), datetime(2026, 11, 30, 8, 15)]


def test_closed_day_window(setup):
    saturday = day_window(datetime(2026, 11, 28), "saturday")
    result = offer(setup, window=saturday)
    assert not result.in_window
    assert [s.start for s in result.slots] == [datetime(2026, 11, 30, 8, 0), datetime(2026, 11, 30, 8, 15)]


def test_open_ended_window_with_no_candidate_ignores_time_of_day(setup):
    evening = TimeWindow("evening", time_from=time(17))  # the clinic shuts at 17:00 every day
    result = offer(setup, window=evening)
    assert not result.in_window
    assert starts(result) == ["Mon 09:15", "Mon 09:30"]


def test_morning_window_after_the_morning_has_gone(setup):
    morning = TimeWindow("morning", time_to=time(12))
    result = offer(setup, window=morning, now=datetime(2026, 11, 23, 11, 50))
    assert result.in_window
    assert [s.start for s in result.slots] == [datetime(2026, 11, 24, 8, 0), datetime(2026, 11, 24, 8, 15)]


def test_fewer_in_window_than_asked_are_still_in_window(setup):
    late_friday = day_window(datetime(2026, 11, 27), "friday late", time_from=time(14, 15))
    result = offer(setup, window=late_friday, count=3)
    assert result.in_window
    assert starts(result) == ["Fri 14:15", "Fri 14:30"]


def test_fully_booked_window_falls_back(setup):
    thursday = datetime(2026, 11, 26)
    booked = [booking("lee", thursday + timedelta(hours=8), minutes=9 * 60)]
    result = offer(setup, practitioner="lee", window=day_window(thursday), booked=booked)
    assert not result.in_window
    assert starts(result) == ["Fri 08:00", "Fri 08:15"]


def test_nothing_within_the_horizon(setup):
    window = day_window(datetime(2027, 6, 1))
    result = offer(setup, window=window, horizon_days=5)
    assert result == SlotOffer((), False)
    assert offer(setup, count=0).slots == ()


def test_window_starting_later_skips_earlier_days(setup):
    next_week = TimeWindow("next week", start=datetime(2026, 11, 30), end=datetime(2026, 12, 7))
    assert [s.start for s in offer(setup, window=next_week).slots][0] == datetime(2026, 11, 30, 8, 0)


def test_appointment_running_past_midnight_blocks_next_morning(setup, clinic_data):
    clinic_data["hours"]["tue"] = ["00:00-04:00", "08:00-17:00"]
    clinic = clinic_from_mapping(clinic_data)
    booked = [booking("lee", datetime(2026, 11, 23, 23, 30), minutes=60)]  # until 00:30 Tuesday
    result = offer_slots(
        catalog=clinic.catalog(), hours=clinic.profile().hours, booked=booked, service_id="followup",
        location_id="city", practitioner_id="lee", window=day_window(datetime(2026, 11, 24)), now=NOW,
    )
    assert starts(result) == ["Tue 00:30", "Tue 00:45"]


def test_unknown_service_is_an_error(setup):
    with pytest.raises(ValueError, match="unknown service"):
        offer(setup, service="nope")


def test_is_candidate(setup):
    catalog, hours = setup
    (slot, _) = offer(setup).slots
    assert is_candidate(catalog=catalog, hours=hours, booked=(), slot=slot) is None
    assert "booked" in is_candidate(catalog=catalog, hours=hours, booked=[booking("lee", slot.start)], slot=slot)
    off_grid = dataclasses.replace(slot, start=slot.start + timedelta(minutes=5))
    assert "opening hours" in is_candidate(catalog=catalog, hours=hours, booked=(), slot=off_grid)
    sunday = dataclasses.replace(slot, start=datetime(2026, 11, 29, 10, 0))
    assert is_candidate(catalog=catalog, hours=hours, booked=(), slot=sunday) is not None
    wrong_site = dataclasses.replace(slot, location_id="north")
    assert "does not offer" in is_candidate(catalog=catalog, hours=hours, booked=(), slot=wrong_site)
    wrong_length = dataclasses.replace(slot, minutes=45)
    assert "minutes" in is_candidate(catalog=catalog, hours=hours, booked=(), slot=wrong_length)


def test_fast_on_a_busy_diary(setup):
    # every practitioner booked solid for 90 days, and a window that never matches
    booked = []
    for day in range(95):
        for hour in range(0, 24):
            for practitioner in ("lee", "shah"):
                booked.append(booking(practitioner, MON + timedelta(days=day, hours=hour), minutes=60))
    started = clock.perf_counter()
    result = offer(setup, window=TimeWindow("evening", time_from=time(17)), booked=booked)
    elapsed = clock.perf_counter() - started
    assert result.slots == ()
    assert elapsed < 0.5
    started = clock.perf_counter()
    for _ in range(20):
        offer(setup, window=TimeWindow("evening", time_from=time(17)))
    assert (clock.perf_counter() - started) / 20 < 0.05

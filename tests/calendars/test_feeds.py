"""Practitioners' calendars: each feed, read back with the icalendar library, is exactly the database's diary."""

import threading
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import icalendar

from appliance.calendars import CalendarFeeds, calendar_folder
from appliance.clinic import clinic_from_mapping
from appliance.domain import Slot
from appliance.events import EventBus, StaffCommandHandler
from appliance.events.diary_follower import DiaryFollower
from appliance.events.messages import BLOCK_TIME, StaffCommand
from appliance.store import ClinicStore, build_database, open_database

SYDNEY = ZoneInfo("Australia/Sydney")


def clinic_db(clinic_data, tmp_path):
    clinic_data["closures"] = ["2026-12-25"]
    clinic_data["blocks"] = [{"practitioner": "shah", "start": "2026-11-26T12:00", "end": "2026-11-26T14:00",
                              "reason": "meeting"}]
    path = build_database(clinic_from_mapping(clinic_data), tmp_path / "appliance.db")
    store = ClinicStore(open_database(path), now=lambda: datetime(2026, 11, 23, 9, 5))
    store.create_appointment(patient_id="p1", slot=Slot(datetime(2026, 11, 25, 9), "followup", "shah", "city", 30),
                             call_id="call-1")
    moved, _ = store.reschedule_appointment("a1", Slot(datetime(2026, 11, 26, 10), "followup", "lee", "city", 30))
    store.db.close()
    return path


def events(path):
    calendar = icalendar.Calendar.from_ical(path.read_bytes())
    return calendar, {str(e["uid"]): e for e in calendar.walk("VEVENT")}


def test_each_feed_holds_exactly_the_practitioners_bookings_and_blocks(clinic_data, tmp_path):
    path = clinic_db(clinic_data, tmp_path)
    assert CalendarFeeds(path, with_initials=False).refresh()
    folder = calendar_folder(path)
    assert sorted(p.name for p in folder.glob("*.ics")) == ["lee.ics", "shah.ics"]
    store = ClinicStore(open_database(path))
    for practitioner in ("lee", "shah"):
        calendar, found = events(folder / f"{practitioner}.ics")
        booked = [a for a in store.booked_between(datetime(2026, 10, 1), datetime(2027, 6, 1))
                  if a.practitioner_id == practitioner]
        blocks = [b for b in store.blocks_between(datetime(2026, 10, 1), datetime(2027, 6, 1))
                  if b.practitioner_id in (None, practitioner)]
        expected = {f"{a.id}@appliance": (a.start, a.start + timedelta(minutes=a.minutes)) for a in booked}
        expected |= {f"{b.id}@appliance": (b.start, b.end) for b in blocks}
        assert {uid: (e.decoded("dtstart"), e.decoded("dtend")) for uid, e in found.items()} == {
            uid: (start.replace(tzinfo=SYDNEY), end.replace(tzinfo=SYDNEY)) for uid, (start, end) in expected.items()}
        assert [tz.tz_name for tz in calendar.timezones] == ["Australia/Sydney"]
    _, lee = events(folder / "lee.ics")
    assert [str(e["summary"]) for e in lee.values()] == ["Follow-up", "Clinic closed: closed"]
    assert "a1@appliance" not in lee                                  # moved: the cancelled row is gone
    _, shah = events(folder / "shah.ics")
    assert "Blocked: meeting" in [str(e["summary"]) for e in shah.values()]
    text = b"".join(p.read_bytes() for p in folder.glob("*.ics"))
    assert b"Sarah" not in text and b"Johnson" not in text and b"S.J." not in text


def test_initials_only_when_configured_and_files_rewritten_only_on_change(clinic_data, tmp_path):
    path = clinic_db(clinic_data, tmp_path)
    feeds = CalendarFeeds(path, with_initials=True)
    assert feeds.refresh() and not feeds.refresh()                     # nothing changed since
    lee = calendar_folder(path) / "lee.ics"
    assert b"Follow-up \xe2\x80\x93 S.J." in lee.read_bytes() and b"Sarah" not in lee.read_bytes()
    assert oct(lee.stat().st_mode & 0o777) == "0o640"
    handler = StaffCommandHandler(path, on_diary_change=feeds.refresh)
    result = handler(StaffCommand(action=BLOCK_TIME, user="alice", details={
        "practitioner": "lee", "start": "2026-11-27T08:00", "end": "2026-11-27T12:00", "reason": "leave"}))
    assert result.ok, result.message
    assert "Blocked: leave" in [str(e["summary"]) for e in events(lee)[1].values()]


def test_the_service_rewrites_the_feeds_after_a_call_changed_the_diary():
    bus, calls, started, changed = EventBus(), [], threading.Event(), threading.Event()

    def on_change():
        calls.append(1)
        (started if len(calls) == 1 else changed).set()

    follower = DiaryFollower(bus, on_change, every_seconds=60).start()
    try:
        assert started.wait(5)                                          # the feeds are written at start
        bus.publish("turn", "call-1", {"call_id": "call-1"})           # not a change: no rewrite for it
        bus.publish("tool_call", "call-1", {"call_id": "call-1", "name": "CreateAppointment"})
        assert changed.wait(5)
    finally:
        follower.close()
    assert len(calls) == 2                                              # once at start, once after the tool call

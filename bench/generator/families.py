"""What each generated caller wants, and what the agent must then do.

A family writes the caller's script and computes `expect` from what the caller asked
for, shared/SCENARIOS.md and the slot oracle, never from the product's code. Each
returns the scenario's name in plain words.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta

from . import phrasings
from .call import Call, Retry, appointment_row
from .people import Person
from .slot_oracle import Offer, offer
from .spoken import WEEKDAYS, ordinal_suffix, said_name, with_article
from .windows import Preference, coming, preference

NTH = ("first", "second")
DAY_MEANINGS = ("day", "day_part")  # a named day, for families that change or fill it


@dataclass
class Booking:
    service: str
    location: str
    practitioner: str | None  # the one the caller asked for
    pref: Preference
    words: str  # how the caller says the time they want
    meaning: str
    offer: Offer


@dataclass
class Who:
    person: Person
    ref: str  # how `expect` names the patient: an id, or the full name of a record the call creates
    described: str


# ---- who calls ------------------------------------------------------------------------

def known_caller(call: Call) -> Who:
    """A patient on file, calling from their own number, a withheld one, another one, or a shared family phone."""
    who = call.person()
    phone = call.mobile()
    style = call.rng.choices(["own", "withheld", "other", "shared"], weights=[50, 25, 10, 15])[0]
    if style == "shared":
        relative = call.person(last=who.last)
        before = call.rng.random() < 0.5
        if before:
            call.add_patient(relative, phone)
        patient_id = call.add_patient(who, phone)
        if not before:
            call.add_patient(relative, phone)
        call.caller_id = phone
        return Who(who, patient_id, f"a known patient on a phone shared with {relative.first}")
    patient_id = call.add_patient(who, phone)
    call.caller_id = {"own": phone, "withheld": "", "other": call.mobile()}[style]
    described = {"own": "a known patient with caller ID", "withheld": "a known patient with a withheld number",
                 "other": "a known patient calling from a number not on file"}[style]
    return Who(who, patient_id, described)


def new_caller(call: Call) -> tuple[Who, str]:
    """Someone not on file; returns them and the number they give when asked."""
    who = call.person()
    style = call.rng.choices(["withheld", "own", "family"], weights=[50, 40, 10])[0]
    given = call.mobile()
    if style == "family":
        relative = call.person()
        call.add_patient(relative, given)
        call.caller_id = given
        return Who(who, who.full, f"a new patient calling from {relative.first}'s phone"), given
    call.caller_id = "" if style == "withheld" else given
    described = "a new patient with a withheld number" if style == "withheld" else "a new patient with caller ID"
    return Who(who, who.full, described), given


# ---- a booking ------------------------------------------------------------------------

def draw_booking(call: Call, *, new: bool, named: bool = False, need: int = 2, meanings: tuple[str, ...] | None = None,
                 avoid_days: set[date] = frozenset(), service: str | None = None, location: str | None = None,
                 practitioner: str | None = None, keep: str | None = None, patient: str | None = None) -> Booking:
    """What the caller asks for and what the agent offers, with at least `need` times in the window.
    `keep` fixes the practitioner without the caller naming them (a reschedule). `patient`: a known caller, whose
    own booked times must not be among those offered (see `own_time_offered`)."""
    plan = call.plan
    service = service or call.rng.choice(list(plan.new_patient_services) if new else plan.returning_services())
    if named and practitioner is None:
        practitioner = call.rng.choice([p for p in plan.block["practitioners"] if service in p["services"]])["id"]
    if location is None:
        sites = [loc for loc in plan.locations_for(service)
                 if practitioner is None or loc in plan.practitioner(practitioner)["locations"]]
        location = call.rng.choice(sites)
    for _ in range(60):
        entry = call.rng.choice([e for e in phrasings.phrasings()["time_preference"]
                                 if meanings is None or e["window"] in meanings])
        pref = preference(entry["window"], call.now, call.rng, plan.open_weekdays())
        if pref is None or (pref.day is not None and pref.day.date() in avoid_days):
            continue
        offered = offer(call.clinic(), service, location, pref.window, call.now, practitioner=practitioner or keep)
        if not offered.in_window or len(offered.slots) < need:
            continue
        if any(s.start.date() in avoid_days for s in offered.slots) or own_time_offered(call, patient, offered.slots):
            continue
        words = phrasings.fill("time_preference", entry["say"], pref.facts)
        return Booking(service, location, practitioner, pref, words, entry["window"], offered)
    raise Retry("no window with enough free times")


def own_time_offered(call: Call, patient: str | None, slots) -> bool:
    """Whether a time offered is one the patient is already booked at (with anyone). SCENARIOS.md's offer does not
    look at the caller's own bookings, but the product refuses one patient booked twice at the same start and so
    offers other times then; such a draw has two right answers, so it is drawn again."""
    if patient is None:
        return False
    own = {datetime.fromisoformat(str(a["start"])) for a in call.appointments
           if a["patient"] == patient and a.get("status", "booked") == "booked"}
    return any(slot.start in own for slot in slots)


def booking_answers(call: Call, booking: Booking) -> None:
    """Answers to everything the agent may ask on the way to a booking."""
    facts = call.service_facts(booking.service)
    answers = call.caller.answers
    answers["intent"] = call.say("intent.book_service", facts)
    answers["service"] = call.say("service", facts)
    answers["location"] = call.say("location", call.location_facts(booking.location))
    if booking.practitioner:
        answers["practitioner"] = call.practitioner_facts(booking.practitioner)["practitioner_alias"]
    else:
        answers["practitioner"] = call.say("practitioner")
    answers["time_preference"] = booking.words
    answers["anything_else"] = call.say("anything_else")
    answers["callback_reason"] = f"I wanted to book {facts['a_service']}"


def booking_opening(call: Call, booking: Booking, *, says_new: bool) -> bool:
    """The caller's first words; True when they already say the time they want."""
    facts = {**call.service_facts(booking.service), **call.location_facts(booking.location),
             "when": booking.pref.described}
    if says_new:
        call.caller.opening = call.say("intent.book_new", facts)
        return False
    if booking.practitioner:
        facts.update(call.practitioner_facts(booking.practitioner))
        call.caller.opening = call.say("intent.book_practitioner", facts)
        return False
    kinds = ["intent.book", "intent.book_service"]
    if booking.meaning != "soonest":  # "a follow-up for the soonest time" is not how people put it
        kinds.append("intent.book_service_when")
    kind = call.rng.choice(kinds)
    call.caller.opening = call.say(kind, facts)
    return kind == "intent.book_service_when"


def yes(call: Call) -> str:
    return call.say("yes")


def new_patient_answers(call: Call, who: Who, given: str, *, says_new: bool) -> list[str]:
    """The new caller's name, number and retry; returns the confirms before the booking's (the details read-back)."""
    if not says_new:
        names = call.name_facts(who.person)
        call.caller.answers["full_name"] = [call.caller.answers["full_name"], call.say("new_patient_retry", names)]
    call.caller.answers["phone"] = call.phone_answer(given)
    return [yes(call)]


def booked_expect(call: Call, who: Who, slot, *, new: bool, **extra) -> None:
    call.expect = {"outcome": "booked", "appointments": [appointment_row(who.ref, slot)],
                   "patients_created": [who.person.full] if new else [], "callbacks": 0, "transferred": False, **extra}


def booking_call(call: Call, *, new: bool, named: bool = False, says_new: bool | None = None, need: int = 2,
                 meanings: tuple[str, ...] | None = None):
    """The common start of every booking family: who, what, the script up to the pick."""
    call.others(call.rng.randint(3, 5))
    if new:
        who, given = new_caller(call)
    else:
        who, given = known_caller(call), ""
        if call.rng.random() < 0.3:
            call.upcoming_booking(who.ref)
    call.busy_diary([p["id"] for p in call.patients])
    booking = draw_booking(call, new=new, named=named, need=need, meanings=meanings,
                           patient=None if new else who.ref)
    says_new = (call.rng.random() < 0.6) if (new and says_new is None) else bool(says_new)
    call.identity(who.person)
    booking_answers(call, booking)
    when_said = booking_opening(call, booking, says_new=says_new and new)
    before: list[str] = []
    if new:
        before = new_patient_answers(call, who, given, says_new=says_new)
    else:
        call.caller.answers["phone"] = call.phone_answer(call.patient(who.ref)["phone"])
    return who, booking, before, when_said


def what(call: Call, booking: Booking) -> str:
    service = with_article(said_name(call.plan.service(booking.service)["name"]))
    where = f" at {call.plan.location(booking.location)['name']}" if len(call.plan.block["locations"]) > 1 else ""
    return f"{service}{where}"


# ---- the families ---------------------------------------------------------------------

def book_known(call: Call) -> str:
    named = call.rng.random() < 0.2
    who, booking, _, _ = booking_call(call, new=False, named=named)
    words, index = call.slot_pick(booking.offer.slots)
    call.caller.answers.update({"slot_choice": words, "confirm": yes(call)})
    booked_expect(call, who, booking.offer.slots[index], new=False)
    with_whom = f" with {call.plan.practitioner(booking.practitioner)['name']}" if booking.practitioner else ""
    return f"{who.described} books {what(call, booking)}{with_whom} for {booking.pref.described} and takes the {NTH[index]} time"


def book_new(call: Call) -> str:
    who, booking, before, _ = booking_call(call, new=True)
    words, index = call.slot_pick(booking.offer.slots)
    call.caller.answers.update({"slot_choice": words, "confirm": before + [yes(call)]})
    booked_expect(call, who, booking.offer.slots[index], new=True)
    return f"{who.described} books {what(call, booking)} for {booking.pref.described} and takes the {NTH[index]} time"


def side_question(call: Call) -> tuple[str, dict]:
    """A question about price, hours or an address, and what the agent's answer must contain."""
    kind = call.rng.choice(["price", "hours", "address"])
    if kind == "price":
        service = call.plan.service(call.rng.choice(call.plan.block["services"])["id"])
        facts = call.service_facts(service["id"])
        q = call.rng.choice([facts["a_service"], facts["an_alias"]])
        return call.say("price_question", {"q_service": q}), {"says": [price_text(service["price"])]}
    if kind == "hours":
        day = call.rng.choice(range(6))
        words = call.say("hours_question", {"q_weekday": WEEKDAYS[day]})
        says = [WEEKDAYS[day]] + ([] if call.plan.hours(coming(call.now, day).date()) else ["closed"])
        return words, {"says": says}
    location = call.rng.choice(call.plan.block["locations"])
    return call.say("address_question", {"q_location": call.site_named(location)}), {"says": [street(location["address"])]}


def price_text(price: float) -> str:
    return f"{price:g}"


def street(address: str) -> str:
    return address.split(",")[0]


def book_side_question(call: Call) -> str:
    new = call.rng.random() < 0.3
    who, booking, before, when_said = booking_call(call, new=new)
    words, index = call.slot_pick(booking.offer.slots)
    call.caller.answers.update({"slot_choice": words, "confirm": before + [yes(call)]})
    question, checks = side_question(call)
    at = call.rng.choice(["dob", "slot_choice"] + ([] if when_said else ["time_preference"]))
    call.caller.interjections.append({"at": at, "say": question})
    booked_expect(call, who, booking.offer.slots[index], new=new, **checks)
    asked = {"dob": "for the date of birth", "slot_choice": "with times on offer", "time_preference": "for a time"}[at]
    return f"{who.described} asks a side question when asked {asked}, then books {what(call, booking)} for {booking.pref.described}"


def book_change_day(call: Call) -> str:
    new = call.rng.random() < 0.25
    who, first, before, _ = booking_call(call, new=new, need=1, meanings=DAY_MEANINGS)
    old_day = first.pref.day.date()
    second = draw_booking(call, new=new, meanings=DAY_MEANINGS, avoid_days={old_day}, service=first.service,
                          location=first.location, practitioner=first.practitioner, patient=None if new else who.ref)
    change = call.say("change_day", {"old_weekday": WEEKDAYS[old_day.weekday()], "new_when": second.pref.described})
    call.caller.interjections.append({"at": "slot_choice", "say": change})
    words, index = call.slot_pick(second.offer.slots)
    # asked for a time again, the caller names the day they have just asked for
    call.caller.answers.update({"slot_choice": words, "confirm": before + [yes(call)],
                                "time_preference": [first.words, second.words]})
    booked_expect(call, who, second.offer.slots[index], new=new)
    return (f"{who.described} asks for {first.pref.described}, then cannot come that day and books "
            f"{what(call, second)} for {second.pref.described} instead")


def book_decline_readback(call: Call) -> str:
    new = call.rng.random() < 0.2
    who, booking, before, _ = booking_call(call, new=new)
    first_words, first = call.slot_pick(booking.offer.slots)
    other_words, other = call.slot_pick(booking.offer.slots, index=1 - first)
    call.caller.answers.update({"slot_choice": [first_words, other_words],
                                "confirm": before + [call.say("no"), yes(call)]})
    booked_expect(call, who, booking.offer.slots[other], new=new)
    return (f"{who.described} picks the {NTH[first]} time for {what(call, booking)}, says no at the read-back "
            f"and takes the {NTH[other]} instead")


def wrong_birthday(call: Call, born: date) -> date:
    """Another date of birth in another year (a slip of the tongue)."""
    for _ in range(20):
        wrong = born.replace(year=born.year + call.rng.choice([-10, -2, -1, 1, 2, 10]), day=min(born.day, 28))
        if wrong < call.today and wrong != born:
            return wrong
    raise Retry("no other date of birth")


def book_fix_dob(call: Call) -> str:
    new = call.rng.random() < 0.4
    who, booking, _, _ = booking_call(call, new=new, says_new=True if new else None)
    born, wrong = who.person.dob, wrong_birthday(call, who.person.dob)
    right_words = call.say("dob", call.dob_facts(born))
    wrong_words = call.say("dob", call.dob_facts(wrong))
    correction = call.say("dob_correction", {"dob": right_words})
    words, index = call.slot_pick(booking.offer.slots)
    call.caller.answers["slot_choice"] = words
    extra: dict = {}
    if not new:
        # the agent finds the name but not the date, and asks for it again
        call.caller.answers["dob"] = [wrong_words, correction]
        call.caller.answers["confirm"] = yes(call)
        how = "is not matched, corrects the date of birth"
    elif call.caller_id == "" and call.rng.random() < 0.5:
        call.caller.answers["dob"] = [wrong_words, right_words]
        call.caller.interjections.append({"at": "phone", "say": correction})
        call.caller.answers["confirm"] = [yes(call), yes(call)]
        extra = {"says": [str(born.year)]}
        how = "corrects the date of birth when asked for a number"
    else:
        call.caller.answers["dob"] = [wrong_words, right_words]
        call.caller.answers["confirm"] = [correction, yes(call), yes(call)]
        extra = {"says": [str(born.year)]}
        how = "corrects the date of birth at the read-back"
    booked_expect(call, who, booking.offer.slots[index], new=new, **extra)
    return f"{who.described} gives a wrong year of birth, {how} and books {what(call, booking)}"


def book_fix_name(call: Call) -> str:
    new = call.rng.random() < 0.5
    who, booking, before, _ = booking_call(call, new=new, says_new=True if new else None)
    wrong_last = call.person().last
    if wrong_last == who.person.last:
        raise Retry("the wrong name is the right one")
    names = {**call.name_facts(who.person), "wrong_last": wrong_last}
    wrong_name = call.say("full_name", {**names, "last": wrong_last})
    correction = call.say("name_correction", names)
    words, index = call.slot_pick(booking.offer.slots)
    call.caller.answers["slot_choice"] = words
    # once corrected, the caller gives the right name if asked again
    call.caller.answers["full_name"] = [wrong_name, call.say("full_name", names)]
    if new and call.rng.random() < 0.5:
        call.caller.answers["confirm"] = [correction, yes(call), yes(call)]
        how = "at the read-back"
    else:
        call.caller.interjections.append({"at": "dob", "say": correction})
        call.caller.answers["confirm"] = before + [yes(call)]
        how = "before the date of birth"
    booked_expect(call, who, booking.offer.slots[index], new=new)
    return f"{who.described} gives the surname {wrong_last}, corrects it to {who.person.last} {how} and books {what(call, booking)}"


def fill_window(call: Call, service: str, location: str, pref: Preference, patients: list[str]) -> None:
    """Book every practitioner who could take the caller back to back through the window, so it has no free time."""
    day = pref.day.date()
    day_from, day_to = pref.window.day_from, pref.window.day_to
    for p in call.plan.practitioners_for(service, location):
        for opens, closes in call.plan.hours(day):
            start = datetime.combine(day, max(opens, day_from) if day_from else opens)
            end = datetime.combine(day, min(closes, day_to) if day_to else closes)
            while start < end:
                fits = [s for s in p["services"] if start + timedelta(minutes=call.minutes(s)) <= datetime.combine(day, closes)]
                chosen = call.rng.choice(fits or p["services"])
                if call.is_free(p["id"], start, call.minutes(chosen)):
                    call.add_appointment(call.rng.choice(patients), chosen, p["id"], call.rng.choice(p["locations"]), start)
                    start += timedelta(minutes=call.minutes(chosen))
                else:
                    start += timedelta(minutes=15)


def book_no_slots(call: Call) -> str:
    """The window the caller wants is full (or closed): the agent says so and offers the first times after it."""
    others = call.others(call.rng.randint(4, 6))
    who = known_caller(call)
    plan = call.plan
    service = call.rng.choice(plan.returning_services())
    location = call.rng.choice(plan.locations_for(service))
    meaning = call.rng.choice(DAY_MEANINGS)
    pref = preference(meaning, call.now, call.rng, plan.open_weekdays())
    if pref is None:
        raise Retry("no day to fill")
    fill_window(call, service, location, pref, others)
    call.busy_diary(others, chance=0.4)
    offered = offer(call.clinic(), service, location, pref.window, call.now)
    if offered.in_window or len(offered.slots) < 2:
        raise Retry("the window still has room")
    if own_time_offered(call, who.ref, offered.slots):
        raise Retry("a time offered is the caller's own booking")
    entry = call.rng.choice([e for e in phrasings.phrasings()["time_preference"] if e["window"] == meaning])
    booking = Booking(service, location, None, pref, phrasings.fill("time_preference", entry["say"], pref.facts), meaning, offered)
    call.identity(who.person)
    booking_answers(call, booking)
    booking_opening(call, booking, says_new=False)
    words, index = call.slot_pick(offered.slots)
    call.caller.answers.update({"slot_choice": words, "confirm": yes(call)})
    booked_expect(call, who, offered.slots[index], new=False)
    return (f"{who.described} wants {what(call, booking)} on {pref.described}, which is fully booked, "
            f"and takes the {NTH[index]} time offered after it")


# ---- existing bookings ----------------------------------------------------------------

def own_bookings(call: Call, patient: str, count: int) -> list[dict]:
    bookings: list[dict] = []
    for _ in range(count):
        used = {datetime.fromisoformat(b["start"]).date() for b in bookings}
        bookings.append(call.upcoming_booking(patient, avoid=used))
    if call.rng.random() < 0.2:  # a visit already past, which is no longer "upcoming"
        past = call.rng.choice(call.plan.returning_services())
        location = call.rng.choice(call.plan.locations_for(past))
        p = call.rng.choice(call.plan.practitioners_for(past, location))["id"]
        start = datetime.combine(call.today - timedelta(days=call.rng.randint(7, 40)), datetime.min.time()).replace(hour=10)
        call.add_appointment(patient, past, p, location, start)
    return bookings


def existing_call(call: Call, intent: str, *, count: int | None = None) -> tuple[Who, list[dict], dict]:
    call.others(call.rng.randint(3, 5))
    who = known_caller(call)
    count = count or call.rng.choice([1, 1, 2])
    bookings = own_bookings(call, who.ref, count)
    if who.described.startswith("a known patient on a phone shared") and call.rng.random() < 0.5:
        relative = next(p["id"] for p in call.patients if p.get("phone") == call.caller_id and p["id"] != who.ref)
        call.upcoming_booking(relative)  # the other person on the phone has a booking too
    call.busy_diary([p["id"] for p in call.patients if p["id"] != who.ref])
    target = call.rng.choice(bookings)
    call.identity(who.person)
    call.caller.opening = call.say(f"intent.{intent}")
    answers = call.caller.answers
    answers["intent"] = call.say(f"intent.{intent}")
    answers["anything_else"] = call.say("anything_else")
    answers["confirm"] = yes(call)  # "am I speaking with ...?" as well as the read-back
    answers["phone"] = call.phone_answer(call.patient(who.ref)["phone"])
    answers["callback_reason"] = f"I wanted to {intent} my appointment" if intent != "query" else "I wanted to check my appointment"
    if len(bookings) > 1:
        answers["booking_choice"] = call.booking_choice(bookings, target)
    return who, bookings, target


def booked_words(call: Call, appt: dict) -> str:
    start = datetime.fromisoformat(appt["start"])
    return f"{said_name(call.plan.service(appt['service'])['name'])} on {WEEKDAYS[start.weekday()]} the {ordinal_suffix(start.day)}"


def reschedule(call: Call) -> str:
    who, bookings, target = existing_call(call, "reschedule")
    old = datetime.fromisoformat(target["start"])
    booking = draw_booking(call, new=False, avoid_days={old.date()}, service=target["service"],
                           location=target["location"], keep=target["practitioner"], patient=who.ref)
    words, index = call.slot_pick(booking.offer.slots)
    answers = call.caller.answers
    answers.update({"time_preference": booking.words, "slot_choice": words, "confirm": yes(call),
                    "service": call.say("service", call.service_facts(target["service"])),
                    "location": call.say("location", call.location_facts(target["location"]))})
    slot = booking.offer.slots[index]
    moved = {**appointment_row(who.ref, slot), "status": "booked"}
    was = {"patient": who.ref, "service": target["service"], "practitioner": target["practitioner"],
           "location": target["location"], "start": target["start"], "status": "cancelled"}
    call.expect = {"outcome": "rescheduled", "appointments": [moved, was], "patients_created": [], "callbacks": 0,
                   "transferred": False}
    which = f" (one of {len(bookings)})" if len(bookings) > 1 else ""
    return (f"{who.described} moves the {booked_words(call, target)}{which} to {booking.pref.described} "
            f"and takes the {NTH[index]} time")


def cancel(call: Call) -> str:
    who, bookings, target = existing_call(call, "cancel")
    call.caller.answers["confirm"] = yes(call)
    was = {"patient": who.ref, "service": target["service"], "practitioner": target["practitioner"],
           "location": target["location"], "start": target["start"], "status": "cancelled"}
    call.expect = {"outcome": "cancelled", "appointments": [was], "patients_created": [], "callbacks": 0,
                   "transferred": False}
    which = f" and keeps the other" if len(bookings) > 1 else ""
    return f"{who.described} cancels the {booked_words(call, target)}{which}"


def query(call: Call) -> str:
    who, bookings, _ = existing_call(call, "query")
    call.caller.answers.pop("booking_choice", None)
    call.caller.answers["booking_choice"] = "the next one"
    nxt = min(bookings, key=lambda a: a["start"])
    day = WEEKDAYS[datetime.fromisoformat(nxt["start"]).weekday()]
    call.expect = {"outcome": "info", "appointments": [], "patients_created": [], "callbacks": 0,
                   "transferred": False, "says": [day]}
    return f"{who.described} with {len(bookings)} upcoming booking{'s' if len(bookings) > 1 else ''} asks when the next one is"


# ---- questions and handoffs -----------------------------------------------------------

def anyone_calling(call: Call) -> tuple[Person, str]:
    """A caller who may or may not be on file, with or without caller ID; returns them and their number."""
    call.others(call.rng.randint(2, 4))
    who = call.person()
    number = call.mobile()
    if call.rng.random() < 0.5:
        call.add_patient(who, number)
    call.caller_id = number if call.rng.random() < 0.6 else ""
    call.busy_diary([p["id"] for p in call.patients], chance=0.3)
    return who, number


def question(call: Call) -> str:
    who, number = anyone_calling(call)
    kind = call.rng.choice(["price", "hours", "address"])
    plan = call.plan
    expect: dict = {}
    if kind == "price":
        service = call.rng.choice(plan.block["services"])
        facts = call.service_facts(service["id"])
        call.caller.opening = call.say("intent.price", facts)
        asked = price_text(service["price"])
        said_anyway = f"{asked} {service['minutes']}"
        others = [price_text(s["price"]) for s in plan.block["services"] if s is not service]
        expect = {"says": [asked], "never_says": [p for p in others if p not in said_anyway]}
        about = f"the price of {facts['a_service']}"
    elif kind == "hours":
        day = call.rng.choice(range(6))
        call.caller.opening = call.say("intent.hours", {"q_weekday": WEEKDAYS[day]})
        closed = not plan.hours(coming(call.now, day).date())
        expect = {"says": [WEEKDAYS[day]] + (["closed"] if closed else [])}
        about = f"the opening hours on {WEEKDAYS[day]}"
    else:
        location = call.rng.choice(plan.block["locations"])
        call.caller.opening = call.say("intent.address", {"q_location": call.site_named(location)})
        expect = {"says": [street(location["address"])]}
        about = f"the address of {location['name']}"
    call.identity(who)
    answers = call.caller.answers
    answers["intent"] = call.caller.opening
    answers["anything_else"] = call.say("anything_else")
    answers["confirm"] = call.say("no")
    answers["phone"] = call.phone_answer(number)
    answers["callback_reason"] = f"I only wanted to know {about}"
    call.expect = {"outcome": "info", "appointments": [], "patients_created": [], "callbacks": 0,
                   "transferred": False, **expect}
    return f"a caller {'with caller ID' if call.caller_id else 'with a withheld number'} only asks {about}"


def message_answers(call: Call, who: Person, number: str) -> None:
    p = call.rng.choice(call.plan.block["practitioners"])
    call.identity(who)
    answers = call.caller.answers
    answers["callback_reason"] = call.say("callback_reason", call.practitioner_facts(p["id"]))
    answers["phone"] = call.phone_answer(number)
    answers["anything_else"] = call.say("anything_else")
    answers["confirm"] = yes(call)


def callback(call: Call) -> str:
    who, number = anyone_calling(call)
    call.caller.opening = call.say("intent.callback")
    message_answers(call, who, number)
    call.caller.answers["intent"] = call.say("intent.callback")
    call.expect = {"outcome": "callback", "appointments": [], "patients_created": [], "callbacks": 1, "transferred": False}
    return f"a caller {'with caller ID' if call.caller_id else 'with a withheld number'} asks for a call back and leaves a message"


def human(call: Call) -> str:
    who, number = anyone_calling(call)
    call.caller.opening = call.say("intent.human")
    message_answers(call, who, number)
    call.caller.answers["intent"] = call.say("intent.human")
    if call.plan.has_transfer:
        call.expect = {"outcome": "transferred", "appointments": [], "patients_created": [], "callbacks": 0,
                       "transferred": True}
        return "a caller asks for a person at a clinic with a staff line and is put through"
    call.expect = {"outcome": "callback", "appointments": [], "patients_created": [], "callbacks": 1,
                   "transferred": False}
    return "a caller asks for a person at a clinic without a staff line and leaves a message for a call back"


# family -> (builder, share of calls out of 50): bookings dominate, as in a clinic's day
FAMILIES = {
    "book-known": (book_known, 9),
    "book-new": (book_new, 7),
    "book-side-question": (book_side_question, 4),
    "book-change-day": (book_change_day, 3),
    "book-decline-readback": (book_decline_readback, 3),
    "book-fix-dob": (book_fix_dob, 2),
    "book-fix-name": (book_fix_name, 2),
    "book-no-slots": (book_no_slots, 2),
    "reschedule": (reschedule, 5),
    "cancel": (cancel, 4),
    "query": (query, 2),
    "question": (question, 3),
    "callback": (callback, 2),
    "human": (human, 2),
}

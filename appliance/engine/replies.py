"""Filling reply templates with the facts of the call.

Templates live in the flow file; this module knows every `{placeholder}` they
may use and how to say it. The flow validator checks templates against
`FACT_NAMES`, so a typo in a template is caught before a call, not during one.
"""

from __future__ import annotations

import string
from datetime import datetime
from typing import Callable

from ..domain import ANYONE, AppointmentRecord, Slot
from .conditions import RuleEnv, possible_locations
from .context import CallContext
from .speech import (WEEKDAYS, join_words, say_date_of_birth, say_day, say_letters, say_minutes, say_phone,
                     say_price, say_time, say_when)

CALLBACK_INTRO = {
    "caller_request": "Of course, I can arrange a call back.",
    "human_unavailable": "There's no one free to take your call right now, but I can have someone call you back.",
}
CALLBACK_DONE_INTRO = {
    "caller_request": "Thanks.",
    "human_unavailable": "Thanks.",
    "medical_advice": "I'm not able to give medical advice over the phone, so I'll ask one of our clinicians to call you.",
    "non_service": "Thanks, I'll pass your message on to the right person.",
    "unclear": "I'm sorry, I'm having trouble understanding.",
    "unverified_identity": "I'm sorry, I wasn't able to confirm your details.",
    "patient_not_found": "I couldn't find a record matching those details.",
    "booking_failed": "I'm sorry, I wasn't able to complete that booking.",
    "no_time_agreed": "I'm sorry, I couldn't find a time that suits you.",
    "cancel_failed": "I'm sorry, I wasn't able to cancel that just now.",
    "system_error": "I'm sorry, something went wrong on my side.",
    "transfer_failed": "I'm sorry, I couldn't put you through just now.",
}


def _in_sentence(name: str) -> str:
    """'Hand therapy' reads 'hand therapy' mid-sentence; 'MRI scan' stays as it is."""
    if len(name) > 1 and name[0].isupper() and name[1].islower():
        return name[0].lower() + name[1:]
    return name


def _article(name: str) -> str:
    return ("an " if name[:1].lower() in "aeiou" else "a ") + name


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


# the facts a reply can hold that are the same on every call to the clinic (a reply made of these alone can be
# synthesised before any call: voice.clinic_lines_for)
CLINIC_FACTS = frozenset({"clinic", "clinic_phone", "emergency_number"})


class Facts:
    """A lazy mapping from placeholder name to the words for it."""

    def __init__(self, ctx: CallContext, env: RuleEnv, now: datetime):
        self.ctx = ctx
        self.env = env
        self.now = now

    def __getitem__(self, key: str) -> str:
        fn: Callable[[], str] | None = getattr(self, "fact_" + key, None)
        if fn is None:
            raise KeyError(key)
        return fn()

    # ---- helpers
    def _service_name(self, service_id: str | None) -> str:
        return self.env.catalog.service(service_id).name if service_id else "appointment"

    def _with_whom(self, practitioner_id: str) -> str:
        return self.env.catalog.practitioner(practitioner_id).name

    def _where(self, location_id: str | None) -> str:
        if not location_id or len(self.env.catalog.locations) < 2:
            return ""
        return f" at our {self.env.catalog.location(location_id).name} clinic"

    def _appointment(self, appt: AppointmentRecord | Slot, *, with_service: bool = True) -> str:
        service_id = appt.service_id
        text = f"{_in_sentence(self._service_name(service_id))} " if with_service else ""
        text += f"with {self._with_whom(appt.practitioner_id)}{self._where(appt.location_id)} on {say_when(appt.start, self.now)}"
        return text

    # ---- clinic
    def fact_clinic(self) -> str:
        return self.env.profile.name

    def fact_clinic_phone(self) -> str:
        return say_phone(self.env.profile.phone, self.env.region)

    def fact_emergency_number(self) -> str:
        return self.env.profile.emergency_number

    def fact_crisis_number(self) -> str:
        return self.env.profile.crisis_number

    def fact_hours_answer(self) -> str:
        """The hours of the days the caller asked about ("are you open on Saturdays?"), else the whole week:
        read out on a phone, a week of split shifts takes twenty seconds nobody asked for."""
        asked = self.ctx.utt.weekdays if self.ctx.utt is not None else ()
        if not asked:
            return f"We're open {self.fact_hours()}."
        parts = []
        for day in asked:
            text = self._day_hours(day)
            parts.append(f"on {WEEKDAYS[day]} we're open {text}" if text else f"on {WEEKDAYS[day]} we're closed")
        return _capital(join_words(parts)) + "."

    def _day_hours(self, day: int) -> str:
        return join_words([f"{say_time(r.start)} to {say_time(r.end)}" for r in self.env.profile.hours.get(day, ())])

    def fact_hours(self) -> str:
        groups: list[tuple[int, int, str]] = []
        for day in range(7):
            text = self._day_hours(day)
            if groups and groups[-1][2] == text and groups[-1][1] == day - 1:
                groups[-1] = (groups[-1][0], day, text)
            else:
                groups.append((day, day, text))
        open_parts, closed = [], []
        for first, last, text in groups:
            days = WEEKDAYS[first] if first == last else f"{WEEKDAYS[first]} to {WEEKDAYS[last]}"
            if text:
                open_parts.append(f"{days} {text}")
            else:
                closed.append(days)
        answer = join_words(open_parts)
        if closed:
            answer += f", and closed {join_words(closed)}"
        return answer

    def fact_address_answer(self) -> str:
        catalog = self.env.catalog
        wanted = self.ctx.utt.location_id if self.ctx.utt else None
        if wanted is None and len(catalog.locations) == 1:
            wanted = catalog.locations[0].id
        if wanted is not None:
            loc = catalog.location(wanted)
            return f"Our {loc.name} clinic is at {loc.address}."
        parts = [f"{loc.name} at {loc.address}" for loc in catalog.locations]
        return f"We have {len(parts)} clinics: {join_words(parts)}."

    def fact_offer_answer(self) -> str:
        """Who and where the times on offer are, after "is that at <site>?" or "are those with <name>?": yes or no
        to what was asked, then the answer itself."""
        offered = self.ctx.offered or ((self.ctx.picked,) if self.ctx.picked else ())
        if not offered:
            return "I haven't offered a time yet."
        catalog, utt = self.env.catalog, self.ctx.utt
        asked = [(attr, wanted) for attr, wanted in (("location_id", utt and utt.location_id),
                                                     ("practitioner_id", utt and utt.practitioner_id)) if wanted]
        held = [all(getattr(slot, attr) == wanted for slot in offered) for attr, wanted in asked]
        lead = "Yes, " if held and all(held) else "No, " if held else ""
        pairs = list(dict.fromkeys((slot.practitioner_id, slot.location_id) for slot in offered))
        where = [f"with {catalog.practitioner(p).name} at our {catalog.location(loc).name} clinic" for p, loc in pairs]
        if len(pairs) == 1:
            subject = "that's" if len(offered) == 1 else "both are" if len(offered) == 2 else "they're all"
            return _capital(f"{lead}{subject} {where[0]}.")
        return _capital(f"{lead}the first is {where[0]}, and the second {where[1]}.")

    # ---- services and prices
    def fact_service(self) -> str:
        return _in_sentence(self._service_name(self.ctx.service_id))

    def fact_service_list(self) -> str:
        return join_words([_in_sentence(s.name) for s in self.env.catalog.services], "or")

    def fact_location_list(self) -> str:
        options = possible_locations(self.ctx, self.env.catalog) if self.ctx.service_id else [
            loc.id for loc in self.env.catalog.locations]
        return join_words([self.env.catalog.location(i).name for i in options], "or")

    def _tool_services(self, key: str) -> list[dict]:
        tool = self.ctx.last_tool
        return list(tool.result.get(key, [])) if tool is not None and tool.ok else []

    def fact_price_answer(self) -> str:
        services = self._tool_services("services")
        symbol = self.env.profile.currency_symbol
        if not services:
            return "I'm sorry, I can't find that price just now; the front desk can tell you."
        if len(services) == 1:
            s = services[0]
            return f"{_capital(_article(_in_sentence(s['name'])))} is {say_price(s['price'], symbol)}, and takes {say_minutes(s['minutes'])}."
        listed = [f"{_article(_in_sentence(s['name']))} is {say_price(s['price'], symbol)}" for s in services]
        return _capital(join_words(listed)) + "."

    def fact_service_info_answer(self) -> str:
        types = self._tool_services("types")
        symbol = self.env.profile.currency_symbol
        if not types:
            return "I'm sorry, I can't find that just now; the front desk can tell you more."
        if len(types) == 1:
            t = types[0]
            price = self.env.catalog.service(t["id"]).price
            about = t.get("description") or f"{_article(t['name'])} appointment"
            about = about.rstrip(".")
            return f"{t['name']}: {about}. It takes {say_minutes(t['minutes'])} and costs {say_price(price, symbol)}."
        return f"We offer {join_words([_in_sentence(t['name']) for t in types])}."

    # ---- the caller
    def fact_first_name_comma(self) -> str:
        return f", {self.ctx.first_name}" if self.ctx.first_name else ""

    def fact_whose(self) -> str:
        """Whose details are asked for: "your", or "your son's" where the caller books for someone of theirs."""
        return f"your {self.ctx.patient_relation}'s" if self.ctx.patient_relation else "your"

    def fact_name(self) -> str:
        return self.ctx.full_name or "you"

    def fact_candidate_name(self) -> str:
        candidate = self.ctx.identity_candidate
        return f"{candidate.first_name} {candidate.last_name}" if candidate else "you"

    def fact_dob(self) -> str:
        return say_date_of_birth(self.ctx.dob, self.env.region) if self.ctx.dob else "unknown"

    def fact_phone(self) -> str:
        return say_phone(self.ctx.phone or self.ctx.caller_id, self.env.region)

    def fact_surname_spelled(self) -> str:
        """The surname's letters, so a caller can check a name they cannot hear the spelling of."""
        return say_letters(self.ctx.last_name) if self.ctx.last_name else ""

    def fact_contact(self) -> str:
        if self.ctx.phone or self.ctx.caller_id:
            return f"phone {self.fact_phone()}"
        return "and no phone number for now"

    # ---- slots and bookings
    def fact_window(self) -> str:
        window = self.ctx.offer_window or self.ctx.window
        label = window.label if window else "then"
        return label if label.split(" ")[0] in ("on", "in", "at", "this", "next", "that") else f"for {label}"

    def fact_practitioner_problem(self) -> str:
        ctx = self.ctx
        if ctx.practitioner_id in (None, ANYONE):
            return ""
        who = self.env.catalog.practitioner(ctx.practitioner_id).name
        if ctx.service_id and ctx.service_id not in self.env.catalog.practitioner(ctx.practitioner_id).services:
            return f"I'm sorry, {who} doesn't offer {_in_sentence(self._service_name(ctx.service_id))} appointments."
        if ctx.location_id:
            return f"I'm sorry, {who} doesn't work at our {self.env.catalog.location(ctx.location_id).name} clinic."
        return ""

    def fact_practitioner_options(self) -> str:
        ctx = self.ctx
        names = [p.name for p in self.env.catalog.practitioners
                 if (ctx.service_id is None or ctx.service_id in p.services)
                 and (ctx.location_id is None or ctx.location_id in p.locations)]
        return join_words(names, "or") or "someone else"

    def fact_slot_offer(self) -> str:
        slots = self.ctx.offered
        if len(slots) == 1:
            return f"The earliest I have is {self._appointment(slots[0], with_service=False)}."
        a, b = slots[0], slots[1]
        same_person = a.practitioner_id == b.practitioner_id
        where = self._where(a.location_id)
        if a.start.date() == b.start.date():
            day = say_day(a.start.date(), self.now)
            if same_person:
                return (f"I have {day} at {say_time(a.start.time())} or {say_time(b.start.time())}, "
                        f"with {self._with_whom(a.practitioner_id)}{where}.")
            return (f"I have {day} at {say_time(a.start.time())} with {self._with_whom(a.practitioner_id)}, "
                    f"or {say_time(b.start.time())} with {self._with_whom(b.practitioner_id)}{where}.")
        if same_person:
            return (f"I have {say_when(a.start, self.now)} or {say_when(b.start, self.now)}, "
                    f"with {self._with_whom(a.practitioner_id)}{where}.")
        return (f"I have {say_when(a.start, self.now)} with {self._with_whom(a.practitioner_id)}, "
                f"or {say_when(b.start, self.now)} with {self._with_whom(b.practitioner_id)}{where}.")

    def fact_slot_choices(self) -> str:
        return join_words([say_when(s.start, self.now) for s in self.ctx.offered], "or")

    def fact_booking_summary(self) -> str:
        slot = self.ctx.picked
        return _article(self._appointment(slot)) if slot else "that appointment"

    def fact_booked_summary(self) -> str:
        appt = self.ctx.booked
        return _article(self._appointment(appt)) if appt else "done"

    def fact_booking_list(self) -> str:
        shown = self.ctx.targets if self.ctx.task == "cancel_all" and self.ctx.targets else self.ctx.bookings or ()
        return join_words([_article(self._appointment(b)) for b in shown])

    def fact_booking_choices(self) -> str:
        return join_words([f"the {_in_sentence(self._service_name(b.service_id))} on {say_when(b.start, self.now)}"
                           for b in self.ctx.bookings or ()], "or")

    def fact_booking_count(self) -> str:
        shown = self.ctx.targets if self.ctx.targets and len(self.ctx.targets) > 1 else self.ctx.bookings or ()
        return str(len(shown))

    def fact_bookings_answer(self) -> str:
        bookings = self.ctx.bookings or ()
        if not bookings:
            return "I can't see any upcoming appointments for you."
        if len(bookings) == 1:
            return f"You have {_article(self._appointment(bookings[0]))}."
        return f"You have {len(bookings)} upcoming appointments: {self.fact_booking_list()}."

    def fact_target_summary(self) -> str:
        targets = self.ctx.targets
        return self._appointment(targets[0]) if targets else "appointment"

    def fact_reschedule_summary(self) -> str:
        slot = self.ctx.picked
        if not slot:
            return "the new time"
        when = say_when(slot.start, self.now)
        old = self.ctx.targets[0] if self.ctx.targets else None
        if old is not None and (old.practitioner_id, old.location_id) == (slot.practitioner_id, slot.location_id):
            return when  # same person, same place: only the time changes
        return f"{when} with {self._with_whom(slot.practitioner_id)}{self._where(slot.location_id)}"

    def fact_new_summary(self) -> str:
        if not self.ctx.rescheduled:
            return "moved"
        new = self.ctx.rescheduled[1]
        return f"{say_when(new.start, self.now)} with {self._with_whom(new.practitioner_id)}{self._where(new.location_id)}"

    def fact_cancelled_summary(self) -> str:
        cancelled = self.ctx.cancelled
        if len(cancelled) == 1:
            return f"your {self._appointment(cancelled[0])} is"
        return f"all {len(cancelled)} of your appointments are"

    # ---- handoffs
    def fact_callback_intro(self) -> str:
        return CALLBACK_INTRO.get(self.ctx.callback_reason or "", "I can have someone call you back.")

    def fact_callback_intro_done(self) -> str:
        return CALLBACK_DONE_INTRO.get(self.ctx.callback_reason or "", "Thanks.")

    def fact_callback_number(self) -> str:
        phone = self.ctx.callback_phone
        return f" on {say_phone(phone, self.env.region)}" if phone else ""


FACT_NAMES = frozenset(name[5:] for name in dir(Facts) if name.startswith("fact_"))


def placeholders(template: str) -> set[str]:
    return {field for _, field, _, _ in string.Formatter().parse(template) if field}


def render(template: str, facts: Facts) -> str:
    return template.format_map(facts).strip()

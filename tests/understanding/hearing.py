"""The clinic the understanding tests listen in: two sites, four services,
three practitioners; the clock frozen on Monday 2026-11-23 09:05; and `hear`,
which runs one caller line through `understand`."""

from __future__ import annotations

from datetime import datetime

from appliance.clinic.regions import region_for
from appliance.domain import AppointmentRecord, Catalog, Location, Practitioner, Service, Slot
from appliance.engine.flow import SHIPPED_FLOWS
from appliance.understanding import ListenContext, Utterance, known_kinds, read_questions, understand

# the shipped question declarations (config/flows/questions.yaml), by `waiting_for` name
QUESTIONS = read_questions(SHIPPED_FLOWS / "questions.yaml", known_kinds=known_kinds())

NOW = datetime(2026, 11, 23, 9, 5)  # a Monday

CATALOG = Catalog(
    services=(
        Service("initial", "Initial consultation", 45, 110.0, aliases=("first visit", "new patient")),
        Service("followup", "Follow-up", 30, 85.0, aliases=("review", "standard")),
        Service("flu", "Flu shot", 15, 25.0),
        Service("massage", "Remedial massage", 60, 120.0),
    ),
    locations=(
        Location("city", "City", "12 George St, Sydney"),
        Location("north", "North Sydney", "5 Miller St, North Sydney"),
    ),
    practitioners=(
        Practitioner("lee", "Dr Anna Lee", ("initial", "followup"), ("city",)),
        Practitioner("shah", "Raj Shah", ("followup", "massage"), ("city", "north")),
        Practitioner("gonzalez", "Dr Maria Gonzalez", ("initial", "followup", "flu"), ("north",)),
    ),
)

# The same clinic with a third site, for callers who name it.
CATALOG_EASTSIDE = Catalog(
    services=CATALOG.services,
    locations=(*CATALOG.locations, Location("east", "Eastside", "1 East Rd, Randwick", aliases=("east side clinic",))),
    practitioners=CATALOG.practitioners,
)

# Two slots offered on Thursday 26 November, as in SCENARIOS.md.
SLOTS = (
    Slot(datetime(2026, 11, 26, 12, 0), "followup", "lee", "city", 30),
    Slot(datetime(2026, 11, 26, 12, 15), "followup", "shah", "city", 30),
)

# The caller's upcoming appointments, in the order read out.
BOOKINGS = (
    AppointmentRecord("a1", "p1", "followup", "lee", "city", datetime(2026, 11, 24, 10, 0), 30, "booked"),
    AppointmentRecord("a2", "p1", "massage", "shah", "north", datetime(2026, 11, 27, 14, 0), 60, "booked"),
)


def hear(
    text: str,
    waiting_for: str = "intent",
    *,
    catalog: Catalog = CATALOG,
    region: str = "AU",
    slots: tuple[Slot, ...] = (),
    bookings: tuple[AppointmentRecord, ...] = (),
    now: datetime = NOW,
) -> Utterance:
    return understand(text, ListenContext(QUESTIONS[waiting_for], now, catalog, region_for(region), slots, bookings))


def intent_names(utterance: Utterance) -> list[str]:
    return [s.name for s in utterance.intents]

"""The clinic file: what a clinic is, as written in YAML, and how it is checked.

The `clinic` block of a scenario (docs: SCENARIOS.md) and `config/clinic.*.yaml`
share this schema. Unknown keys are errors, so a typo never passes silently;
every problem is reported with its YAML path (`services[1].minutes`) so the
person editing the file can find it.

`clinic_from_mapping` is the one way in: it validates a plain mapping (already
parsed from YAML) and returns a `Clinic`, or raises `ClinicDataError` listing
every problem found.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter, defaultdict
from datetime import date, datetime, time, timedelta
from typing import Annotated, Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import phonenumbers
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from appliance.clinic.regions import region_table
from appliance.domain import (
    ANYONE,
    AppointmentRecord,
    Catalog,
    ClinicProfile,
    DiaryBlock,
    Location,
    PatientRecord,
    Practitioner,
    Service,
    TimeRange,
)

WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


_ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_RANGE_PATTERN = re.compile(r"^\s*(\d{1,2}):(\d{2})\s*-\s*(\d{1,2}):(\d{2})\s*$")
_SHORT_NUMBER_PATTERN = re.compile(r"^[0-9][0-9 ]{1,14}$")


class ClinicDataError(ValueError):
    """The clinic data is wrong. `problems` is a list of (yaml_path, message)."""

    def __init__(self, problems: list[tuple[str, str]]):
        self.problems = list(problems)
        super().__init__(str(self))

    def __str__(self) -> str:
        return "\n".join(f"{path}: {message}" if path else message for path, message in self.problems)


class _Problems(ValueError):
    """Raised inside the model validator to carry several located problems out of pydantic."""

    def __init__(self, problems: list[tuple[tuple[str | int, ...], str]]):
        self.problems = problems
        super().__init__("; ".join(message for _, message in problems))


# ---------------------------------------------------------------------------
# Field types


def _as_id(value: Any) -> Any:
    # YAML reads `id: 7` as a number; an id is a word, so take it as text.
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, str):
        if not _ID_PATTERN.match(value):
            raise ValueError(
                f"{value!r} is not a usable id: use letters, digits, '-', '_' or '.', starting with a letter or digit"
            )
    return value


def _as_text(value: Any) -> Any:
    if isinstance(value, str):
        value = " ".join(value.split())
        if not value:
            raise ValueError("must not be empty")
    return value


def _as_str_list(value: Any) -> Any:
    # A single string where a list is expected is almost always meant as a one-item list.
    if isinstance(value, str):
        return [value]
    return value


Id = Annotated[str, BeforeValidator(_as_id)]
Text = Annotated[str, BeforeValidator(_as_text)]
IdList = Annotated[list[Id], BeforeValidator(_as_str_list)]
TextList = Annotated[list[Text], BeforeValidator(_as_str_list)]


def _check_range(value: str) -> str:
    parse_time_range(value)
    return value


RangeText = Annotated[str, AfterValidator(_check_range)]
RangeList = Annotated[list[RangeText], BeforeValidator(_as_str_list)]


def _parse_phone(value: str, region: str | None) -> phonenumbers.PhoneNumber:
    """Parse a phone number, raising ValueError with a message a person can act on."""
    try:
        number = phonenumbers.parse(value, region)
    except phonenumbers.NumberParseException:
        if region is None:
            raise ValueError(f"{value!r} is not a phone number in international format, e.g. +61 2 9000 0000") from None
        raise ValueError(f"{value!r} is not a phone number") from None
    if not is_plausible_phone(number):
        raise ValueError(f"{value!r} is not a possible phone number (check the number of digits)")
    return number


_DIALLABLE_TYPES = (
    phonenumbers.PhoneNumberType.FIXED_LINE,
    phonenumbers.PhoneNumberType.MOBILE,
    phonenumbers.PhoneNumberType.TOLL_FREE,
)


def is_plausible_phone(number: phonenumbers.PhoneNumber) -> bool:
    """Valid, or at least the length of a landline, mobile or toll-free number there
    (so made-up numbers such as US 555 ones pass, but a missing digit does not)."""
    if phonenumbers.is_valid_number(number):
        return True
    return any(phonenumbers.is_possible_number_for_type(number, kind) for kind in _DIALLABLE_TYPES)


def _e164(number: phonenumbers.PhoneNumber) -> str:
    return phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)


def _region_of(number: phonenumbers.PhoneNumber) -> str:
    region = phonenumbers.region_code_for_number(number)
    if not region or region == "ZZ":
        region = phonenumbers.region_code_for_country_code(number.country_code)
    return region or "ZZ"


def _parse_date(value: Any) -> date:
    if isinstance(value, datetime):
        raise ValueError("must be a date without a time, written YYYY-MM-DD, e.g. 1985-03-04")
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        try:
            return date.fromisoformat(value.strip())
        except ValueError:
            pass
    raise ValueError(f"{value!r} is not a real date: write YYYY-MM-DD, e.g. 1985-03-04")


def _parse_local_datetime(value: Any) -> datetime:
    moment: datetime | None = None
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, str) and re.match(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}", value.strip()):
        try:
            moment = datetime.fromisoformat(value.strip())
        except ValueError:
            moment = None
    if moment is None:
        raise ValueError(f"{value!r} is not a date and time: write YYYY-MM-DDTHH:MM in clinic local time, e.g. 2026-11-24T10:00")
    if moment.tzinfo is not None:
        raise ValueError(f"{value!r} has a UTC offset: write clinic local time without one, e.g. 2026-11-24T10:00")
    return moment


def parse_time_range(text: str) -> TimeRange:
    """'08:00-12:30' -> TimeRange; ValueError with the fix otherwise."""
    match = _RANGE_PATTERN.match(text) if isinstance(text, str) else None
    if not match:
        raise ValueError(f"{text!r} is not an opening range: write \"HH:MM-HH:MM\", e.g. \"08:00-12:00\"")
    h1, m1, h2, m2 = (int(g) for g in match.groups())
    try:
        start, end = time(h1, m1), time(h2, m2)
    except ValueError:
        raise ValueError(f"{text!r} has a time that does not exist (hours 00-23, minutes 00-59)") from None
    if not start < end:
        raise ValueError(f"{text!r} closes before it opens: the start must be earlier than the end")
    return TimeRange(start, end)


# ---------------------------------------------------------------------------
# The parts of the file


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=True)


class HoursEntry(_Strict):
    """Weekday -> open ranges ("HH:MM-HH:MM"); a missing or empty day is closed."""

    mon: RangeList = Field(default_factory=list)
    tue: RangeList = Field(default_factory=list)
    wed: RangeList = Field(default_factory=list)
    thu: RangeList = Field(default_factory=list)
    fri: RangeList = Field(default_factory=list)
    sat: RangeList = Field(default_factory=list)
    sun: RangeList = Field(default_factory=list)

    @model_validator(mode="after")
    def _ranges_make_sense(self) -> HoursEntry:
        problems: list[tuple[tuple[str | int, ...], str]] = []
        for day in WEEKDAYS:
            parsed: list[tuple[int, TimeRange]] = []
            for index, text in enumerate(getattr(self, day)):
                parsed.append((index, parse_time_range(text)))
            parsed.sort(key=lambda item: item[1].start)
            for (_, earlier), (index, later) in zip(parsed, parsed[1:]):
                if later.start < earlier.end:
                    problems.append(
                        (
                            (day, index),
                            f"overlaps {earlier.start:%H:%M}-{earlier.end:%H:%M} on the same day: "
                            "merge the two ranges or fix the times",
                        )
                    )
        if problems:
            raise _Problems(problems)
        return self

    def ranges(self) -> dict[int, tuple[TimeRange, ...]]:
        """Weekday index (0 = Monday) -> ranges sorted by start; closed days are left out."""
        result: dict[int, tuple[TimeRange, ...]] = {}
        for index, day in enumerate(WEEKDAYS):
            ranges = sorted((parse_time_range(text) for text in getattr(self, day)), key=lambda r: r.start)
            if ranges:
                result[index] = tuple(ranges)
        return result


class LocationEntry(_Strict):
    id: Id
    name: Text
    address: Text
    aliases: TextList = Field(default_factory=list)

    def to_domain(self) -> Location:
        return Location(id=self.id, name=self.name, address=self.address, aliases=tuple(self.aliases))


class ServiceEntry(_Strict):
    id: Id
    name: Text
    minutes: int = Field(gt=0, le=24 * 60)
    price: float = Field(ge=0)
    aliases: TextList = Field(default_factory=list)
    description: Text | None = None

    def to_domain(self) -> Service:
        return Service(
            id=self.id,
            name=self.name,
            minutes=self.minutes,
            price=self.price,
            aliases=tuple(self.aliases),
            description=self.description,
        )


class PractitionerEntry(_Strict):
    id: Id
    name: Text
    services: IdList = Field(min_length=1)
    locations: IdList = Field(min_length=1)
    aliases: TextList = Field(default_factory=list)

    @field_validator("id")
    @classmethod
    def _not_anyone(cls, value: str) -> str:
        if value.lower() == ANYONE:
            raise ValueError(f"{value!r} is reserved (it means any practitioner): choose another id")
        return value

    def to_domain(self) -> Practitioner:
        return Practitioner(
            id=self.id,
            name=self.name,
            services=tuple(self.services),
            locations=tuple(self.locations),
            aliases=tuple(self.aliases),
        )


class PatientEntry(_Strict):
    id: Id
    first_name: Text
    last_name: Text
    dob: date
    phone: str | None = None  # normalised to E.164 by Clinic once the clinic's region is known

    @field_validator("dob", mode="before")
    @classmethod
    def _dob(cls, value: Any, info: ValidationInfo) -> date:
        born = _parse_date(value)
        today = (info.context or {}).get("today") or date.today()
        if born >= today:
            raise ValueError(f"{born.isoformat()} is not in the past: a date of birth must be before {today.isoformat()}")
        if born.year < 1900:
            raise ValueError(f"{born.isoformat()} is before 1900: check the year")
        return born

    @field_validator("phone", mode="before")
    @classmethod
    def _phone_is_text(cls, value: Any) -> Any:
        if isinstance(value, int) and not isinstance(value, bool):
            raise ValueError("write the phone number in quotes, e.g. \"+61400000001\" (YAML reads bare digits as a number)")
        return value

    def to_domain(self) -> PatientRecord:
        return PatientRecord(
            id=self.id, first_name=self.first_name, last_name=self.last_name, dob=self.dob, phone=self.phone
        )


class AppointmentEntry(_Strict):
    id: Id
    patient: Id
    service: Id
    practitioner: Id
    location: Id
    start: datetime
    status: Literal["booked", "cancelled"] = "booked"

    @field_validator("start", mode="before")
    @classmethod
    def _start(cls, value: Any) -> datetime:
        return _parse_local_datetime(value)


class BlockEntry(_Strict):
    """Time one practitioner is away (leave, a meeting): nobody is booked with them then."""

    practitioner: Id
    start: datetime
    end: datetime
    reason: Text | None = None

    @field_validator("start", "end", mode="before")
    @classmethod
    def _moment(cls, value: Any) -> datetime:
        return _parse_local_datetime(value)

    @model_validator(mode="after")
    def _ends_after_start(self) -> BlockEntry:
        if not self.start < self.end:
            raise _Problems([(("end",), f"{self.end:%Y-%m-%dT%H:%M} is not after the start "
                                        f"{self.start:%Y-%m-%dT%H:%M}: a block ends after it starts")])
        return self


def _closure_day(value: Any) -> date:
    return _parse_date(value)


ClosureDay = Annotated[date, BeforeValidator(_closure_day)]


def _phone_field(value: Any) -> Any:
    if isinstance(value, int) and not isinstance(value, bool):
        raise ValueError("write the phone number in quotes, e.g. \"+61290000000\" (YAML reads bare digits as a number)")
    return value


PhoneText = Annotated[str, BeforeValidator(_phone_field)]


class Clinic(_Strict):
    """A validated clinic. Build it with `clinic_from_mapping` (or `load_clinic_file`).

    Phone numbers are E.164 after validation; `region` is the clinic phone's
    country. Treat an instance as read-only."""

    name: Text
    timezone: str
    phone: PhoneText
    emergency_number: PhoneText
    transfer_number: PhoneText | None = None
    crisis_number: PhoneText | None = None  # filled from the region when absent
    currency_symbol: Text | None = None  # filled from the region when absent
    # the country whose words and formats callers use (config/regions.yaml); absent: from the timezone or phone
    region_code: str | None = Field(None, alias="region", pattern=r"^[A-Za-z]{2}$")
    hours: HoursEntry
    locations: list[LocationEntry] = Field(min_length=1)
    services: list[ServiceEntry] = Field(min_length=1)
    practitioners: list[PractitionerEntry] = Field(min_length=1)
    patients: list[PatientEntry] = Field(default_factory=list)
    appointments: list[AppointmentEntry] = Field(default_factory=list)
    closures: list[ClosureDay] = Field(default_factory=list)   # days the whole clinic is closed
    blocks: list[BlockEntry] = Field(default_factory=list)     # times a practitioner is away

    @field_validator("patients", "appointments", "closures", "blocks", mode="before")
    @classmethod
    def _none_is_empty(cls, value: Any) -> Any:
        return [] if value is None else value

    @field_validator("timezone")
    @classmethod
    def _timezone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(f"{value!r} is not a known timezone: use an IANA name such as Australia/Sydney") from None
        return value

    @field_validator("phone")
    @classmethod
    def _clinic_phone(cls, value: str) -> str:
        return _e164(_parse_phone(value, None))

    @field_validator("emergency_number", "crisis_number")
    @classmethod
    def _short_number(cls, value: str | None) -> str | None:
        if value is not None and not _SHORT_NUMBER_PATTERN.match(value):
            raise ValueError(f"{value!r} is not a number to dial: digits and spaces only, e.g. \"000\" or \"13 11 14\"")
        return value

    @property
    def region(self) -> str:
        return region_table().code_for(explicit=self.region_code, timezone=self.timezone,
                                       phone_country=_region_of(phonenumbers.parse(self.phone, None)))

    @model_validator(mode="after")
    def _consistent(self) -> Clinic:
        problems: list[tuple[tuple[str | int, ...], str]] = []
        region = self.region
        fill: dict[str, Any] = {}

        if self.transfer_number is not None:
            try:
                fill["transfer_number"] = _e164(_parse_phone(self.transfer_number, region))
            except ValueError as error:
                problems.append((("transfer_number",), str(error)))
        regional = region_table().region(region)
        if self.crisis_number is None:
            fill["crisis_number"] = regional.crisis_number or self.emergency_number
        if self.currency_symbol is None:
            fill["currency_symbol"] = regional.currency_symbol

        def unique(list_name: str, items: list[Any]) -> set[str]:
            counts = Counter(item.id for item in items)
            seen: set[str] = set()
            for index, item in enumerate(items):
                if counts[item.id] > 1 and item.id in seen:
                    problems.append(((list_name, index, "id"), f"duplicate id {item.id!r}: every {list_name[:-1]} needs its own id"))
                seen.add(item.id)
            return seen

        location_ids = unique("locations", self.locations)
        service_ids = unique("services", self.services)
        practitioner_ids = unique("practitioners", self.practitioners)
        patient_ids = unique("patients", self.patients)
        unique("appointments", self.appointments)

        def known(path: tuple[str | int, ...], value: str, ids: set[str], kind: str) -> bool:
            if value in ids:
                return True
            hint = difflib.get_close_matches(value, sorted(ids), n=1)
            suggestion = f"; did you mean {hint[0]!r}?" if hint else f" (known: {', '.join(sorted(ids))})"
            problems.append((path, f"unknown {kind} {value!r}{suggestion}"))
            return False

        for index, practitioner in enumerate(self.practitioners):
            for list_name, ids, kind in (
                ("services", service_ids, "service"),
                ("locations", location_ids, "location"),
            ):
                values = getattr(practitioner, list_name)
                for position, value in enumerate(values):
                    known(("practitioners", index, list_name, position), value, ids, kind)
                    if value in values[:position]:
                        problems.append((("practitioners", index, list_name, position), f"{kind} {value!r} is listed twice"))

        services_by_id = {service.id: service for service in self.services}
        practitioners_by_id = {practitioner.id: practitioner for practitioner in self.practitioners}

        phones: list[Any] = []
        for index, patient in enumerate(self.patients):
            if patient.phone is None or patient.phone == "":
                phones.append(None)
                continue
            try:
                phones.append(_e164(_parse_phone(patient.phone, region)))
            except ValueError as error:
                problems.append((("patients", index, "phone"), str(error)))
                phones.append(patient.phone)

        for index, block in enumerate(self.blocks):
            known(("blocks", index, "practitioner"), block.practitioner, practitioner_ids, "practitioner")

        booked_by_practitioner: dict[str, list[tuple[int, datetime, datetime]]] = defaultdict(list)
        for index, appointment in enumerate(self.appointments):
            path = ("appointments", index)
            references_ok = all(
                [
                    known((*path, "patient"), appointment.patient, patient_ids, "patient"),
                    known((*path, "service"), appointment.service, service_ids, "service"),
                    known((*path, "practitioner"), appointment.practitioner, practitioner_ids, "practitioner"),
                    known((*path, "location"), appointment.location, location_ids, "location"),
                ]
            )
            if not references_ok:
                continue
            practitioner = practitioners_by_id[appointment.practitioner]
            if not (set(practitioner.services) <= service_ids and set(practitioner.locations) <= location_ids):
                continue  # the practitioner's own lists are wrong: that problem is reported already
            if appointment.service not in practitioner.services:
                problems.append(
                    ((*path, "service"), f"practitioner {practitioner.id!r} does not offer service {appointment.service!r}")
                )
            if appointment.location not in practitioner.locations:
                problems.append(
                    ((*path, "location"), f"practitioner {practitioner.id!r} does not work at location {appointment.location!r}")
                )
            if appointment.status == "booked":
                end = appointment.start + timedelta(minutes=services_by_id[appointment.service].minutes)
                booked_by_practitioner[appointment.practitioner].append((index, appointment.start, end))

        for bookings in booked_by_practitioner.values():
            bookings.sort(key=lambda item: item[1])
            for (earlier_index, _, earlier_end), (index, start, _) in zip(bookings, bookings[1:]):
                if start < earlier_end:
                    problems.append(
                        (
                            ("appointments", index, "start"),
                            f"overlaps appointment {self.appointments[earlier_index].id!r} of the same practitioner "
                            f"(booked until {earlier_end:%H:%M}): move one or mark it cancelled",
                        )
                    )

        if problems:
            raise _Problems(problems)

        if any(phone != patient.phone for phone, patient in zip(phones, self.patients)):
            fill["patients"] = [
                patient.model_copy(update={"phone": phone}) for phone, patient in zip(phones, self.patients)
            ]
        # Frozen model: fill the derived values in place, once, during validation.
        self.__dict__.update(fill)
        return self

    # -- views the rest of the appliance uses -------------------------------

    def opening_hours(self) -> dict[int, tuple[TimeRange, ...]]:
        return self.hours.ranges()

    def profile(self) -> ClinicProfile:
        return ClinicProfile(
            name=self.name,
            timezone=self.timezone,
            phone=self.phone,
            emergency_number=self.emergency_number,
            transfer_number=self.transfer_number,
            crisis_number=self.crisis_number or self.emergency_number,
            region=self.region,
            currency_symbol=self.currency_symbol or "$",
            hours=self.opening_hours(),
        )

    def catalog(self) -> Catalog:
        return Catalog(
            services=tuple(entry.to_domain() for entry in self.services),
            locations=tuple(entry.to_domain() for entry in self.locations),
            practitioners=tuple(entry.to_domain() for entry in self.practitioners),
        )

    def patient_records(self) -> tuple[PatientRecord, ...]:
        return tuple(entry.to_domain() for entry in self.patients)

    def appointment_records(self) -> tuple[AppointmentRecord, ...]:
        minutes = {service.id: service.minutes for service in self.services}
        return tuple(
            AppointmentRecord(
                id=entry.id,
                patient_id=entry.patient,
                service_id=entry.service,
                practitioner_id=entry.practitioner,
                location_id=entry.location,
                start=entry.start,
                minutes=minutes[entry.service],
                status=entry.status,
            )
            for entry in self.appointments
        )

    def block_records(self) -> tuple[DiaryBlock, ...]:
        """The file's blocks, then each closure day as a block of the whole clinic from midnight to midnight."""
        blocks = [DiaryBlock(id=f"file-block-{index + 1}", practitioner_id=entry.practitioner, start=entry.start,
                             end=entry.end, reason=entry.reason) for index, entry in enumerate(self.blocks)]
        for day in sorted(set(self.closures)):
            midnight = datetime.combine(day, time())
            blocks.append(DiaryBlock(id=f"file-closure-{day.isoformat()}", practitioner_id=None, start=midnight,
                                     end=midnight + timedelta(days=1), reason="closed"))
        return tuple(blocks)


# ---------------------------------------------------------------------------
# Entry point and error translation


def format_path(loc: tuple[str | int, ...], prefix: str = "") -> str:
    """('services', 1, 'minutes') -> 'services[1].minutes' (after `prefix`, if any)."""
    text = prefix
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
    return text


_MODEL_FOR_LIST = {
    "locations": LocationEntry,
    "services": ServiceEntry,
    "practitioners": PractitionerEntry,
    "patients": PatientEntry,
    "appointments": AppointmentEntry,
    "blocks": BlockEntry,
}


def _model_at(loc: tuple[str | int, ...]) -> type[BaseModel] | None:
    """The model whose keys are valid at `loc` (the location of an unknown key's parent)."""
    if len(loc) == 0:
        return Clinic
    if loc == ("hours",):
        return HoursEntry
    if len(loc) == 2 and loc[0] in _MODEL_FOR_LIST and isinstance(loc[1], int):
        return _MODEL_FOR_LIST[loc[0]]
    return None


def _message(error: dict[str, Any]) -> str:
    kind = error["type"]
    loc = tuple(error["loc"])
    if kind == "missing":
        return "required, but missing"
    if kind == "extra_forbidden":
        model = _model_at(loc[:-1])
        if model is not None:
            allowed = list(model.model_fields)
            hint = difflib.get_close_matches(str(loc[-1]), allowed, n=1)
            if hint:
                return f"unknown key; did you mean {hint[0]!r}?"
            return f"unknown key (allowed here: {', '.join(allowed)})"
        return "unknown key"
    if kind == "literal_error" and loc and loc[-1] == "status":
        return f"{error.get('input')!r} is not a status: use booked or cancelled"
    if kind in ("model_type", "dict_type"):
        return "must be a mapping of keys to values"
    if kind == "list_type":
        return "must be a list"
    message = str(error["msg"])
    for prefix in ("Value error, ", "Assertion failed, "):
        if message.startswith(prefix):
            message = message[len(prefix) :]
    return message


def _problems_from(error: ValidationError, prefix: str) -> list[tuple[str, str]]:
    problems: list[tuple[str, str]] = []
    for item in error.errors():
        loc = tuple(item["loc"])
        cause = (item.get("ctx") or {}).get("error")
        if isinstance(cause, _Problems):
            problems.extend((format_path(loc + sub, prefix), message) for sub, message in cause.problems)
        else:
            problems.append((format_path(loc, prefix), _message(item)))
    return problems


def clinic_from_mapping(data: Any, *, path_prefix: str = "", today: date | None = None) -> Clinic:
    """Validate a parsed clinic block; raise ClinicDataError naming every problem.

    `today` bounds dates of birth (default: the real date); a scenario can pass
    its frozen `now`."""
    if not isinstance(data, dict):
        raise ClinicDataError([(path_prefix, "the clinic must be a mapping of keys (name, timezone, phone, ...)")])
    try:
        return Clinic.model_validate(data, context={"today": today})
    except ValidationError as error:
        raise ClinicDataError(_problems_from(error, path_prefix)) from None

"""The clinic store: the SQLite database, the slot policy, clinic reads and writes, call records."""

from appliance.store.clinic_store import (
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
)
from appliance.store.database import DatabaseFileError, build_database, open_database
from appliance.store.records import CallRecorder, RecordError
from appliance.store.slot_policy import SlotOffer, offer_slots

__all__ = [
    "AlreadyCancelled",
    "AppointmentNotFound",
    "CallRecorder",
    "CallbackAlreadyDone",
    "CallbackNotFound",
    "ClinicAlreadyLoaded",
    "ClinicStore",
    "DatabaseFileError",
    "InvalidPatient",
    "InvalidSlot",
    "NoClinic",
    "PatientNotFound",
    "RecordError",
    "SlotOffer",
    "SlotTaken",
    "StoreError",
    "UnknownReference",
    "build_database",
    "offer_slots",
    "open_database",
]

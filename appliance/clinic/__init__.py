"""The clinic file: schema, validation and loading (YAML -> `Clinic`)."""

from appliance.clinic.loader import ClinicFileError, load_clinic_file, load_clinic_text
from appliance.clinic.schema import Clinic, ClinicDataError, clinic_from_mapping

__all__ = [
    "Clinic",
    "ClinicDataError",
    "ClinicFileError",
    "clinic_from_mapping",
    "load_clinic_file",
    "load_clinic_text",
]

"""Every clinic tool, by name: the flow validator, the runner and the engine read this one table."""

from __future__ import annotations

from .base import Tool, ToolKind
from .cancellations import CancelAppointments, CancelAppt
from .check_availability import CheckAvailability
from .create_appointment import CreateAppointment
from .create_patient import CreatePatient
from .get_currently_booked_appts import GetCurrentlyBookedAppts
from .get_patient_details import GetPatientDetails
from .handoffs import AddToWaitlist, CreateCallbackRequest, EndCall, TransferCall
from .reschedule_appointment import RescheduleAppointment
from .service_questions import GetAppointmentTypes, GetServicesAndPricing

TOOLS: dict[str, Tool] = {tool.name: tool for tool in (
    GetPatientDetails(), GetServicesAndPricing(), GetAppointmentTypes(), CheckAvailability(),
    GetCurrentlyBookedAppts(), CreatePatient(), CreateAppointment(), RescheduleAppointment(), CancelAppt(),
    CancelAppointments(), AddToWaitlist(), CreateCallbackRequest(), TransferCall(), EndCall(),
)}

# write tool -> the read-back (`confirms:`) the caller must have said yes to
WRITE_TOOLS: dict[str, str] = {t.name: t.read_back for t in TOOLS.values() if t.kind is ToolKind.WRITE}
# read-back kind -> the tool whose read-back it is
READ_BACKS: dict[str, Tool] = {t.read_back: t for t in TOOLS.values() if t.read_back}
CALL_ENDING_TOOLS = frozenset(t.name for t in TOOLS.values() if t.ends_call)

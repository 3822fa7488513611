"""The names of the clinic tools and what kind each is. The flow validator and
the tool runner both read this, so a tool's class is declared once."""

from __future__ import annotations

READ_TOOLS = frozenset({
    "GetPatientDetails", "GetServicesAndPricing", "GetAppointmentTypes",
    "CheckAvailability", "GetCurrentlyBookedAppts",
})

# write tool -> the read-back (`confirms:`) the caller must have said yes to
WRITE_TOOLS = {
    "CreateAppointment": "book",
    "RescheduleAppointment": "reschedule",
    "CancelAppt": "cancel",
    "CancelAppointments": "cancel_all",
    "CreatePatient": "patient",
}

# record-keeping and handoff tools: they change no clinic booking data
HANDOFF_TOOLS = frozenset({"AddToWaitlist", "CreateCallbackRequest", "TransferCall", "EndCall"})

CALL_ENDING_TOOLS = frozenset({"EndCall", "TransferCall"})

TOOLS = READ_TOOLS | frozenset(WRITE_TOOLS) | HANDOFF_TOOLS

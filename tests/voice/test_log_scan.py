"""Patient data never reaches a log: a new patient gives a name, a date of birth and a phone number in a spoken
call with every logger at DEBUG, and no log line holds any of them."""

from __future__ import annotations

import asyncio
import logging
import re
from pathlib import Path

import pytest

pytest.importorskip("pipecat")

from appliance.simulate.spoken_call import play_spoken  # noqa: E402

NEW_PATIENT = Path(__file__).resolve().parents[1] / "scenarios" / "new-patient-withheld-spoken-phone.yaml"
# what the caller says about themselves, and the forms a read-back or a record would put it in
SAID = ["Liam", "O'Connor", "Connor", "2001-01-09", "9th of January", "January 2001", "0412345678", "412345678",
        "412 345 678", "four one two three"]


def test_a_spoken_call_logs_no_name_date_of_birth_or_phone_number(runtime, flow, caplog):
    with caplog.at_level(logging.DEBUG):
        result = asyncio.run(play_spoken(NEW_PATIENT, flow, runtime, fast=True))
    assert any("caller turn heard" in r.getMessage() or r.name.startswith("appliance") for r in caplog.records)
    said_to_it = [t.caller_text for t in result.summary.timings]
    assert any("2001" in text or "January" in text for text in said_to_it), said_to_it   # it was said
    patterns = [re.compile(r"(?<![A-Za-z0-9])" + re.escape(word) + r"(?![A-Za-z0-9])", re.I) for word in SAID]
    leaks = [f"{r.name}: {r.getMessage()[:120]}" for r in caplog.records
             if any(p.search(r.getMessage()) for p in patterns)]
    assert leaks == []

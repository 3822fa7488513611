"""A phone number said as digits or words: "oh four one two, three four
five, six seven eight", "zero four one two three four five six seven
eight", "double seven", "triple zero", "plus six one four ...", "0412 345 678".
Normalised with `phonenumbers` for the clinic's region to E.164; a number
that is not valid there gives None.
"""

from __future__ import annotations


import phonenumbers

from ..domain import Region
from .normalise import CallerText
from .signals import WordPattern
from .spoken_numbers import digit_runs

PHONE_MARKER = WordPattern(
    r"\b(?:(?:my|the|a|best|contact|mobile|cell|home|work|phone) (?:mobile |cell |phone |contact |home |work |best )?"
    r"(?:number|mobile|phone|cell)(?: is)?|number is|call me (?:on|at)|reach me (?:on|at)|ring me (?:on|at)|"
    r"contact me (?:on|at)|text me (?:on|at)|(?:call|ring|reach|contact|text) (?:me|us) (?:back )?(?:on|at))\b")

_MIN_DIGITS = 6

# Ranges regulators reserve for drama and testing (Ofcom's 07700 900xxx and the
# like): not "valid" to phonenumbers, but callers in test calls use them.
_FICTION = ("+447700900", "+44113496", "+44114496", "+44115496", "+44116496", "+44117496", "+44118496",
            "+44121496", "+44131496", "+44141496", "+44151496", "+44161496", "+44191498", "+44207946",
            "+442896496", "+442920180", "+441632960", "+443069990", "+448081570", "+449098790")


def find_phone(ct: CallerText, region: Region, after_char: int = 0) -> str | None:
    """The first valid number in the words (after `after_char`), in E.164."""
    start_token = ct.token_index(after_char) if after_char else 0
    runs = [r for r in digit_runs(ct.tokens) if r[2] > start_token]
    runs.sort(key=lambda r: -len(r[0].lstrip("+")))
    for digits, _start, _end in runs:
        if len(digits.lstrip("+")) < _MIN_DIGITS:
            continue
        number = _valid(digits, region)
        if number is not None:
            return number
    return None


def _valid(digits: str, region: Region) -> str | None:
    try:
        parsed = phonenumbers.parse(digits, region.phone_region)
    except phonenumbers.NumberParseException:
        return None
    e164 = phonenumbers.format_number(parsed, phonenumbers.PhoneNumberFormat.E164)
    if phonenumbers.is_valid_number(parsed):
        return e164
    if e164.startswith(_FICTION) and phonenumbers.is_possible_number(parsed):
        return e164
    return None

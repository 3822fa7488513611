"""Whether the caller says they are new to the clinic or have been before.

"I'm a new patient", "I haven't been to you before", "I've never been there",
"it's my first time with you" -> new. "I've been before", "I'm an existing
patient", "I'm not a new patient" -> returning. Anything else: not said.
The engine uses it when a name and date of birth find no record: a caller who
said they are new is set up as one, any other is asked for their name again
first, since a misheard name is likelier than a new patient who did not say so.
"""

from __future__ import annotations

from .normalise import CallerText
from .signals import WordPattern

_RETURNING = WordPattern(
    r"\b(?:existing|returning|regular|current) (?:patient|client)\b",
    r"\bnot (?:a )?new (?:patient|client|here)\b",
    r"\b(?:have|had) been (?:(?:to (?:you|your|the|this)(?: \w+)?|in|there|here) )?before\b",
    r"\b(?:i am|i have been) (?:a patient|seeing)\b",
    r"\b(?:i am|i should be|you should have me|you have me) (?:already )?(?:on|in) (?:your|the) (?:system|records?|"
    r"books|file|database|computer)\b",
    r"\bi am already (?:a )?(?:patient|client|registered)\b",
    r"\b(?:have|had) (?:had )?(?:appointments?|treatment|sessions?) (?:with you|there|here) before\b",
)
# what, after "my first time", makes it a first at something else or an appointment already held
_NOT_A_FIRST_VISIT = (r"(?! (?:back|since|in (?:a|ages|years|months|over)|of|for|on|at|tomorrow|today|next|last|"
                      r"this|that|is|was|having|getting|doing|with (?!you|your|the clinic|us\b)))")
# the kinds of practitioner or practice a caller may say they have never been to
_KIND = (r"(?:\w+(?:ist|ian|tor|ctor)|physio|gp|doctor|dr|osteo\w*|chiro|clinic|practice|surgery|practitioner|"
         r"therapist)")
_NEW = WordPattern(
    r"\b(?:a |am |brand )new (?:patient|client)\b",
    r"\bnew (?:here|to (?:you|your clinic|the clinic))\b",
    # "to you", "to you lot", "to you guys", "to your practice", "to the surgery"
    r"\b(?:have|had) not been (?:(?:to (?:you|yous|youse|ye|your|the|this)(?: \w+)?|in|there|here) )?before\b",
    r"\bnever (?:actually |really |ever )?(?:been|come|came|visited|seen you) (?:to (?:you|yous|youse|ye|your|the|"
    r"this)|in|there|here|before)\b",
    r"\b(?:have|had) never (?:come|came|visited) (?:to )?(?:you|yous|youse|ye|your|the|this|here|there)\b",
    r"\bfirst (?:time|visit|appointment) (?:with you|at your|at the clinic|here|to your|to the clinic|ever)\b",
    r"\bnot (?:been|seen) (?:you|here|there) before\b",
    r"\bi am (?:brand |totally |completely )?new\b(?! (?:to (?:the|this) (?:area|town|city|country))|number|phone|"
    r"address)",
    r"\b(?:will|would|do|should) not (?:be|have me|have my details|find me) (?:on|in) (?:your|the) (?:system|records?|"
    r"books|file|database|computer)\b",
    r"\bnot (?:on|in) (?:your|the) (?:system|records?|books|file|database|computer)(?: yet)?\b",
    r"\b(?:have|had) (?:never|not) been (?:a )?(?:patient|client) (?:of yours|with you|there|here)\b",
    r"\bfirst time (?:calling|ringing|booking|coming in|visiting)\b",
    r"\bnot (?:a |an )?(?:patient|client) (?:(?:with|of|at) (?:you|ye|yous|youse|your|the|this)(?: \w+)? |here |"
    r"there )?yet\b",
    r"\b(?:get|be|become|getting) registered (?:with (?:you|ye|yous|youse|your|the|this)|here|there)\b|"
    r"\bregister (?:with (?:you|ye|yous|youse|your practice|the practice)|as a new)\b",
    # never to any of the kind, so never to this one: "I've never been to a chiropractor before", "my first time
    # seeing a physio"
    r"\b(?:have|had) never (?:been|gone) to an? (?:\w+ )?" + _KIND + r"\b",
    r"\b(?:my |our )?first time (?:at|seeing|visiting|going to|with) an? (?:\w+ )?" + _KIND + r"\b",
    # "it's my first time", "this will be my very first": the visit being arranged is the caller's first, so they
    # are new; not a first time at something else ("my first time with this knee", "since", "back"), nor an
    # appointment already held ("my first one is on Tuesday")
    r"\b(?:it|this|that) (?:is|will be|would be|is going to be) (?:my|our) (?:very )?first (?:ever )?"
    r"(?:time|visit|appointment|consultation)\b" + _NOT_A_FIRST_VISIT,
    r"\b(?:book|make|arrange|have) (?:my|our) (?:very )?first (?:ever )?(?:visit|appointment|consultation)\b"
    + _NOT_A_FIRST_VISIT,
)


def patient_status(ct: CallerText) -> str | None:
    """"new", "returning", or None when the caller said neither."""
    if _RETURNING.search(ct.text):
        return "returning"
    if _NEW.search(ct.text):
        return "new"
    return None

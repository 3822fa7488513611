"""What a call came to, read from its record: a summary for people and review flags for the front desk.

Both are built from the call record (calls, turns, transitions, tool calls, the call's callback requests),
never by a language model, so the same record always gives the same words. They are stored with the call
when it ends (`stored.store_review`), and can be built for a call still in progress from its record so far
(`summary_of_call`), which is what a warm-transfer brief needs.
"""

from .call_record import ReviewedCall, read_call
from .flags import FLAG_KINDS, FLAG_LABELS, ReviewFlag, review_flags
from .stored import flags_from_text, store_review, summary_of_call
from .summary import CallRecap, summarise

__all__ = ["CallRecap", "FLAG_KINDS", "FLAG_LABELS", "ReviewFlag", "ReviewedCall", "flags_from_text", "read_call",
           "review_flags", "store_review", "summarise", "summary_of_call"]

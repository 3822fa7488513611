"""What the caller's next answer is likely to be, when the question's answers are few and known.

Where the answer set is small (a yes or a no at a read-back, one of the slots just offered, one of the
clinic's sites or services, one of the patients on the caller's number), the ears can score these phrases
against the audio as well as transcribing it freely (voice/stt.py: never instead of it, and never to invent
an answer the free transcription does not allow). Built from the question just asked and the call so far.
"""

from __future__ import annotations

from ..understanding import Question
from .context import CallContext
from .rule_env import RuleEnv
from .speech import say_time

_POSITIONS = ("the first one", "the second one", "the third one")


def expected_answers(question: Question, ctx: CallContext, env: RuleEnv) -> tuple[str, ...]:
    phrases: list[str] = []
    if question.read_back or question.closing:
        for _intent, answers in question.short_answer_phrases:
            phrases.extend(answers)
    if question.wants("slot") and ctx.offered:
        phrases.extend(_POSITIONS[:len(ctx.offered)])
        for slot in ctx.offered:
            said = say_time(slot.start.time())
            phrases.extend((said, f"the {said} one"))
    if question.wants("location"):
        for location in env.catalog.locations:
            phrases.extend((location.name, *location.aliases))
    if question.wants("service"):
        for service in env.catalog.services:
            phrases.extend((service.name, *service.aliases))
    if question.name_part == "full" and ctx.phone_candidates:
        phrases.extend(f"{p.first_name} {p.last_name}" for p in ctx.phone_candidates)
    return tuple(dict.fromkeys(p for p in phrases if p))

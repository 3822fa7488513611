"""Caller words to structured facts, by rules.

One utterance as a speech-to-text engine wrote it, plus the question the
agent just asked (`questions.py`: what it expects, its repairs and short
answers), becomes an `Utterance`: the intents it carries (with confidence
and the rules that fired), and any name, spelling, date of birth, phone
number, services, location, practitioner, time window, slot pick or booking
pick in it. Pure functions: no I/O, no changing state.
"""

from .extractors import EXTRACTORS, extractor, known_kinds
from .parse import understand
from .questions import Question, QuestionError, Repair, read_questions
from .utterance import INTENTS, ListenContext, PersonName, Signal, Utterance

__all__ = ["EXTRACTORS", "INTENTS", "ListenContext", "PersonName", "Question", "QuestionError", "Repair", "Signal",
           "Utterance", "extractor", "known_kinds", "read_questions", "understand"]

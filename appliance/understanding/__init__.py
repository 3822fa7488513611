"""Caller words to structured facts, by rules.

One utterance as a speech-to-text engine wrote it, plus what the agent was
waiting for, becomes an `Utterance`: the intents it carries (with confidence
and the rules that fired), and any name, spelling, date of birth, phone
number, services, location, practitioner, time window, slot pick or booking
pick in it. Pure functions: no I/O, no changing state.
"""

from .parse import understand
from .utterance import INTENTS, ListenContext, PersonName, Signal, Utterance

__all__ = ["INTENTS", "ListenContext", "PersonName", "Signal", "Utterance", "understand"]

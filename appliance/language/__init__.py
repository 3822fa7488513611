"""The language model's two fenced jobs: label an utterance no rule understood,
and (optionally) reword a template reply without changing its facts.

The model (llama.cpp in-process, `runtime.LanguageModel`) never chooses a tool
and never writes; every answer is checked (a GBNF grammar for labels, the fact
fence for rewordings) and dropped when it is late.
"""

from __future__ import annotations

from .fact_fence import FenceVerdict, check_rewording
from .intent_classifier import IntentClassifier, intent_grammar
from .rephraser import Rephraser, Rephrasing
from .runtime import LanguageModel
from .time_budget import LateReply, run_within

__all__ = ["FenceVerdict", "IntentClassifier", "LanguageModel", "LateReply", "Rephraser", "Rephrasing",
           "check_rewording", "intent_grammar", "run_within"]

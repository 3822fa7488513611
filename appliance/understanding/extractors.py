"""Extractors for kinds of answer beyond the built-in ones.

A question that asks for something new (an insurance member number, a
referral code) declares `expects: [member_number]`; the function registered
here under that name reads it from the caller's words when that question is
the one just asked, and the value arrives in `Utterance.answers`. The engine
keeps it in the call context (`CallContext.answers`) where tools and replies
read it. Built-in kinds (names, dates of birth, phone numbers, times...)
are read in parse.py.

    @extractor("member_number")
    def member_number(ct: CallerText, context: ListenContext) -> str | None:
        ...
"""

from __future__ import annotations

from typing import Any, Callable

from .normalise import CallerText
from .questions import BUILT_IN_KINDS

Extractor = Callable[[CallerText, Any], Any]
EXTRACTORS: dict[str, Extractor] = {}


def extractor(kind: str) -> Callable[[Extractor], Extractor]:
    """Register `fn` as the reader of answers of `kind`."""
    if kind in BUILT_IN_KINDS:
        raise ValueError(f"{kind!r} is a built-in kind of answer")

    def register(fn: Extractor) -> Extractor:
        EXTRACTORS[kind] = fn
        return fn

    return register


def known_kinds() -> frozenset[str]:
    """Every kind of answer a question may expect."""
    return BUILT_IN_KINDS | frozenset(EXTRACTORS)


def run_extractors(ct: CallerText, context: Any) -> dict[str, Any]:
    """The registered kinds the question just asked expects, as read from the words (those found only)."""
    found: dict[str, Any] = {}
    for kind in context.question.expects:
        fn = EXTRACTORS.get(kind)
        if fn is not None:
            value = fn(ct, context)
            if value is not None:
                found[kind] = value
    return found

"""Red flags: a medical emergency happening now, or a caller in crisis.

These rules lean towards firing: a missed emergency costs far more than a
false one. They stay quiet only where the words clearly say otherwise:
- negation close before the symptom ("no chest pain", "he's not having a
  seizure", "it's not an emergency");
- history ("I had a stroke last year", "my chest pain appointment was last
  week", "a history of seizures"), in the same clause;
- an appointment about the symptom ("my chest pain follow-up").
An injury ("I hurt myself at the gym") is not self-harm: self-harm needs
words of intent ("I want to hurt myself").
"""

from __future__ import annotations

import re

from .normalise import CallerText
from .signals import EVIDENCE, Hit, WordPattern, add_hit

_P = "(?:my|me|his|her|their|the|your)"   # "me" too: "a pain in me chest"
# "stroke" is also how a letter with a line through it is spelled ("O stroke, D E G A A R D" for a name
# with an Ø): after a spelled letter (not "a" or "i", which are words) or before spelled letters, it is a mark
_STROKE_NOT_A_LETTER_MARK = r"(?<!\b[b-hj-z] )\bstroke\b(?! [a-z](?: [a-z])+\b)"

_SWALLOWING_HARD = (r"(?:hard|difficult|trouble|difficulty|struggling|can not|can barely|barely able|unable|not able)"
                    r" (?:to )?swallow(?:ing)?")

_EMERGENCY_HIGH = WordPattern(*(
    r"\bchest (?:is |feels )?(?:really |so |very |quite |all )?(?:pain|pains|hurting|tight|crushing|tightness|"
    r"pressure|hurts|killing me)\b|\bclutching (?:his|her|my|their) chest\b",
    r"\bpains? in " + _P + r" chest\b|\bcrushing (?:chest|pain|feeling)\b|\bheart attack\b",
    # a heart attack described, whatever the caller thinks it is: pain going down the left arm or into the jaw,
    # or the chest and short of breath in one breath
    r"\b(?:going|goin|spreading|radiating|shooting|moving|travelling|traveling|running) (?:down|into|to|up) " + _P
    + r" (?:left arm|jaw)\b",
    r"\bchest\b(?: \S+){0,12} short of breath\b|\bshort of breath\b(?: \S+){0,12} chest\b",
    r"\b(?:can not|could not|can barely|unable to|struggling to|hard to|trouble|difficulty|difficult to|"
    r"not able to) (?:breathe|breathing|catch (?:my|his|her) breath)\b",
    r"\b(?:not|stopped|is not|isn't|no longer) breathing\b",
    # the airway closing, in everyday words: swelling of the face, jaw, neck or throat with swallowing hard or
    # breath short ("my jaw and neck have swollen right up, and it's getting hard to swallow"), in one breath
    r"\b(?:swollen|swelling|swelled|swells)\b(?: \S+){0,20} (?:" + _SWALLOWING_HARD + r"|short of breath)\b|"
    r"\b(?:" + _SWALLOWING_HARD + r"|short of breath)\b(?: \S+){0,20} (?:swollen|swelling|swelled)\b",
    r"\b(?:really|very|badly|severely|extremely|so|seriously) short of breath\b|\bshort of breath (?:badly|really badly|"
    r"and)\b|\bgasping (?:for (?:air|breath))?\b|\bchoking\b|\bturning blue\b|\blips (?:are )?(?:blue|turning blue)\b",
    r"\b(?:having|had|is having|think (?:i am|he is|she is|it is) having) a stroke\b|" + _STROKE_NOT_A_LETTER_MARK,
    r"\bface (?:is |has |has gone |went |looks |gone |is all )?(?:drooping|droopy|dropped|fallen|lopsided|"
    r"sagging)\b|\b(?:drooping|droopy|sagging) (?:face|mouth|on one side)\b|\bmouth (?:is )?drooping\b",
    r"\bslurr(?:ed|ing) (?:speech|words|his words|her words|my words)\b|\bspeech (?:is )?(?:all |really |very |"
    r"a bit )?slurred\b|"
    r"\bcan not (?:speak|talk) properly\b",
    r"\b(?:one side|face|half (?:my|his|her) (?:face|body)) (?:is |has gone |went )?(?:weak|numb|dead|paralysed)\b|"
    r"\b(?:arm|sudden|one sided) (?:weakness|numbness)\b|\bsuddenly (?:weak|numb)\b|"
    r"\bcan not (?:move|feel) (?:my|his|her) (?:left|right|one) side\b",
    r"\bunconscious\b|\bunresponsive\b|\bnot responding\b|\bpassed out\b|\bblacked out\b|"
    # hard to rouse: "I can barely wake him up properly", "she's hard to wake", "he's hardly conscious"
    r"\b(?:can|could) (?:barely|hardly|only just) wake\b|\b(?:hard|difficult) to wake\b|"
    r"\b(?:barely|hardly) (?:awake|conscious|responding|responsive)\b|"
    r"\b(?:will not|can not|is not|not) wak(?:e|ing) (?:up|him|her)\b|\bcollapsed\b|\bnot conscious\b",
    r"\b(?:severe|heavy|serious|major|uncontrolled|a lot of) bleeding\b|\bbleeding (?:heavily|badly|a lot|"
    r"profusely|everywhere|non stop|that will not stop|and it will not stop|really badly)\b|"
    r"\b(?:will not|can not|does not) stop bleeding\b|\bbleeding (?:will not|does not|is not going to|can not) "
    r"stop\b|\blosing (?:a lot of )?blood\b|\bblood everywhere\b",
    r"\bseizures?\b|\bconvuls\w*\b|\bhaving a fit\b|\b(?:is|he is|she is|they are|i am|started|keeps|been|"
    r"was) fitting\b(?! (?:me|us|him|her|them|in)\b)",
    r"\boverdos\w*\b|\btook (?:too many|a lot of|all (?:my|his|her|the)) (?:pills|tablets|meds|medication)\b",
    r"\banaphyla\w*\b|\bthroat (?:is )?(?:swelling|closing|swollen|tight)\b|\b(?:tongue|lips) (?:is |are )?"
    r"swelling\b|\bsevere allergic reaction\b|\ballergic reaction\b(?= .*\b(?:breath|throat|swell))",
    r"\b(?:need|call|send|get) (?:an? )?ambulance\b|\bcall (?:triple zero|000|911|999|112)\b",
    # someone not fully conscious, in everyday words: "he's not really answering me", "she won't answer me",
    # "she's not making sense", "slumped over in her chair"
    r"\b(?:he|she|they|it) (?:is|are) (?:not|barely) (?:really )?(?:answering|responding|making (?:any )?sense|"
    r"with it|waking)\b|\b(?:he|she|they) (?:will not|can not|would not|does not|do not) (?:answer|respond|wake)\b|"
    r"\bslumped\b",
    # a blow to the head with signs of a brain injury, in one breath
    r"\b(?:hit|banged|smacked|smashed|knocked|bumped) (?:his|her|their|my|me) head\b(?: \S+){0,20} (?:confused|dazed|"
    r"drowsy|vomiting|throwing up|sick|blood|bleeding|not making sense|not answering|not herself|not himself)\b|"
    r"\bblood (?:coming |pouring |leaking )?(?:from|out of) (?:his|her|their|my|the) ears?\b",
    r"\b(?:fell|fallen|fall|hit|knocked)\b(?: \S+){0,25} \b(?:dazed|disoriented|disorientated|knocked out cold)\b|"
    r"\ba lot of blood\b|\bloads of blood\b",
    # an eye injury: something sharp or a chemical in the eye, an eye bleeding, sight lost all at once
    r"\b(?:metal|glass|a shard|shards|a splinter|something sharp|a (?:bit|piece|chip|fragment) of (?:metal|glass|wood|"
    r"stone))(?: \S+){0,4} (?:in|into|in to|stuck in|lodged in) " + _P + r" eyes?\b",
    r"\b(?:something|a bit|a piece|it) (?:has |have |'s )?(?:flown|flew|shot|gone|went|flicked) (?:in|into|in to) " + _P
    + r" eyes?\b(?: \S+){0,20} (?:blood|bleeding|can not open|will not open|can not see|could not see)\b",
    r"\b(?:bleach|acid|chemicals?|oven cleaner|cleaning (?:product|spray|fluid)|caustic \w+|lime|cement)"
    r"(?: \S+){0,4} (?:in|into|in to) " + _P + r" eyes?\b",
    r"\beyes? (?:is |are )?(?:bleeding|full of blood)\b|\bblood (?:coming |pouring )?(?:from|out of) " + _P
    + r" eyes?\b|\bsuddenly (?:can not|could not) see\b|\b(?:suddenly )?lost (?:the |all )?(?:sight|vision) in\b",
    # a diabetic emergency told as what the caller sees
    r"\bdiabetic\b(?: \S+){0,25} (?:confused|shaky|sweaty|slumped|not making sense|drowsy|passed out|fitting)\b",
))

_EMERGENCY_MEDIUM = re.compile(
    r"\b(?:it is|this is|there is|there has been|we have|having|got) an? (?:real |medical )?emergency\b"
    r"(?! (?:appointment|booking|slot|session|consult))|\bmedical emergency\b|\bemergency\b(?= *$)")

_CRISIS = WordPattern(*(
    r"\b(?:kill|killing|end|ending|take|taking) (?:myself|my self|my (?:own )?life|it all)\b",
    r"\bsuicid\w*\b",
    r"\bself ?harm\w*\b",
    r"\b(?:want|wanted|wanting|going|planning|plan|thinking about|thinking of|thoughts of|feel like|urge to|"
    r"tempted to|might|could|will|keep wanting to|scared i will) (?:to )?(?:hurt|hurting|harm|harming|cut|"
    r"cutting) (?:myself|my self)\b",
    r"\b(?:harm|harming) (?:myself|my self)\b",
    r"\b(?:do not|does not|no longer|not) want to (?:be alive|live(?! with)|be here|exist|wake up|go on)\b",
    r"\b(?:want|wanted|wanting) to die\b|\bbetter off dead\b|\bbetter off without me\b",
    r"\b(?:no|not any) (?:reason|point) (?:to|in) (?:live|living|go on|going on)\b|\bnot worth living\b",
))

_HISTORY = re.compile(
    r"\b(?:last (?:week|month|year|time|monday|tuesday|wednesday|thursday|friday|saturday|sunday|summer|winter|"
    r"spring|autumn)|(?:days|weeks|months|years|a year|a month|a week|a while|ages|long time) ago|history of|"
    r"used to|in the past|previously|back in|years back|when i was|had one before)\b")
_ABOUT_APPOINTMENT = re.compile(
    r" (?:appointment|appt|review|follow up|check up|checkup|clinic|specialist|rehab|rehabilitation|recovery|"
    r"program|programme|treatment|management|assessment|scan|test|results|physio)\b")
_NOT_EMERGENCY = re.compile(
    r"\b(?:not|no|nothing) (?:an? |like an? )?(?:real |actual |medical |big )?emergency\b|"
    r"\bnot (?:that |really |too )?(?:urgent|serious)\b|\bdo not think (?:it is|this is) (?:an? )?"
    r"(?:emergency|urgent|serious)\b|\bnon emergency\b")
_SPLITTERS = frozenset({"and", "but", "so", "now", "then", "although", "though"})
_NEG_NEAR = frozenset({"not", "never", "without", "denies", "denied", "nor"})
_NO_BETWEEN = frozenset({"more", "real", "actual", "major", "bad", "severe", "signs", "sign", "of", "any"})


def _subclause(ct: CallerText, index: int) -> tuple[int, int]:
    start, end = ct.clause_of(index)
    s = index
    while s > start and ct.tokens[s - 1] not in _SPLITTERS:
        s -= 1
    e = index + 1
    while e < end and ct.tokens[e] not in _SPLITTERS:
        e += 1
    return s, e


def _negated(ct: CallerText, first: int) -> bool:
    start = ct.clause_of(first)[0]
    before = ct.tokens[max(start, first - 3):first]
    if any(t in _NEG_NEAR for t in before):
        return True
    # "no chest pain", "no more seizures", "no signs of a stroke"
    k = first - 1
    while k >= start and ct.tokens[k] in _NO_BETWEEN:
        k -= 1
    return k >= start and ct.tokens[k] in ("no", "free", "denies")


def _historical(ct: CallerText, first: int, last: int) -> bool:
    s, e = _subclause(ct, first)
    clause = " ".join(ct.tokens[s:e])
    if _HISTORY.search(clause):
        return True
    after = " " + " ".join(ct.tokens[last:min(len(ct.tokens), last + 2)])
    return _ABOUT_APPOINTMENT.match(after) is not None


def find_red_flags(ct: CallerText, hits: dict[str, Hit]) -> None:
    text = ct.text
    for m in _EMERGENCY_HIGH.finditer_in(ct):
        first, last = ct.span(m.start(), m.end())
        if _negated(ct, first) or _historical(ct, first, last):
            continue
        add_hit(hits, "emergency", "high", m.start(), EVIDENCE["emergency"])
        break
    # every medium-emergency phrase holds the word "emergency"
    if "emergency" not in hits and "emergency" in text and not _NOT_EMERGENCY.search(text):
        m = _EMERGENCY_MEDIUM.search(text)
        if m and not _negated(ct, ct.span(m.start(), m.end())[0]):
            add_hit(hits, "emergency", "medium", m.start(), EVIDENCE["emergency"])
    for m in _CRISIS.finditer_in(ct):
        first, _ = ct.span(m.start(), m.end())
        if _negated(ct, first):
            continue
        add_hit(hits, "crisis", "high", m.start(), EVIDENCE["crisis"])
        break

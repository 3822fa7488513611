"""The conversational acts: yes, no, a correction, and goodbye.

Most of these are about where a word stands: "no" starting a clause is an
answer, "no worries" is not; "actually" starting a clause corrects what came
before; "ok" is a yes when it answers, and only a sure yes when the agent has
just read something back for confirmation. The question just asked raises or
settles confidence, and its label ("confirm_prompt") joins the evidence; its
short answers ("yep", "nah" as the whole answer) settle it outright.
"""

from __future__ import annotations

import re

from .normalise import CallerText, normalise
from .questions import Question
from .signals import EVIDENCE, NEGATORS, Hit, RuleSet, add_hit, apply_rules, rule

_YES_WORD = r"(?:yes|yeah|yea|yep|yup|yah|aye|mhm)"

YES_RULES = RuleSet(
    rule("yes", "high",
         r"\b(?:yes|yeah|yea|yep|yup|yah|aye|affirmative|mhm|spot on|you got it|you bet)\b",
         r"\bya\b(?<!see ya)",
         r"\bthat (?:is|sounds|looks|works|would be|will be|will do|suits)(?: me)?(?: all)?(?: (?:just|really|"
         r"totally|perfectly|absolutely|all))? (?:right|correct|good|great|fine|perfect|lovely|ok|brilliant|"
         r"excellent|awesome|wonderful|fantastic|the one|me|true)\b",
         r"\b(?:sounds|looks) (?:good|great|fine|perfect|lovely|right|about right|ok)\b",
         # said first, the "s" is often dropped or not heard: "Sound good."
         r"^sound (?:good|great|fine|perfect|lovely)\b",
         r"\b(?:that|it|this|both|either|which ever|whichever) works\b|\bworks (?:for me|well|fine)\b|\bsuits me\b",
         r"\bplease do\b|\bgo ahead\b|\bgo for it\b|\b(?:let us |just |please )do (?:it|that)\b|^do it\b",
         r"\bbook (?:it|that|this one|that one|them|me in)\b(?! (?:in )?(?:for|on)\b)",
         r"\b(?:lock|pencil) (?:it|that|me) in\b",
         r"\bi confirm\b|^confirm(?:ed)?(?: please| thanks)?$",
         negation_window=2),
    rule("yes", "medium",
         r"\b(?:is|are|sounds|looks|be) (?:perfect|great|good|fine|lovely|ok)\b",
         r"\bfor sure\b|\bno worries\b|\bno problem\b|\bnot a problem\b|\bno dramas\b|\bwhy not\b|"
         r"\bi (?:guess|suppose|think) so\b|\bguess so\b|\bgo on then\b|^go on$",
         negation_window=2),
)
_YES_TALKED_ABOUT = re.compile(
    rf"\b(?:before|if|until|unless|when) (?:i|we) (?:say|said) {_YES_WORD}\b|"
    r"\bbefore (?:i|we) (?:agree|confirm|commit|go ahead|book)\b")
# "done" alone is no yes: it is what the transcriber writes for a hum ("Hmm."), and a hum must never unlock a write
_YES_HEAD = re.compile(
    r"(?:ok|all right|sure|fine|perfect|great|good|lovely|cool|right|brilliant|excellent|awesome|beautiful|"
    r"wonderful|fantastic|sweet|done deal|deal|certainly|correct|exactly|absolutely|definitely|of course|indeed)\b(?! (?:morning|afternoon|evening|day|night|luck|question)\b)")

_ANOTHER_TIME = re.compile(r"\b(?:(?<!see you )(?<!catch you )(?<!talk to you )(?<!speak to you )(?<!see ya )later|"
                           r"earlier|instead|another (?:day|time|one)|different (?:day|time|one)|"
                           r"some other (?:day|time))\b")

NO_RULES = RuleSet(
    rule("no", "high",
         r"\bno (?:thanks|thank you|thankyou|ta)\b",
         r"\bnot (?:really|quite|exactly|that one|at all|for me|those|them|right|correct|true)\b",
         r"\bthat is (?:not (?:right|correct|it|what i said|me|true|my)|wrong|incorrect)\b",
         r"\b(?:that is|it is|that was|this is|all|you have (?:got )?(?:it|that)|you got (?:it|that)) (?:all |"
         r"completely |totally |a bit |slightly )?(?:wrong|incorrect)\b|\bincorrect\b|\bwrong (?:one|day|date|time|"
         r"name|spelling|person|year)\b(?! (?:sorry|bye))",
         r"\bneither\b|\bnone of (?:those|them|these|the)\b|\bi do not think so\b",
         r"\b(?:do not|please do not) (?:book|do|cancel|confirm) (?:it|that|them)\b",
         r"\bnot (?:that|this) one\b|\bno no\b",
         r"\b(?:does not|do not|will not|would not) (?:suit|work)(?: for me)?\b|\b(?:can not|could not) do "
         r"(?:that|those|either|then|any of)\b",
         negation_window=0),
)
_NO_HEAD = re.compile(
    r"(?:no|nope|nah|naw|negative|wrong)\b(?! (?:worries|problem|problems|dramas|rush|preference|idea|need|one|longer|"
    r"matter|way of|time|later|earlier)\b)")

CORRECTION_RULES = RuleSet(
    rule("correction", "high",
         r"\b(?<!am )(?<!did )i (?:meant|said)\b|\bcorrection\b|\blet me correct\b|\bscratch that\b|\bmy (?:mistake|bad)\b",
         r"\bchange (?:that|it) to\b|\bthat is not what i said\b|\bi did not say\b|\boops\b|\bi misspoke\b",
         r"\bi (?:got|gave) (?:that|it|you) wrong\b|\bi (?:gave you|said) the wrong\b",
         # saying it over: "let me say that again", "I'll repeat that", "let me start again"
         r"\b(?:let me|i will|i shall) (?:say|repeat|give|read) (?:that|it|you that|you it)(?: again| over)\b"
         r"|\b(?:let me|i will) (?:repeat that|start again|start over|try (?:that )?again)\b",
         negation_window=0),
    rule("correction", "high", r"\bmake (?:that|it) (?!(?:later|earlier|quick|work|happen|easy|in|to|there|on time)\b)\w",
         negation_window=3),
    rule("correction", "medium", r"\bactually\b|\bi mean\b|\binstead\b", negation_window=0),
)
# the apology a correction starts with ("sorry, it was Tuesday"); between two versions of an answer it takes the
# first back on its own ("S M I T H, sorry, S M Y T H")
_APOLOGY = "sorry"
_CORRECTION_HEAD = re.compile(
    r"(?:actually|wait\b(?! (?:for|list|listed|time|times)\b)|no,? (?:it is|it was|it should be|i said|i meant|"
    rf"not)|{_APOLOGY},? (?:it is|it was|i meant|i said|i mean|not|make that|that should be|i got)|oops|hang on|"
    r"hold on)\b")

# a farewell said outright: a goodbye wherever it is said
_FAREWELL_WORDS = (r"\b(?:bye|goodbye|good bye|bye bye|byebye|see you|see ya|catch you later|talk (?:to you )?soon|"
                   r"have a (?:good|nice|great|lovely|wonderful) (?:day|one|night|evening|afternoon|weekend))\b")
_FAREWELL = re.compile(_FAREWELL_WORDS)
_WORD = re.compile(r"[a-z']+")

GOODBYE_RULES = RuleSet(
    rule("goodbye", "high",
         _FAREWELL_WORDS,
         r"\bthat is (?:all|everything|all i needed|all i need|about it|all for (?:now|today)|it for (?:now|today))\b"
         r"(?! (?:for|you|i|of|on|in|right)\b)",   # "that's all right" is no "that's all"
         r"\bnothing else\b|\bthat will be all\b|\bno more questions\b|\bthat was all\b",
         r"\b(?:i am|we are) (?:all )?(?:good|fine|sorted|done|set|right|ok)(?: now| then| for now)? (?:thanks|"
         r"thank you|ta|cheers)\b",
         r"\bthank(?:s| you) (?:for|so much for) (?:your|the|all your|all the|all of your) help\b",
         r"\bthat is it (?:for now|for today|thanks|thank you|then)\b|\bno,? that is it\b",
         negation_window=2),
    rule("goodbye", "medium",
         r"\b(?:i am|we are) (?:all )?(?:good|fine|sorted|done|all set)\b(?! (?:with|to|for|at|if)\b)",
         r"\bcheers$|\bwrong number\b",
         # the caller leaving to think or to call again themselves: "I'll have a think and ring back",
         # "I'll think about it", "let me check with my husband and I'll call you back"
         r"\b(?:i|we) will (?:just |probably |maybe )?(?:have a (?:think|chat with \w+(?: \w+)?|talk with \w+(?: \w+)?)"
         r"(?: about it)?(?: and| then)? )?(?:think (?:about )?it(?: over)?|have a think|call back|ring back|"
         r"(?:call|ring|phone) you back|get back to you|be in touch)\b",
         negation_window=2),
    # "that'll do": done, where asked whether there is anything else; said of a time or a read-back, the caller
    # takes it ("half nine, yes, that'll do me"), so mid-task it ends nothing (`unsure_goodbye_mid_task`)
    rule("goodbye", "low", r"\bthat will do\b", negation_window=2),
)
_THANKS_ONLY = frozenset({"thanks", "thank", "you", "very", "much", "so", "ok", "great", "lovely", "cheers", "ta",
                          "heaps", "all", "right", "perfect", "that", "is", "wonderful", "brilliant", "mate",
                          "awesome", "again"})
_SKIP_AT_HEAD = frozenset({"oh", "well", "so", "and", "but", "ah", "look", "listen", "hey", "hi", "hello", "um",
                           "okay", "mate"})
# what a caller leaving part way says before the farewell ("oh forget it, bye", "sorry, I'll call back later, bye")
_BEFORE_LEAVING = _THANKS_ONLY | _SKIP_AT_HEAD | frozenset(
    "no not actually never mind forget it sorry then i will call ring back later tomorrow another time try again "
    "just leave".split())
_THAT_IS_IT = re.compile(r"\bthat is it\b")
_ALL_GOOD = re.compile(r"\ball good\b")


_YES_SKIP = _SKIP_AT_HEAD | {"yes", "yeah", "yep", "oh"}
_NO_SKIP = _SKIP_AT_HEAD | {"yeah", "yes", "sorry", "ok", "um", "er", "actually", "erm", "hmm"}
_CORRECTION_SKIP = _SKIP_AT_HEAD | {"no", "sorry", "oh", "um"}
_YES_THEN_NO = re.compile(rf"{_YES_WORD} (?:no|nah|naw|nope)\b")
_NO_THEN_YES = re.compile(r"(?:nah|naw) (?:yeah|yep|yes|yea)\b")
_YES_WORD_SAID = re.compile(rf"\b{_YES_WORD}\b")


_TAG_AFTER_A_STATEMENT = re.compile(r"(?P<statement>\b(?:that is|it is|this is|they are|you are|we are|i am|that will be|"
                                    r"it will be)\b.*) (?:yeah|yes|yep|right|correct|ya|aye)$")


# what goes with a word of assent without saying anything else ("great, thanks", "lovely, that's fine then")
_WITH_ASSENT = _THANKS_ONLY | _SKIP_AT_HEAD | frozenset(
    "ok all right sure fine perfect great good lovely cool brilliant excellent awesome beautiful wonderful fantastic "
    "sweet done deal certainly correct exactly absolutely definitely of course indeed please then yes yeah yep "
    "it this that is sounds looks will be do thank you ta um uh er erm i am we are me in happy with there booked "
    "book go ahead on can thing stuff by suits suit a lot work works kindly appreciated".split())

_HEAD_SKIPS = (_YES_SKIP, _NO_SKIP, _CORRECTION_SKIP, _SKIP_AT_HEAD)
_ANY_SKIP = frozenset().union(*_HEAD_SKIPS)

# The word rules of all four acts, applied in one pass (in this order).
ACT_RULES = RuleSet(*YES_RULES, *NO_RULES, *CORRECTION_RULES, *GOODBYE_RULES)


def _heads(ct: CallerText) -> list[list[int]]:
    """For each of _HEAD_SKIPS: the char position of every clause's first real
    word (words in that skip set passed over). The head patterns are matched
    there in the whole text: none looks behind its start, so that is the same
    as matching the clause's text on its own."""
    found: list[list[int]] = [[] for _ in _HEAD_SKIPS]
    tokens = ct.tokens
    offsets = ct.offsets
    for start, end in ct.clause_spans:
        if tokens[start] not in _ANY_SKIP:  # most clauses: the first word is the head for all
            for out in found:
                out.append(offsets[start])
            continue
        for skip, out in zip(_HEAD_SKIPS, found):
            k = start
            while k < end - 1 and tokens[k] in skip:
                k += 1
            out.append(offsets[k])
    return found


def find_conversation_acts(ct: CallerText, question: Question, hits: dict[str, Hit]) -> None:
    if not ct.tokens:
        return
    apply_rules(ct, ACT_RULES, hits)
    read_conversation_acts(ct, question, hits)


def read_conversation_acts(ct: CallerText, question: Question, hits: dict[str, Hit]) -> None:
    """`find_conversation_acts` after its word rules (`ACT_RULES`) were applied:
    clause heads, set phrases, and what the agent's question settles."""
    text = ct.text
    yes_heads, no_heads, correction_heads, plain_heads = _heads(ct)

    worded_yes = "yes" in hits
    for pos in yes_heads:
        m = _YES_HEAD.match(text, pos)
        if m and _ANOTHER_TIME.search(text):
            continue   # "good, could we do a bit later?": a word of assent leading into a change is no yes
        if m and question.read_back and not worded_yes and "goodbye" not in hits \
                and not ct.words <= _WITH_ASSENT:
            # "great, sit down" or "fine, put the kettle on": a word of assent and then words that say something
            # else, to us or to someone in the room, is not yet the yes that unlocks a write (it is asked again)
            continue
        if m and not ("yes" in hits and hits["yes"].confidence == "high"):
            strong = m.group(0) in ("correct", "exactly", "absolutely", "definitely", "of course", "certainly")
            add_hit(hits, "yes", "high" if strong else "medium", pos, EVIDENCE["yes"])
    for pos in no_heads:
        if _NO_HEAD.match(text, pos):
            add_hit(hits, "no", "high", pos, EVIDENCE["no"])
    for pos in correction_heads:
        if _CORRECTION_HEAD.match(text, pos):
            add_hit(hits, "correction", "high", pos, EVIDENCE["correction"])
    for pos in plain_heads:
        if _CORRECTION_HEAD.match(text, pos):
            add_hit(hits, "correction", "high", pos, EVIDENCE["correction"])

    # "yeah no" is a no; "nah yeah" ("no, yes, ...") is a yes: the last of the pair is the answer
    if "yes" in hits and "no" in hits and _YES_THEN_NO.match(text):
        del hits["yes"]
    elif "yes" in hits and "no" in hits and _NO_THEN_YES.match(text):
        del hits["no"]

    # "before I say yes, how much is it?": a yes talked about is not a yes given
    if "yes" in hits and ("say" in ct.words or "before" in ct.words):
        m = _YES_TALKED_ABOUT.search(text)
        if m and not re.search(rf"\b{_YES_WORD}\b", text[:m.start()] + text[m.end():]):
            del hits["yes"]

    # "sorry, that's still at <street>, yeah?": at a read-back, a yes word as the tag of a question the caller asks
    # about what was read is no yes (asked again), unless all before it agrees ("that's right, yeah?")
    if "yes" in hits and question.read_back and ct.raw.rstrip().endswith("?"):
        m = _TAG_AFTER_A_STATEMENT.search(text)
        if m and not set(m.group("statement").split()) <= _WITH_ASSENT | {"right"}:
            del hits["yes"]

    # "that's it": yes after a yes-word or at a read-back; goodbye after "no"/thanks.
    m = _THAT_IS_IT.search(text) if "that is it" in text else None
    if m and "goodbye" not in hits:
        before = text[:m.start()]
        if _YES_WORD_SAID.search(before) or (question.read_back and "no" not in hits):
            add_hit(hits, "yes", "medium", m.start(), EVIDENCE["yes"])
        elif question.closing or "no" in hits:
            add_hit(hits, "goodbye", "high", m.start(), EVIDENCE["goodbye"])
        else:
            add_hit(hits, "goodbye", "low", m.start(), EVIDENCE["goodbye"])

    # "all good": done when asked for anything else, agreed otherwise
    if "all good" in text and _ALL_GOOD.search(text):
        if question.closing:
            add_hit(hits, "goodbye", "high", 0, EVIDENCE["goodbye"])
        elif "no" not in hits:
            add_hit(hits, "yes", "medium", 0, EVIDENCE["yes"])

    # Thanks and nothing else.
    if ct.words <= _THANKS_ONLY and ("thanks" in ct.words or "thank" in ct.words or "cheers" in ct.words):
        level = "medium" if question.closing else "low"
        add_hit(hits, "goodbye", level, 0, EVIDENCE["goodbye"])
        if not question.read_back and "yes" in hits and hits["yes"].confidence != "high":
            del hits["yes"]

    # A whole answer the question lists as a short answer settles it.
    settled = question.short_answer(text) if question.short_answers else None
    if settled is not None:
        add_hit(hits, settled, "high", 0, "short_answer")
        hits.pop("no" if settled == "yes" else "yes", None)

    # The agent's last question settles how sure an answer is.
    if question.read_back:
        for intent in ("yes", "no"):
            if intent in hits:
                hits[intent].raise_to("high", f"{question.name}_prompt")
    if question.closing and "goodbye" in hits:
        hits["goodbye"].raise_to("high", f"{question.name}_prompt")
    if question.personal and "goodbye" in hits and not _leaving_outright(text):
        # asked for a detail of their own (a name, a date of birth), "that was all, thanks" is likelier an answer
        # written as words it sounds like than a caller leaving; a farewell said outright ("bye", "forget it, bye")
        # still is one, but not one after words of another kind (a name misheard, and the decoder's habit of
        # ending unclear words with a farewell: "Keep it all cute, see you later.")
        hits["goodbye"].confidence = "low"
    if "yes" in hits and "no" in hits:
        yes, no = hits["yes"], hits["no"]
        if yes.confidence != "high" and no.confidence == "high":
            del hits["yes"]
        elif no.confidence != "high" and yes.confidence == "high":
            del hits["no"]


def _leaving_outright(text: str) -> bool:
    """A farewell said, after nothing but the words callers leave with."""
    m = _FAREWELL.search(text)
    return m is not None and set(_WORD.findall(text[:m.start()])) <= _BEFORE_LEAVING


# what is heard between two versions of an answer: no question of its own
_BETWEEN_VERSIONS = Question("between_versions")


# the words a caller starts to take back what they just said with ("the first, no wait, the second"; "Doe,
# sorry, Roe"; "oops, I meant ..."): where an answer is read from the words after them, in names, slot picks
# and bookings alike; `takes_back` says whether the words from one on really do
TAKE_BACK_WORDS = frozenset({"no", "nah", "sorry", "actually", "wait", "scratch", "rather", "oops", "meant"})


def takes_back(words: tuple[str, ...]) -> bool:
    """Whether `words`, said between two versions of one answer, take the first back ("S M I T H, sorry,
    S M Y T H", "... no, S M Y T H", "... scratch that ..."): heard on their own they are a correction or a no,
    or they hold a negator ("not", "rather") or the apology a correction starts with."""
    if not words:
        return False
    if _APOLOGY in words or not NEGATORS.isdisjoint(words):
        return True
    hits: dict[str, Hit] = {}
    find_conversation_acts(normalise(" ".join(words)), _BETWEEN_VERSIONS, hits)
    return "correction" in hits or "no" in hits

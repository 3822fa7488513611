"""Which services, location and practitioner of the clinic a caller named.

Names and aliases match exactly (after the same normalising as the caller's
words, plurals and a few synonyms folded: "jab"/"vaccine" -> "shot",
"consult" -> "consultation"). Near misses a speech recogniser makes ("Dr
Row" for "Dr Roe", "flew shot", "physio" for "physiotherapy") match through
rapidfuzz, but only for multi-word phrases or long proper names, never for
ordinary words. A practitioner's first or last name alone counts only with
a cue ("with Jane", "Dr Roe", "see Jane") or when the agent asked for a
practitioner. The index of a catalog is built once and cached.
"""

from __future__ import annotations

import re

from dataclasses import replace, dataclass, field
from functools import lru_cache

from rapidfuzz import fuzz, process

from ..domain import ANYONE, Catalog
from .common_words import CHILDREN_WORDS, FUNCTION_WORDS, STOP_WORDS
from .normalise import CallerText, normalise
from .questions import Question
from .signals import EITHER_AS_ANY, WordPattern
from .yes_no import TAKE_BACK_WORDS, takes_back

_SYNONYMS: dict[str, tuple[str, ...]] = {
    "jab": ("shot",), "vaccine": ("shot",), "vaccination": ("shot",), "injection": ("shot",),
    "immunisation": ("shot",), "immunization": ("shot",), "consult": ("consultation",),
    "followup": ("follow", "up"), "checkup": ("check", "up"), "doctor": ("dr",),
    "massages": ("massage",), "messages": ("message",), "ups": ("up",),
}
_TITLES = frozenset({"dr", "doctor", "prof", "professor", "mr", "mrs", "ms", "miss", "mx"})
_GENERIC = frozenset({"consultation", "appointment", "session", "visit", "treatment", "the", "a", "an", "and",
                      "of", "for", "with", "clinic", "shot", "up", "check", "therapy", "test", "care", "follow",
                      "patient", "first", "new", "standard", "general", "long", "short", "extended", "quick"})
_PRACTITIONER_CUES = frozenset({"with", "see", "seeing", "dr", "doctor", "prefer", "by", "booked", "to",
                                "want", "like", "request", "is", "was", "saw", "usually", "normally"})
_REFERRED_BACK = re.compile(r"\b(?:with|see|seeing|by|booked in with|get|have) (?:her|him)\b")
_LOCATION_CUES_AFTER = frozenset({"clinic", "branch", "office", "one", "location", "site", "practice", "rooms",
                                  "centre", "center", "studio"})
_PREFIX_MIN = 6
_VERB_BEFORE = frozenset({"to", "will", "would", "you", "we", "i", "they", "can", "could", "should", "must", "shall",
                          "might", "may", "let", "us", "he", "she"})


def canonical(token: str) -> tuple[str, ...]:
    if token in _SYNONYMS:
        return _SYNONYMS[token]
    if len(token) > 4 and token.endswith("s") and not token.endswith(("ss", "us", "is", "'s")):
        singular = token[:-1]   # "doctors visit", as speech-to-text writes "doctor's visit", is "dr visit" too
        return _SYNONYMS.get(singular, (singular,))
    return (token,)


@dataclass(frozen=True)
class _Phrase:
    tokens: tuple[str, ...]
    kind: str            # "service" | "location" | "practitioner"
    id: str
    needs_cue: bool      # practitioner single names, partial location names
    fuzzy: bool          # may match approximately
    part: bool = False   # a service's name in part (its words but the generic ones), not as declared


@dataclass(frozen=True)
class CatalogIndex:
    by_first: dict[str, tuple[_Phrase, ...]]
    fuzzy_choices: tuple[str, ...]
    fuzzy_phrases: tuple[_Phrase, ...]
    prefix_words: dict[str, tuple[str, str]]   # catalog word -> (kind, id), unique words only
    fuzzy_heads: frozenset[str]                # first two letters of each fuzzy phrase
    place_and_service_words: frozenset[str]    # never part of a caller's name
    place_and_service_phrases: tuple[tuple[str, ...], ...] = ()   # each name and alias, as words
    first_visit: str | None = None             # the one service whose name says it is the first visit
    # service -> the one service of the same kind whose name says it is for children (a check-up for children, for
    # the check-up)
    for_children: dict[str, str] = field(default_factory=dict)

    def place_and_service_words_said(self, tokens: tuple[str, ...]) -> frozenset[str]:
        """The words of the clinic's service and place names said whole in `tokens` ("Doe Green"), and of those
        of one word: where a name is asked, a surname that is one word of a site's name ("Green") is a name."""
        tokens = tuple(c for tok in tokens if tok != "'s" for c in canonical(tok))
        said: set[str] = set()
        for phrase in self.place_and_service_phrases:
            n = len(phrase)
            if n == 1 or any(tokens[k:k + n] == phrase for k in range(len(tokens) - n + 1)):
                said.update(phrase)
        return frozenset(said)
    word_memo: dict = field(default_factory=dict, compare=False, repr=False)  # caller word -> `_roles`
    plain_words: set = field(default_factory=set, compare=False, repr=False)  # caller words with no role


def _canon_tokens(text: str) -> tuple[str, ...]:
    out: list[str] = []
    for tok in normalise(text).tokens:
        if tok == "'s":
            continue
        out.extend(canonical(tok))
    return tuple(out)


# how addresses shorten the kind of street (general postal usage, not one clinic's)
_STREET_KINDS = {"st": "street", "rd": "road", "ave": "avenue", "av": "avenue", "ln": "lane", "pl": "place",
                 "hwy": "highway", "blvd": "boulevard", "cres": "crescent", "tce": "terrace", "pde": "parade",
                 "sq": "square", "cl": "close"}
# a street's kind, said in full or short: no site is named by it alone ("Olly Road" is not "<name> Road")
_STREET_WORDS = frozenset({*_STREET_KINDS, *_STREET_KINDS.values(), "way", "drive", "row", "walk", "court", "mews"})
_BEFORE_A_STREET = frozenset({"unit", "suite", "level", "shop", "floor", "building", "the"})


def _streets_of(address: str) -> tuple[str, ...]:
    """The street of an address's first line, as written and with its kind said in full: "12 Doe St, Springfield"
    gives "doe st" and "doe street"; nothing where no street of two words or more is left."""
    for line in address.split(",")[:2]:   # "Unit 2, 40 Doe St": the street may follow a unit's own part
        words = list(normalise(line).tokens)
        while words and (any(ch.isdigit() for ch in words[0]) or words[0] in _BEFORE_A_STREET or len(words[0]) == 1):
            words.pop(0)
        if len(words) >= 2:
            break
    else:
        return ()
    forms = [words]
    # "Doe Street Lower", "Upper Roe Road": which part of the street, said or not
    if len(words) > 2 and words[-1] in _STREET_SIDES:
        forms.append(words[:-1])
    if len(words) > 2 and words[0] in _STREET_SIDES:
        forms.append(words[1:])
    streets: list[str] = []
    for form in forms:
        streets.append(" ".join(form))
        full = _STREET_KINDS.get(form[-1])
        if full:
            streets.append(" ".join([*form[:-1], full]))
    return tuple(streets)


_STREET_SIDES = frozenset({"upper", "lower", "north", "south", "east", "west", "extension", "ext"})


_BY_IDENTITY: dict[int, tuple[Catalog, CatalogIndex]] = {}


def catalog_index(catalog: Catalog) -> CatalogIndex:
    """The catalog's lookup index, built once per catalog. Looked up by
    identity first: hashing a whole catalog on every utterance is slow."""
    entry = _BY_IDENTITY.get(id(catalog))
    if entry is not None and entry[0] is catalog:
        return entry[1]
    index = _build_index(catalog)
    if len(_BY_IDENTITY) >= 64:
        _BY_IDENTITY.clear()
    _BY_IDENTITY[id(catalog)] = (catalog, index)
    return index


_TAIL_WORDS = _GENERIC | {"initial", "review"}   # ... and the general words that open a visit's name
_JOINING = frozenset({"and", "or", "with", "plus", "of", "for", "the", "a", "an"})


def _generic_tail(toks: tuple[str, ...]) -> tuple[str, ...]:
    """The run of general words a longer name ends in, of two words or more ("follow up", "initial consultation");
    () where there is none, or where the run is joined on as a second thing the service is ("<x> cleaning and
    checkup" is no "checkup")."""
    k = len(toks)
    while k > 1 and toks[k - 1] in _TAIL_WORDS and toks[k - 1] not in _JOINING:
        k -= 1
    return toks[k:] if 0 < k and toks[k - 1] not in _JOINING and len(toks) - k >= 2 else ()


@lru_cache(maxsize=16)
def _build_index(catalog: Catalog) -> CatalogIndex:
    phrases: list[_Phrase] = []
    declared: dict[tuple[str, ...], set[tuple[str, str]]] = {}   # a name or alias as the clinic file gives it

    def add(text: str, kind: str, id_: str, needs_cue: bool = False, fuzzy: bool | None = None,
            derived: bool = False) -> None:
        toks = _canon_tokens(text)
        if not toks:
            return
        if fuzzy is None:
            fuzzy = (len(toks) >= 2 and len(" ".join(toks)) >= 6) or (kind != "service" and len(toks[0]) >= 6)
        phrases.append(_Phrase(toks, kind, id_, needs_cue, fuzzy, part=derived and kind == "service"))
        if not derived:
            declared.setdefault(toks, set()).add((kind, id_))

    for s in catalog.services:
        for text in (s.name, *s.aliases):
            add(text, "service", s.id)
            toks = _canon_tokens(text)
            # "Initial consultation" is also just "initial"; "Foot massage" also just
            # "massage" (kept only where no other service claims the word).
            # ... but not by whom it is for alone, a possessive in any of its names ("watch the kids" names no
            # service for children)
            whose = {w.lower().rstrip("'").removesuffix("'s") for t in (s.name, *s.aliases) for w in t.split()
                     if w.endswith(("'", "'s"))}
            content = tuple(t for t in toks if t not in _GENERIC and t not in whose)
            if 0 < len(content) < len(toks) and len(" ".join(content)) >= 4:
                add(" ".join(content), "service", s.id, fuzzy=False, derived=True)
            if len(toks) >= 2:
                word = toks[-1]
                if len(word) >= 5 and word not in _GENERIC and word not in FUNCTION_WORDS:
                    add(word, "service", s.id, fuzzy=False, derived=True)
            tail = _generic_tail(toks) if text == s.name else ()
            if tail:
                # the general words a name ends in ("<kind> follow-up" is also "a follow-up"), kept only where no
                # other service claims them (not an alias's: "<whom> checkup" is no "checkup")
                add(" ".join(tail), "service", s.id, fuzzy=False, derived=True)
    name_words: dict[str, set[str]] = {}
    for loc in catalog.locations:
        for text in (loc.name, *loc.aliases):
            for word in _canon_tokens(text):
                name_words.setdefault(word, set()).add(loc.id)
    for loc in catalog.locations:
        for text in (loc.name, *loc.aliases):
            add(text, "location", loc.id)
            toks = _canon_tokens(text)
            if len(toks) >= 2:
                add(toks[0], "location", loc.id, needs_cue=True, fuzzy=False)
                # ... and by its last word where no other site has it ("the Bay one" for "<town> Bay")
                if name_words.get(toks[-1]) == {loc.id} and toks[-1] not in _LOCATION_CUES_AFTER \
                        and toks[-1] not in _STREET_WORDS:
                    add(toks[-1], "location", loc.id, needs_cue=True, fuzzy=False, derived=True)
        # a site named by its street ("Upper Street, I always go to Upper Street"), where it is asked for or cued
        for street in _streets_of(loc.address):
            add(street, "location", loc.id, needs_cue=True, fuzzy=False, derived=True)
    for p in catalog.practitioners:
        toks = [t for t in _canon_tokens(p.name) if t not in _TITLES]
        for text in p.aliases:
            # one word ("Anna") is as weak as a first name alone: a lone name is also what speech-to-text makes
            # of a short sound when the clinic's names are its prompt
            add(text, "practitioner", p.id, needs_cue=len(_canon_tokens(text)) == 1)
        if not toks:
            continue
        full = " ".join(toks)
        add(full, "practitioner", p.id)
        for title in ("dr",):
            add(f"{title} {full}", "practitioner", p.id)
            add(f"{title} {toks[-1]}", "practitioner", p.id)
            add(f"{title} {toks[0]}", "practitioner", p.id)
        if len(toks) >= 2:
            add(toks[0], "practitioner", p.id, needs_cue=True)
            add(toks[-1], "practitioner", p.id, needs_cue=True)

    # Drop partial phrases claimed by two entities (e.g. two practitioners called Jane).
    owners: dict[tuple[str, ...], set[tuple[str, str]]] = {}
    for ph in phrases:
        owners.setdefault(ph.tokens, set()).add((ph.kind, ph.id))
    # ... unless the clinic file gives the words as one service's own alias (an alias "scan" of one service, where
    # another is called "exam and scan"): the alias is that service's, the part of a name no one's
    # a part of one service's name that the clinic file also gives as its alias is no part: it is declared
    phrases = [replace(ph, part=False) if ph.part and (ph.kind, ph.id) in declared.get(ph.tokens, ()) else ph
               for ph in phrases]
    unique = [ph for ph in phrases if len(owners[ph.tokens]) == 1
              or (declared.get(ph.tokens) == {(ph.kind, ph.id)})]
    seen: set[tuple[tuple[str, ...], str, str]] = set()
    deduped: list[_Phrase] = []
    for ph in unique:
        key = (ph.tokens, ph.kind, ph.id)
        if key not in seen:
            seen.add(key)
            deduped.append(ph)

    by_first: dict[str, list[_Phrase]] = {}
    for ph in deduped:
        by_first.setdefault(ph.tokens[0], []).append(ph)
    for lst in by_first.values():
        lst.sort(key=lambda ph: -len(ph.tokens))

    fuzzy_phrases = tuple(ph for ph in deduped if ph.fuzzy)
    word_owners: dict[str, set[tuple[str, str]]] = {}
    for ph in deduped:
        if ph.kind == "service":
            for t in ph.tokens:
                if len(t) > _PREFIX_MIN and t not in _GENERIC:
                    word_owners.setdefault(t, set()).add((ph.kind, ph.id))
    prefix_words = {w: next(iter(o)) for w, o in word_owners.items() if len(o) == 1}
    firsts = [s.id for s in catalog.services
              if any(_FIRST_VISIT_NAME.search(normalise(text).text) for text in (s.name, *s.aliases))]
    for_children = _children_counterparts(catalog)
    place_words: set[str] = set()
    place_phrases: set[tuple[str, ...]] = set()
    for text in [t for s in catalog.services for t in (s.name, *s.aliases)] + \
            [t for loc in catalog.locations for t in (loc.name, *loc.aliases)]:
        words = _canon_tokens(text)
        place_words.update(words)
        if words:
            place_phrases.add(words)
    return CatalogIndex(
        by_first={k: tuple(v) for k, v in by_first.items()},
        fuzzy_choices=tuple(" ".join(ph.tokens) for ph in fuzzy_phrases),
        fuzzy_phrases=fuzzy_phrases,
        prefix_words=prefix_words,
        fuzzy_heads=frozenset(ph.tokens[0][:2] for ph in fuzzy_phrases),
        place_and_service_words=frozenset(place_words),
        place_and_service_phrases=tuple(sorted(place_phrases)),
        first_visit=firsts[0] if len(firsts) == 1 else None,
        for_children=for_children,
    )


_JOINING = frozenset({"and", "the", "a", "an", "of", "for", "with", "s"})


def _children_counterparts(catalog: Catalog) -> dict[str, str]:
    """For each service not for children, the one service for children whose other words are all in one of its
    names: a check-up whose name says it is for children, for a check-up and clean (or its alias "check-up"); a
    physio for kids, for a physio assessment."""
    def names(s) -> list[set[str]]:
        return [set(_canon_tokens(text)) - _JOINING for text in (s.name, *s.aliases)]

    for_children = [(s, [n - CHILDREN_WORDS for n in names(s) if n & CHILDREN_WORDS]) for s in catalog.services]
    kids = [(s, [n for n in kinds if n]) for s, kinds in for_children if kinds]
    out: dict[str, str] = {}
    for s in catalog.services:
        if any(s.id == k.id for k, _ in kids):
            continue
        own = names(s)
        matches = {k.id for k, kinds in kids if any(kind <= name for kind in kinds for name in own)}
        if len(matches) == 1:
            out[s.id] = matches.pop()
    return out


@dataclass(frozen=True)
class CatalogMention:
    kind: str
    id: str
    start: int      # token span in the caller's tokens
    end: int
    how: str        # "exact" | "part" | "fuzzy" | "prefix" | ...
    negated: bool = False


@dataclass(frozen=True)
class CatalogFindings:
    mentions: tuple[CatalogMention, ...] = ()
    anyone: bool = False

    @property
    def service_ids(self) -> tuple[str, ...]:
        said = [m for m in self.mentions if m.kind == "service" and not m.negated]
        # a service named as the clinic file gives it comes before one only part of whose name was said (words of
        # a service's name told of in passing, then another service asked for by its alias: that one first)
        said.sort(key=lambda m: m.how == "part")
        out: list[str] = []
        for m in said:
            if m.id not in out:
                out.append(m.id)
        return tuple(out)

    def first(self, kind: str) -> str | None:
        for m in self.mentions:
            if m.kind == kind and not m.negated:
                return m.id
        return None

    @property
    def practitioner_id(self) -> str | None:
        return self.first("practitioner") or (ANYONE if self.anyone else None)

    @property
    def location_id(self) -> str | None:
        return self.first("location")

    def spans(self, kind: str) -> list[tuple[int, int, str]]:
        return [(m.start, m.end, m.id) for m in self.mentions if m.kind == kind and not m.negated]


_ANYONE_ASKED = WordPattern(
    r"\b(?:anyone|anybody|any one|whoever|no preference|not fussed|do not mind|does not matter|do not care|"
    + EITHER_AS_ANY + r"|any of them|whichever|first available|no one in particular|nobody in particular|any practitioner|"
    r"i am easy|happy with anyone|whoever is (?:free|available))\b")
_ANYONE_SAID = WordPattern(
    r"\b(?:with|see|seeing|book) (?:anyone|anybody|whoever)\b|\bany (?:practitioner|physio|physiotherapist|"
    r"therapist|doctor|dr|clinician|of the (?:practitioners|physios|doctors|therapists))\b|"
    r"\b(?:do not|does not) (?:mind|matter|care) (?:who|which (?:practitioner|physio|doctor|therapist))\b|"
    r"\bwhoever is (?:free|available|on)\b|\bno preference (?:for|on|of|about) (?:practitioner|physio|who|doctor|"
    r"therapist)\b|\bno (?:practitioner|physio|doctor|therapist) preference\b|\bnot fussed (?:who|which)\b")

def find_catalog(ct: CallerText, catalog: Catalog, question: Question,
                 clipped_endings: tuple[str, ...] = (),
                 town_centre: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())) -> CatalogFindings:
    index = catalog_index(catalog)
    # most lines hold no word a phrase could start at: nothing to match there
    mentions = () if index.plain_words.issuperset(ct.words) else _mentions(ct, index, question)
    if clipped_endings and not question.personal and not any(m.kind == "location" for m in mentions):
        mentions = (*mentions, *_clipped_site(ct, catalog, question, clipped_endings))
    if question.wants("location") and town_centre[1] and not any(m.kind == "location" for m in mentions):
        mentions = (*mentions, *_town_centre_site(ct, catalog, *town_centre))
    if question.wants("service"):
        # asked which service, "the new patient one": the first visit, before any other service said with it
        # ("the new patient one, the first check-up thing")
        mentions = (*_the_first_visit(ct, catalog), *mentions)
    mentions = _first_of_a_service(ct, catalog, mentions)
    if question.wants("service") and not any(m.kind == "service" and not m.negated for m in mentions):
        mentions = (*mentions, *_by_its_length(ct, catalog))
    anyone = False
    if not question.personal:
        pattern = _ANYONE_ASKED if question.wants("practitioner") else _ANYONE_SAID
        anyone = pattern.search_in(ct) is not None
    return CatalogFindings(mentions, anyone)


# asked which service, "the one for new people", "whatever the first-time one is": the first visit
_FOR_A_FIRST_VISIT = re.compile(r"\b(?:for (?:new|first time) (?:people|patients?|clients?|ones?)|first time (?:one|"
                                r"visit|appointment|thing)|(?:the )?first visit|new patient (?:one|thing|visit|"
                                r"appointment)|for newbies|first timers?|(?:need|have|get|do|book) (?:\w+ ){0,2}for "
                                r"(?:the|my|a) first time)\b")
# a service whose name says it is the first visit (general words, not one clinic's)
_FIRST_VISIT_NAME = re.compile(r"\b(?:initial|new patient|new client|first visit|first appointment)\b")


def _the_first_visit(ct: CallerText, catalog: Catalog) -> tuple[CatalogMention, ...]:
    """The clinic's one first-visit service, where the caller asks for it by what it is for."""
    if not _FOR_A_FIRST_VISIT.search(ct.text.replace("-", " ")):
        return ()
    first = _first_visit_service(catalog)
    return (CatalogMention("service", first, 0, 0, "first_visit"),) if first else ()


def _first_visit_service(catalog: Catalog) -> str | None:
    """The clinic's one service whose name says it is the first visit; None where it has none or several."""
    return catalog_index(catalog).first_visit


# a service chosen by how long it is: "the hour one", "just the half hour", "the 30 minute one"
_LENGTHS = ((re.compile(r"\b(?:an|one) hour and a half\b|\b90 min(?:ute)?s?\b|\bninety min(?:ute)?s?\b"), 90),
            (re.compile(r"\bhalf (?:an )?hour\b|\b30 min(?:ute)?s?\b|\bthirty min(?:ute)?s?\b"), 30),
            (re.compile(r"\b(?:45|forty five) min(?:ute)?s?\b"), 45),
            (re.compile(r"\b(?:15|fifteen) min(?:ute)?s?\b"), 15),
            (re.compile(r"\b(?:an|one|the|full|whole|hour) hour\b(?! and)|\bhour (?:long|one|session)\b|"
                        r"\b(?:60|sixty) min(?:ute)?s?\b"), 60))


def _by_its_length(ct: CallerText, catalog: Catalog) -> tuple[CatalogMention, ...]:
    """Asked which service, the one of the length said, where one service is that long (of those whose words the
    caller also said, where they said any: "the hour one, the massage")."""
    for pattern, minutes in _LENGTHS:
        m = pattern.search(ct.text)
        if m is None:
            continue
        said = set(ct.tokens)
        long_enough = [s for s in catalog.services if s.minutes == minutes]
        named = [s for s in long_enough if said & (set(_canon_tokens(s.name)) - _GENERIC)]
        choice = named or long_enough
        if len(choice) == 1:
            k = ct.token_index(m.start())
            return (CatalogMention("service", choice[0].id, k, k + 1, "length"),)
        return ()
    return ()


_CLIPPED_STEM_MIN = 3


def _town_centre_site(ct: CallerText, catalog: Catalog, names: tuple[str, ...], said: tuple[str, ...]
                      ) -> tuple[CatalogMention, ...]:
    """Asked which site, "in town", "downtown", "the CBD" (the region's `town_centre.said`): the clinic's one site
    whose name holds a word of the region's `town_centre.names`; nothing where two sites have one."""
    sites = {loc.id for loc in catalog.locations
             if any(set(names) & set(_canon_tokens(text)) for text in (loc.name, *loc.aliases))}
    if len(sites) != 1:
        return ()
    padded = f" {ct.text} "
    for phrase in said:
        at = padded.find(f" {phrase} ")
        if at >= 0:
            k = ct.token_index(at)
            return (CatalogMention("location", sites.pop(), k, k + len(phrase.split()), "town_centre",
                                   _negated(ct, k)),)
    return ()


def _clipped_site(ct: CallerText, catalog: Catalog, question: Question, endings: tuple[str, ...]
                  ) -> tuple[CatalogMention, ...]:
    """A site named by its name clipped the region's way (its first letters and an ending: "-o", "-ie"), where a
    site is asked for or cued ("at", "the ... one"); only where the clipped word begins one site's name and no
    other's."""
    for k, tok in enumerate(ct.tokens):
        if not (question.wants("location") or (k > 0 and ct.tokens[k - 1] in ("at", "in"))
                or ct.tokens[k + 1:k + 2] and ct.tokens[k + 1] in _LOCATION_CUES_AFTER):
            continue
        for ending in endings:
            stem = tok[:-len(ending)] if tok.endswith(ending) else ""
            if len(stem) < _CLIPPED_STEM_MIN or not stem.isalpha():
                continue
            sites = {loc.id for loc in catalog.locations for text in (loc.name, *loc.aliases)
                     for word in normalise(text).tokens[:1] if word.startswith(stem) and len(word) > len(tok)}
            if len(sites) == 1:
                return (CatalogMention("location", sites.pop(), k, k + 1, "clipped", _negated(ct, k)),)
    return ()


def _first_of_a_service(ct: CallerText, catalog: Catalog, mentions: tuple[CatalogMention, ...]
                        ) -> tuple[CatalogMention, ...]:
    """A service said as the caller's first of it ("a first check-up", "my first consultation"): the clinic's one
    first-visit service, where it has one."""
    out = []
    for m in mentions:
        # (not "the first check-up slot you have", the earliest)
        if m.kind == "service" and not m.negated and m.start > 1 and ct.tokens[m.start - 1] == "first" \
                and ct.tokens[m.start - 2] in ("a", "my", "our", "his", "her", "their"):
            first = _first_visit_service(catalog)
            if first and first != m.id:
                m = replace(m, id=first, how="first_visit")
        out.append(m)
    return tuple(out)


def _mentions(ct: CallerText, index: CatalogIndex, question: Question) -> tuple[CatalogMention, ...]:
    # canonical tokens, each remembering the caller token it came from; and
    # where a phrase could start (exactly, as the start of a catalog word, or
    # approximately)
    canon: list[str] = []
    origin: list[int] = []
    firsts: list[int] = []
    prefixes: list[tuple[int, tuple[str, str]]] = []
    heads: list[int] = []
    known = index.word_memo.get
    for i, tok in enumerate(ct.tokens):
        roles = known(tok)
        if roles is None:
            roles = _roles(index, tok)
        for word, role, owner in roles:
            if role:
                k = len(canon)
                if role & _EXACT:
                    firsts.append(k)
                if role & _PREFIX:
                    prefixes.append((k, owner))
                if role & _FUZZY:
                    heads.append(k)
            canon.append(word)
            origin.append(i)
    n = len(canon)
    mentions: list[CatalogMention] = []
    taken = [False] * n
    practitioner_asked = question.names_practitioners
    own_name = question.name_part is not None   # a caller giving their own name may share it with a practitioner

    def cued(kind: str, i: int, j: int) -> bool:
        if kind == "practitioner":
            if own_name:
                return False
            if practitioner_asked:
                return True
            prev = canon[i - 1] if i > 0 else ""
            nxt = ct.tokens[origin[j - 1] + 1] if origin[j - 1] + 1 < len(ct.tokens) else ""
            # ... or a name told of, then asked for by "her" or "him" ("my flatmate says <name> is amazing ... could
            # I get a massage with her?")
            return prev in _PRACTITIONER_CUES or nxt == "'s" \
                or _REFERRED_BACK.search(" ".join(ct.tokens[origin[j - 1] + 1:])) is not None
        # partial location name: "the second street one", "second street"
        prev = canon[i - 1] if i > 0 else ""
        nxt = canon[j] if j < n else ""
        return question.wants("location") or nxt in _LOCATION_CUES_AFTER or prev in ("the", "at")

    # left to right, a matched phrase's words not looked at again
    by_first = index.by_first
    after = 0
    for i in firsts:
        if i < after:
            continue
        for ph in by_first[canon[i]]:
            j = i + len(ph.tokens)
            if ph.kind == "practitioner" and own_name:
                continue
            if tuple(canon[i:j]) == ph.tokens and (not ph.needs_cue or cued(ph.kind, i, j)):
                mentions.append(_mention(ct, origin, ph.kind, ph.id, i, j, "part" if ph.part else "exact"))
                for k in range(i, j):
                    taken[k] = True
                after = j
                break

    if not question.personal:   # an answer about the person matches the catalogue only exactly
        _abbreviated_matches(ct, canon, origin, taken, index, mentions)
        _prefix_matches(ct, origin, taken, prefixes, mentions)
        _fuzzy_matches(ct, canon, origin, taken, index, mentions, cued, heads)
        for kind in ("service", "location"):
            if question.wants(kind) and not any(m.kind == kind for m in mentions):
                _run_together_matches(ct, canon, origin, taken, index, mentions, kind)
        if question.wants("location") and not any(m.kind == "location" for m in mentions):
            _split_word_matches(ct, canon, origin, taken, index, mentions)
    if not question.wants("service"):
        # "I'll follow up", "can you review it": the service's name used as a verb; a name of three words or
        # more is a noun phrase even there ("I need to <three-word service>": a reduced "a" written "to")
        mentions = [m for m in mentions
                    if not (m.kind == "service" and m.start > 0 and ct.tokens[m.start - 1] in _VERB_BEFORE
                            and m.end - m.start <= 2 and _may_be_a_verb(ct.tokens[m.start:m.end]))]

    mentions.sort(key=lambda m: m.start)
    return _taken_back(ct, mentions)


def _may_be_a_verb(words: tuple[str, ...]) -> bool:
    """Whether words said after "to", "I", "they" ... may be a verb: not a code with a digit ("one of they D4
    medicals", Scots "they" for "those"), nor a plural after a plural person ("they medicals")."""
    return not any(ch.isdigit() for ch in words[0]) and not words[-1].endswith("s")


# between two sites (or practitioners) said, the words that turn from the first to the one wanted: "I saw Doe at
# <site> but can I do it at <other site>?", "<site>, or actually <other site>", "<site>... rather <other site>"
_TURNS_TO = frozenset({"but", "instead", "rather", "actually", "prefer", "preferably"})
_WHERE_BEFORE = frozenset({"was", "were", "saw", "went", "had", "last", "usually", "normally", "used"})


def _taken_back(ct: CallerText, mentions: list[CatalogMention]) -> tuple[CatalogMention, ...]:
    """The mentions, with a service taken back for another, and a site or practitioner said before the caller
    turned to another of the same kind
    (`_TURNS_TO` between them, or "instead" after the later one) marked as not wanted. Not where the words after
    the turn say where the caller was before ("I'd like <site> but I was at <other site> last time"), nor
    "<one> instead of <other>" (the other is the one not wanted, and is read so where it is said at all)."""
    out = list(mentions)
    for later_at, later in enumerate(mentions):
        if later.kind == "service" and not later.negated:
            # a service said, then taken back for another: "a check-up, actually no, sorry, a cleaning"
            for k, earlier in enumerate(mentions[:later_at]):
                if earlier.kind == "service" and earlier.id != later.id and not earlier.negated:
                    between = ct.tokens[earlier.end:later.start]
                    marks = [at for at, word in enumerate(between) if word in TAKE_BACK_WORDS]
                    if marks and takes_back(between[marks[0]:]):
                        out[k] = replace(out[k], negated=True)
            continue
        if later.kind not in ("location", "practitioner") or later.negated:
            continue
        for k, earlier in enumerate(mentions[:later_at]):
            if earlier.kind != later.kind or earlier.id == later.id or earlier.negated:
                continue
            between = ct.tokens[earlier.end:later.start]
            turns = [at for at, word in enumerate(between, earlier.end) if word in _TURNS_TO]
            if ct.tokens[later.end:later.end + 1] == ("instead",):
                turns.append(later.start)
            if not turns or between[-2:] == ("instead", "of"):
                continue
            if _WHERE_BEFORE.isdisjoint(ct.tokens[turns[0]:ct.clause_of(later.start)[1]]):
                out[k] = replace(out[k], negated=True)
    return tuple(out)


def _mention(ct: CallerText, origin: list[int], kind: str, id_: str, i: int, j: int, how: str) -> CatalogMention:
    start, end = origin[i], origin[j - 1] + 1
    return CatalogMention(kind, id_, start, end, how, _negated(ct, start))


def _negated(ct: CallerText, start: int) -> bool:
    """"not Dr Roe", "not with Dr Roe", "anyone but Jane", "rather than the second street one"."""
    clause_start = ct.clause_of(start)[0]
    before = ct.tokens[max(clause_start, start - 2):start]
    if "not" in before or "except" in before or "than" in before or (before and before[-1] == "no"):
        return True
    return len(before) == 2 and before[0] in ("anyone", "anybody", "anything", "anywhere") and before[1] == "but"



# What a caller's word can be to a catalog, worked out once per word and
# index (callers repeat their words): each of its canonical words, with
# whether a phrase starts with it, whether it is the start of a longer catalog
# word (and whose), and whether a near-miss phrase could start with it.
_EXACT, _PREFIX, _FUZZY = 1, 2, 4


def _roles(index: CatalogIndex, tok: str) -> tuple[tuple[str, int, tuple[str, str] | None], ...]:
    found = []
    for word in () if tok == "'s" else canonical(tok):
        role = _EXACT if word in index.by_first else 0
        owner = None
        if len(word) >= _PREFIX_MIN and word not in FUNCTION_WORDS:
            owner = next(((kind, id_) for whole, (kind, id_) in index.prefix_words.items()
                          if whole.startswith(word) and whole != word), None)
            role |= _PREFIX if owner is not None else 0
        if index.fuzzy_choices and word[:2] in index.fuzzy_heads and word not in FUNCTION_WORDS:
            role |= _FUZZY
        found.append((word, role, owner))
    memo = index.word_memo
    if len(memo) >= 20000:
        memo.clear()
        index.plain_words.clear()
    roles = memo[tok] = tuple(found)
    if not any(role for _word, role, _owner in roles):
        index.plain_words.add(tok)
    return roles


_ABBREVIATED_MIN = 3   # letters a shortened word keeps ("Vic" for Victoria, "Mt" is the region's own word)


def _abbreviated_matches(ct, canon, origin, taken, index: CatalogIndex, mentions) -> None:
    """A site's name of several words said with one word shortened and another whole ("Vic" for Victoria, then
    the rest of the name as it is): every word said is the name's word or the start of it."""
    n = len(canon)
    for phrases in index.by_first.values():
        for ph in phrases:
            size = len(ph.tokens)
            if ph.kind != "location" or size < 2:
                continue
            for i in range(n - size + 1):
                said = canon[i:i + size]
                if any(taken[i:i + size]) or said == list(ph.tokens):
                    continue
                whole = sum(a == b for a, b in zip(said, ph.tokens))
                short = all(a == b or (len(a) >= _ABBREVIATED_MIN and b.startswith(a) and a not in FUNCTION_WORDS)
                            for a, b in zip(said, ph.tokens))
                if short and whole >= 1:
                    mentions.append(_mention(ct, origin, ph.kind, ph.id, i, i + size, "abbreviated"))
                    for k in range(i, i + size):
                        taken[k] = True


def _prefix_matches(ct, origin, taken, prefixes, mentions) -> None:
    """`prefixes`: (position, owner) of each word that starts a catalog word."""
    for i, (kind, id_) in prefixes:
        if not taken[i]:
            mentions.append(_mention(ct, origin, kind, id_, i, i + 1, "prefix"))
            taken[i] = True


def _fuzzy_matches(ct, canon, origin, taken, index: CatalogIndex, mentions, cued, heads) -> None:
    """`heads`: positions a near-miss phrase could start at, in order."""
    if not heads:
        return
    n = len(canon)
    for size in (3, 2, 1):
        for i in heads:
            if i > n - size:
                break
            window = canon[i:i + size]
            if any(taken[i:i + size]):
                continue
            if window[-1] in FUNCTION_WORDS or all(w in STOP_WORDS for w in window):
                continue
            text = " ".join(window)
            if len(text) < 6:
                continue
            cutoff = 85 if len(text) >= 8 else 90
            best = process.extractOne(text, index.fuzzy_choices, scorer=fuzz.ratio, score_cutoff=cutoff)
            if best is None:
                continue
            ph = index.fuzzy_phrases[best[2]]
            if abs(len(ph.tokens) - size) > 1:
                continue
            if ph.needs_cue and not cued(ph.kind, i, i + size):
                continue
            mentions.append(_mention(ct, origin, ph.kind, ph.id, i, i + size, "fuzzy"))
            for k in range(i, i + size):
                taken[k] = True


# A site's one long name heard as several words: its first part still starts the name ("Kensing Tun" for a
# site named as one word); the name and the part must be long enough to say which site
_SPLIT_NAME_MIN = 8
_SPLIT_PART_MIN = 6


def _split_word_matches(ct, canon, origin, taken, index: CatalogIndex, mentions) -> None:
    """Where a site is asked for and none was named: a word that starts exactly one site's long one-word name,
    the rest of it heard as a word that is no ordinary word. Speech-to-text splits a place name it does not
    know into words it does ("Kensing Tun"), and neither the exact nor the near-miss match starts from its
    first part alone."""
    owners: dict[str, set[str]] = {}
    for ph in index.fuzzy_phrases:
        if ph.kind == "location":
            for word in ph.tokens:
                if len(word) >= _SPLIT_NAME_MIN:
                    owners.setdefault(word, set()).add(ph.id)
    for i, word in enumerate(canon):
        if taken[i] or len(word) < _SPLIT_PART_MIN or word in STOP_WORDS or i + 1 >= len(canon) \
                or canon[i + 1] in STOP_WORDS:   # "I'm heading home": a word, then more words
            continue
        ids = {id_ for whole, found in owners.items() if whole.startswith(word) and whole != word for id_ in found}
        if len(ids) == 1:
            mentions.append(_mention(ct, origin, "location", ids.pop(), i, i + 2, "fuzzy"))
            taken[i] = taken[i + 1] = True
            return


# A catalogue phrase of several words heard as one word, maybe a letter or so off ("flushot" for "flu shot",
# "blushot" with its first letter misheard): long enough that an ordinary word cannot pass for one
_RUN_TOGETHER_MIN = 7
_RUN_TOGETHER_CUTOFF = 85


def _run_together_matches(ct, canon, origin, taken, index: CatalogIndex, mentions, kind: str) -> None:
    """Where the question asks for a `kind` the answer did not name: a word that is one of its phrases of
    several words said as one word, with a letter or so misheard. Speech-to-text joins the words of a name
    it does not know, and then the near-miss match above, which starts from the first letters of each
    word, has nothing to start from. Only where the question asks for that kind: elsewhere a long word
    is far more often just a word."""
    joined = {"".join(ph.tokens): ph for ph in index.fuzzy_phrases if ph.kind == kind and len(ph.tokens) >= 2}
    if not joined:
        return
    for i, word in enumerate(canon):
        if taken[i] or len(word) < _RUN_TOGETHER_MIN or word in STOP_WORDS:
            continue
        best = process.extractOne(word, tuple(joined), scorer=fuzz.ratio, score_cutoff=_RUN_TOGETHER_CUTOFF)
        if best is None:
            continue
        mentions.append(_mention(ct, origin, kind, joined[best[0]].id, i, i + 1, "fuzzy"))
        taken[i] = True


__all__ = ["CatalogFindings", "CatalogMention", "catalog_index", "find_catalog", "canonical"]

"""Taking what the caller said into the call context.

Everything the caller gave is taken at once (a caller who answers more than was
asked keeps it all), and a correction simply overwrites the earlier value.
`ctx.given` records what this turn filled, so the rules can tell an answer
from a repeat; the question just asked (its `answered_by`) says which of those
answer it.
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import Callable

from rapidfuzz import fuzz

from ..domain import ANYONE, TimeWindow, fold_name
from ..understanding import Question, Utterance
from ..understanding.name_corrections import apply_letter_edit, letter_edit_done
from ..understanding.catalog_match import catalog_index
from ..understanding.common_words import NAME_PARTICLES, NAME_WORDS, STOP_WORDS
from ..understanding.name_list import is_listed_name
from ..understanding.names import title_case
from .tools.name_matching import sounds_like
from .context import CallContext
from .rule_env import RuleEnv, possible_locations

# most specific first: "cancel all" beats "cancel", "move" beats "cancel"
TASK_PRIORITY = ("cancel_all", "reschedule", "cancel", "query", "book")
EXISTING_BOOKING_TASKS = frozenset({"reschedule", "cancel", "cancel_all", "query"})
# questions about the clinic: a service, site, person, day or time said in one ("are you open on Friday?",
# "where is the Second Street clinic?") is what the question is about, not a choice for the booking
CLINIC_QUESTIONS = ("price", "service_info", "hours", "address", "offer_check")


def task_in(utt: Utterance) -> str | None:
    for task in TASK_PRIORITY:
        if utt.has(task):
            return task
    return None


def absorb(ctx: CallContext, utt: Utterance, question: Question) -> None:
    given = ctx.given
    _absorb_task(ctx, utt, question)
    _absorb_identity(ctx, utt, question)
    _absorb_booking_details(ctx, utt, question)
    if ctx.bookings and utt.booking_picks and not question.wants("slot"):
        picked = tuple(ctx.bookings[i].id for i in utt.booking_picks if 0 <= i < len(ctx.bookings))
        if picked:
            ctx.target_ids = picked
            given.add("booking")
    if question.wants("message") and utt.text.strip():
        ctx.callback_message = utt.text.strip()
        given.add("message")
    for kind, value in utt.answers.items():
        ctx.answers[kind] = value
        given.add(kind)
    if _answered(ctx, utt, question):
        given.add("answered")


def _absorb_task(ctx: CallContext, utt: Utterance, question: Question) -> None:
    task = task_in(utt)
    if task is None:
        return
    open_question = question.open or ctx.task is None
    if not (open_question or utt.has("correction")):
        return
    discussed = ctx.question_service_ids
    if question.closing or (ctx.task is not None and task != ctx.task):
        ctx.reset_task_details()
    ctx.task = task
    ctx.given.add("task")
    ctx.patient_relation = utt.patient_relation
    if task == "book" and _refers_back(utt) and len(discussed) == 1 and not utt.service_ids:
        # "how much is a massage?" ... "I'd like to book one": the one just talked about
        ctx.service_id = discussed[0]
        ctx.given.add("service")
    if task in EXISTING_BOOKING_TASKS and ctx.bookings is None:
        ctx.booking_hint_texts.append(utt.text)


def _whole_name_spelled(ctx: CallContext, letters: str | None) -> str | None:
    """The surname's letters, where runs of letters spell the given name held and then more; else None."""
    if not letters or not ctx.first_name:
        return None
    runs = letters.split()
    held = fold_name(ctx.first_name).replace("-", " ").split()
    if len(runs) > len(held) and [fold_name(r) for r in runs[:len(held)]] == held:
        return " ".join(runs[len(held):])
    return None


def _refers_back(utt: Utterance) -> bool:
    return any(s.name == "book" and "booking_back_reference" in s.evidence for s in utt.intents)


def _absorb_identity(ctx: CallContext, utt: Utterance, question: Question) -> None:
    if ctx.patient_created:
        return  # the record exists; a late correction goes to the front desk, not a second record
    if question.name_part is not None and utt.text.strip():
        ctx.name_words.append(utt.text)
    first = utt.name.first if utt.name else None
    last = utt.name.last if utt.name else None
    if utt.patient_relation and question.name_part is None:
        # "it's Jane Doe here, I'm booking my son in": a name said with whom the call is for may be the caller's
        # own; the patient's is asked for
        first = last = None
    if question.name_part == "first" and first and last and _given_names_only(ctx, utt, first, last):
        first, last = f"{first} {last}", None
    if (first and not last and question.name_part is None and utt.has("correction") and ctx.first_name
            and ctx.last_name and _closer_to(first, ctx.last_name, ctx.first_name)):
        # "sorry, I meant <name>" after a full name: a lone name that corrects a full name is the part it is
        # closer to in letters, and the surname when it is like neither (the first name was said back to the
        # caller, "Thanks, <first name>", and they let it stand)
        first, last = None, first
    letters = utt.spelled
    whole = _whole_name_spelled(ctx, letters) if question.name_part == "last" else None
    if whole is not None:
        # the given name spelled too where the surname was asked for ("B R O N W Y N, and V A N, D E R, M E R W E"):
        # the given name stays as held, the rest is the surname
        first, last, letters = None, None, whole
    if first and last and letters and not _two_parts(utt) \
            and fold_name(first + last) == fold_name(letters).replace(" ", ""):
        # "Van Doe, V A N space D O E": the words said are the one name spelled, whose letters had "space" in them
        first, last = None, f"{first} {last}"
    if letters and not (first and last):
        marked = [w for w in re.findall(r"[^\W\d_]+", utt.text) if not w.isascii()]   # said with marks letters lack
        spelled = _as_held(letters.title(), ctx, said=(first, last, *marked))
        if (spelled.count(" ") == 1 and len(letters.split()) == 2
                and (not (first or last) or question.name_part in ("first", "last")) and _two_parts(utt)
                and whole is None):
            # two runs of letters are the first name and the surname, even when one part was asked for
            first, last = spelled.split(" ", 1)
            ctx.spelled.update(("first_name", "last_name"))
        elif _spells(spelled, first) and not _spells(spelled, last):
            first = spelled
            ctx.spelled.add("first_name")
        elif _spells(spelled, last):
            last = spelled
            ctx.spelled.add("last_name")
        elif question.name_part == "first" or "first name" in utt.text.lower():
            first = spelled
            ctx.spelled.add("first_name")
        else:
            last = spelled
            ctx.spelled.add("last_name")
        if last == spelled and first is None and ctx.first_name:
            first = _without_surname_words(ctx.first_name, spelled)
        ctx.spelling_needed = False
    elif utt.spelled and question.name_part in ("first", "last"):
        ctx.spelled.add(f"{question.name_part}_name")   # spelled along with the name itself
        ctx.spelling_needed = False
    correcting = utt.has("correction") or utt.has("no") or bool(utt.name_replacements or utt.letter_edits)
    first, last = _corrected_parts(ctx, utt, question, first, last)
    for run in (utt.spelled or "").split():   # a part the caller spelled, whatever else they said with it
        for part, value in (("first_name", first), ("last_name", last)):
            if value and fold_name(run) == fold_name(value).replace(" ", "").replace("-", "").replace("'", ""):
                ctx.spelled.add(part)
                ctx.spelling_needed = False
    changed = False
    for part, value in (("first_name", first), ("last_name", last)):
        if not value:
            continue
        now = getattr(ctx, part)
        if now and value != now and not correcting and fold_name(value) == ctx.corrected.get(part):
            # an older form of a name the caller corrected ("Smith" again, after "Smyth, not Smith")
            ctx.given.add(part)
            continue
        if (now and value != now and not (utt.spelled or utt.letter_edits or utt.name_replacements)
                and sounds_like(value, now)
                and all(is_listed_name(w) for w in now.split()) and not all(is_listed_name(w) for w in value.split())):
            # the part said again sounds as held, but as now heard is no name people have, where the held one is:
            # the held one was heard better ("Doe" said again, written "Doh"); a spelling or a letter named
            # ("with an E on the end") says how it is written, and is kept
            ctx.given.add(part)
            continue
        if now and value != now and (correcting or part in ctx.corrected):
            ctx.corrected[part] = fold_name(now)
        if value != now:
            setattr(ctx, part, value)
            changed = True
            if _doubted(value, ctx.doubtful_words):
                ctx.doubted.add(part)
            else:
                ctx.doubted.discard(part)
        ctx.given.add(part)
    if utt.dob is not None:
        if ctx.dob is not None and utt.dob != ctx.dob and correcting:
            ctx.corrected["dob"] = ctx.dob.isoformat()
        changed = changed or utt.dob != ctx.dob
        ctx.dob = utt.dob
        ctx.given.add("dob")
    if utt.phone:
        ctx.phone = utt.phone
        ctx.given.add("phone")
    if utt.patient_status:
        ctx.patient_status = utt.patient_status
    else:
        said = {status for answer, status in question.status_by_answer if utt.has(answer)}
        if len(said) == 1:
            ctx.patient_status = said.pop()
    if changed and ctx.patient is not None:
        # the caller corrected who they are: prove it again before anything else
        ctx.patient = None
        ctx.identity_result = None


def _corrected_parts(ctx: CallContext, utt: Utterance, question: Question, first: str | None,
                     last: str | None) -> tuple[str | None, str | None]:
    """The name parts after the caller's corrections that name the old part or its letters: "it's Doe, not
    Roe", "Smith with a Y", "two Ls", or that say a part again the way it should be ("no, Katherine with a
    K" when "Catherine" was read back). A letter change that fits neither part asks for a spelling."""
    if question.read_back and not (first or last):
        first, last = _said_again(ctx, utt)
    for old, new in utt.name_replacements:
        # the old name is itself heard, and speech to text may write it other than the name held ("Rowe" for
        # "Roe"): the caller still means that name, so it is matched by sound when not by its letters
        replaced = _replaced_part(ctx, old, new, _same_letters) or _replaced_part(ctx, old, new, sounds_like)
        if replaced is None:
            continue
        part, value = replaced
        if part == "last_name" and not last:
            last = value
        elif part == "first_name" and not first:
            first = value
    said = {"first_name": first, "last_name": last}   # parts said in full this turn
    for edit in utt.letter_edits:
        if any(value and letter_edit_done(value, edit) for value in said.values()):
            continue   # "Katherine, with a K": the name said is already the corrected one
        parts = ("first_name", "last_name") if "first name" in utt.text.lower() else ("last_name", "first_name")
        for part in parts:
            now = (first if part == "first_name" else last) or getattr(ctx, part)
            edited = apply_letter_edit(now, edit) if now else None
            if edited is not None:
                if part == "first_name":
                    first = edited
                else:
                    last = edited
                break
        else:
            ctx.spelling_needed = True
    return first, last


def _same_letters(a: str, b: str) -> bool:
    return fold_name(a) == fold_name(b)


def _replaced_part(ctx: CallContext, old: str, new: str, same: Callable[[str, str], bool]) -> tuple[str, str] | None:
    """(part, new value) for the name part the caller named as the old name, compared by `same`; the surname
    is tried first, as the part callers correct most."""
    for part in ("last_name", "first_name"):
        now = getattr(ctx, part)
        if not now:
            continue
        words = now.split()
        at = next((k for k, word in enumerate(words) if same(word, old)), None)
        if same(now, old):
            return part, title_case(new)
        if at is not None:   # one word of the part: "Jane Ann Roe" -> "Jane Ann Doe"
            return part, " ".join(words[:at] + [title_case(new)] + words[at + 1:])
    return None


def _said_again(ctx: CallContext, utt: Utterance) -> tuple[str | None, str | None]:
    """A word said at a read-back that sounds like a name part read back but is not it: that part, as said.
    A plain yes says nothing again (a two-note "mm-hmm" is no short first name said again)."""
    found: dict[str, str] = {}
    if utt.has("yes") and not (utt.has("no") or utt.has("correction")):
        return None, None
    for word in re.findall(r"[^\W\d_](?:[^\W\d_]|')+", utt.text):
        if word.lower() in STOP_WORDS and word.lower() not in NAME_WORDS:
            continue
        for part in ("first_name", "last_name"):
            held = getattr(ctx, part)
            if held and " " not in held and part not in found and sounds_like(word, held) \
                    and fold_name(word) != fold_name(held):
                found[part] = title_case(word.lower())
    return found.get("first_name"), found.get("last_name")


def _doubted(name: str, doubtful: tuple[str, ...]) -> bool:
    """Whether a word of `name` is one the ears were unsure they heard right."""
    unsure = {fold_name(word).strip(".,!?") for word in doubtful}
    return any(fold_name(word) in unsure for word in name.replace("-", " ").split())


def _given_names_only(ctx: CallContext, utt: Utterance, first: str, last: str) -> bool:
    """Two words said when only the first name was asked for, with the surname already held and the second word
    nothing like it, are a given name of two words ("Mary Jane", a two-word given name), not a new surname: a caller who
    changes their surname says so ("it's Doe, not Roe") or says one that sounds like the one read back."""
    held = ctx.last_name
    if not held or utt.spelled or utt.has("correction") or utt.has("no") or utt.name_replacements:
        return False
    if ctx.first_name and fold_name(f"{first} {last}") == fold_name(ctx.first_name):
        return True   # the given names held, said again word for word, however short the second word's sound
    return fold_name(last) != fold_name(held) and not sounds_like(last, held)


def _two_parts(utt: Utterance) -> bool:
    """Whether two runs of letters are a first name and a surname rather than one name of two words: not when
    the caller said "space" between them ("T E space H U I A", "N I space B H R I A I N")."""
    return "space" not in utt.text.lower().replace(",", " ").split()


def _without_surname_words(first: str, surname: str) -> str:
    """The first name held, less the words a surname of several words now spelled begins with (the name was
    heard with the surname's first word taken into the first name)."""
    held, words = first.split(), surname.split()
    for n in range(min(len(held) - 1, len(words) - 1), 0, -1):
        if [w.lower() for w in held[-n:]] == [w.lower() for w in words[:n]]:
            return " ".join(held[:-n])
    return first


def _as_held(spelled: str, ctx: CallContext, said: tuple[str | None, ...] = ()) -> str:
    """A spelling of a name said with it or already held, in the form said or held ("D O" for "Đỗ"
    keeps its marks: a caller spells in the letters a phone keypad has). A surname held with a particle before
    it is kept whole where only the word after the particle is spelled ("D O E" for "van der Doe")."""
    def letters(form: str) -> str:
        return fold_name(form).replace(" ", "")

    def past_particles(form: str) -> str:
        words = form.split()
        while len(words) > 1 and fold_name(words[0]) in NAME_PARTICLES:
            words = words[1:]
        return " ".join(words)

    if ctx.last_name and past_particles(ctx.last_name) != ctx.last_name \
            and letters(past_particles(ctx.last_name)) == letters(spelled):
        return ctx.last_name
    forms = [form for form in (*said, ctx.last_name, ctx.first_name) if form and letters(form) == letters(spelled)]
    return next((form for form in forms if not form.isascii()), forms[0] if forms else spelled)


def _closer_to(word: str, one: str, other: str) -> bool:
    """Whether `word` is at least as like `one` as `other` in letters, folded, or like neither (under
    NAME_ALIKE)."""
    word = fold_name(word)
    like_one, like_other = fuzz.ratio(word, fold_name(one)), fuzz.ratio(word, fold_name(other))
    return like_one >= like_other or like_other < NAME_ALIKE


NAME_ALIKE = 60   # letters in common (rapidfuzz ratio) of a name and a mis-said or misheard form of it


def _spells(spelled: str, word: str | None) -> bool:
    """Is the spelling plainly of this spoken word ("Kris" spelled for "Chris")?"""
    if not word:
        return False
    return fuzz.ratio(spelled.lower(), word.lower()) >= 70


def _absorb_booking_details(ctx: CallContext, utt: Utterance, question: Question) -> None:
    given = ctx.given
    if utt.slot_pick is not None and ctx.offered and (question.wants("slot") or question.read_back):
        if 0 <= utt.slot_pick < len(ctx.offered):
            slot = ctx.offered[utt.slot_pick]
            # at a read-back only another slot is news; asked to pick, the slot a "no" turned down counts again
            # (the caller meant it after all, or the "no" was misheard)
            if slot != ctx.picked or question.wants("slot"):
                ctx.picked = slot
                given.add("slot")
            return  # "the second one, on Friday": the day describes the pick, it is not a new search
    about_the_clinic = any(utt.has(i) for i in CLINIC_QUESTIONS) and task_in(utt) is None
    asking_question = about_the_clinic and not question.wants("service")
    if utt.service_ids:
        if asking_question:
            ctx.question_service_ids = tuple(utt.service_ids)
        elif utt.service_ids[0] != ctx.service_id:
            ctx.service_id = utt.service_ids[0]
            given.add("service")
        elif question.wants("service"):
            given.add("service")
    elif asking_question:
        ctx.question_service_ids = (ctx.service_id,) if ctx.service_id else ()
    if utt.location_id is not None and not asking_question:
        if utt.location_id != ctx.location_id or question.wants("location"):
            given.add("location")
        ctx.location_id = utt.location_id
    if utt.practitioner_id is not None and not asking_question:
        if utt.practitioner_id != ctx.practitioner_id or question.wants("practitioner"):
            given.add("practitioner")
        ctx.practitioner_id = utt.practitioner_id
    # asked when they would like to come, a day said with a question about it is still the answer ("Saturday
    # morning, do you do Saturdays?"): the question is answered and the day searched
    about_the_day_asked = about_the_clinic and question.wants("window")
    if utt.refused_days and (not about_the_clinic or about_the_day_asked):
        new = set(utt.refused_days) - ctx.refused_days
        ctx.refused_days |= new
        if new and utt.window is None and ctx.window is not None and _within(ctx.window, new):
            # "I can't do Thursday" when Thursday was all they asked for: the soonest other day
            ctx.window = TimeWindow("soonest")
        if new:
            given.add("window")
    if utt.window is not None and not question.wants("booking") and (not about_the_clinic or about_the_day_asked):
        about_existing = ctx.task in ("reschedule", "cancel", "cancel_all", "query") and not ctx.target_ids
        if about_existing:
            ctx.booking_hint = utt.window
        elif utt.window != ctx.window or question.wants("window"):
            ctx.window = utt.window
            given.add("window")
    if given & {"service", "location", "practitioner", "window"}:
        ctx.offered = ()
        ctx.picked = None


def _a_child(dob: date | None, today: date, under: int) -> bool:
    if dob is None:
        return False
    age = today.year - dob.year - ((today.month, today.day) < (dob.month, dob.day))
    return 0 <= age < under


def _within(window: TimeWindow, days: set) -> bool:
    """Whether the window covers only days in `days` (it has a start and an end, all of them refused)."""
    if window.start is None or window.end is None:
        return False
    span = (window.end.date() - window.start.date()).days
    return span <= 7 and all((window.start.date() + timedelta(days=k)) in days for k in range(span))


# what a turn filled (ctx.given) or said, for each fact a question may be `answered_by`
_FILLED = {
    "task": lambda ctx, utt: "task" in ctx.given,
    "yes": lambda ctx, utt: utt.has("yes"),
    "no": lambda ctx, utt: utt.has("no"),
    "full_name": lambda ctx, utt: bool(ctx.given & {"first_name", "last_name"}) and bool(ctx.first_name and ctx.last_name),
    "a_name": lambda ctx, utt: bool(ctx.given & {"first_name", "last_name"}),
    "slot": lambda ctx, utt: "slot" in ctx.given,
    "status": lambda ctx, utt: utt.patient_status is not None,
}


def _answered(ctx: CallContext, utt: Utterance, question: Question) -> bool:
    """Whether this turn answered the question just asked (any one of its `answered_by` facts)."""
    return any(_FILLED[fact](ctx, utt) if fact in _FILLED else fact in ctx.given for fact in question.answered_by)


def derive(ctx: CallContext, env: RuleEnv, today: date | None = None) -> None:
    """Fill what follows from the clinic's data without asking the caller."""
    catalog = env.catalog
    if ctx.task == "book" and ctx.service_id is None and len(catalog.services) == 1:
        ctx.service_id = catalog.services[0].id
    if ctx.task == "book" and ctx.service_id is not None and not ctx.offered and today is not None \
            and _a_child(ctx.dob, today, int(env.options.get("children_under", 16))):
        # a child booked into a service the clinic has a children's version of ("his check-up"): that one
        ctx.service_id = catalog_index(catalog).for_children.get(ctx.service_id, ctx.service_id)
    if ctx.task == "reschedule" and len(ctx.targets) == 1:
        target = ctx.targets[0]
        if ctx.service_id is None:
            ctx.service_id = target.service_id
        if ctx.location_id is None:
            ctx.location_id = target.location_id
        if ctx.practitioner_id is None:
            ctx.practitioner_id = target.practitioner_id
    if ctx.service_id is not None:
        options = possible_locations(ctx, catalog)
        if ctx.location_id is not None and ctx.location_id not in options:
            # nobody suitable works there: ask, offering only the sites that do
            if ctx.practitioner_id in (None, ANYONE) or len(options) == 0:
                ctx.location_id = None
        if ctx.location_id is None and len(options) == 1:
            ctx.location_id = options[0]

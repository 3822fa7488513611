"""Expected answers scored against the audio: a choice Whisper missed is recovered, a read-back's yes is never
invented, and the setting turns it off.

Real models: each answer is said by a caller voice (Piper's joe or espeak-ng) over the G.711 line and handed to
the appliance's listener as a whole segment (its Pipecat `run_stt`), after the question it answers, as a call
sets it: the declared question and the engine's expected answers for it."""

from __future__ import annotations

import asyncio
from datetime import datetime

import pytest

from appliance.engine.context import CallContext
from appliance.engine.expected_answers import expected_answers
from appliance.engine.flow import SHIPPED_FLOWS
from appliance.settings import ConfigError, settings_from_mapping
from appliance.voice.answer_scoring import (CHOICE_EVIDENCE_GAP, CHOICE_EVIDENCE_MIN, Reading, choose, expected_for,
                                           worth_scoring)

pytest.importorskip("pipecat")

RATE = 8000
ROOT = SHIPPED_FLOWS.parents[1]


# ------------------------------------------------------------------ the rule, on scores


def choice(text: str, evidence: float, option: int) -> Reading:
    """A phrase that reads `evidence` nats better over the clip than over silence."""
    return Reading(text, "choice", -5.0, 3, option=option, prior=-5.0 - evidence)


STRONG = CHOICE_EVIDENCE_MIN + 5.0


def test_a_choice_is_taken_only_when_it_clearly_beats_the_other_options():
    first = choice("the first one", STRONG, 0)
    assert choose("", None, [first, choice("the second one", STRONG - CHOICE_EVIDENCE_GAP / 2, 1)]) is None
    assert choose("", None, [first, choice("the second one", STRONG - CHOICE_EVIDENCE_GAP - 0.1, 1)]) == first


def test_another_way_of_saying_the_same_option_is_no_runner_up():
    name, alias = choice("Physiotherapy", STRONG, 0), choice("Physio", STRONG - 0.2, 0)
    assert choose("", None, [name, alias, choice("Massage", STRONG - CHOICE_EVIDENCE_GAP - 0.1, 1)]) == name
    assert choose("", None, [name, alias, choice("Massage", STRONG - CHOICE_EVIDENCE_GAP / 2, 1)]) is None


def test_a_choice_the_audio_gives_too_little_evidence_for_is_not_taken():
    """However far it beats the others: a phrase that reads about as well over silence says nothing of the clip."""
    weak = choice("Docklands", CHOICE_EVIDENCE_MIN - 0.5, 0)
    assert choose("Hang on.", -1.0, [weak, choice("the city", -10.0, 1)]) is None


def test_expected_answers_come_grouped_by_the_option_they_mean(flow, clinic):
    from appliance.clinic.regions import region_for
    from appliance.engine.rule_env import RuleEnv

    catalog = clinic.catalog()
    env = RuleEnv(catalog, clinic.profile(), {}, region_for(clinic.profile().region))
    options = expected_answers(flow.questions["service"], CallContext(call_id="test"), env)
    with_aliases = [s for s in catalog.services if s.aliases]
    assert with_aliases, "the demo clinic's services have aliases"
    for service in with_aliases:
        assert any(service.name in option and set(service.aliases) <= set(option) for option in options)
    phrases = [p.lower() for option in options for p in option]
    assert len(phrases) == len(set(phrases)), "a phrase two options share is left out"
    sites = expected_answers(flow.questions["location"], CallContext(call_id="test"), env)
    for location in catalog.locations:   # a site said with the words around it ("the Docklands one")
        assert any({location.name, f"the {location.name} one"} <= set(option) for option in sites)


def test_the_patients_on_the_callers_number_are_expected_by_name_in_either_order(flow, clinic):
    from datetime import date

    from appliance.clinic.regions import region_for
    from appliance.domain import PatientRecord
    from appliance.engine.rule_env import RuleEnv

    env = RuleEnv(clinic.catalog(), clinic.profile(), {}, region_for(clinic.profile().region))
    ctx = CallContext(call_id="test")
    ctx.phone_candidates = (PatientRecord("a", "Mei", "Chen", date(1990, 1, 2), "+100"),
                            PatientRecord("b", "Kofi", "Eze", date(1979, 3, 8), "+100"))
    options = expected_answers(flow.questions["full_name"], ctx, env)
    assert ("Mei Chen", "Chen, Mei") in options and ("Kofi Eze", "Eze, Kofi") in options   # one option each


def test_each_day_of_the_week_is_an_expected_answer_when_a_day_or_time_is_asked(flow, clinic):
    from appliance.clinic.regions import region_for
    from appliance.engine.rule_env import RuleEnv

    env = RuleEnv(clinic.catalog(), clinic.profile(), {}, region_for(clinic.profile().region))
    options = expected_answers(flow.questions["time_preference"], CallContext(call_id="test"), env)
    assert [("Monday",), ("Tuesday",), ("Wednesday",), ("Thursday",), ("Friday",), ("Saturday",),
            ("Sunday",)] == [o for o in options if len(o) == 1 and o[0].endswith("day")]


def test_the_callers_own_appointments_are_expected_by_place_time_day_and_service(flow, clinic):
    from appliance.clinic.regions import region_for
    from appliance.engine.rule_env import RuleEnv

    catalog = clinic.catalog()
    env = RuleEnv(catalog, clinic.profile(), {}, region_for(clinic.profile().region))
    ctx = CallContext(call_id="test")
    ctx.bookings = BOOKINGS
    later, earlier = expected_answers(flow.questions["booking_choice"], ctx, env)[::-1]
    assert {"the first one", "1:45 pm", "the 1:45 pm one", "Wednesday", "the Wednesday one"} <= set(earlier)
    assert {"the second one", "8:15 am", "the 8:15 am one", f"the {catalog.services[1].name}"} <= set(later)


def test_scoring_never_gives_a_yes_however_well_it_reads():
    yes, rival = Reading("correct", "yes", -0.5, 1), Reading("incorrect", "rival", -30.0, 2)
    assert choose("", None, [yes, Reading("nope", "no", -20.0, 1), rival]) is None


def test_a_no_that_reads_better_than_every_yes_is_taken():
    no = Reading("nope", "no", -1.0, 1)
    assert choose("", None, [Reading("yep", "yes", -3.0, 1), no, Reading("um", "rival", -4.0, 1)]) == no


def test_only_an_empty_or_one_word_transcript_that_settles_nothing_is_scored_at_a_read_back(flow):
    question = flow.questions["confirm"]
    expected = expected_for(question, ())
    assert worth_scoring(expected, question, "") and worth_scoring(expected, question, "Nar.")
    assert not worth_scoring(expected, question, "Yep.")            # a declared answer already
    assert not worth_scoring(expected, question, "Incorrect.")      # a rival: never second-guessed into a yes
    assert not worth_scoring(expected, question, "How much is it?")


def test_a_choice_is_scored_when_the_words_give_nothing_the_question_asks_for(flow):
    from tests.understanding.hearing import hear

    question = flow.questions["location"]
    expected = expected_for(question, (("Docklands", "the Docklands one"), ("Richmond", "the Richmond one")))

    def understand(text):
        return hear(text, "location")

    assert worth_scoring(expected, question, "I'm Ponyel Gaitsewing.", understand)   # a site heard as a name
    assert worth_scoring(expected, question, "Mumble.", understand)
    assert not worth_scoring(expected, question, "I want to cancel", understand)     # something else asked
    assert not worth_scoring(expected, question, "I'm new here", understand)
    slot = flow.questions["slot_choice"]
    slots = expected_for(slot, (("the first one",), ("the second one",)))
    assert not worth_scoring(slots, slot, "Tuesday instead", understand)             # a change of day stands


def test_the_rivals_are_the_read_back_questions_own(flow):
    for name in ("confirm", "confirm_details", "been_before"):
        question = flow.questions[name]
        assert {"incorrect", "uh", "sorry?"} <= set(question.yes_rivals)
        assert expected_for(question, ()).rivals == question.yes_rivals


def test_the_setting_is_validated():
    assert settings_from_mapping({"voice": {"stt_answer_scoring": False}}).voice.stt_answer_scoring is False
    with pytest.raises(ConfigError, match="stt_answer_scoring"):
        settings_from_mapping({"voice": {"stt_answer_scoring": "sometimes"}})


# ------------------------------------------------------------------ spoken

# the slots a pick is made among: Thursday 9:15 am, Thursday 12:15 pm, Friday 3:30 pm
OFFERED = (datetime(2027, 2, 11, 9, 15), datetime(2027, 2, 11, 12, 15), datetime(2027, 2, 12, 15, 30))
NOW = datetime(2027, 2, 8, 10, 0)
# a short pick Whisper base writes as other words in espeak-ng's voice over G.711 ("Aircon one.")
SLOT_PICK_MISSED, SLOT_PICK_MEANS = "Second one.", 1


def _booking(start: datetime, service: int):
    from appliance.clinic import load_clinic_file
    from appliance.domain import AppointmentRecord

    catalog = load_clinic_file(ROOT / "config" / "clinic.demo.yaml", today=NOW.date()).catalog()
    return AppointmentRecord(f"a{service}", "p1", catalog.services[service].id, catalog.practitioners[0].id,
                             catalog.locations[0].id, start, 30, "booked")


# the caller's own appointments, in the order read out: a Wednesday afternoon's and a Saturday morning's
BOOKINGS = (_booking(datetime(2027, 2, 10, 13, 45), 0), _booking(datetime(2027, 2, 13, 8, 15), 1))


@pytest.fixture(scope="module")
def clinic():
    from appliance.clinic import load_clinic_file

    return load_clinic_file(ROOT / "config" / "clinic.demo.yaml", today=NOW.date())


@pytest.fixture(scope="module")
def voices(runtime):
    from appliance.simulate.caller_speech import CallerVoice

    return {name: CallerVoice(runtime, RATE, voice=name, line="g711", seed=7) for name in ("piper-joe", "espeak-en-us")}


def asked(question, clinic):
    """The engine's expected answers after `question` (the slots above offered) and how an answer is understood."""
    from appliance.clinic.regions import region_for
    from appliance.domain import Slot
    from appliance.engine.rule_env import RuleEnv
    from appliance.understanding import ListenContext, understand

    catalog = clinic.catalog()
    service, practitioner, location = catalog.services[0], catalog.practitioners[0], catalog.locations[0]
    offered = tuple(Slot(start, service.id, practitioner.id, location.id, service.minutes) for start in OFFERED)
    region = region_for(clinic.profile().region)
    expected = expected_answers(question, CallContext(call_id="test", offered=offered),
                                RuleEnv(catalog, clinic.profile(), {}, region))
    context = ListenContext(question=question, now=NOW, catalog=catalog, region=region, offered_slots=offered)
    return expected, lambda text: understand(text, context)


_SAID: dict[tuple[str, str], bytes] = {}


def spoken(voice, said: str) -> bytes:
    """`said` with a moment of quiet either side, the same audio every time it is asked for in the session (a
    voice says a line again in another way)."""
    key = (voice.voice_name, said)
    if key not in _SAID:
        _SAID[key] = bytes(int(0.3 * RATE) * 2) + voice.audio(said) + bytes(int(0.3 * RATE) * 2)
    return _SAID[key]


def heard(runtime, pcm: bytes, question, expected=(), *, understand=None, scoring: bool = True,
          hotwords: str | None = None) -> str:
    """What the listener hands over for `pcm` after `question`, with the engine's `expected` answers (and the
    prompt `hotwords`, else the question's own)."""
    from appliance.voice import CallerListener

    listener = CallerListener(transcriber=runtime.transcriber, rate=RATE, vad_start_secs=0.2, vad_stop_secs=0.6,
                              answer_scoring=scoring)
    listener.question = question
    listener.turn_hotwords = hotwords if hotwords is not None else question.stt_prompt or ""
    listener.expected = tuple(expected)
    listener.understand = understand

    async def run() -> str:
        return " ".join([frame.text async for frame in listener.run_stt(pcm) if frame is not None])

    return asyncio.run(run())


@pytest.mark.parametrize("voice_name", ["piper-joe", "espeak-en-us"])
@pytest.mark.parametrize("said", ["Incorrect.", "Uh.", "Um.", "Hmm.", "Sorry?", "How much is it?", "Not correct."])
def test_a_spoken_non_answer_at_a_read_back_is_never_made_a_yes(runtime, flow, clinic, voices, voice_name, said):
    question = flow.questions["confirm"]
    expected, meaning = asked(question, clinic)
    pcm = spoken(voices[voice_name], said)
    text = heard(runtime, pcm, question, expected, understand=meaning)
    if meaning(text).has("yes"):   # then Whisper wrote a yes itself: scoring made nothing of it
        assert text == heard(runtime, pcm, question, scoring=False), f"{said!r} became {text!r}"


def test_a_slot_pick_whisper_wrote_as_other_words_is_recovered(runtime, flow, clinic, voices):
    question = flow.questions["slot_choice"]
    expected, meaning = asked(question, clinic)
    said = SLOT_PICK_MISSED
    pcm = spoken(voices["espeak-en-us"], said)
    free = heard(runtime, pcm, question, expected, understand=meaning, scoring=False)
    assert meaning(free).slot_pick is None, f"Whisper now hears {said!r} as {free!r}: choose another example"
    text = heard(runtime, pcm, question, expected, understand=meaning)
    assert meaning(text).slot_pick == SLOT_PICK_MEANS, f"{said!r} was heard as {text!r}"


# Which takes Whisper base mishears depends on the CPU it decodes on (CTranslate2's int8 kernels round
# differently on different instruction sets): each test looks for its misheard examples among these seeds of
# Piper's voice over G.711, rather than naming the seeds one machine mishears
SEARCHED_SEEDS = range(12)


def misheard_takes(runtime, said, question, expected, meaning, missed):
    """(seed, pcm) for each take of `said` whose free transcription `missed` says understood nothing."""
    from appliance.simulate.caller_speech import CallerVoice

    quiet = bytes(int(0.3 * RATE) * 2)
    for seed in SEARCHED_SEEDS:
        pcm = quiet + CallerVoice(runtime, RATE, voice="piper-joe", line="g711", seed=seed).audio(said) + quiet
        if missed(meaning(heard(runtime, pcm, question, expected, understand=meaning, scoring=False))):
            yield seed, pcm


def test_an_appointment_picked_by_its_time_that_whisper_wrote_as_other_words_is_recovered(runtime, flow, clinic):
    """Said by Piper's voice over G.711 (on one Intel box two takes in twelve were written "0.8151" or "The right
    15-1."): a take Whisper's own words pick nothing from is picked by scoring, and never as another booking."""
    from appliance.clinic.regions import region_for
    from appliance.engine.rule_env import RuleEnv
    from appliance.understanding import ListenContext, understand

    question = flow.questions["booking_choice"]
    catalog, region = clinic.catalog(), region_for(clinic.profile().region)
    ctx = CallContext(call_id="test")
    ctx.bookings = BOOKINGS
    expected = expected_answers(question, ctx, RuleEnv(catalog, clinic.profile(), {}, region))
    context = ListenContext(question=question, now=NOW, catalog=catalog, region=region, bookings=BOOKINGS)

    def meaning(text):
        return understand(text, context)

    picks = {seed: meaning(heard(runtime, pcm, question, expected, understand=meaning)).booking_picks
             for seed, pcm in misheard_takes(runtime, "the 8:15 one", question, expected, meaning,
                                             lambda u: u.booking_picks == ())}
    if not picks:
        pytest.skip("Whisper picked the booking from every take on this machine: no misheard take to recover")
    assert all(p in ((), (1,)) for p in picks.values()), f"a misheard take picked another booking: {picks}"
    assert (1,) in picks.values(), f"no misheard take was recovered: {picks}"


@pytest.mark.parametrize(("day", "weekday"), [("Monday", 0), ("Wednesday", 2)])
def test_a_day_said_alone_that_whisper_wrote_as_other_words_is_recovered(runtime, flow, clinic, day, weekday):
    """Said by Piper's voice over G.711 (on one Intel box Whisper base wrote "Mandai." or nothing at all for some
    takes): a take whose own words name no day is heard as that day by scoring, and never as another."""
    question = flow.questions["time_preference"]
    expected, meaning = asked(question, clinic)
    days = {seed: meaning(heard(runtime, pcm, question, expected, understand=meaning)).weekdays
            for seed, pcm in misheard_takes(runtime, day, question, expected, meaning, lambda u: not u.weekdays)}
    if not days:
        pytest.skip(f"Whisper heard {day!r} in every take on this machine: no misheard take to recover")
    assert all(d in ((), (weekday,)) for d in days.values()), f"a misheard {day!r} became another day: {days}"
    assert (weekday,) in days.values(), f"no misheard take of {day!r} was recovered: {days}"


def test_with_scoring_off_whispers_own_words_are_handed_over(runtime, flow, clinic, voices):
    question = flow.questions["slot_choice"]
    expected, meaning = asked(question, clinic)
    pcm = spoken(voices["espeak-en-us"], SLOT_PICK_MISSED)
    assert meaning(heard(runtime, pcm, question, expected, understand=meaning, scoring=False)).slot_pick is None


# two sites, one of them a place name Whisper base may not know
SITES = """
name: Two Sites Physiotherapy
timezone: Europe/London
phone: '+441134960000'
emergency_number: '999'
hours: {mon: ['08:00-17:00']}
locations:
- {id: north, name: Headingley, address: '41 Otley Road, Leeds', aliases: [Otley Road]}
- {id: city, name: City Centre, address: '8 Park Row, Leeds', aliases: [town, Park Row]}
services:
- {id: assessment, name: Initial assessment, minutes: 45, price: 62}
practitioners:
- {id: akhtar, name: Samira Akhtar, services: [assessment], locations: [north, city]}
"""


@pytest.fixture(scope="module")
def two_sites(tmp_path_factory):
    from appliance.clinic import load_clinic_file

    path = tmp_path_factory.mktemp("sites") / "clinic.yaml"
    path.write_text(SITES, encoding="utf-8")
    return load_clinic_file(path, today=NOW.date())


def site_heard(runtime, flow, clinic, voice, said: str, *, scoring: bool = True):
    from appliance.voice.stt import hotwords_for

    question = flow.questions["location"]
    expected, meaning = asked(question, clinic)
    text = heard(runtime, spoken(voice, said), question, expected, understand=meaning, scoring=scoring,
                 hotwords=hotwords_for(clinic.catalog(), clinic.profile()))
    return text, meaning(text).location_id


@pytest.mark.parametrize(("voice_name", "said", "site"), [
    ("espeak-en-us", "the Headingley one", "north"),    # Whisper writes "The Hairdingley One"
    ("espeak-en-us", "the city centre one", "city"),    # ... "Na Fidi Penker 1"
    ("piper-joe", "Otley Road", "north"),               # ... "Olly Road." (a site's alias)
])
def test_a_site_whisper_wrote_as_other_words_is_recovered(runtime, flow, two_sites, voices, voice_name, said, site):
    free, found = site_heard(runtime, flow, two_sites, voices[voice_name], said, scoring=False)
    assert found is None, f"Whisper now hears {said!r} as {free!r}: choose another example"
    text, found = site_heard(runtime, flow, two_sites, voices[voice_name], said)
    assert found == site, f"{said!r} was heard as {text!r}"


@pytest.mark.parametrize("voice_name", ["piper-joe", "espeak-en-us"])
@pytest.mark.parametrize("said", ["Um, I'm not sure.", "Hang on.", "Which one is closer?", "Hmm.", "Sorry?"])
def test_a_spoken_non_answer_at_a_choice_is_never_made_a_site(runtime, flow, two_sites, voices, voice_name, said):
    text, site = site_heard(runtime, flow, two_sites, voices[voice_name], said)
    if site is not None:   # then Whisper wrote a site itself: scoring made nothing of it
        assert site_heard(runtime, flow, two_sites, voices[voice_name], said, scoring=False)[1] == site, \
            f"{said!r} became {text!r}"

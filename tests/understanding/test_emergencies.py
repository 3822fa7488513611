"""Red flags: fire on a medical emergency or a caller in crisis, stay quiet
where the words clearly say it is not happening now."""

from __future__ import annotations

import pytest

from .hearing import hear, intent_names

EMERGENCIES = [
    # hard to rouse, said with a booking asked for in the same breath
    "My dad's diabetic and now the toe's gone black, he's got a fever and he's really confused, I can barely wake "
    "him up properly. Can someone see him today?",
    "she's hard to wake this morning", "he's hardly conscious",
    # the airway closing: swelling of the face, jaw, neck or throat with swallowing hard or breath short
    "I had a tooth out on Monday and tonight my whole jaw and neck have swollen right up, and it's getting hard to "
    "swallow, and I'm, um, a bit short of breath actually. Can I get in tomorrow?",
    "my jaw's swollen and it's hard to swallow",
    "my throat's swelling up, and I'm short of breath",
    "my face and neck have swollen up and I can barely swallow",
    "I'm struggling to swallow and my neck is swollen",
    # an eye injury: something sharp or a chemical in it, bleeding, sight lost at once
    "my husband was using the angle grinder and something's flown into his eye, there's blood and he can't open it",
    "there's a bit of metal or something in his eye and it's bleeding, what should I do?",
    "something flew into my eye at work and now I can't see out of it",
    "I splashed bleach in my eye",
    "I've suddenly lost the sight in my left eye",
    "I have chest pain",
    "my husband has crushing chest pain",
    "I've got crushing pain in my chest and it's going down my left arm",
    "my chest really hurts, I need help",
    "I can't breathe",
    "she's struggling to breathe",
    "he's having trouble breathing",
    "I'm really short of breath",
    "his face is drooping",
    "My husband's face has gone droopy on one side and his speech is all slurred",
    "slurred speech",
    "she has sudden arm weakness",
    "I think he's having a stroke",
    "he collapsed",
    "my dad's just collapsed, he's clutching his chest",
    "she's unconscious",
    "he's not breathing",
    "he passed out and won't wake up",
    "she's bleeding heavily",
    "there's severe bleeding from his leg",
    "the bleeding won't stop",
    "he's having a seizure",
    "my son is fitting",
    "I think she took an overdose",
    "anaphylaxis",
    "my throat is swelling",
    "I need an ambulance",
    "it's an emergency",
    "hang on... I suddenly can't breathe properly, my chest is really tight",
    # a heart attack described in everyday words, whatever the caller takes it for
    "reckon I've pulled something in me chest at the gym, it's this heavy pain goin' down me left arm",
    "I have a pain going down my left arm",
    "there's a pain spreading into my jaw",
    "my chest feels odd and I'm a bit short of breath",
    # someone not fully conscious, a head injury, a diabetic emergency, told as what the caller sees
    "my son just fell off the trampoline and hit his face, there's a lot of blood, and he's kinda dazed, he's not "
    "really answerin' me. What do I do?",
    "she's diabetic, and she's all sweaty and shaky and she kind of slumped over in her chair",
    "my mum's hit her head on the tiles and she's not making sense, and there's blood coming from her ear",
    "he won't answer me, he's just lying there",
    "Dad fell down the stairs and he's dazed",
]


@pytest.mark.parametrize("text", EMERGENCIES)
def test_emergency_fires(text: str) -> None:
    utterance = hear(text)
    assert utterance.has("emergency"), text
    assert intent_names(utterance)[0] == "emergency"


NOT_EMERGENCIES = [
    "it hurts to swallow, I've got a sore throat", "my ankle is swollen and I'm limping",
    "I had trouble swallowing tablets as a kid",
    "I've got something in my eye, an eyelash probably, it's a bit itchy",
    "my eye is a bit red, can I book",
    "I need an eye test, I can't see the board properly",
    "I had a bit of metal in my eye last year and want a check",
    "a bit flicked in my eye, it's fine now, just a bit sore",
    "you're not answering my question",
    "I'm confused about my bill",
    "my son hit his head last week, can he see the doctor",
    "no chest pain",
    "there's no chest pain or anything",
    "it's not an emergency",
    "I don't think it's an emergency",
    "he's not having a seizure, he's just tired",
    "my chest pain appointment was last week",
    "I had a stroke two years ago",
    "I have a history of seizures",
    "I'd like to book a follow-up for my chest pain review",
    "can you fit me in today",
    "I need an emergency appointment for my back",
    "I need an urgent appointment",
    "my arm is a bit sore",
    "my back is killing me",
    "I hurt myself at the gym",
    "I can't lift my arm above my shoulder",
    "I need a follow-up for my left arm",
    "the pain is spreading down my leg",
]


@pytest.mark.parametrize("text", NOT_EMERGENCIES)
def test_emergency_stays_quiet(text: str) -> None:
    assert not hear(text).has("emergency"), text


CRISES = [
    "I want to kill myself",
    "thinking of ending my life",
    "I feel suicidal",
    "I want to hurt myself",
    "I've been thinking about hurting myself",
    "I've been having thoughts of hurting myself",
    "self harm",
    "I've been self-harming again",
    "I don't want to be alive anymore",
    "I don't want to live anymore",
    "I just don't want to be here anymore",
    "I want to die",
    "everyone would be better off without me",
    "I don't really want to book anything. I just don't want to be alive anymore",
]


@pytest.mark.parametrize("text", CRISES)
def test_crisis_fires(text: str) -> None:
    utterance = hear(text)
    assert utterance.has("crisis"), text
    assert utterance.signal("crisis").evidence == "crisis_terms"


NOT_CRISES = [
    "I hurt myself at the gym",
    "I hurt myself playing football",
    "my back is killing me",
    "I'm not suicidal, I just need a review",
    "I'm not going to hurt myself",
    "I want to book an appointment",
    "I don't want to live with this pain, can I see someone",
]


@pytest.mark.parametrize("text", NOT_CRISES)
def test_crisis_stays_quiet(text: str) -> None:
    assert not hear(text).has("crisis"), text


def test_red_flags_come_before_everything_else() -> None:
    utterance = hear("yes I'd like to book, but I'm having chest pain right now")
    assert intent_names(utterance)[0] == "emergency"
    assert "book" in intent_names(utterance) and "yes" in intent_names(utterance)


def test_emergency_and_crisis_together() -> None:
    assert intent_names(hear("I took an overdose because I want to die"))[:2] == ["emergency", "crisis"]


def test_it_is_an_emergency_is_medium() -> None:
    assert hear("it's an emergency").signal("emergency").confidence == "medium"
    assert hear("he's having a seizure").signal("emergency").confidence == "high"


@pytest.mark.parametrize("text", [
    "O stroke D E G A A R D",
    "it's O with a stroke, D, E, G, A, A, R, D",
    "okay, those stroke, D, E, G, A, A, R, D.",
])
def test_stroke_as_the_mark_through_a_spelled_letter_is_no_emergency(text: str) -> None:
    assert "emergency" not in intent_names(hear(text, "spelling"))


@pytest.mark.parametrize("text", [
    "sorry I think I'm having a stroke", "stroke", "my dad, stroke, he can't move his arm", "I think it's a stroke",
])
def test_a_stroke_said_while_spelling_is_still_an_emergency(text: str) -> None:
    assert "emergency" in intent_names(hear(text, "spelling"))

"""Yes, no, corrections and goodbyes, where they stand in the sentence."""

from __future__ import annotations

import pytest

from .hearing import hear, intent_names

YES = ["yes", "yeah", "yep", "yup", "sure", "correct", "that's right", "that is right", "sounds good",
       "please do", "go ahead", "perfect", "ok", "okay", "that works", "book it", "yes please",
       "yeah that's fine", "uh huh", "mm hmm", "absolutely", "that sounds great", "alright",
       "yes, that's right", "yes that's right", "that's correct", "lovely", "great, thanks",
       "that suits me", "go for it", "yes, cancel all of them", "yeah no worries", "I guess so", "all good",
       "sure why not", "Sound good.", "sound great, thanks"]


@pytest.mark.parametrize("text", YES)
def test_yes(text: str) -> None:
    utterance = hear(text, "confirm")
    assert utterance.has("yes"), (text, utterance.intents)
    assert not utterance.has("no"), text


NO = ["no", "nope", "nah", "not really", "that's wrong", "no thanks", "neither", "none of those",
      "no, that's not right", "that's not right", "yeah no", "no thank you", "I don't think so",
      "not quite", "no, actually, leave it, I'll keep it", "no, the first name is wrong",
      "that doesn't work for me", "neither of those suit", "oh no, not that one"]


@pytest.mark.parametrize("text", NO)
def test_no(text: str) -> None:
    utterance = hear(text, "confirm")
    assert utterance.has("no"), (text, utterance.intents)
    assert not utterance.has("yes"), text


NEITHER = ["no worries", "I'm not sure", "sorry, what was that?", "I have no idea", "is that correct?",
           "where exactly are you", "I definitely need to cancel", "no problem at all"]


@pytest.mark.parametrize("text", NEITHER)
def test_not_a_no(text: str) -> None:
    assert not hear(text).has("no"), text


@pytest.mark.parametrize("text", ["I'm not sure", "sorry, what was that?", "is that correct?",
                                  "where exactly are you", "I definitely need to cancel", "good morning",
                                  "I'm not ok with that", "before I say yes, how much is it?",
                                  "if I say yes will it be booked today?"])
def test_not_a_yes(text: str) -> None:
    assert not hear(text).has("yes"), text


CORRECTIONS = ["actually it's Friday", "sorry, I meant Tuesday", "no, it's Smyth", "I said Thursday",
               "wait, the second one", "oh sorry, I meant Friday, not Thursday", "actually, make that 3pm",
               "scratch that, Wednesday", "my mistake, it's the fifth", "no it should be Smith",
               "actually my last name is Smyth", "change that to Friday", "hang on, I got that wrong"]


@pytest.mark.parametrize("text", CORRECTIONS)
def test_correction(text: str) -> None:
    assert hear(text, "confirm").has("correction"), text


@pytest.mark.parametrize("text", ["sorry, how much is a follow-up again?", "I can't make it tomorrow",
                                  "sorry, what was that?", "yes that's right", "I'll wait for your call",
                                  "can you make it later"])
def test_not_a_correction(text: str) -> None:
    assert not hear(text).has("correction"), text


GOODBYES = ["bye", "goodbye", "that's all", "that's everything", "nothing else", "no that's it thanks",
            "I'm good thanks", "no thanks, that's all", "thanks for your help", "have a good day",
            "that'll be all", "no, that's everything, thanks", "see you", "cheers, bye", "nope all good",
            "no, nothing, sorry, wrong number. Bye",
            # leaving to think it over, or to call again themselves
            "I'll have a think and ring back so, thanks a million", "I'll think about it, thanks",
            "I'll have a think about it and get back to you", "let me check with my husband and I'll call you back",
            "ok, I'll call back later", "we'll be in touch"]


@pytest.mark.parametrize("text", GOODBYES)
def test_goodbye(text: str) -> None:
    assert hear(text, "anything_else").has("goodbye"), text


@pytest.mark.parametrize("text", ["that's not all", "is that all?", "I'm good to go ahead with that",
                                  "that's all I wanted to ask, how much is it", "good morning",
                                  "can you ring me back", "I won't ring back, I'll wait", "I'm calling you back"])
def test_not_a_goodbye(text: str) -> None:
    assert not hear(text, "intent").has("goodbye"), text


@pytest.mark.parametrize(("text", "waiting_for"), [("half nine, yes, that'll do me", "slot_choice"),
                                                   ("yep, that'll do", "confirm")])
def test_that_will_do_said_of_a_time_or_a_read_back_takes_it_and_ends_nothing(text, waiting_for) -> None:
    utterance = hear(text, waiting_for)
    assert utterance.has("yes") and utterance.signal("goodbye").confidence == "low"


def test_that_will_do_where_asked_for_anything_else_is_done() -> None:
    assert hear("that'll do, thanks", "anything_else").signal("goodbye").confidence == "high"


def test_several_acts_at_once() -> None:
    assert intent_names(hear("no that's all, thanks bye", "anything_else")) == ["no", "goodbye"]
    assert intent_names(hear("yes and how much is it", "confirm")) == ["price", "yes"]
    assert intent_names(hear("no, it's Smyth", "confirm")) == ["no", "correction"]


def test_a_read_back_makes_ok_a_sure_yes() -> None:
    loose = hear("ok", "intent").signal("yes")
    sure = hear("ok", "confirm").signal("yes")
    assert loose.confidence == "medium"
    assert sure.confidence == "high"
    assert sure.evidence == "confirm_prompt,affirmation,short_answer"   # "ok" is also one of its short answers


def test_thanks_alone_closes_only_when_asked_for_anything_else() -> None:
    assert hear("thanks", "anything_else").signal("goodbye").confidence == "high"
    assert hear("thanks", "intent").signal("goodbye").confidence == "low"


def test_thats_it_depends_on_what_came_before() -> None:
    assert hear("yes that's it", "confirm").has("yes")
    assert hear("no that's it", "anything_else").has("goodbye")
    assert not hear("yes that's it", "confirm").has("goodbye")


def test_evidence_labels() -> None:
    assert hear("no", "intent").signal("no").evidence == "negation"
    assert hear("actually, Friday", "intent").signal("correction").evidence == "correction_terms"
    assert hear("bye", "intent").signal("goodbye").evidence == "caller_closing"


@pytest.mark.parametrize("said", ["Uh-uh.", "Mm-mm.", "Nuh-uh.", "uh-uh, not that one"])
def test_the_two_note_no_is_a_no(said) -> None:
    assert "no" in intent_names(hear(said, "confirm")) and "yes" not in intent_names(hear(said, "confirm"))


def test_hesitation_said_twice_is_no_answer() -> None:
    assert intent_names(hear("uh, uh, I want to book", "intent")) == ["book"]


@pytest.mark.parametrize("written", ["Emma", "Emma.", "MMA.", "MMO", "MMR", "Mm-ha.", "Emama.", "Emma Ma.", "Emma, ma.", "Enama.",
                                     "Emema.", "Enema.", "Inama."])
@pytest.mark.parametrize("question", ["confirm", "been_before"])
def test_a_two_note_yes_written_as_a_word_is_a_yes_as_the_whole_answer(written, question) -> None:
    assert intent_names(hear(written, question)) == ["yes"]


@pytest.mark.parametrize(("written", "meaning"), [
    ("M-no", "no"), ("M-no.", "no"), ("M-nope.", "no"), ("Mm-nah", "no"),   # a hum before a no, as one letter
    ("M-hm", "yes"), ("M-hm.", "yes"), ("M-hmm", "yes"),                     # a two-note yes, its first note a letter
])
@pytest.mark.parametrize("question", ["confirm", "been_before"])
def test_a_hum_written_as_one_letter_joined_to_the_answer(written, meaning, question) -> None:
    assert intent_names(hear(written, question)) == [meaning]


def test_a_lone_letter_m_is_no_answer() -> None:
    assert intent_names(hear("M", "confirm")) == []


@pytest.mark.parametrize("written", ["Aha", "Aha.", "A-ha.", "Ah ha", "Ah-ha.", "Ah, ha."])
@pytest.mark.parametrize("question", ["confirm", "been_before"])
def test_a_two_note_uh_huh_written_aha_is_a_yes_as_the_whole_answer(written, question) -> None:
    assert intent_names(hear(written, question)) == ["yes"]


@pytest.mark.parametrize("written", ["Uhuh.", "aha, and how much is it?", "Ha ha.", "Ah ha, how much is it?"])
def test_uhuh_and_an_aha_before_more_are_no_yes(written) -> None:
    assert "yes" not in intent_names(hear(written, "confirm"))


@pytest.mark.parametrize("written", ["Ron.", "ron", "Rong.", "Run.", "Interact", "Interact."])
def test_wrong_or_incorrect_said_alone_and_written_as_other_words_is_a_no(written) -> None:
    assert intent_names(hear(written, "confirm")) == ["no"]


def test_the_name_ron_in_a_longer_answer_is_no_no() -> None:
    assert "no" not in intent_names(hear("Ron Smith, yes", "confirm"))


@pytest.mark.parametrize("written", ["Crack.", "crack", "Correck.", "Direct.", "direct, thanks", "Track",
                                     "CREK", "Creck.", "Prack.", "Cracked"])
def test_a_correct_written_as_other_words_is_a_yes_as_the_whole_answer(written) -> None:
    assert intent_names(hear(written, "confirm")) == ["yes"]


@pytest.mark.parametrize("said", ["Emma Watson", "is Emma there", "MMR jab", "I have a crack in my tooth",
                                  "ask my mama", "Emma Ma said to call", "Direct debit?", "is that the direct line?",
                                  "can you track it?", "lost track", "it's cracked"])
def test_those_words_in_a_longer_answer_are_no_yes(said) -> None:
    assert "yes" not in intent_names(hear(said, "confirm"))


def test_those_words_are_no_yes_where_no_yes_or_no_is_asked() -> None:
    assert "yes" not in intent_names(hear("Emma", "full_name"))


@pytest.mark.parametrize("written", ["done", "Done.", "done thanks"])
def test_done_alone_which_a_hum_is_written_as_is_no_yes(written) -> None:
    assert "yes" not in intent_names(hear(written, "confirm"))


@pytest.mark.parametrize("said", ["done deal", "deal", "yes, done", "Done, book it"])
def test_agreement_around_done_is_still_a_yes(said) -> None:
    assert "yes" in intent_names(hear(said, "confirm"))


@pytest.mark.parametrize("said", ["Good we do a bit later.", "Good, could we do a bit earlier?",
                                  "fine, but another day would be better", "great, something later instead"])
def test_a_word_of_assent_leading_into_a_change_of_time_is_no_yes(said) -> None:
    assert "yes" not in intent_names(hear(said, "confirm"))


@pytest.mark.parametrize("said", ["Good, be quiet please.", "Fine, put the kettle on.", "Great, stop that please.",
                                  "Lovely, sit down.", "Great, my husband will drive me."])
def test_a_word_of_assent_then_words_that_say_something_else_is_no_yes_at_a_read_back(said) -> None:
    assert "yes" not in intent_names(hear(said, "confirm"))


@pytest.mark.parametrize("said", ["Sorry, that's still at the Parade, yeah?", "that's at 9, right?",
                                  "it's at the usual place, yeah?", "it's the Thursday, right?",
                                  "that's with the same doctor, yes?", "you're the one on the high street, yeah?"])
def test_a_question_tagged_with_a_yes_word_at_a_read_back_is_no_yes(said) -> None:
    assert "yes" not in intent_names(hear(said, "confirm"))


@pytest.mark.parametrize("said", ["that's right, yeah?", "Yeah?", "that's fine, yeah?", "that is it, yes?",
                                  "That's correct, yes."])
def test_agreement_tagged_with_a_yes_word_is_still_a_yes(said) -> None:
    assert "yes" in intent_names(hear(said, "confirm"))


@pytest.mark.parametrize("said", ["Good, thank you.", "Fine, go on then.", "Perfect, I'll be there.",
                                  "Lovely, that's booked then.", "Great, I'm happy with that.", "Great, cheers mate.",
                                  "Okay, that's fine then.", "Good, good.", "Go on then.", "Sure thing", "Great stuff",
                                  "Fine by me", "Perfect, that suits", "Perfect, thanks a lot", "Okay, that'll work",
                                  "Excellent, thank you kindly", "Okay, cool", "Alright then", "Right you are"])
def test_a_word_of_assent_with_thanks_or_more_assent_is_a_yes_at_a_read_back(said) -> None:
    assert "yes" in intent_names(hear(said, "confirm"))


@pytest.mark.parametrize("said", ["Perfect, see you later", "lovely, catch you later", "Good, we can do that"])
def test_assent_with_a_later_goodbye_is_still_a_yes(said) -> None:
    assert "yes" in intent_names(hear(said, "confirm"))


@pytest.mark.parametrize("written", ["Nana.", "nah nah", "Na-na."])
def test_a_no_said_twice_and_written_as_one_word_is_never_a_yes(written) -> None:
    assert "yes" not in intent_names(hear(written, "confirm"))


@pytest.mark.parametrize("said, answer", [
    ("Nah yeah, that's right.", "yes"),
    ("nah yeah", "yes"),
    ("yeah nah", "no"),
    ("yeah nah, that's wrong", "no"),
])
def test_a_yes_and_a_no_said_as_a_pair_are_the_last_of_the_pair(said, answer):
    names = [s.name for s in hear(said, "confirm").intents]
    assert answer in names and ({"yes", "no"} - {answer}).isdisjoint(names)

"""Names and spelled letters."""

from __future__ import annotations

import pytest

from appliance.understanding import PersonName
from appliance.understanding.names import find_spelled, spelled_once
from appliance.understanding.normalise import normalise

from .hearing import hear

FULL = [
    ("Sarah Johnson", "full_name", "Sarah", "Johnson"),
    ("sarah johnson", "full_name", "Sarah", "Johnson"),
    ("my name is Sarah Johnson", "intent", "Sarah", "Johnson"),
    ("it's Sarah Johnson", "full_name", "Sarah", "Johnson"),
    ("this is Jon Smyth", "intent", "Jon", "Smyth"),
    ("Sarah Jane Johnson", "full_name", "Sarah Jane", "Johnson"),
    ("yeah it's um Sarah Johnson", "full_name", "Sarah", "Johnson"),
    ("ahm, Sarah Johnson", "full_name", "Sarah", "Johnson"),
    ("Johnson, Sarah", "full_name", "Sarah", "Johnson"),
    ("hi, Sarah Johnson speaking", "intent", "Sarah", "Johnson"),
    ("Sarah Johnson here", "intent", "Sarah", "Johnson"),
    ("my name's Kirsty Douglas and I'd like to book", "intent", "Kirsty", "Douglas"),
    ("Mary Smith-Jones", "full_name", "Mary", "Smith-Jones"),
    ("Sean O'Brien", "full_name", "Sean", "O'Brien"),
    ("Liam O'Connor", "full_name", "Liam", "O'Connor"),
    ("Callum MacLeod", "full_name", "Callum", "MacLeod"),
    ("Anna van der Berg", "full_name", "Anna", "Van Der Berg"),
    ("Will Smith", "full_name", "Will", "Smith"),
    ("Sarah J Johnson", "full_name", "Sarah", "Johnson"),
    ("it's Sarah Johnson, born fourth of March eighty five", "full_name", "Sarah", "Johnson"),
    ("Sarah Johnson please", "full_name", "Sarah", "Johnson"),
    ("I'm Sarah Johnson and I need to cancel", "intent", "Sarah", "Johnson"),
    ("my first name is Jon and my last name is Smyth", "intent", "Jon", "Smyth"),
    ("Aroha Ngata", "full_name", "Aroha", "Ngata"),
    ("it's Mrs Sarah Johnson", "full_name", "Sarah", "Johnson"),
    ("Dr Sarah Johnson", "full_name", "Sarah", "Johnson"),
    ("Jo Ng", "full_name", "Jo", "Ng"),
    ("I'm booking for my son, his name is Tom Johnson", "full_name", "Tom", "Johnson"),
    ("booking for Sarah Johnson", "full_name", "Sarah", "Johnson"),
    ("the appointment's under Sarah Johnson", "full_name", "Sarah", "Johnson"),
    # a surname led by a particle, said first
    ("van der Berg, Anna", "full_name", "Anna", "Van Der Berg"),
    ("Ní Bhriain, Siobhán", "full_name", "Siobhán", "Ní Bhriain"),
    ("De Souza, Maria, thanks", "full_name", "Maria", "De Souza"),
    ("Ó Ceallaigh, Seán", "full_name", "Seán", "Ó Ceallaigh"),     # a particle of one letter
    ("Seán Ó Ceallaigh", "full_name", "Seán", "Ó Ceallaigh"),
    ("Te Huia, Mārama", "full_name", "Mārama", "Te Huia"),
    ("Mārama Te Huia", "full_name", "Mārama", "Te Huia"),
    # the surname first, then a given name of two words
    ("Hoàng, Thị Mai", "full_name", "Thị Mai", "Hoàng"),
    ("Doe, Mary Jane", "full_name", "Mary Jane", "Doe"),
    ("Smith, John Paul", "full_name", "John Paul", "Smith"),
    # the surname first after a marker ("it's", "my name is")
    ("It's Smith, John.", "full_name", "John", "Smith"),
    ("yeah it's Nguyen, Anna", "full_name", "Anna", "Nguyen"),
    ("my name is Patel, Priya", "full_name", "Priya", "Patel"),
    ("Kowalski, Anna", "full_name", "Anna", "Kowalski"),
    # a pause between a given name and a surname, in the usual order, where the name lists tell which is which
    ("the name's, Argin, Banerjee.", "full_name", "Argin", "Banerjee"),   # a given name bent, then a surname
    ("Priya, Sharma", "full_name", "Priya", "Sharma"),
    ("it's Kwame, Mensah, thanks", "full_name", "Kwame", "Mensah"),
    # a surname that is also an ordinary word, then a given name that can also lead a surname, said alone
    ("Cooper, Ben.", "full_name", "Ben", "Cooper"),
    ("Taylor, Ben", "full_name", "Ben", "Taylor"),
    ("Walker, Del", "full_name", "Del", "Walker"),
    ("it's Hunter, Van, thanks", "full_name", "Van", "Hunter"),
    # a given name that is also an article
    ("An Tran", "full_name", "An", "Tran"),
    ("it's An Trần", "full_name", "An", "Trần"),
    ("my name is An Nguyen", "intent", "An", "Nguyen"),
    ("Văn An Nguyễn", "full_name", "Văn An", "Nguyễn"),
    # "name's" written without its apostrophe, opening the answer
    ("Names Liam Murphy.", "full_name", "Liam", "Murphy"),
    ("names John Smith, thanks", "full_name", "John", "Smith"),
    ("Yeah, names Priya Sharma.", "full_name", "Priya", "Sharma"),
    ("Hi, names Tom Walker, I'd like to book a massage", "intent", "Tom", "Walker"),
]


@pytest.mark.parametrize(("text", "waiting_for", "first", "last"), FULL)
def test_full_names(text: str, waiting_for: str, first: str, last: str) -> None:
    assert hear(text, waiting_for).name == PersonName(first, last)


PARTS = [
    ("I'd like to book, I'm Siobhan", "intent", "Siobhan", None),
    ("Hello, I need an appointment. I'm Tamika", "intent", "Tamika", None),
    ("my last name is Smyth", "intent", None, "Smyth"),
    ("surname's Smyth", "dob", None, "Smyth"),
    ("first name Jon", "intent", "Jon", None),
    ("actually my last name is Smyth", "confirm", None, "Smyth"),
    ("Jon", "first_name", "Jon", None),
    ("it's Jon", "first_name", "Jon", None),
    ("Smyth", "last_name", None, "Smyth"),
    ("Smyth, S M Y T H", "last_name", None, "Smyth"),
    ("s m y t h", "last_name", None, "Smyth"),
    ("S-M-Y-T-H", "last_name", None, "Smyth"),
    ("J O N", "first_name", "Jon", None),
    ("Sarah", "full_name", "Sarah", None),
    ("June", "first_name", "June", None),
    ("I'm Sarah", "intent", "Sarah", None),
    ("hi, I'm Sarah", "intent", "Sarah", None),
    ("I'm Sarah calling about my appointment", "intent", "Sarah", None),
    ("Ng", "last_name", None, "Ng"),
    ("no, the first name is wrong, it's Kris with a K, K R I S", "confirm", "Kris", None),
    ("actually, sorry, my last name is Smyth, S M Y T H, not Smith", "dob", None, "Smyth"),
    ("A R O H A, N G A T A", "spelling", "Aroha", "Ngata"),
    # "Olivia Bennett" as Whisper heard it: the bent first name is kept (the lookup compares), the surname read
    ("I love you Bennett", "full_name", "Love", "Bennett"),
    ("I love you, Bennett.", "full_name", "Love", "Bennett"),
    ("Tom and Jerry", "full_name", "Tom", None),     # two people, not one name
    ("Sarah, thank you", "full_name", "Sarah", None),
    ("An", "first_name", "An", None),
    ("it's An", "first_name", "An", None),
    ("first name An", "intent", "An", None),
]


@pytest.mark.parametrize(("text", "waiting_for", "first", "last"), PARTS)
def test_name_parts(text: str, waiting_for: str, first: str | None, last: str | None) -> None:
    assert hear(text, waiting_for).name == PersonName(first, last)


NO_NAME = [
    ("yes", "full_name"), ("hi", "full_name"), ("um", "full_name"), ("appointment", "full_name"),
    ("tomorrow", "full_name"), ("a flu shot", "full_name"), ("the city", "full_name"),
    ("sorry, what was that?", "full_name"), ("I'm not sure", "full_name"), ("I want to cancel", "full_name"),
    ("it's the, um... you know, from before", "full_name"), ("may I book in", "full_name"),
    ("Sarah Johnson", "intent"), ("Sarah Johnson", "dob"), ("I'm calling about my appointment", "intent"),
    ("this is the pharmacy", "intent"), ("I'm pregnant", "intent"), ("I'm exhausted", "intent"),
    ("I'm really sore", "intent"), ("it's tomorrow", "full_name"), ("North Sydney", "full_name"),
    ("what name is the booking under", "intent"), ("it's fine", "intent"),
    ("I'm outside, where do I park", "intent"), ("I'm here for my appointment", "intent"),
    ("I want to cancel my appointment with Raj Shah", "full_name"),
    ("I'm not a patient, I'm calling from Local Search Pro", "full_name"),
    ("it's an unusual one", "last_name"), ("an appointment please", "full_name"),
    # unasked, a word that ends the answer after "I'm" is a name only where people have it
    ("whatever's soonest, I'm flexible", "time_preference"), ("any day really, I'm retired", "time_preference"),
    ("the later one, I'm knackered", "slot_choice"), ("mornings, I'm local", "time_preference"),
]


@pytest.mark.parametrize(("text", "waiting_for"), NO_NAME)
def test_no_name(text: str, waiting_for: str) -> None:
    assert hear(text, waiting_for).name is None, text


SPELLED = [
    ("S M Y T H", "spelling", "SMYTH"),
    ("S-M-Y-T-H", "spelling", "SMYTH"),
    ("s m y t h", "last_name", "SMYTH"),
    ("S. M. Y. T. H.", "spelling", "SMYTH"),
    ("s as in sugar, m, y, t, h", "spelling", "SMYTH"),
    ("s m y double t h", "spelling", "SMYTTH"),
    ("O apostrophe C O N N O R", "spelling", "O'CONNOR"),
    # a mark said between pauses, as the transcriber writes a spelling under the alphabet prompt
    ("O, apostrophe, C, O, N, N, O, R.", "spelling", "O'CONNOR"),
    ("S, M, I, T, H, hyphen, J, O, N, E, S.", "spelling", "SMITH-JONES"),
    ("S-M-I-T-H, dash, J-O-N-E-S", "spelling", "SMITH-JONES"),
    ("it's double-barrelled, S M I T H, hyphen, J O N E S", "spelling", "SMITH-JONES"),
    ("M A C, capital L, E O D", "spelling", "MACLEOD"),
    ("A R O H A, N G A T A", "spelling", "AROHA NGATA"),
    ("K R I S", "spelling", "KRIS"),
    ("Smyth, S M Y T H", "last_name", "SMYTH"),
    ("my name is Smyth, that's S M Y T H", "intent", "SMYTH"),
    ("no, it's K R I S", "confirm", "KRIS"),
    ("No, the first name is Ron. It's Chris with the K-K-R-I-S", "confirm", "KRIS"),  # "with a K, K R I S" run together
    ("Aaron with an A, A-A-R-O-N", "spelling", "AARON"),
    ("Llewellyn, L L E W E L L Y N", "spelling", "LLEWELLYN"),
    ("it's O space C E A L L A I G H", "spelling", "O CEALLAIGH"),   # a one-letter particle, then "space"
    ("O space C E A L L A I G H, Ó Ceallaigh", "spelling", "O CEALLAIGH"),   # the name said after its letters
    ("D E space L A space C R U Z", "spelling", "DE LA CRUZ"),   # a doubled first letter said as such stays
    # "then" between some letters only ends a word of the name; between every letter it only paces them
    ("C, A, O, I, M, H, E, then N, I with a fada, then B, H, R, I, A, I, N", "spell_last", "CAOIMHE NI BHRIAIN"),
    ("D, O, E, then R, O, E", "spell_last", "DOE ROE"),
    ("A, R, O, H, A, then N, G, A, T, A", "spell_last", "AROHA NGATA"),
    ("B, then R, then I, then A, then N", "spell_last", "BRIAN"),
    ("J, O, N, then E, S", "spell_last", "JONES"),
]


@pytest.mark.parametrize(("text", "waiting_for", "letters"), SPELLED)
def test_spelled(text: str, waiting_for: str, letters: str) -> None:
    assert hear(text, waiting_for).spelled == letters


@pytest.mark.parametrize(("text", "waiting_for"), [
    ("I need an x ray", "intent"), ("the c b d clinic", "intent"), ("o four one two", "phone"),
    ("Kris with a K", "confirm"), ("plan a", "intent"), ("I'd like a b12 shot", "intent"),
])
def test_not_spelled(text: str, waiting_for: str) -> None:
    assert hear(text, waiting_for).spelled is None


def test_spelling_corrects_the_word_it_spells() -> None:
    assert hear("Smith, S M Y T H", "last_name").name == PersonName(None, "Smyth")
    assert hear("Jon Smith, that's S M Y T H", "full_name").name == PersonName("Jon", "Smyth")


def test_one_spelled_word_leaves_the_part_to_the_engine() -> None:
    utterance = hear("K R I S", "spelling")
    assert utterance.name is None and utterance.spelled == "KRIS"


def test_practitioner_names_are_patient_names_while_a_name_is_asked() -> None:
    utterance = hear("Anna Lee", "full_name")
    assert utterance.name == PersonName("Anna", "Lee")
    assert utterance.practitioner_id is None


def test_name_said_in_the_opening_with_the_task() -> None:
    utterance = hear("hi this is Jon Smyth, I need to cancel my appointment")
    assert utterance.name == PersonName("Jon", "Smyth")
    assert utterance.has("cancel")


@pytest.mark.parametrize(("text", "waiting_for", "first", "last"), [
    ("yeah, it's Xiaoling Wong", "full_name", "Xiaoling", "Wong"),
    ("it is Jing Li", "full_name", "Jing", "Li"),
    ("um, Xiaoling", "first_name", "Xiaoling", None),
    ("John Fleming", "full_name", "John", "Fleming"),
    ("Sterling, Anna", "full_name", "Anna", "Sterling"),
])
def test_a_name_with_an_ordinary_word_s_ending_is_a_name_when_it_stands_as_one(text, waiting_for, first, last):
    name = hear(text, waiting_for).name
    assert (name.first, name.last) == (first, last)


@pytest.mark.parametrize("text", ["I was wondering if you could help", "hoping to book a massage",
                                  "booking for Thursday please"])
def test_an_ordinary_word_with_that_ending_in_a_sentence_is_no_name(text):
    assert hear(text).name is None


@pytest.mark.parametrize(("text", "waiting_for", "last"), [
    ("L E, Lê", "spell_last", "Lê"),
    ("Lê, L E", "spell_last", "Lê"),
    ("O D E G A A R D, Ødegaard", "spell_last", "Ødegaard"),
    ("Ødegaard, O D E G A A R D", "full_name", "Ødegaard"),
    ("it is Nguyễn, N G U Y E N", "last_name", "Nguyễn"),
])
def test_a_name_spelled_without_its_accents_is_kept_as_said(text, waiting_for, last):
    assert hear(text, waiting_for).name.last == last


@pytest.mark.parametrize(("text", "waiting_for", "last"), [
    ("S, U, Z, U, K, I, S, U, Z, U, K, I", "spell_last", "Suzuki"),           # one spelling twice in a breath
    ("P A T E L, P A T E L", "spell_last", "Patel"),                           # spelled again after a pause
    ("sure, M O R R I S. Sure, M O R R I S. Sure, M O R R", "spell_last", "Morris"),   # over and over, cut off
    ("K, O, W, A, L, S, K, I, K O W A L S K I", "last_name", "Kowalski"),
])
def test_a_spelling_said_more_than_once_is_one_spelling(text, waiting_for, last):
    utterance = hear(text, waiting_for)
    assert utterance.name.last == last
    assert utterance.spelled == last.upper()


@pytest.mark.parametrize(("text", "last"), [
    ("F I F I T A, F E D", "Fifita"),     # the name said after its letters, written as letters
    ("O K O N K W O, O K O", "Okonkwo"),
    ("H E N D E R S O N, H E N", "Henderson"),
])
def test_a_shorter_run_after_a_spelling_is_the_name_said_whole(text, last):
    assert hear(text, "spell_last").name.last == last


@pytest.mark.parametrize(("text", "waiting_for", "last"), [
    ("NWOSU, NWASU.", "spell_last", "Nwosu"),   # the name said after its letters, written in capitals a letter off
    ("B E N N E T T, B E N N I T T", "spell_last", "Bennett"),
    ("NWOSU, NWASU.", "spelling", "Nwosu"),
])
def test_a_run_as_long_and_a_letter_apart_after_a_spelling_is_the_name_said_whole(text, waiting_for, last):
    utterance = hear(text, waiting_for)
    assert utterance.spelled == last.upper()


@pytest.mark.parametrize(("text", "waiting_for", "first", "last"), [
    ("S M I T H E, sorry, S M I T H", "spell_last", None, "Smith"),         # a correction keeps the later run
    ("S M I T H, no wait, S M Y T H", "spell_last", None, "Smyth"),
    ("D A V I D, D A Y", "full_name", "David", "Day"),                        # both names spelled
    ("L U L U", "spell_first", "Lulu", None),                                 # a name that is two letters twice
])
def test_spellings_that_are_not_said_again_are_kept(text, waiting_for, first, last):
    name = hear(text, waiting_for).name
    assert (name.first, name.last) == (first, last)


@pytest.mark.parametrize(("text", "waiting_for", "letters"), [
    ("That's NW OSU.", "spell_last", "NWOSU"),       # letters said quickly, written as groups of capitals
    ("OK, SMYTH", "spell_last", "SMYTH"),
    ("it's ADE YEMI", "spell_last", "ADEYEMI"),
    ("KRIS", "spell_first", "KRIS"),
    ("PT EL", "spelling", "PTEL"),
])
def test_letters_written_as_a_group_of_capitals_are_letters_where_a_spelling_is_asked(text, waiting_for, letters):
    assert hear(text, waiting_for).spelled == letters


def test_a_word_in_capitals_is_a_word_where_no_spelling_is_asked():
    assert hear("It's SMYTH", "full_name").spelled is None


@pytest.mark.parametrize(("text", "waiting_for", "letters"), [
    ("D U B, O, I, F", "spell_last", "DUBOIS"),        # S heard as F
    ("Sure, L-O-P-E-C.", "spelling", "LOPEZ"),         # Z heard as C
    ("B R O W M", "spell_last", "BROWN"),              # N heard as M
    ("it's j-o-n-e-f", "spell_last", "JONES"),
    ("N G U Y E M", "spelling", "NGUYEN"),
    ("J A M E F", "spell_first", "JAMES"),
])
def test_a_spelled_letter_heard_as_one_alike_on_the_phone_gives_the_listed_name(text, waiting_for, letters):
    assert hear(text, waiting_for).spelled == letters


@pytest.mark.parametrize(("text", "waiting_for", "letters"), [
    ("Okay, and you and E, Z.", "spelling", "NUNEZ"),      # N U N written "and you and"
    ("N, you, N, E, Z", "spell_last", "NUNEZ"),
    ("That's in G-A-T-A.", "spelling", "NGATA"),            # N written "in"
    ("It's our E, D, D, Y.", "spell_last", "REDDY"),        # R written "our"
    ("are, O, S, S", "spell_first", "ROSS"),
])
def test_a_spelled_letter_written_as_the_word_it_sounds_like_is_that_letter(text, waiting_for, letters):
    assert hear(text, waiting_for).spelled == letters


@pytest.mark.parametrize("text", ["thank you, S M I T H", "Yes, and S, M, I, T, H", "and then S M I T H",
                                  "you know, it's S M I T H", "Are you there? S, M, I, T, H"])
def test_a_word_before_a_spelling_that_only_sounds_like_a_letter_is_no_letter(text):
    assert hear(text, "spelling").spelled == "SMITH"


def test_words_that_sound_like_letters_are_words_outside_a_spelling():
    assert hear("and you and me, I mean", "intent").spelled is None


@pytest.mark.parametrize("letters", ["NWOSU", "FIFITA", "OYELARAN", "CHATTERJEE", "OKONKWO", "ADEYEMI", "TUILAGI",
                                     "WOJCIK", "SMYTH", "IYER", "DVORAK", "ODEGAARD"])
def test_a_name_spelled_as_it_is_written_is_kept_listed_or_not(letters):
    assert hear(" ".join(letters), "spell_last").spelled == letters


def test_letters_alike_on_the_phone_are_kept_as_heard_where_two_listed_names_are_as_near():
    assert hear("J A D A M", "spell_last").spelled == "JADAM"     # both AADAM and KADAM are one alike letter off


def test_alike_letters_are_not_changed_outside_a_spelling():
    assert hear("B R O W M", "intent").spelled != "BROWN"


@pytest.mark.parametrize("text", ["I'll say Lopez.", "I will spell it", "I can spell that", "we'll see, um"])
def test_a_modal_after_i_or_we_is_the_verb_never_a_first_name(text):
    name = hear(text, "full_name").name
    assert name is None or name.first not in ("Will", "Can")


@pytest.mark.parametrize(("text", "first"), [("Will Smith", "Will"), ("it's Will Lopez", "Will"),
                                             ("I'm Will Lopez", "Will"), ("we will, Jane Doe", "Jane")])
def test_a_name_that_is_also_a_modal_is_still_a_name(text, first):
    assert hear(text, "full_name").name.first == first


@pytest.mark.parametrize("between", ["my mistake", "scratch that", "hang on", "I mean", "sorry", "no", "not"])
def test_a_correction_the_callers_words_declare_between_two_spellings_keeps_the_later(between):
    # read here with no correction heard in the whole turn: the words between the runs alone decide
    ct = normalise(f"S M I T H E, {between}, S M I T H")
    runs = spelled_once(find_spelled(ct, name_asked=True), ct, "last", correcting=False)
    # the "I" of "I mean" is read as one more letter of the first run: the later run is what matters
    assert len(runs) == 2 and runs[-1].letters == "SMITH"


def test_a_spelling_cut_off_and_said_again_with_no_correction_is_dropped():
    ct = normalise("S M I T H E, S M I T H")
    runs = spelled_once(find_spelled(ct, name_asked=True), ct, "last", correcting=False)
    assert [r.letters for r in runs] == ["SMITHE"]


@pytest.mark.parametrize(("text", "waiting_for", "first", "last"), [
    ("my last name is actually Brown", "confirm", None, "Brown"),
    ("my surname is really Brown, B R O W N", "confirm", None, "Brown"),
    ("the surname is in fact Lê", "confirm", None, "Lê"),
    ("my first name's actually Kris", "confirm", "Kris", None),
    ("sorry my first name is actually Renée", "dob", "Renée", None),
    ("oh, my surname is actually Phạm, P H A M", "confirm", None, "Phạm"),
    ("my name is actually Jon Smyth", "confirm", "Jon", "Smyth"),
])
def test_a_name_after_a_hedge_word_that_corrects_it_is_the_name(text, waiting_for, first, last):
    assert hear(text, waiting_for).name == PersonName(first, last)


@pytest.mark.parametrize(("text", "replaced"), [
    ("no wait, it's O'Brien-Núñez, not Schröder", ("schröder", "o'brien-núñez")),
    ("no, it's Smith-Jones, not Smith", ("smith", "smith-jones")),
    ("Bennett-Ray is my old name, it's Ray now", ("bennett-ray", "ray")),
    ("change Jones to Lloyd-Jones", ("jones", "lloyd-jones")),
    ("it's Doe, not Roe", ("roe", "doe")),
])
def test_a_hyphenated_name_in_a_correction_is_replaced_or_given_whole(text, replaced):
    assert hear(text, "confirm").name_replacements == (replaced,)


@pytest.mark.parametrize(("text", "replaced"), [
    ("sorry, García is my old name, it's Ó Ceallaigh now", ("garcía", "ó ceallaigh")),   # a one-letter particle
    ("it's van Dijk, not Smith", ("smith", "van dijk")),
    ("not Smith, it's de la Cruz", ("smith", "de la cruz")),                            # two particles
    ("it's Smith, not van der Berg", ("van der berg", "smith")),
    ("no wait, it's Gupta, not O'Brien", ("o'brien", "gupta")),                          # O' is no particle
])
def test_a_name_that_starts_with_particles_in_a_correction_is_replaced_or_given_whole(text, replaced):
    assert hear(text, "confirm").name_replacements == (replaced,)


@pytest.mark.parametrize(("text", "first", "last"), [
    ("sorry, I meant Lê, L E", "Lê", None),
    ("oh I meant Jon Smyth", "Jon", "Smyth"),
    ("sorry, I meant Smyth", "Smyth", None),
])
def test_a_name_after_i_meant_is_a_name(text, first, last):
    assert hear(text, "dob").name == PersonName(first, last)


@pytest.mark.parametrize("text", ["I meant Tuesday", "sorry I meant the 5th", "I meant Monday morning"])
def test_a_day_after_i_meant_is_no_name(text):
    assert hear(text, "dob").name is None


@pytest.mark.parametrize(("heard", "question", "letters"), [
    ("Sorry, I meant Lopez LOP-EZ.", "confirm", "LOPEZ"),     # the letters written as a word, broken at a pause
    ("No, it's Nguyen, NGUYEN.", "confirm", "NGUYEN"),
    ("the surname is Doe, DOE", "confirm", "DOE"),
    ("John Smyth, SMY-TH", "full_name", "SMYTH"),
    # the name said bent, then spelled: the letters sound like the word before them
    ("Oh, my surname is actually Ed Eyer, IYER.", "confirm_details", "IYER"),
    ("It's actually Smith, SMYTH.", "confirm_details", "SMYTH"),
    ("Clark, CLARKE", "last_name", "CLARKE"),
    ("sorry, my surname is Mensa, MENSAH", "dob", "MENSAH"),
])
def test_a_name_spelled_right_after_it_in_capitals_is_letters(heard, question, letters):
    utterance = hear(heard, question)
    assert utterance.spelled == letters
    assert utterance.name is None or "-" not in (utterance.name.last or "")   # never a second name "Lop-Ez"


@pytest.mark.parametrize(("heard", "first", "last"), [
    ("It's Van and Nguyen.", "Van An", "Nguyen"),
    ("Mary and Smith", "Mary An", "Smith"),
    ("it's Thi and Tran", "Thi An", "Tran"),
    ("Van and Deng", "Van An", "Deng"),        # a surname in no list
])
def test_a_short_name_syllable_between_names_written_and_is_part_of_the_name(heard, first, last):
    assert hear(heard, "full_name").name == PersonName(first, last)


@pytest.mark.parametrize(("heard", "first", "last"), [
    ("Jane, and Doe is my surname", "Jane", None),        # a pause before "and"
    ("It's John and my surname is Doe", None, "Doe"),     # "and" before ordinary words
    ("Tom and Jerry", "Tom", None),                       # before a name only ever given: two people
])
def test_and_joining_a_name_to_ordinary_words_stays_a_word(heard, first, last):
    name = hear(heard, "full_name").name
    assert name == PersonName(first, last) and "An" not in (name.first or "")


@pytest.mark.parametrize("heard", ["I'm with the NHS", "my GP said so", "it's Lee, LAMB"])
def test_capitals_that_do_not_spell_the_word_before_stay_words(heard):
    assert hear(heard, "confirm").spelled is None


@pytest.mark.parametrize(("text", "letters"), [
    ("O stroke D E G A A R D", "ODEGAARD"),                    # a letter's mark said after it
    ("O with a line through it, D E G A A R D", "ODEGAARD"),
    ("M U umlaut L L E R", "MULLER"),
    ("N U N E Z with an accent on the U", "NUNEZ"),
    ("G A R C I A, with an accent on the I", "GARCIA"),        # "a" before the mark is a letter, not an article
    ("Z O E with two dots on top", "ZOE"),
    ("I B A N E Z, N with a tilde", "IBANEZ"),                 # which letter has the mark: no letter more
])
def test_a_letters_mark_said_with_a_spelling_is_no_letter_and_no_name(text, letters) -> None:
    heard = hear(text, "spell_last")
    assert heard.spelled == letters
    assert heard.name is not None and heard.name.last.upper() == letters and heard.name.first is None


def test_a_name_said_then_spelled_keeps_the_spelling_not_its_opening_written_as_letters() -> None:
    heard = hear("O, D, Guard, O, Stroke, D, E, G, A, A, R, D.", "spell_last")
    assert heard.spelled == "ODEGAARD" and heard.name == PersonName(first=None, last="Odegaard")
    assert hear("J O, J O N E S", "spell_first").spelled == "JO JONES"   # two parts spelled stay two


@pytest.mark.parametrize(("heard", "spelled"), [
    ("H, A, R, R, I, S, H, A, R, R, I, S", "HARRIS"),                   # said twice over
    ("S, M, I, T, H, S, M, I, T", "SMITH"),                            # the second copy cut short
    ("H, U, G, H, E, F, H, U, G, H, E, F, U, G, H, E, F", "HUGHES"),  # a loop, its copies missing a letter, an S as F
    ("W A L K E R W A L K E R W A L", "WALKER"),
])
def test_a_spelling_written_over_and_over_is_the_spelling_once(heard, spelled) -> None:
    assert hear(heard, "spell_last").spelled == spelled


@pytest.mark.parametrize("name", ["B A R B A R A", "H A N R A H A N", "G I O R G I O"])
def test_a_name_people_have_that_repeats_itself_is_spelled_whole(name) -> None:
    assert hear(name, "spell_last").spelled == name.replace(" ", "")


@pytest.mark.parametrize(("said", "surname"), [
    ("Sure, it's Say Lefèvre.", "Lefèvre"),   # a given name written as an ordinary word, then the surname
    ("It's been Taylor.", "Taylor"),
    ("it's just Okafor, thanks", "Okafor"),
    ("this is about Nguyen", "Nguyen"),
    ("Yeah, it's all of you Smith.", "Smith"),   # a given name written as several ordinary words
    ("it's on the Roe", "Roe"),
    ("it's all of us Patel", "Patel"),
])
def test_a_surname_after_an_ordinary_word_is_kept_when_the_full_name_is_asked(said, surname):
    assert hear(said, "full_name").name == PersonName(first=None, last=surname)


@pytest.mark.parametrize(("said", "waiting_for"), [
    ("it's not Taylor", "full_name"),       # a name denied is never given
    ("it is about time", "full_name"),      # no name word
    ("it's too late", "full_name"),
    ("It's been Taylor.", "intent"),        # no name asked
    ("it's for my son, Taylor", "full_name"),   # a pause: a name said apart, not the end of the answer
    ("it's not for me Taylor", "full_name"),
    ("it's about the booking for Taylor", "full_name"),   # more ordinary words than a given name is written as
])
def test_no_surname_is_taken_from_an_ordinary_word_and_a_word_that_is_no_name(said, waiting_for):
    name = hear(said, waiting_for).name
    assert name is None or name.last is None


def _catalog_with_a_park_site():
    from appliance.domain import Catalog, Location

    from .hearing import CATALOG
    return Catalog(services=CATALOG.services, practitioners=CATALOG.practitioners,
                   locations=(*CATALOG.locations, Location("park", "Elm Park", "1 Elm Rd")))


@pytest.mark.parametrize(("said", "first", "last"), [
    ("the name's Wei Park", "Wei", "Park"),    # one word of a site's name of two is a surname where a name is asked
    ("Sione Park", "Sione", "Park"),
    ("it's Jane Elm", "Jane", "Elm"),
])
def test_a_surname_that_is_one_word_of_a_sites_name_is_a_name_where_the_name_is_asked(said, first, last):
    assert hear(said, "full_name", catalog=_catalog_with_a_park_site()).name == PersonName(first, last)


def test_a_sites_name_said_whole_is_no_name():
    name = hear("it's Jane, at Elm Park", "full_name", catalog=_catalog_with_a_park_site()).name
    assert name == PersonName("Jane", None)


@pytest.mark.parametrize("said, first, last", [
    ("Jane Kelly, with a K... sorry, no, it's Kelley, K E L L E Y", "Jane", "Kelley"),
    ("John Smith, sorry, Smyth, S M Y T H", "John", "Smyth"),
    ("Mary Jones, no sorry, Mary Johns", "Mary", "Johns"),
    ("It's Anna Doe, sorry, no, Roe", "Anna", "Roe"),
    ("Jon, sorry, John Doe", "John", "Doe"),
])
def test_a_name_put_right_in_the_same_answer_is_the_name_put_right(said, first, last):
    assert hear(said, "full_name").name == PersonName(first=first, last=last)


@pytest.mark.parametrize("said", ["Jane Doe, no middle name", "It's Jane Doe. Sorry, I'm a bit flustered",
                                  "no, it's Jane Doe", "Jane Doe, not Roe"])
def test_a_name_not_taken_back_stands(said):
    assert hear(said, "full_name").name == PersonName(first="Jane", last="Doe")


@pytest.mark.parametrize("said", ["Kia ora, it's Jane Doe here, nineteenth of August seventy-two, I need to book",
                                  "born in nineteen seventy two, I think"])
def test_the_end_of_a_number_before_a_pronoun_is_no_letter_doubled(said):
    assert hear(said, "confirm").letter_edits == ()


@pytest.mark.parametrize("text, letters", [
    ("D-A-W-I-T, Dawit. Dorne, D-O-R-N-E.", "DAWIT DORNE"),
    ("D U B O I F, Duboif", "DUBOIF"),
])
def test_letters_said_beside_the_same_word_are_kept_as_spelled(text, letters):
    assert hear(text, "spell_last").spelled == letters


@pytest.mark.parametrize("said", ["Yeah hi, this is Jane — Jane Doe, not my mother", "it's Jane, Jane Doe",
                                  "this is Jane um Jane Doe"])
def test_a_given_name_said_twice_as_the_caller_starts_over_is_said_once(said):
    name = hear(said).name
    assert (name.first, name.last) == ("Jane", "Doe")


@pytest.mark.parametrize("said, first, last", [
    ("her name's Jane Doe, oh sorry, no, it's Roe now, Jane Roe", "Jane", "Roe"),
    ("Jane Doe— sorry, it's hyphenated, Doe-Roe. Jane Doe-Roe.", "Jane", "Doe-Roe"),
    ("Jane Doe, sorry, it's Roe now", "Jane", "Roe"),
])
def test_the_whole_name_said_last_after_taking_one_back_is_the_name(said, first, last):
    name = hear(said, "full_name").name
    assert (name.first, name.last) == (first, last)


@pytest.mark.parametrize("text, first, last", [
    # a short given name put right after "well": the name said after
    ("Jess... well, Jessica, for the forms. Jessica Whareaitu.", "Jessica", "Whareaitu"),
    ("It's Kate, well, Katherine Roe", "Katherine", "Roe"),
    ("Bill, well William, William Doe", "William", "Doe"),
    ("Rob... well, Robert, Robert Doe", "Robert", "Doe"),
    # "well" as a filler leaves the name
    ("Well, it's Jane Doe", "Jane", "Doe"), ("Jane Doe, well, that's my name", "Jane", "Doe"),
    ("Jane, well, Jane Doe", "Jane", "Doe"),
])
def test_a_name_put_right_after_well(text, first, last):
    name = hear(text, "full_name").name
    assert (name.first, name.last) == (first, last)

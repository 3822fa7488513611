"""Dates of birth, spoken and written."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from .hearing import hear

DOBS = [
    ("fourth of March eighty five", date(1985, 3, 4)),
    ("the 4th of March 1985", date(1985, 3, 4)),
    ("March fourth nineteen eighty five", date(1985, 3, 4)),
    ("march 4th, 1985", date(1985, 3, 4)),
    ("11/30/1972", date(1972, 11, 30)), ("11-slash, 30-slash, 1972", date(1972, 11, 30)),
    ("July 40th, 2002", date(2002, 7, 14)), ("6th Flash, 15th Flash, 1988", date(1988, 6, 15)),  # speech-to-text wrote "fourteenth" as "40th"
    ("04/03/1985", date(1985, 3, 4)),
    ("4.3.85", date(1985, 3, 4)),
    ("1985-03-04", date(1985, 3, 4)),
    ("June 2nd, 1979", date(1979, 6, 2)),
    ("2 June 79", date(1979, 6, 2)),
    ("twenty first of may two thousand and one", date(2001, 5, 21)),
    ("the third of july sixty", date(1960, 7, 3)),
    ("eighteenth of June sixty nine", date(1969, 6, 18)),
    ("second of October ninety nine", date(1999, 10, 2)),
    ("first of December 1958", date(1958, 12, 1)),
    ("23rd of September 1979", date(1979, 9, 23)),
    ("September 25th, 1966", date(1966, 9, 25)),
    ("12 September 1994", date(1994, 9, 12)),
    ("the fifth of march twenty ten", date(2010, 3, 5)),
    ("first of jan oh five", date(2005, 1, 1)),
    ("it's the 31st of january nineteen eighty six", date(1986, 1, 31)),
    ("um, it's March the fourth, 1985", date(1985, 3, 4)),
    ("the fourth of the third eighty five", date(1985, 3, 4)),
    ("4 3 85", date(1985, 3, 4)),
    ("august 3rd 1959", date(1959, 8, 3)),
    ("the 9th of January 2001", date(2001, 1, 9)),
    ("nineteenth of november twenty twenty", date(2020, 11, 19)),
    ("oh four oh three eighty five", date(1985, 3, 4)),
    ("zero four zero three nineteen eighty five", date(1985, 3, 4)),
    ("twelve oh five ninety", date(1990, 5, 12)),
]


@pytest.mark.parametrize(("text", "born"), DOBS)
def test_dob_when_asked(text: str, born: date) -> None:
    assert hear(text, "dob").dob == born


def test_month_first_in_the_us() -> None:
    assert hear("04/03/1985", "dob").dob == date(1985, 3, 4)
    assert hear("04/03/1985", "dob", region="US").dob == date(1985, 4, 3)
    assert hear("6/15/1988", "dob", region="AU").dob == date(1988, 6, 15)  # unambiguous either way


@pytest.mark.parametrize("text", [
    "fourth of March",              # no year
    "the fourth of December twenty thirty",   # in the future
    "31st of February 1990",        # no such day
    "I'm not a patient, I'm calling from Local Search Pro",
    "uh, hmm, the, the one, yeah",
    "first of January 1850",        # before 1900
    "the 26th",
])
def test_no_dob(text: str) -> None:
    assert hear(text, "dob").dob is None


@pytest.mark.parametrize("text", ["19 0 246", "190 246", "1 9 0 2 4 6", "it's 19 02 4 6, thanks", "19 0 2 1946",
                                  "1 90 246"])
def test_a_date_said_digit_by_digit_in_the_transcribers_own_groups(text: str) -> None:
    assert hear(text, "dob").dob == date(1946, 2, 19)


def test_digits_said_one_by_one_follow_the_regions_order() -> None:
    assert hear("0 3 1 5 8 4", "dob", region="US").dob == date(1984, 3, 15)
    assert hear("031 584", "dob", region="US").dob == date(1984, 3, 15)
    assert hear("0 3 1 5 8 4", "dob").dob == date(1984, 3, 15)   # no fifteenth month: unambiguous anywhere
    assert hear("0 4 0 3 8 5", "dob").dob == date(1985, 3, 4)
    assert hear("0 4 0 3 8 5", "dob", region="US").dob == date(1985, 4, 3)


@pytest.mark.parametrize("text", ["0491 577 127", "12 34", "1 2 3 4 5", "2 0 4 6 8 1 0"])
def test_digit_runs_of_other_lengths_are_no_date(text: str) -> None:
    assert hear(text, "dob").dob is None


def test_two_digit_years_take_the_past_century() -> None:
    assert hear("first of jan twenty five", "dob").dob == date(2025, 1, 1)
    assert hear("first of dec twenty six", "dob").dob == date(1926, 12, 1)  # Dec 2026 is still to come


def test_dob_needs_to_be_asked_or_marked() -> None:
    assert hear("fourth of March eighty five", "intent").dob is None
    assert hear("my date of birth is the fourth of March eighty five", "intent").dob == date(1985, 3, 4)
    assert hear("I was born on the 4th of March 1985", "full_name").dob == date(1985, 3, 4)
    assert hear("DOB 04/03/1985", "intent").dob == date(1985, 3, 4)


def test_dob_in_a_correction() -> None:
    utterance = hear("actually it's the fifth of March eighty five", "confirm")
    assert utterance.dob == date(1985, 3, 5)
    assert utterance.window is None  # the birthday is not a time preference


@pytest.mark.parametrize(("text", "born"), [
    ("January 19, 1917", date(1970, 1, 19)),        # Whisper's "nineteen seventy"
    ("2 June, 1779", date(1979, 6, 2)),             # "nineteen" heard as "seventeen"
    ("6-lash 15-lash 1988", date(1988, 6, 15)),     # "slash" heard as "lash"
    ("3rd of February, 1919", date(1990, 2, 3)),    # and "nineteen ninety"
    ("1/19/1913", date(1930, 1, 19)),
    ("4 3 1915", date(1950, 4, 3)),
    ("oh four oh three nineteen sixteen", date(1960, 4, 3)),
    ("the 2nd of May 1921", date(1921, 5, 2)),      # old, but a caller could be 105
    ("the 2nd of May 1912", date(1912, 5, 2)),      # no "-ty" year sounds like it
])
def test_a_teen_year_no_caller_could_be_born_in_is_the_ty_year_it_sounds_like(text: str, born: date) -> None:
    assert hear(text, "dob", region="US").dob == born


@pytest.mark.parametrize(("said", "born"), [
    ("Fourteen, two, nineteen seventy-five", date(1975, 2, 14)),
    ("fourteen two nineteen seventy five", date(1975, 2, 14)),
    ("twelve, six, nineteen eighty", date(1980, 6, 12)),
    ("three, eleven, two thousand and two", date(2002, 11, 3)),
])
def test_a_day_or_month_said_as_one_word_before_a_whole_year(said, born) -> None:
    assert hear(said, "dob").dob == born


@pytest.mark.parametrize(("heard", "born"), [
    ("June 1442.", date(1942, 6, 14)),        # "June fourteenth, forty-two", the ordinal's ending lost
    ("born March 0367", date(1967, 3, 3)),
    ("it's October 2158", date(1958, 10, 21)),   # a year still to come is no year of birth either
    ("Sept 3001", date(2001, 9, 30)),
    ("July 4-05", date(2005, 7, 4)),           # ... or joined by a hyphen
    ("June 16-92", date(1992, 6, 16)),
    ("March 3rd-85", date(1985, 3, 3)),
    ("it's December 25-71, thanks", date(1971, 12, 25)),
])
def test_a_day_and_two_digit_year_run_together_after_the_month(heard, born) -> None:
    assert hear(heard, "dob", region="US").dob == born
    assert hear(heard, "dob", region="GB").dob == born


@pytest.mark.parametrize("heard", ["June 1986", "the 3rd of June 1442", "June 2005"])
def test_a_month_and_a_year_a_caller_could_have_are_left_as_heard(heard) -> None:
    assert hear(heard, "dob", region="US").dob is None


def test_a_one_word_day_and_month_before_a_two_digit_year_is_too_loose_to_be_a_date() -> None:
    assert hear("four two eighty five", "dob").dob is None


@pytest.mark.parametrize(("said", "region", "born"), [
    ("100866", "GB", date(1966, 8, 10)),          # day first where the region writes it so
    ("100866", "US", date(1966, 10, 8)),          # month first in the US
    ("042499", "GB", date(1999, 4, 24)),          # no 24th month: the other order
    ("It's 260392", "AU", date(1992, 3, 26)),
    ("26-0392", "GB", date(1992, 3, 26)),         # split where the voice paused
    ("0826-51", "US", date(1951, 8, 26)),
    ("0 6-0 4-66", "GB", date(1966, 4, 6)),
    ("06041966", "GB", date(1966, 4, 6)),         # a whole year at the end
    ("O82651", "US", date(1951, 8, 26)),          # an "oh" written as a letter, then the run
    ("31-flesh-7-flesh-1958", "GB", date(1958, 7, 31)),
    ("31st-7st-7st-1958.", "GB", date(1958, 7, 31)),       # one part written twice by a looping decoder
    ("4 3 3 1985", "AU", date(1985, 3, 4)),
    ("12th, 6th, 6th, 1971", "GB", date(1971, 6, 12)),
    # a one-digit day or month run into a two-digit one, then the year: the one split that makes a date
    ("189-1969", "GB", date(1969, 9, 18)),
    ("1891969", "AU", date(1969, 9, 18)),
    ("3121980", "GB", date(1980, 12, 3)),         # 31/2 is no date
    ("3121980", "US", date(1980, 3, 12)),
])
def test_a_date_said_as_digit_groups_and_written_as_one_run_of_digits(said, region, born) -> None:
    assert hear(said, "dob", region=region).dob == born


@pytest.mark.parametrize("said", ["2111975"])   # 2/11 or 21/1: no guess
def test_a_run_of_digits_that_splits_into_two_dates_is_no_date(said) -> None:
    assert hear(said, "dob", region="GB").dob is None


@pytest.mark.parametrize("said", ["1985-03-04", "10 08 66", "4 3 85"])
def test_a_date_already_in_three_groups_is_read_as_said(said) -> None:
    assert hear(said, "dob").dob is not None
    assert hear("1985-03-04", "dob").dob == date(1985, 3, 4)


@pytest.mark.parametrize("said", ["0424199", "12345", "1 2 3 4 5 6"])
def test_a_run_of_digits_that_is_no_date_stays_unheard(said) -> None:
    assert hear(said, "dob").dob is None


def test_a_run_of_digits_is_a_date_only_where_a_date_of_birth_is_asked() -> None:
    assert hear("100866", "phone").dob is None


@pytest.mark.parametrize("said", ["sorry, let me say that again, January 29th 55", "sorry, January 29th 1955",
                                  "I'll say it again: the 29th of January 1955", "let me repeat that, 29/1/1955"])
def test_a_date_of_birth_said_over_at_a_read_back_is_a_date_of_birth_not_a_day(said) -> None:
    heard = hear(said, "confirm", region="US")
    assert heard.dob == date(1955, 1, 29) and heard.window is None


@pytest.mark.parametrize(("said", "born"), [
    ("Oh, my mistake. I meant 10 slash 31, slash 1900, 97.", date(1997, 10, 31)),
    ("sorry, it's the 4th of May 1900 and 84", date(1984, 5, 4)),
    ("no, October 31st, 1900-97", date(1997, 10, 31)),
    ("actually the 2nd of June 1900, 70", date(1970, 6, 2)),
])
def test_a_year_said_as_its_century_then_its_decade_in_a_correction_at_the_details_read_back(said, born) -> None:
    assert hear(said, "confirm_details", region="US").dob == born


@pytest.mark.parametrize(("heard", "region", "born"), [
    ("18-784", "US", date(1984, 7, 18)),
    ("29-659.", "GB", date(1959, 6, 29)),
    ("5-385", "US", date(1985, 3, 5)),        # day first, as the ordinals were said, in a month-first region too
    ("the 1st-101", "AU", date(2001, 1, 1)),
])
def test_two_ordinals_and_a_year_written_with_the_month_run_into_the_year(heard, region, born) -> None:
    assert hear(heard, "dob", region=region).dob == born


def test_a_date_in_this_year_at_a_read_back_is_no_date_of_birth() -> None:
    heard = hear("no, the 26th of November 2026", "confirm")
    assert heard.dob is None and heard.window is not None


@pytest.mark.parametrize(("heard", "born"), [
    ("Free April 1970.", date(1970, 4, 3)),              # a 'th' heard as 'f'
    ("the free of May 1980", date(1980, 5, 3)),
    ("it's the twenty-free of June 1990", date(1990, 6, 23)),
])
def test_three_written_free_in_a_date_of_birth_is_three(heard, born):
    assert hear(heard, "dob").dob == born


@pytest.mark.parametrize(("heard", "born"), [
    ("10-flash 0-7-flash 93.", date(1993, 7, 10)),     # slashes written as a word, a part said digit by digit
    ("10 Flash 0 7 Flash 93", date(1993, 7, 10)),
    ("0 4 slash 0 3 slash 85", date(1985, 3, 4)),
    ("27th slash 0, 4th slash 47.", date(1947, 4, 27)),    # a pause between the digits of a part
    ("31-flesh-7-flesh-1958", date(1958, 7, 31)),
])
def test_a_date_said_with_slashes_and_a_part_said_digit_by_digit(heard, born):
    assert hear(heard, "dob").dob == born


@pytest.mark.parametrize(("heard", "region", "born"), [
    ("Sorry, I got that wrong. It's 50-0163.", "AU", date(1963, 1, 15)),
    ("500163", "AU", date(1963, 1, 15)),
    ("40-0270", "GB", date(1970, 2, 14)),
    ("60, 11, 90", "AU", date(1990, 11, 16)),
    ("90-0482", "GB", date(1982, 4, 19)),
    ("it's 01 50 63", "US", date(1963, 1, 15)),
])
def test_a_teen_day_written_as_the_ty_number_no_date_can_start_with(heard, region, born):
    assert hear(heard, "dob", region=region).dob == born


@pytest.mark.parametrize(("heard", "born"), [("born in 1950", None), ("the 4th of March 1950", date(1950, 3, 4)),
                                             ("30-0855", date(1955, 8, 30)), ("50", None), ("1 90 246", date(1946, 2, 19))])
def test_a_ty_number_that_can_be_part_of_a_date_is_left_as_heard(heard, born):
    assert hear(heard, "dob").dob == born


def test_a_teen_day_said_with_a_one_digit_month():
    assert hear("60 5 85", "dob").dob == date(1985, 5, 16)


@pytest.mark.parametrize(("heard", "born"), [
    ("8th of 9th 1985", date(1985, 9, 8)),
    ("eighth of ninth eighty five", date(1985, 9, 8)),
    ("8th of 9th, 85", date(1985, 9, 8)),
    ("4th of 3rd, nineteen eighty five", date(1985, 3, 4)),
])
def test_a_day_and_month_said_as_ordinals_without_the_second_the(heard, born):
    assert hear(heard, "dob").dob == born


@pytest.mark.parametrize(("heard", "born"), [
    ("8th of September oh 5", date(2005, 9, 8)),
    ("the 8th of the 9th of 5.", date(2005, 9, 8)),
    ("the 3rd of the 2nd of 7", date(2007, 2, 3)),
    ("5th of June of 9", date(2009, 6, 5)),
    ("the eighth of September twenty oh 5", date(2005, 9, 8)),
])
def test_a_year_said_oh_and_a_digit_with_the_digit_written_as_a_numeral_or_the_oh_as_of(heard, born):
    assert hear(heard, "dob").dob == born


@pytest.mark.parametrize(("heard", "born"), [
    ("The 22nd of the 559.", date(1959, 5, 22)),    # "the twenty-second of the fifth fifty-nine"
    ("the 3rd of the 782", date(1982, 7, 3)),
    ("the 1st of the 1201", date(2001, 12, 1)),
    ("the 9th of the 1163", date(1963, 11, 9)),
])
def test_a_month_said_as_an_ordinal_run_into_a_two_digit_year(heard, born) -> None:
    assert hear(heard, "dob").dob == born


@pytest.mark.parametrize(("heard", "region", "born"), [
    # an ordinal's ending written apart after a hyphen
    ("3-th-23-1984", "US", date(1984, 3, 23)),
    ("3-rd-23-th-1984", "US", date(1984, 3, 23)),
    ("23-rd-3-1984", "GB", date(1984, 3, 23)),
    ("12-th-12-95", "GB", date(1995, 12, 12)),
    ("the 5-th of the 11-th 1979", "GB", date(1979, 11, 5)),
    # two ordinals, the second "the" written "a"
    ("The 11th of a 2nd 44.", "GB", date(1944, 2, 11)),
    ("the 3rd of a 4th, 82", "GB", date(1982, 4, 3)),
    ("21st of a 12th 1990", "GB", date(1990, 12, 21)),
    ("the first of a sixth, seventy", "GB", date(1970, 6, 1)),
    ("4-th of July 1976", "US", date(1976, 7, 4)),
    # three numbers, a day or month among them said as an ordinal
    ("3rd 23rd 1984", "US", date(1984, 3, 23)),
    ("3 23rd 1984", "US", date(1984, 3, 23)),
    ("on the 3rd, 23, 84", "US", date(1984, 3, 23)),
    ("the 14th, 7, 1976", "GB", date(1976, 7, 14)),
    # a year said "nineteen hundred and" its last two digits
    ("March 23rd, 1900 and 84", "US", date(1984, 3, 23)),
    ("3-th-23-th-1900-84.", "US", date(1984, 3, 23)),
    ("the 4th of July, 1900, 76", "GB", date(1976, 7, 4)),
    ("4th of July 1900 and 76", "GB", date(1976, 7, 4)),
    # an "oh" written as the start of an Irish name before the digits
    ("O'616-72.", "US", date(1972, 6, 16)),
    ("O'4, O'3, 85", "GB", date(1985, 3, 4)),
    # a date said with slashes, its day written as a word or a slash as "SF"
    ("Sixth Flash, 2-SF-1986.", "GB", date(1986, 2, 6)),
    ("Free-slash 11-slash 1972.", "GB", date(1972, 11, 3)),
    ("twenty-first slash 3 slash 68", "GB", date(1968, 3, 21)),
    ("5 slash 14-SF-1990", "US", date(1990, 5, 14)),
    ("9th last 6th last 2003.", "AU", date(2003, 6, 9)),
    ("28th last 0, 6th last 68.", "GB", date(1968, 6, 28)),
    # ... and with one slash written as a hyphen, or its digits with a point between
    ("7-9-slash 2006", "AU", date(2006, 9, 7)),
    ("11-0-4-slash-99.", "GB", date(1999, 4, 11)),
    ("7th slash 9-2006", "GB", date(2006, 9, 7)),
    ("0.9 slash 0.2 slash 47.", "AU", date(1947, 2, 9)),
    # a date said digit by digit whose leading "oh" is written as a letter apart
    ("Hang on, I mixed it out. It's a 10268.", "US", date(1968, 1, 2)),
    ("It's o 3 0 4 85.", "GB", date(1985, 4, 3)),
    ("a 6 0 9 72", "GB", date(1972, 9, 6)),
    ("O 1 0 2 68", "US", date(1968, 1, 2)),
])
def test_ordinals_years_and_ohs_the_transcriber_writes_apart_or_strangely(heard, region, born) -> None:
    assert hear(heard, "dob", region=region).dob == born


@pytest.mark.parametrize("heard", ["a 4th of July baby, 1976", "Oh, the 3rd of May 1980", "I was born in a 1980"])
def test_an_a_or_oh_before_words_is_no_zero(heard) -> None:
    assert hear(heard, "dob", region="GB").dob in (None, date(1976, 7, 4), date(1980, 5, 3))


@pytest.mark.parametrize(("heard", "born"), [
    ("The 19th of the 11th 17th.", date(2017, 11, 19)),   # which of 17 and 70 was meant the record says
    ("5th of the 12th, 80th", date(1980, 12, 5)),
    ("the 2nd, 7th, 90th", date(1990, 7, 2)),
    ("14th of May, 70th", date(1970, 5, 14)),
])
def test_a_two_digit_year_written_with_the_ordinal_ending_of_the_day_before_it(heard, born):
    assert hear(heard, "dob").dob == born


@pytest.mark.parametrize("heard", ["the 21st of the 3rd 1984", "the 4th of the 6th 06"])
def test_a_year_without_an_ordinal_ending_reads_as_before(heard):
    assert hear(heard, "dob").dob is not None


@pytest.mark.parametrize(("heard", "region", "born"), [
    ("26. 11.66.", "US", date(1966, 11, 26)),   # a full stop after the day, another inside month and year
    ("04. 03. 85.", "GB", date(1985, 3, 4)),
    ("It's 12. 5. 1990.", "GB", date(1990, 5, 12)),
    ("3. 14.72", "US", date(1972, 3, 14)),
])
def test_a_date_in_three_groups_with_full_stops_between_them_is_read_as_that_date(heard, region, born):
    assert hear(heard, "dob", region=region).dob == born


@pytest.mark.parametrize("heard", ["29th of August 1900", "the 8th of September 1905", "3 May 1890"])
def test_a_year_of_birth_older_than_anyone_living_is_no_date_of_birth(heard):
    assert hear(heard, "dob").dob is None


@pytest.mark.parametrize(("heard", "born"), [("the 2nd of June 1921", date(1921, 6, 2)),
                                             ("4th of March 1985", date(1985, 3, 4))])
def test_a_year_of_birth_a_living_person_can_have_is_kept(heard, born):
    assert hear(heard, "dob").dob == born


@pytest.mark.parametrize(("heard", "born"), [
    ("29th of August, 1900 and 77th.", date(1977, 8, 29)),   # the decade with the day's ordinal ending
    ("the 4th of May 1900-84th", date(1984, 5, 4)),
    ("3rd June 1900 and 52nd", date(1952, 6, 3)),
])
def test_a_year_said_as_its_century_then_its_decade_with_an_ordinal_ending(heard, born):
    assert hear(heard, "dob").dob == born


@pytest.mark.parametrize(("heard", "born"), [
    ("4 May 24, 1944", date(1944, 5, 24)),       # "born" written as the number it sounds like
    ("4 June 3rd, 1980", date(1980, 6, 3)),
    ("Four, March 12th 90", date(1990, 3, 12)),
    ("4 December 19th 62", date(1962, 12, 19)),
])
def test_born_written_four_before_a_date_said_month_first(heard, born):
    assert hear(heard, "dob", region="US").dob == born


@pytest.mark.parametrize(("heard", "born"), [
    ("4 May 1924", date(1924, 5, 4)),             # no day after the month: the 4 is the day
    ("the 4th of May 1990", date(1990, 5, 4)),
])
def test_a_day_before_a_month_with_no_day_after_it_stays_the_day(heard, born):
    assert hear(heard, "dob", region="US").dob == born


@pytest.mark.parametrize(("heard", "born"), [
    ("16th flash 0, 4th flash 0, 4.", date(2004, 4, 16)),    # a year said digit by digit, written apart
    ("16 flashes 0, 4 flashes 0, 4.", date(2004, 4, 16)),    # a slash written "flashes"
    ("3rd slash 0 9 slash 8 5", date(1985, 9, 3)),
])
def test_a_date_said_with_slashes_and_its_year_digit_by_digit(heard, born):
    assert hear(heard, "dob").dob == born


@pytest.mark.parametrize(("heard", "born"), [
    ("27-07-07-07", date(2007, 7, 27)),          # the month written three times: the last group is the year
    ("31st-7st-7st-1958", date(1958, 7, 31)),
    ("14 06 06 06 1971", date(1971, 6, 14)),
])
def test_a_part_of_a_date_a_looping_decoder_wrote_again_is_one_part(heard, born):
    assert hear(heard, "dob").dob == born


def test_a_date_whose_three_parts_are_alike_is_read_as_said():
    assert hear("03-03-03", "dob").dob == date(2003, 3, 3)


@pytest.mark.parametrize(("heard", "born"), [
    ("30th October 0-0.", date(2000, 10, 30)),    # "oh zero": the year's two digits written apart
    ("30th October 0 5", date(2005, 10, 30)),
    ("the 3rd of May 0-1", date(2001, 5, 3)),
    ("the 3rd of the 5th 0-0", date(2000, 5, 3)),
])
def test_a_two_digit_year_said_digit_by_digit_after_the_day_and_month(heard, born):
    assert hear(heard, "dob").dob == born


@pytest.mark.parametrize("said, born", [
    ("twenty-eighth of October, sixty-five. No, no, sixty-four, sorry. Sixty-four.", date(1964, 10, 28)),
    ("28/10/1965, sorry, 1964", date(1964, 10, 28)),
    ("5th of June 1970, no, 1971 I mean", date(1971, 6, 5)),
    ("the fourth of March 1985, no sorry the year is 1986", date(1986, 3, 4)),
    ("the 3rd of May 1980, no wait, the 4th of May 1980", date(1980, 5, 4)),
])
def test_a_date_of_birth_put_right_in_the_same_answer_is_the_one_put_right(said, born):
    assert hear(said, "dob").dob == born


@pytest.mark.parametrize("said", ["the 4th of March 85, that's right", "4th of March 1985 sorry"])
def test_a_date_of_birth_with_no_other_year_after_it_stands(said):
    assert hear(said, "dob").dob == date(1985, 3, 4)


@pytest.mark.parametrize("said, born", [
    ("it's Jane Doe, fifteenth of July ninety-one", date(1991, 7, 15)),
    ("yeah it's Jane Doe, 14/7/1979", date(1979, 7, 14)),
])
def test_a_date_of_birth_said_with_the_name_asked_for_is_taken(said, born):
    assert hear(said, "full_name").dob == born


def test_a_date_said_with_the_name_that_is_no_birth_date_is_not_taken():
    assert hear("Jane Doe, I'm booked on the 3rd of December", "full_name").dob is None


@pytest.mark.parametrize("said, born", [
    ("Fifty-eight. May the thirtieth.", date(1958, 5, 30)),
    ("Ninety-three. November the second.", date(1993, 11, 2)),
    ("1993, the 2nd of November", date(1993, 11, 2)),
    ("eighty-five, April third", date(1985, 4, 3)),
])
def test_a_date_of_birth_said_year_first(said, born):
    assert hear(said, "dob").dob == born


def test_a_date_with_a_long_past_year_said_with_the_callers_name_is_their_birth_date_not_a_day_wanted():
    utterance = hear("Hi, it's Jane Doe here, nineteenth of August seventy-two, I need to book a follow-up")
    assert utterance.dob == date(1972, 8, 19) and utterance.window is None


@pytest.mark.parametrize("said, born", [
    ("May twenty-ninth, no, sorry, twenty-eighth. May twenty-eighth, nineteen ninety.", date(1990, 5, 28)),
    ("May the 29th, sorry, the 28th, 1990", date(1990, 5, 28)),
    ("the 3rd of May, no, the 4th of May, eighty", date(1980, 5, 4)),
    ("It's the first of December, sixty-seven. First of the twelfth.", date(1967, 12, 1)),
])
def test_a_day_put_right_before_the_year_is_said(said, born):
    assert hear(said, "dob", region="US").dob == born


@pytest.mark.parametrize("said, born", [
    ("second of September, this year, twenty twenty-six.", date(2026, 9, 2)),
    ("the 3rd of March last year", date(2025, 3, 3)),
])
def test_a_babys_birth_date_said_this_year_or_last(said, born):
    assert hear(said, "dob", region="GB", now=datetime(2026, 12, 2, 14, 40)).dob == born


@pytest.mark.parametrize("said, born", [
    ("thirtieth of November, nineteen fifty-one. Today, as it happens", date(1951, 11, 30)),
    ("the 1st of December 1980, it's my birthday tomorrow actually", date(1980, 12, 1)),
    ("30/11/1962, today would you believe", date(1962, 11, 30)),
])
def test_the_day_of_a_birthday_said_with_the_date_of_birth_is_no_day_wanted(said, born):
    utterance = hear(said, "dob", region="NZ", now=datetime(2026, 11, 30, 9, 0))
    assert utterance.dob == born and utterance.window is None

"""The years a caller may have said when speech-to-text wrote another that sounds like it."""

from datetime import date

import pytest

from appliance.engine.tools.birth_dates import sound_alike_dates, sound_alike_days, sound_alike_years


@pytest.mark.parametrize(("heard", "said"), [
    (2017, (1970,)), (1970, (1917, 2017)), (1913, (1930,)), (1990, (1919, 2019)), (2019, (1990,)),
    (1985, ()), (2001, ()), (1920, ()), (1910, ()),
])
def test_a_teen_year_and_its_ty_twin(heard, said):
    assert sound_alike_years(heard, this_year=2026) == said


def test_no_twin_year_is_still_to_come():
    assert sound_alike_years(1940, this_year=2012) == (1914,)


def test_the_29th_of_february_has_no_twin_in_a_year_without_one():
    assert sound_alike_dates(date(1940, 2, 29), date(2026, 1, 1)) == ()


@pytest.mark.parametrize(("heard", "said"), [
    (8, (18,)), (18, (8,)), (4, (14,)), (19, (9,)), (13, (3, 30)), (30, (13,)), (3, (13,)),
    (1, ()), (2, ()), (10, ()), (11, ()), (12, ()), (20, ()), (24, ()), (31, ()),
])
def test_a_teenth_day_and_the_day_without_its_teen(heard, said):
    assert sound_alike_days(heard) == said


def test_a_day_twin_that_the_month_lacks_is_none():
    assert sound_alike_dates(date(1985, 2, 13), date(2026, 1, 1)) == (date(1985, 2, 3),)   # no 30th of February

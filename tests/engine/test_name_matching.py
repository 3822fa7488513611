"""Whether a given name heard is plainly another person's, not the one on file bent by speech-to-text."""

from __future__ import annotations

import pytest

from appliance.engine.tools.name_matching import plainly_another_given_name


@pytest.mark.parametrize(("on_file", "heard", "another"), [
    ("Min-jun", "Wei", True),          # two names people have, alike in nothing
    ("Sarah", "Michael", True),
    ("Sarah", "Zara", False),          # the same sound
    ("Sarah", "Sarahh", False),        # no name people have: a bent one
    ("Olivia", "All of you", False),   # common words for a name the transcriber did not know
    ("Katherine", "Kathryn", False),
    ("Sarah", None, False),
])
def test_a_given_name_plainly_heard_as_another(on_file, heard, another):
    assert plainly_another_given_name(on_file, heard) is another

"""The light stemmer retrieval and promotion compare words with: an inflected word meets its base."""
from __future__ import annotations

import pytest

from braniac.infra.textutil import stem


@pytest.mark.parametrize("word, base", [
    ("formatting", "format"), ("planned", "plan"), ("swimming", "swim"), ("shopping", "shop"),
    ("loving", "love"), ("loves", "love"), ("studies", "study"),
    # a doubled consonant of the word itself stays: fall, miss, buzz, add
    ("falling", "fall"), ("missed", "miss"), ("buzzing", "buzz"), ("added", "add"), ("staffed", "staff"),
])
def test_an_inflected_word_meets_its_base(word, base):
    assert stem(word) == stem(base)

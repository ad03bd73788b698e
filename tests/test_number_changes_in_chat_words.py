"""A number that changed, said the way people say it (issue 18, facts that change): "We cut the
wedding budget to 16,000", "scaled … back to 3,500", "I'm back up to 3 cups", "These days I run
15 km on Saturdays" (value_changes: verbs of change and hints)."""
from __future__ import annotations

import pytest

from braniac.infra import textutil
from braniac.vault.value_changes import replaced_for_the_question


@pytest.mark.parametrize("old, new, question", [
    ("Our wedding budget is 18,000.", "We cut the wedding budget to 16,000.", "What's our wedding budget?"),
    ("We raised the trip savings goal to 4,000.", "We scaled the trip savings goal back to 3,500.",
     "What's our savings goal for the trip?"),
    ("Cut down to 1 cup of coffee a day.", "I'm back up to 3 cups of coffee a day, work is crazy.",
     "How many cups of coffee do I drink a day?"),
    ("The gym opens at 7 am now.", "Good news, the gym is back to opening at 6:30 am.", "When does the gym open?"),
    ("I run 10 km every Saturday.", "These days I run 15 km on Saturdays.", "How far do I run on Saturdays?"),
    ("Our churn rate is 5% a month.", "Our churn rate dropped to 3% a month.", "What is our churn rate?"),
    ("The flat we're looking at has an asking price of 310,000.",
     "The seller dropped the asking price of the flat to 289,000.", "What's the asking price of the flat?"),
])
def test_a_number_changed_in_chat_words_replaces_the_older(old, new, question):
    assert replaced_for_the_question(old, new, textutil.terms(question))


@pytest.mark.parametrize("old, new, question", [
    ("Our wedding budget is 18,000.", "I cut my finger on 2 glasses while cleaning up after the wedding.",
     "What's our wedding budget?"),
    ("I run 10 km every Saturday.", "These days the park is full of 5 km fun runs on Saturdays.",
     "How far do I run on Saturdays?"),
    ("The gym opens at 7 am now.", "I went back to the gym at 6 pm.", "When does the gym open?"),
    ("I drink 2 cups of coffee a day.", "These days my sister drinks 4 cups of coffee a day.",
     "How many cups of coffee do I drink a day?"),
    ("I drink 2 cups of coffee a day.", "Now my sister drinks 4 cups of coffee a day.",   # a time, then whose
     "How many cups of coffee do I drink a day?"),
    # "dropped" a thing somewhere, not a value dropped to another
    ("My passport number is X1234567, it expires in 2031.",
     "I dropped my passport at the embassy for the visa, they said 2 weeks.", "When does my passport expire?"),
])
def test_a_number_near_those_words_that_is_not_the_things_is_no_change(old, new, question):
    assert not replaced_for_the_question(old, new, textutil.terms(question))

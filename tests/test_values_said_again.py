"""A value of the person's said again with no word of change (issue 18, facts that change):
"My rent is 1,100 a month" then "After the renegotiation my rent is 1,125", "New gym locker
PIN: 9082", "Yoga switched to 6:30 pm", "I'm starting work at 8 am these days". The newer
replaces the older for a question, and promotion's claim comparison reads it the same way."""
from __future__ import annotations

import pytest

from braniac.infra import measures, textutil
from braniac.vault.value_changes import replaced_for_the_question, replaces_claim


@pytest.mark.parametrize("old, new, question", [
    ("My rent is 1,100 a month.", "After the renegotiation my rent is 1,125.", "How much is my rent?"),
    ("Rent went up to 1,150.", "After the renegotiation my rent is 1,125.", "How much is my rent?"),
    ("My commute takes about 40 minutes by bus.", "Since the new metro line opened my commute is only 25 minutes.",
     "How long is my commute?"),
    ("My PIN for the gym locker is 4471.", "New gym locker PIN: 9082.", "What's my gym locker PIN?"),
    ("Yoga class is at 7 pm.", "Yoga switched to 6:30 pm.", "What time is yoga?"),
    ("I start work at 9 am.", "I'm starting work at 8 am these days to beat traffic.", "What time do I start work?"),
    # "now" before the thing's word says when, not which one ("the *design* team" would)
    ("My passport expires in August 2026.", "I renewed my passport, it now expires in August 2035.",
     "When does my passport expire?"),
    ("Book club meets at the Corner Cafe.", "Book club now meets at the library.", "Where does book club meet?"),
    # "is collected" says how the thing is, not an occasion that happened
    ("The recycling is collected on Wednesdays.", "From now on recycling pickup is on Fridays.",
     "When is recycling collected?"),
])
def test_a_value_said_again_replaces_the_older(old, new, question):
    assert replaced_for_the_question(old, new, textutil.terms(question), measures.asked(question))


@pytest.mark.parametrize("old, new, question", [
    ("My rent is 1,100 a month.", "My sister's rent is 1,125.", "How much is my rent?"),
    ("My rent is 1,100 a month.", "If my rent is 1,300 I'm moving out.", "How much is my rent?"),
    ("My rent is 1,100 a month.", "Is my rent 1,125 after the renegotiation?", "How much is my rent?"),
    ("My rent is 1,100 a month.", "My rent is 1,100 and the deposit is 2,200.", "How much is my rent?"),
    ("My flight is at 7.", "My flight is at 9 on Friday.", "When is my flight?"),
    ("Yoga class is at 7 pm.", "The pool switched to 6:30 pm.", "What time is yoga?"),
    ("I start work at 9 am.", "These days my wife starts work at 8 am.", "What time do I start work?"),
    ("My commute takes about 40 minutes by bus.", "My commute is 25 minutes by bike.", "How long is my commute?"),
    ("My score is 85 in chemistry.", "My score is 92 in physics.", "What is my score in chemistry?"),
    ("My score is 85 in chemistry.", "My score is 92.", "What is my score in chemistry?"),
    ("The design team meets in room 4.", "The sales team now meets in room 14.", "Where does the design team meet?"),
    ("My passport expires in August 2026.", "My sister's passport now expires in August 2030.",
     "When does my passport expire?"),
    ("The recycling was collected on Wednesday.", "From now on recycling pickup is on Fridays.",
     "When is recycling collected?"),
    ("The New York office has 40 people.", "New hires: 3 people start on Monday.", "How many people in the New York office?"),
])
def test_the_same_words_of_another_thing_or_not_said_as_now_are_no_change(old, new, question):
    assert not replaced_for_the_question(old, new, textutil.terms(question), measures.asked(question))


def test_promotion_reads_the_value_said_again_as_replacing_the_claim():
    # the two claims share one word ("commute"): the share of words alone would not compare them
    assert replaces_claim("2025-02-03 — My commute takes about 40 minutes by bus.",
                          "2025-02-19 — Since the new metro line opened my commute is only 25 minutes.")
    assert not replaces_claim("2025-02-03 — My commute takes about 40 minutes by bus.",
                              "2025-02-19 — My sister's commute is only 25 minutes.")

"""A value of the person's said again with no word of change (issue 18, facts that change):
"My rent is 1,100 a month" then "My rent is 1,125 now", "New gym locker PIN: 9082", "Yoga
switched to 6:30 pm", "I'm starting work at 8 am these days". The newer replaces the older for
a question, and promotion's claim comparison reads it the same way. Read strictly (vault/
said_again.py): a circumstance, a plan, another unit, another thing of the name, someone
else's, is no change (the controls below are from an adversarial review)."""
from __future__ import annotations

import pytest

from braniac.infra import measures, textutil
from braniac.vault.value_changes import replaced_for_the_question, replaces_claim


@pytest.mark.parametrize("old, new, question", [
    ("My rent is 1,100 a month.", "My rent is 1,125 a month now.", "How much is my rent?"),
    ("Rent went up to 1,150.", "Got the renegotiation through, so my rent is 1,125.", "How much is my rent?"),
    ("My commute takes about 40 minutes by bus.", "Since the new metro line opened my commute is only 25 minutes.",
     "How long is my commute?"),
    ("My PIN for the gym locker is 4471.", "New gym locker PIN: 9082.", "What's my gym locker PIN?"),
    ("The release date is March 3.", "New release date: March 17.", "When is the release date?"),
    ("My rent is 1,100 a month.", "Sorry, typo earlier: my rent is 1,010 a month.", "How much is my rent?"),
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
    # a circumstance, a plan, a maybe before the person's thing
    ("My rent is 1,100 a month.", "If we take the bigger flat, my rent is 1,450.", "How much is my rent?"),
    ("My rent is 1,100 a month.", "Starting next year my rent is 1,250.", "How much is my rent?"),
    ("My rent is 1,100 a month.", "My rent is 1,250 from next year.", "How much is my rent?"),
    ("On Mondays my commute is 40 minutes.", "On Fridays my commute is only 20 minutes.", "How long is my commute?"),
    ("My glucose is 95 fasting.", "After dinner my glucose is 140.", "What's my glucose?"),
    ("My commute takes about 40 minutes by bus.", "Once the metro line opens, my commute is 25 minutes.",
     "How long is my commute?"),
    # another unit, another thing of the name, the older saying something else of the thing
    ("My daughter is 7.", "My daughter is 125 cm, the tallest in her class.", "How old is my daughter?"),
    ("My mortgage is 1,850 a month.", "My mortgage is 25 years, fixed for the first five.", "How much is my mortgage?"),
    ("My weight is 84 kg.", "My goal weight is 78 kg.", "What's my weight?"),
    ("Rent is due on the 1st.", "My rent is 1,125.", "How much is my rent?"),
    ("Parking is free after 6 pm.", "My parking is 120 a month.", "How much is my parking?"),
    # "New" opening a count of additions, or someone else's
    ("Our book club has 8 members.", "New members: 2 joined tonight.", "How many members does our book club have?"),
    ("My PIN for the gym locker is 4471.", "New gym locker PIN: 5520, that's Emma's, not mine.", "What's my gym locker PIN?"),
    # "switched", "these days" away from the value, or someone else's
    ("Yoga class is at 7 pm.", "Bumped into Sara at yoga, she goes to the 9 am class.", "What time is yoga?"),
    ("Yoga class is at 7 pm.", "I switched to the yoga studio's app, it reminds me at 6 pm.", "What time is yoga?"),
    ("I start work at 9 am.", "At the bakery I had to start work at 5 am, nowadays I couldn't do that.",
     "What time do I start work?"),
    ("I start work at 9 am.", "These days Tom starts work at 7 am, poor guy.", "What time do I start work?"),
    # from a second adversarial review
    ("I start work at 9 am.", "I swear nobody starts work before 10 am these days.", "What time do I start work?"),
    ("Yoga class is at 7 pm.", "Ana switched to the 6:30 pm yoga class.", "What time is yoga?"),
    ("Monday yoga is at 7 pm.", "Thursday yoga switched to 6:30 pm.", "What time is Monday yoga?"),
    ("My rent is 1,100 a month.", "My rent is 13,200 a year.", "How much is my rent?"),
    # from a third adversarial review: a maybe, a trial or a while in the sentences around it
    ("Our rent is 1,100 a month.", "Our rent is 1,450 a month. That's the flat we saw today, if we take it.",
     "How much is our rent?"),
    ("My commute is 40 minutes.", "Tried the new job's route on Sunday as a test. My commute is 65 minutes.",
     "How long is my commute?"),
    ("Yoga is at 7 pm.", "Yoga hasn't switched to 6:30 pm yet.", "What time is yoga?"),
    ("Yoga is at 7 pm.", "Yoga will be switched to 6:30 pm from April.", "What time is yoga?"),
    ("I start work at 9 am.", "On Fridays, I start work at 7 am these days.", "What time do I start work?"),
    ("The New York office has 40 people.", "New hires: 3 people start on Monday.", "How many people in the New York office?"),
])
def test_the_same_words_of_another_thing_or_not_said_as_now_are_no_change(old, new, question):
    assert not replaced_for_the_question(old, new, textutil.terms(question), measures.asked(question))


def test_promotion_reads_the_value_said_again_as_replacing_the_claim():
    # the two claims share one word ("commute"): the share of words alone would not compare them
    older = "2025-02-03 — My commute takes about 40 minutes by bus."
    assert replaces_claim(older, "2025-02-19 — Since the new metro line opened my commute is only 25 minutes.")
    assert not replaces_claim(older, "2025-02-19 — My sister's commute is only 25 minutes.")
    assert not replaces_claim(older, "2025-02-19 — On the bike my commute is 25 minutes, but I still take the bus.")
    assert not replaces_claim("2025-02-03 — Rent is paid by standing order.", "2025-02-19 — My rent is 1,125.")

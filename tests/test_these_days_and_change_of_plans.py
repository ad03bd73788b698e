"""What the person does these days, and a plan said to have changed (issue 18, facts that
change): "We do our grocery shopping at Aldi these days", "Change of plans, Christmas will be in
Salzburg" (word_changes: _MY_WAY_NOW, _PLANS_CHANGED; a clause's first word qualifies nothing
across a comma). Someone else's, another occasion or a part of it is no change."""
from __future__ import annotations

import pytest

from braniac.infra import measures, textutil
from braniac.vault.value_changes import replaced_for_the_question, replaces_claim

CHRISTMAS = "We're spending Christmas in Vienna."


def _replaced(old: str, new: str, question: str) -> bool:
    return replaced_for_the_question(old, new, textutil.terms(question), measures.asked(question))


@pytest.mark.parametrize("old, new, question", [
    ("We buy groceries at Lidl.", "We do our grocery shopping at Aldi these days.", "Where do we buy groceries?"),
    (CHRISTMAS, "Change of plans, Christmas will be in Salzburg.", "Where are we spending Christmas?"),
    ("Pottery is on Tuesdays.", "Pottery class is on Thursdays now.", "When is pottery?"),   # the class is pottery itself
])
def test_these_days_or_a_change_of_plans_replaces_the_older(old, new, question):
    assert _replaced(old, new, question)


@pytest.mark.parametrize("old, new, question", [
    ("We buy groceries at Lidl.", "These days groceries at Aldi are cheaper.", "Where do we buy groceries?"),
    ("We buy groceries at Lidl.", "My mum buys her groceries at Aldi these days.", "Where do we buy groceries?"),
    (CHRISTMAS, "Change of plans for New Year, we'll be in Salzburg.", "Where are we spending Christmas?"),
    (CHRISTMAS, "Change of plans: Tom is spending Christmas in Salzburg.", "Where are we spending Christmas?"),
    (CHRISTMAS, "On second thought, Christmas dinner will be at my mum's.", "Where are we spending Christmas?"),
    # from a second adversarial review: whose plan, one evening, a detail, an opinion, someone else's
    (CHRISTMAS, "Ana wants a change of plans: Christmas at her place.", "Where are we spending Christmas?"),
    (CHRISTMAS, "Change of plans, I'll make the turkey for Christmas dinner myself.", "Where are we spending Christmas?"),
    ("I go to yoga on Mondays.", "On second thought, I'll skip yoga tonight.", "When do I go to yoga?"),
    ("We buy groceries at Lidl.", "I can't believe how expensive groceries at Aldi are these days.", "Where do we buy groceries?"),
    ("I read the news on the BBC app.", "I don't trust the news these days, it's all clickbait.", "Where do I read the news?"),
    ("We buy groceries at Lidl.", "These days my mum buys groceries at Aldi.", "Where do we buy groceries?"),
    # a word of its own before the thing's word: another thing of the name
    ("The choir meets in the church hall.", "The youth choir now meets in the school gym.", "Where does the choir meet?"),
    ("Swim lessons are on Saturdays.", "As for piano, lessons moved to Thursdays.", "When are swim lessons?"),
    # from a third adversarial review: a habit's one occasion, someone else's habit, how much
    ("Bins are collected on Wednesdays.", "Bin collection moved to Thursday this week because of the bank holiday.",
     "When are the bins collected?"),
    ("Ana goes to the gym in the mornings.", "I'm at the gym most evenings these days while Ana does her mornings.",
     "When does Ana go to the gym?"),
    ("We walk the dog in Monsanto park on Sundays.", "We're walking the dog a lot less these days, it's too hot.",
     "Where do we walk the dog?"),
    # a one-off parcel is no habit that a new arrangement replaces
    ("The parcel is delivered, it's with my neighbour.", "Parcels now go to the locker at the station.",
     "Where are my parcels delivered?"),
])
def test_someone_elses_another_occasion_or_a_part_of_it_is_no_change(old, new, question):
    assert not _replaced(old, new, question)


def test_promotion_reads_a_change_of_plans_as_replacing_the_claim():
    # one word in common ("Christmas"): the change of plans says the rest
    assert replaces_claim(f"2025-02-03 — {CHRISTMAS}", "2025-02-12 — Change of plans, Christmas will be in Salzburg.")
    assert not replaces_claim(f"2025-02-03 — {CHRISTMAS}",
                              "2025-02-12 — Change of plans: Tom is spending Christmas in Salzburg.")
    # one verb in common is no named thing; another's flight, or another team's tool, no renaming
    assert not replaces_claim("2025-02-03 — We decided to paint the bedroom blue.",
                              "2025-02-12 — Change of plans, we're painting the kitchen first.")
    assert not replaces_claim("2025-02-03 — We're flying to Lisbon with TAP.",
                              "2025-02-12 — Scratch that, Ana is flying with Ryanair, she found a cheaper fare.")
    assert not replaces_claim("2025-02-03 — We decided to use Postgres for the app.",
                              "2025-02-12 — Scratch that, the analytics team will use BigQuery.")
    # one weekend of a habit; another demo, the client's staying on its day
    assert not replaces_claim("2025-02-03 — The kids stay with Ana's parents on weekends.",
                              "2025-02-12 — Change of plans: the kids are staying with my parents this weekend.")
    assert not replaces_claim("2025-02-03 — The client demo is on Wednesday.", "2025-02-12 — Change of plans, the demo is on "
                              "Thursday for the sales team only; the client demo stays on Wednesday.")

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
])
def test_these_days_or_a_change_of_plans_replaces_the_older(old, new, question):
    assert _replaced(old, new, question)


@pytest.mark.parametrize("old, new, question", [
    ("We buy groceries at Lidl.", "These days groceries at Aldi are cheaper.", "Where do we buy groceries?"),
    ("We buy groceries at Lidl.", "My mum buys her groceries at Aldi these days.", "Where do we buy groceries?"),
    (CHRISTMAS, "Change of plans for New Year, we'll be in Salzburg.", "Where are we spending Christmas?"),
    (CHRISTMAS, "Change of plans: Tom is spending Christmas in Salzburg.", "Where are we spending Christmas?"),
    (CHRISTMAS, "On second thought, Christmas dinner will be at my mum's.", "Where are we spending Christmas?"),
])
def test_someone_elses_another_occasion_or_a_part_of_it_is_no_change(old, new, question):
    assert not _replaced(old, new, question)


def test_promotion_reads_a_change_of_plans_as_replacing_the_claim():
    # one word in common ("Christmas"): the change of plans says the rest
    assert replaces_claim(f"2025-02-03 — {CHRISTMAS}", "2025-02-12 — Change of plans, Christmas will be in Salzburg.")
    assert not replaces_claim(f"2025-02-03 — {CHRISTMAS}",
                              "2025-02-12 — Change of plans: Tom is spending Christmas in Salzburg.")

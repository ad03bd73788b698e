"""A thing parted with or left for another, in the words people type in a chat (issue 18, facts
that change): no "I" at the start ("Sold the Corolla and got a Kia Niro"), dropped for another
("We dropped Jira for Linear"), a role taken over from the one who held it ("Hannah took over as
project lead from Jonas"), the person's thing named as what it is ("My password manager is
LastPass"). vault/parting.gives_up."""
from __future__ import annotations

import re
from datetime import datetime, timezone

import pytest

from braniac.infra import clock
from braniac.vault import parting

SWITCHES = [
    ("I drive a Toyota Corolla.", "Sold the Corolla and got a Kia Niro.", "What car do I drive?", "Niro"),
    ("My password manager is LastPass.", "Migrated everything from LastPass to Bitwarden.",
     "What password manager do I use?", "Bitwarden"),
    ("We track bugs in Jira.", "We dropped Jira for Linear to track bugs.", "What do we track bugs in?", "Linear"),
    ("The project lead is Jonas.", "Hannah took over as project lead from Jonas.", "Who is the project lead?", "Hannah"),
]


@pytest.mark.parametrize("old, new, question, current", SWITCHES)
def test_a_switch_in_chat_words_gives_up_the_older_thing(old, new, question, current):
    assert parting.gives_up(old, new)


@pytest.mark.parametrize("old, new", [
    ("I drive a Toyota Corolla.", "Tom sold the Corolla he had."),                       # someone else's
    ("We track bugs in Jira.", "We dropped Jira tickets for the sprint review."),         # not for another thing
    ("The project lead is Jonas.", "Hannah took over the kitchen from Jonas for the party."),
    ("I live in Lisbon.", "Returned to Lisbon yesterday."),
    ("My password manager is LastPass.", "Should I migrate from LastPass to Bitwarden?"),
    ("My password manager is LastPass.", "If I migrated from LastPass to Bitwarden, would my vault survive?"),
])
def test_what_is_no_switch_of_the_older_thing_gives_nothing_up(old, new):
    assert not parting.gives_up(old, new)


@pytest.mark.parametrize("promoted", [False, True])
@pytest.mark.parametrize("old, new, question, current", SWITCHES)
def test_the_answer_gives_the_new_thing_first_and_the_old_as_history(vault, promoted, old, new, question, current):
    with clock.frozen(datetime(2025, 2, 3, 10, tzinfo=timezone.utc)):
        vault.remember(old)
    with clock.frozen(datetime(2025, 2, 20, 10, tzinfo=timezone.utc)):
        vault.remember(new)
    if promoted:
        with clock.frozen(datetime(2025, 2, 21, 10, tzinfo=timezone.utc)):
            vault.promote(force=True)
    with clock.frozen(datetime(2025, 2, 24, 10, tzinfo=timezone.utc)):
        answer = vault.ask(question).answer
    quoted = re.findall(r'^- "(.*)" \((.*)\)$', answer, re.M)
    assert quoted and current in quoted[0][0] and "superseded" not in quoted[0][1], answer
    assert all(source.endswith("superseded on 2025-02-20") for text, source in quoted if current not in text), answer


def test_a_note_keeps_the_switch_as_current_and_the_thing_left_as_history(vault):
    """Promotion compares the claims it writes by the same reading (value_changes.replaces_claim),
    though "My password manager is LastPass" and "Migrated everything from LastPass to
    Bitwarden" share no word but the name."""
    with clock.frozen(datetime(2025, 2, 3, 10, tzinfo=timezone.utc)):
        vault.remember("My password manager is LastPass.")
    with clock.frozen(datetime(2025, 2, 20, 10, tzinfo=timezone.utc)):
        vault.remember("Migrated everything from LastPass to Bitwarden.")
    with clock.frozen(datetime(2025, 2, 21, 10, tzinfo=timezone.utc)):
        vault.promote(force=True)
    notes = [p.read_text(encoding="utf-8") for p in (vault.ltm_root / "concrete").rglob("*.md") if p.name != "_index.md"]
    holding = [n for n in notes if "My password manager is LastPass" in n]
    assert holding, notes
    for note in holding:
        facts = note.split("## Facts", 1)[1].split("\n## ", 1)[0]
        assert "My password manager is LastPass" not in facts, note

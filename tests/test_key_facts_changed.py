"""A decision that changed (issue 18, "what did I decide about X"): short-term memory's Key Facts
& Decisions, which `orient` shows as the person's decisions and promotion records in the day's
digest, says what stands now and what it replaced until when, never the decision taken back
alone (vault/key_facts.py)."""
from __future__ import annotations

import re
from datetime import datetime, timezone

import pytest

from braniac.infra import clock
from braniac.vault import key_facts, stm

POSTGRES = "We decided to use Postgres as the database for the new app."
SQLITE = "Scratch that, we're going with SQLite as the database for the new app."


def _at(m, d, h=10):
    return clock.frozen(datetime(2025, m, d, h, tzinfo=timezone.utc))


def _key_facts(vault) -> list[str]:
    return [item.text for item in vault.read_stm().items(stm.FACTS)]


def _decided_then(vault, decided: str, said: str) -> tuple[list[str], list[str]]:
    """`decided` on March 3, `said` on March 20: the key facts after each."""
    with _at(3, 3):
        vault.remember(decided)
    before = _key_facts(vault)
    with _at(3, 20):
        vault.remember(said)
    return before, _key_facts(vault)


def _key_facts_section(vault) -> str:
    text = vault.stm_path.read_text(encoding="utf-8")
    return text.split("### Key Facts & Decisions", 1)[1].split("### Tasks", 1)[0]


def test_a_decision_changed_is_rewritten_as_what_stands_with_what_it_replaced(vault):
    with _at(3, 3):
        vault.remember(POSTGRES)
    assert _key_facts(vault) == ["use Postgres as the database for the new app"]
    with _at(3, 20):
        vault.remember(SQLITE)
    expected = ("Scratch that, we're going with SQLite as the database for the new app "
                "(was: use Postgres as the database for the new app until 2025-03-20)")
    assert _key_facts(vault) == [expected]
    with _at(3, 21):
        assert vault.orient().decisions == [expected]
        assert f"- {expected}" in vault.orient().as_markdown()


def test_a_decision_changed_twice_keeps_the_whole_chain(vault):
    with _at(3, 3):
        vault.remember(POSTGRES)
    with _at(3, 20):
        vault.remember(SQLITE)
    with _at(4, 2):
        vault.remember("I changed my mind again: we decided to use Postgres for the new app database after all, "
                       "SQLite can't take the writes.")
    [item] = _key_facts(vault)
    assert item.startswith("I changed my mind again: we decided to use Postgres for the new app database after all")
    assert item.endswith("(was: Scratch that, we're going with SQLite as the database for the new app until 2025-04-02; "
                         "use Postgres as the database for the new app until 2025-03-20)")
    assert key_facts.current(item) == ("I changed my mind again: we decided to use Postgres for the new app database "
                                       "after all, SQLite can't take the writes")


def test_a_change_of_mind_names_what_the_decision_was_about_in_its_first_sentence(vault):
    """The key fact is a clause that left its thing behind ("use cedar boards, not pine"): the
    sentence that stated it ("For the garden shed…") says what the change of mind is about."""
    with _at(5, 2):
        vault.remember("For the garden shed I decided to use cedar boards, not pine.")
    with _at(5, 9):
        vault.remember("Actually I changed my mind: the shed will be built from larch, cedar is too expensive.")
    assert _key_facts(vault) == ["Actually I changed my mind: the shed will be built from larch, cedar is too expensive "
                                 "(was: use cedar boards, not pine until 2025-05-09)"]


@pytest.mark.parametrize("said", [
    POSTGRES,                                                               # said again
    "Should we use SQLite as the database for the new app instead?",        # asked, not decided
    "The new app's logo is finally done, the designer nailed it.",          # another side of the app
    "I changed my mind about lunch: sushi instead of pizza.",               # another decision
    # a team's update pasted in, whose "on second thought" is theirs (an adversarial review's)
    "Pasting the design team's update: The icon set is finished. On second thought, the new app "
    "database migration of the design system can wait until fall. Thanks all.",
    # whose words follow is no greeting (a third review's)
    "Priya's update. Change of plans, the database for the new app will be SQLite.",
])
def test_what_does_not_change_a_decision_leaves_it_as_it_is(vault, said):
    with _at(3, 3):
        vault.remember(POSTGRES)
    before = _key_facts_section(vault)
    with _at(3, 20):
        vault.remember(said)
    assert _key_facts(vault)[0] == "use Postgres as the database for the new app"
    assert _key_facts_section(vault).startswith(before.rstrip("\n"))


def test_a_greeting_before_a_change_of_mind_still_opens_the_message(vault):
    _, after = _decided_then(vault, POSTGRES, "Hi! Scratch that, we're going with SQLite as the database for the new app.")
    assert after[0].startswith("Scratch that, we're going with SQLite"), after


def test_a_time_decided_then_changed_from_now_on_rewrites_the_decision(vault):
    _, after = _decided_then(vault, "We decided to hold the standup at 9:30.",
                             "Morning all! Change of plans: the standup is at 10 from now on.")
    assert after == ["Change of plans: the standup is at 10 from now on (was: hold the standup at 9:30 until 2025-03-20)"]


@pytest.mark.parametrize("decided, said", [
    # one occasion, a while, another thing keeping its day (a third review's)
    ("We decided to go to Braga for Easter.", "Change of plans, we're going to Porto tomorrow instead of Braga."),
    ("We decided to keep Netflix.", "Quit Netflix for Lent, we'll be back at Easter."),
    ("We decided to have the client demo on Wednesday.",
     "Change of plans, the demo is on Thursday for the sales team only; the client demo stays on Wednesday."),
])
def test_a_change_for_one_occasion_or_a_while_leaves_the_decision(vault, decided, said):
    before, after = _decided_then(vault, decided, said)
    assert after == before


def test_a_change_said_in_the_chat_rewrites_the_key_fact_too(vault):
    """The chat's reflection (processes/reflection.py) reads it as `remember` does."""
    with _at(3, 3):
        vault.ask(POSTGRES)
    with _at(3, 20):
        vault.ask(SQLITE)
    assert [key_facts.current(item) for item in _key_facts(vault)] == [SQLITE.rstrip(".")]


def test_the_digest_records_the_decision_that_stands_citing_the_event_that_stated_it(vault):
    with _at(3, 3):
        first = vault.remember(POSTGRES).id
    with _at(3, 20):
        second = vault.remember(SQLITE).id
    with _at(3, 21):
        vault.promote(force=True)
        answer = vault.ask("What database did we decide on for the new app?").answer
    digest = (vault.root / "memory/long_term/events/2025/03/20/digest.md").read_text(encoding="utf-8")
    [line] = [l for l in digest.splitlines() if l.startswith("- fact or decision:")]
    assert "SQLite" in line.split("(was:")[0] and "until 2025-03-20)" in line
    assert f"[{second}]" in line and f"[{first}]" not in line
    assert _key_facts(vault) == []
    quoted = re.findall(r'^- "(.*)" \((.*)\)$', answer, re.M)
    # no line states Postgres as the decision without saying it was replaced
    assert quoted and "SQLite" in quoted[0][0], answer
    assert all("SQLite" in text or "superseded on 2025-03-20" in source for text, source in quoted), answer


def test_a_key_fact_the_person_edited_meanwhile_is_left_as_they_wrote_it(vault):
    """The replacement names the item as reflection read it; if the person rewrote the line in
    the meantime, their words stay."""
    with _at(3, 3):
        vault.remember(POSTGRES)
    path = vault.stm_path
    path.write_text(path.read_text(encoding="utf-8").replace(
        "- use Postgres as the database for the new app", "- Postgres for the new app, says Ana"), encoding="utf-8")
    with _at(3, 20):
        vault.append_event({"User": SQLITE}, changed_facts=[("use Postgres as the database for the new app",
                                                             "anything braniac would have written")])
    assert _key_facts(vault) == ["Postgres for the new app, says Ana"]


def test_replace_item_rewrites_one_line_and_keeps_the_rest_byte_for_byte():
    text = stm.render_new(facts=[stm.Item("[x] marked like a checkbox", None), stm.Item("Deploys on Tuesdays", None)],
                          tasks=[stm.Item("Deploys on Tuesdays", False)])
    doc = stm.parse(text)
    assert doc.replace_item(stm.FACTS, "[x] marked like a checkbox", "[ ] now this (was: that)")
    assert [i.text for i in doc.items(stm.FACTS)] == ["[ ] now this (was: that)", "Deploys on Tuesdays"]
    assert [i.text for i in doc.items(stm.TASKS)] == ["Deploys on Tuesdays"]   # a task of the same words: not a fact
    assert doc.render().replace("- \\[ ] now this (was: that)", "- \\[x] marked like a checkbox") == text
    assert not doc.replace_item(stm.FACTS, "not in the list", "anything")


def test_a_decision_of_one_thing_taken_back_leaves_the_other_things_decision_current(vault):
    """Two decisions, one taken back: the app's item is rewritten; the digest line that carries
    "(was: use Postgres for the app…)" names Postgres only as history, so after promotion the
    analytics service's decision is still quoted as current (an adversarial review's KF23)."""
    with _at(3, 3):
        vault.remember("We decided to use Postgres for the app.")
    with _at(3, 10):
        vault.remember("We decided to use Postgres for the analytics service too.")
    with _at(3, 20):
        vault.remember("Scratch that, we're going with SQLite for the app.")
    assert _key_facts(vault) == [
        "Scratch that, we're going with SQLite for the app (was: use Postgres for the app until 2025-03-20)",
        "use Postgres for the analytics service too"]
    with _at(3, 28):
        vault.promote(force=True)
    with _at(4, 2):
        answer = vault.ask("What database are we using for the analytics service?").answer
    quoted = [line for line in answer.splitlines() if "analytics service" in line]
    assert quoted and not any("superseded" in line for line in quoted), answer

"""A plan turned around in everyday words (issue 18, "what did I decide about X"): "I renewed the
gym membership after all" after "I decided not to renew the gym membership", "Keeping Disney+
after all" after "I'm going to cancel Disney+". The newer comes first and the plan it turned
around is history; a fact that became a plan, the same plan said again, or a plan for another
thing is no turn (vault/reversals.turns_around)."""
from __future__ import annotations

import re
from datetime import datetime, timezone

import pytest

from braniac.infra import clock, textutil
from braniac.vault import reversals, stm


TURNED = [
    ("I decided not to renew the gym membership.", "I renewed the gym membership after all.",
     "Did I renew my gym membership?"),
    ("I'm going to cancel Disney+.", "Keeping Disney+ after all, the kids love it.", "Am I cancelling Disney+?"),
    ("The plan is to sell the old sofa.", "Decided to keep the old sofa and put it in the basement.",
     "What did I decide about the old sofa?"),
    ("I'll skip the conference in Berlin this year.", "Changed my mind, I'm going to the Berlin conference after all.",
     "Am I going to the Berlin conference?"),
    ("I'm going to the gym tonight.", "I didn't go to the gym after all, too tired.", "Did I go to the gym?"),
    ("I'm going to the reunion.", "I won't make it to the reunion.", "Am I going to the reunion?"),   # a plan for it
    ("I decided not to renew my gym membership.", "Ended up renewing the gym membership after all.",
     "Did I renew my gym membership?"),
    ("I'm going to Sam's wedding.", "I won't be able to go to Sam's wedding, work trip.", "Am I going to Sam's wedding?"),
    # a plan of any verb, done or not
    ("We're going to repaint the fence this summer.", "We decided not to repaint the fence this summer.",
     "Are we repainting the fence?"),
    ("I'm going to drive to the conference.", "Actually I won't drive to the conference, I'll take the train.",
     "How am I getting to the conference?"),
]


@pytest.mark.parametrize("old, new, question", TURNED)
def test_a_plan_turned_around_is_read_as_one(old, new, question):
    assert reversals.turns_around(old, new, textutil.terms(question))


@pytest.mark.parametrize("old, new, question", [
    ("My car is a Golf.", "I decided to sell the car.", "What car do I drive?"),   # still the car, for now
    ("I take the train to work.", "I'll take the train tomorrow, it's cheaper after all.", "How do I get to work?"),
    ("I'll skip the Berlin conference.", "I decided to skip the Berlin conference.", "Am I going to Berlin?"),
    ("We'll paint the living room grey.", "We decided not to paint the kitchen.", "What did we decide about painting?"),
    ("We will not hire a contractor for the kitchen.", "We decided to hire a contractor for the bathroom.",
     "Are we hiring a contractor?"),
    ("I plan to sell my bike.", "Should I keep my bike after all?", "Am I selling my bike?"),
    ("I'm going to cancel Disney+.", "I haven't decided whether to keep Disney+.", "Am I cancelling Disney+?"),
    ("I'll go to the gym on Monday.", "I won't go to the gym on Tuesday.", "Am I going to the gym?"),   # two days
    ("I'll go to the gym on Monday.", "I might not go to the gym on Monday.", "Am I going to the gym?"),
    # (an adversarial review's controls) another part of the occasion, a step of the plan, someone
    # else's plan, "after all" meaning "considering", a "not" that turns nothing around
    ("I'll call mom on Sunday.", "I won't forget to call mom on Sunday, promise.", "When am I calling mom?"),
    ("I'm going to the reunion.", "I'll go to the reunion, wouldn't miss it for the world.", "Am I going to the reunion?"),
    ("I'm going to the reunion.", "I'm going to the reunion but I won't stay for the dinner.",
     "Am I going to the reunion?"),
    ("I'm going to the wedding in May.", "Ana decided not to go to the wedding, she has a work thing.",
     "Am I going to the wedding?"),
    ("I'm going to sell my bike.", "I decided to clean up my bike and take photos for the listing.", "Am I selling my bike?"),
    ("I'm going to cancel Netflix.", "I decided to watch the last season of The Crown on Netflix before I go.",
     "Am I cancelling Netflix?"),
    ("I decided to skip the marathon this year.", "Watched the marathon on TV, it's the biggest race of the year after all.",
     "Am I running the marathon?"),
    ("We're going to Grandma's for Christmas.", "We won't bring the dog to Grandma's for Christmas.",
     "Where are we going for Christmas?"),
])
def test_what_is_no_turn_is_not_read_as_one(old, new, question):
    assert not reversals.turns_around(old, new, textutil.terms(question))


@pytest.mark.parametrize("promoted", [False, True])
@pytest.mark.parametrize("old, new, question", TURNED[:3])
def test_the_answer_gives_the_turn_first_and_the_plan_as_history(vault, promoted, old, new, question):
    with clock.frozen(datetime(2025, 2, 3, 10, tzinfo=timezone.utc)):
        vault.remember(old)
    with clock.frozen(datetime(2025, 2, 4, 10, tzinfo=timezone.utc)):
        vault.remember("The plumber is coming on Monday.")
    with clock.frozen(datetime(2025, 2, 20, 10, tzinfo=timezone.utc)):
        vault.remember(new)
    if promoted:
        with clock.frozen(datetime(2025, 2, 21, 10, tzinfo=timezone.utc)):
            vault.promote(force=True)
    with clock.frozen(datetime(2025, 2, 24, 10, tzinfo=timezone.utc)):
        answer = vault.ask(question).answer
    quoted = re.findall(r'^- "(.*)" \((.*)\)$', answer, re.M)
    first = new.split(",")[0].rstrip(".")
    # (after promotion, perhaps as the digest's decision: "fact or decision: … (was: … until …)")
    assert quoted and quoted[0][0].removeprefix("fact or decision: ").startswith(first), answer
    assert "superseded" not in quoted[0][1], answer
    plan = [source for text, source in quoted if text.startswith(old.rstrip("."))]
    assert plan and all(source.endswith("superseded on 2025-02-20") for source in plan), answer


def test_the_decision_list_says_the_plan_turned_around(vault):
    with clock.frozen(datetime(2025, 2, 3, 10, tzinfo=timezone.utc)):
        vault.remember("I decided not to renew the gym membership.")
    with clock.frozen(datetime(2025, 2, 20, 10, tzinfo=timezone.utc)):
        vault.remember("I renewed the gym membership after all.")
    assert [item.text for item in vault.read_stm().items(stm.FACTS)] == [
        "I renewed the gym membership after all (was: not to renew the gym membership until 2025-02-20)"]


@pytest.mark.parametrize("old, new, question", [
    ("We agreed to hold the retro every two weeks.", "The retro is monthly now, every two weeks was too much.",
     "How often do we hold the retro?"),
    ("We decided to paint the living room grey.", "Actually we're painting the living room green, grey felt too cold.",
     "What colour did we decide for the living room?"),
    ("We're painting the living room grey.", "We're painting the living room green, grey felt too cold.",
     "What colour are we painting the living room?"),   # the same frame, another value
    # "instead of" after a word of choosing (alone, it is how code is explained: "use flex instead of grid")
    ("We chose React for the frontend.", "We're going with Svelte for the frontend instead of React.",
     "Which framework did we choose for the frontend?"),
])
def test_a_value_given_up_as_too_much_of_something_is_taken_back(old, new, question):
    assert reversals.takes_back(old, new, textutil.terms(question))


@pytest.mark.parametrize("old, new, question", [
    ("We booked the Hotel Lux in Lisbon.", "The hotel was too expensive, honestly.", "Where are we staying in Lisbon?"),
    ("My commute is 40 minutes by bus.", "The bus was too crowded today.", "How long is my commute?"),
    ("We use Postgres for the app.", "If Postgres was too slow we'd switch.", "What database do we use for the app?"),
    ("We hold the retro every two weeks.", "Was every two weeks too much for the retro?", "How often is the retro?"),
    ("The layout uses CSS grid.", "For the layout, use flex instead of grid in the sidebar.", "What does the layout use?"),
    # a complaint about one occasion, with no other value (an adversarial review's controls)
    ("We meet every Monday at 9.", "Monday's meeting was too long.", "When do we meet?"),
    ("My running shoes are Hoka Cliftons.", "The Hoka Cliftons felt too tight on the long run today.",
     "What running shoes do I have?"),
    ("We use Notion for the team wiki.", "Notion was too slow for the team wiki today.", "What do we use for the team wiki?"),
    # a detail chosen instead of another, not the older value
    ("We're using Stripe for payments in the app.",
     "In the app's checkout we went with Stripe Elements instead of the hosted page.", "What do we use for payments?"),
])
def test_a_complaint_is_not_a_value_given_up(old, new, question):
    assert not reversals.takes_back(old, new, textutil.terms(question))

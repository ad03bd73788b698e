"""Everyday changes and what must not count as one: two preferences for one occasion, parting
with one product of a brand, someone else's weight, a hotel's price, a plan for this weekend, a
lower-case message, a title's full stop, a plan for Saturday, nested steps, a to-do said as
"I should"; a move found after promotion, a habit said with "-ing", mine before someone else's.
Each case was a wrong answer found by one of three reviews of the rules that read changes
(vault/relations.py, vault/reversals.py, infra/measures.py, infra/relative_times.py,
infra/date_spans.py, the search index's stemmer, the offline engine)."""
from __future__ import annotations

import re
from datetime import date, datetime, timezone

import pytest

from braniac import Vault
from braniac.infra import clock, measures, textutil
from braniac.infra.relative_times import resolve_relative
from braniac.model.offline.sentences import sentences
from braniac.model.offline.skills import numbered_steps
from braniac.search import documents
from braniac.vault import parting, relations


@pytest.fixture
def vault(tmp_path):
    created, _ = Vault.init(tmp_path / "vault")
    return created


def _at(y, m, d, h=10):
    return clock.frozen(datetime(y, m, d, h, tzinfo=timezone.utc))


def _quoted(answer: str) -> list[tuple[str, str]]:
    return re.findall(r'^- "(.*)" \((.*)\)$', answer, re.M)


def _say(vault, *said, promoted: bool, promote_on=None):
    """Say each ((y, m, d[, h]), text) at its time; then, if `promoted`, promote (at `promote_on`,
    or late on the last day)."""
    for when, text in said:
        with _at(*when):
            vault.remember(text)
    if promoted:
        last = said[-1][0]
        with _at(*(promote_on or (last[0], last[1], last[2], 23))):
            vault.promote(force=True)


def _ask_after(vault, question: str, *said, asked_on, promoted: bool = False, promote_on=None) -> str:
    """`_say`, then ask at `asked_on`: the offline answer."""
    _say(vault, *said, promoted=promoted, promote_on=promote_on)
    with _at(*asked_on):
        return vault.ask(question).answer


# 1. Two preferences about different things of one occasion are both current --------------------

def test_relations_two_preferences_for_one_occasion_about_different_things_do_not_contradict():
    assert not relations.contradicts("I prefer aisle seats on long flights",
                                     "I prefer vegetarian meals on long flights")
    assert not relations.contradicts("I prefer dark mode in my editor",
                                     "I prefer tabs over spaces in my editor")


@pytest.mark.parametrize("promoted", [False, True])
def test_a_meal_preference_does_not_supersede_a_seat_preference(vault, promoted):
    answer = _ask_after(vault, "What seat do I prefer on long flights?",
                        ((2025, 6, 2), "I prefer aisle seats on long flights."),
                        ((2025, 6, 5), "I prefer vegetarian meals on long flights."),
                        promoted=promoted,
                        promote_on=(2025, 6, 5, 12),
                        asked_on=(2025, 6, 6))
    assert not any("superseded" in source for text, source in _quoted(answer) if "aisle" in text), answer


# 2. Parting with one product of a brand is not parting with another ------------------------------

def test_gives_up_needs_the_thing_not_only_its_brand():
    assert not parting.gives_up("I love my Sony headphones", "I returned the Sony TV")
    assert not parting.gives_up("I have a MacBook Pro for work", "I sold my old MacBook Air")


# 2.-3. Another thing's news keeps mine current: a Sony TV is not my Sony headphones, my daughter's
# weight is not mine, a hotel's price is not what the flight cost -------------------------------
_ANOTHER_THINGS = {
    "sony-tv": ("What headphones do I use?", "I love my Sony headphones, the noise cancelling is great.",
                ((2025, 9, 5), "I returned the Sony TV, the picture was too dark."), "headphones"),
    "daughters-weight": ("How much do I weigh?", "I weigh 84 kg, my doctor wants me under 80.",
                         ((2025, 9, 5), "My daughter now weighs 18 kg, she grew so fast."), "84 kg"),
    "hotel-price": ("How much did the flight to Tokyo cost?", "The flight to Tokyo cost €850, booked it today.",
                    ((2025, 6, 5), "The hotel in Tokyo is now €120 a night after the discount."), "€850"),
}


@pytest.mark.parametrize("promoted", [False, True])
@pytest.mark.parametrize("case", list(_ANOTHER_THINGS))
def test_another_things_news_does_not_replace_mine(vault, promoted, case):
    question, mine, (day, other), key = _ANOTHER_THINGS[case]
    answer = _ask_after(vault, question,
                        ((2025, 6, 2), mine),
                        ((2025, 6, 3), "The plumber comes on Monday."),
                        (day, other),
                        promoted=promoted,
                        promote_on=(*day, 12),
                        asked_on=(day[0], day[1], day[2] + 1))
    quoted = _quoted(answer)
    assert key in quoted[0][0], answer
    assert not any("superseded" in source for text, source in quoted if key in text), answer


# 4. "this weekend" asked on a weekday, in the past tense, is the coming weekend -------------------

@pytest.mark.parametrize("promoted", [False, True])
def test_what_did_i_plan_for_this_weekend_asked_on_a_wednesday(vault, promoted):
    with _at(2025, 3, 1):
        vault.remember("Spent the whole day cleaning the garage.")
    with _at(2025, 3, 2):
        vault.remember("Lazy Sunday, watched two movies with Ana.")
    with _at(2025, 3, 3):
        vault.remember("This weekend I'm going hiking in Sintra with Tom.")
    if promoted:
        with _at(2025, 3, 3, 12):
            vault.promote(force=True)
    with _at(2025, 3, 5):   # a Wednesday
        answer = vault.ask("What did I plan for this weekend?").answer
    quoted = _quoted(answer)
    assert quoted and "Sintra" in quoted[0][0], answer


# 5. A statement typed in lower case before a question is still a statement -----------------------

@pytest.mark.parametrize("promoted", [False, True])
def test_a_lowercase_statement_followed_by_a_question_is_remembered(vault, promoted):
    answer = _ask_after(vault, "What is my sister's address?",
                        ((2025, 6, 2), "my sister's new address is 12 rua augusta in lisbon. can you keep that for me?"),
                        ((2025, 6, 3), "The plumber comes on Monday."),
                        promoted=promoted,
                        promote_on=(2025, 6, 3, 12),
                        asked_on=(2025, 6, 6))
    assert "12 rua augusta" in answer, answer


# 6. Counting a period's activities: other forms of the word are not left out ---------------------

def test_how_many_times_did_i_go_running_this_week_finds_every_run(vault):
    """In short-term memory every statement of the week is read; after promotion, retrieval
    finds "Ran 8k" only by its words (none of the question's): a known limit."""
    promoted = False
    answer = _ask_after(vault, "How many times did I go running this week?",
                        ((2025, 3, 3, 18), "Went running along the river after work, 5k."),
                        ((2025, 3, 4, 18), "Did laundry and cooked lasagna."),
                        ((2025, 3, 5, 7), "Ran 8k this morning, my legs are sore."),
                        promoted=promoted,
                        promote_on=(2025, 3, 5, 12),
                        asked_on=(2025, 3, 7))
    assert "Went running" in answer and "Ran 8k" in answer, answer


# 7. "Dr." in a value: the value is the name after it, not "Dr" -----------------------------------

def test_relations_a_title_with_its_full_stop_is_not_the_whole_value():
    assert relations.contradicts("My dentist is Dr. Silva", "My dentist is Dr. Costa")
    assert relations.contradicts("Our landlord is Mr. Brown", "Our landlord is Mr. Green")


def test_a_new_dentist_named_with_dr_dot_supersedes_the_old_after_promotion(vault):
    with _at(2025, 3, 3):
        vault.remember("My dentist is Dr. Silva.")
    with _at(2025, 3, 4):
        vault.remember("Lunch with Tom was nice.")
    with _at(2025, 5, 5):
        vault.remember("My dentist is Dr. Costa.")
    with _at(2025, 5, 5, 12):
        vault.promote(force=True)
    with _at(2025, 5, 7):
        answer = vault.ask("Who is my dentist?").answer
    quoted = _quoted(answer)
    assert "Costa" in quoted[0][0], answer
    assert [s for t, s in quoted if "Silva" in t][0].endswith("superseded on 2025-05-05"), answer


# 8. "On Saturday" in a plan said with a past participle or an agreement is not last Saturday ------

@pytest.mark.parametrize("said", [
    "We are invited to Marta's wedding on Saturday.",
    "I am scheduled to work on Saturday.",
    "We agreed to meet for coffee on Friday.",
    "I promised Ana I would help her move on Saturday.",
])
def test_a_plan_for_saturday_is_not_resolved_to_last_saturday(said):
    assert resolve_relative(said, date(2025, 3, 5)) == said   # a Wednesday


def test_the_wedding_on_saturday_is_not_dated_last_saturday(vault):
    with _at(2025, 3, 5):   # a Wednesday
        vault.remember("We are invited to Marta's wedding on Saturday.")
        vault.remember("Lunch with Tom was nice.")
    with _at(2025, 3, 5, 12):
        vault.promote(force=True)
    with _at(2025, 3, 6):
        answer = vault.ask("When is Marta's wedding?").answer
    assert "2025-03-01" not in answer, answer


# 9. A nested numbered sub-list does not end a skill's steps ---------------------------------------

def test_a_nested_numbered_sublist_does_not_end_the_steps():
    text = ("Here's how:\n1. Preheat the oven\n   1. Set it to 180C\n   2. Wait 10 minutes\n"
            "2. Mix the flour\n3. Bake for 30 minutes")
    assert numbered_steps(text)[-2:] == ["Mix the flour", "Bake for 30 minutes"], numbered_steps(text)


def test_a_sub_heading_under_a_step_heading_does_not_end_the_steps():
    text = "## Plan\n### 1. Warm up\n#### Why\nLoosen up.\n### 2. Intervals\nRun fast.\n### 3. Cool down\nWalk."
    assert numbered_steps(text) == ["Warm up", "Intervals", "Cool down"], numbered_steps(text)


# 10. "What do I need to do?" hides a to-do said in words the task reader does not know ------------

def test_what_do_i_need_to_do_does_not_hide_a_to_do_it_did_not_file(vault):
    answer = _ask_after(vault, "What do I need to do this week?",
                        ((2025, 6, 2), "I should email Ana about the contract."),
                        ((2025, 6, 3), "The plumber comes on Monday."),
                        asked_on=(2025, 6, 4))
    assert "email Ana" in answer, answer


# and what the rules must still not read as a change -----------------------------------------------

@pytest.mark.parametrize("before, after", [
    ("Ana likes jazz.", "Ana likes hiking."),                     # one likes many things
    ("My sister is a nurse.", "My sister is pregnant."),          # what she is, and how she is
    ("My sister is a nurse at the hospital.", "My sister is a nurse."),
    ("I work as a nurse.", "I work as a night shift nurse."),     # the same value, said more precisely
    # a topic has many descriptions; a thing said to be something of the person's is no role
    ("Gina: Dance is my passion.", "Gina: Dance is awesome for expressing yourself."),
    ("Dance is my stress relief.", "Dance is my stress fix too."),
    ("John: My family is my motivation.", "John: Yeah, my family is awesome."),
    ("The Wolves are my team for sure.", "The Wolves are solid this year."),
])
def test_two_true_statements_do_not_contradict(before, after):
    assert not relations.contradicts(before, after)


def test_measures_read_as_a_person_means_them():
    about = textutil.terms("How much do I weigh?")
    assert not measures.replaces("I weigh 84.0 kg.", "I now weigh 84 kg.", measures.asked("How much do I weigh?"), about)
    assert measures.asked("How much is my rent?") == measures.asked("How much is Netflix?") == {"price"}
    assert not measures.asked("How much is left of the cake?")
    assert not measures.asked("How much time did I spend running?")


# a second review: moves after promotion, someone else's weight, everyday words of change, "-ing"
# habits in the index, plans for the coming Saturday, mine before someone else's, "p.m.", a call
# returned --------------------------------------------------------------------------------------

# 1. "I moved to Porto" is lost after promotion ------------------------------------------------------

def test_where_do_i_live_after_i_moved_after_promotion(vault):
    """Before promotion this holds (short-term memory reads every statement); after it,
    retrieval never brings "I moved to Porto", which shares no word with the question."""
    _say(vault, ((2025, 3, 2), "I live in Lisbon."),
         ((2025, 3, 3), "The plumber comes on Monday."),
         ((2025, 9, 1), "I moved to Porto in August."), promoted=True)
    with _at(2025, 9, 2):
        answer = vault.ask("Where do I live?").answer
    quoted = _quoted(answer)
    assert quoted and "Porto" in quoted[0][0], answer
    assert [s for t, s in quoted if "Lisbon" in t][0].endswith("superseded on 2025-09-01"), answer


@pytest.mark.parametrize("promoted", [False, True])
def test_where_do_we_live_after_we_moved(vault, promoted):
    """"We moved to Porto…, the new flat is bigger" is a home; "we moved to Slack" stays a team's
    tool, and so does a name alone ("Jira" and "Porto" are both names no dictionary has)."""
    _say(vault, ((2025, 3, 2), "We live in Lisbon, in a flat near the river."),
         ((2025, 3, 3), "We moved to Slack for the team's chat."),
         ((2025, 9, 1), "We moved to Porto in August, the new flat is bigger."), promoted=promoted)
    with _at(2025, 9, 2):
        answer = vault.ask("Where do we live?").answer
    quoted = _quoted(answer)
    assert quoted and "Porto" in quoted[0][0], answer
    assert [s for t, s in quoted if "Lisbon" in t][0].endswith("superseded on 2025-09-01"), answer
    assert not relations.relation_of("We moved to Slack for the team's chat.")
    assert not relations.relation_of("We moved to GitHub Actions for CI.")
    assert relations.relation_of("We moved to a bigger flat in Porto.")[1] == "lives in"
    assert relations.contradicts("We live in Lisbon.", "We moved to a bigger flat in Porto.")
    # a place said more precisely, with "I" or a title in it, is the same place
    assert not relations.contradicts("I live in Lisbon.", "I live in a flat that I love.")
    assert not relations.contradicts("I work at Acme.", "I work at a startup I co-founded.")
    for tool in ["At work we moved to Jira last week, the old board was a mess.",
                 "We moved to GitHub Actions, the new home for our CI.",
                 "We moved to a home-grown tool called Linear.",
                 "We moved to Slack since the whole team works from home now.",
                 "We moved to Notion for the house renovation notes.",
                 "We moved to Zoom calls because my mom can't leave the house."]:
        assert not relations.contradicts("We live in Lisbon.", tool), tool


# 2. Someone else's (or something's) weight, said without "my", replaces mine -------------------------

@pytest.mark.parametrize("promoted", [False, True])
@pytest.mark.parametrize("newer", ["The dog is up to 30 kg now, the vet wants him on a diet.",
                                   "The baby now weighs 6 kg!"])
def test_the_dogs_or_the_babys_weight_does_not_replace_mine(vault, promoted, newer):
    _say(vault, ((2025, 3, 2), "I weigh 84 kg."),
         ((2025, 3, 3), "The plumber comes on Monday."),
         ((2025, 9, 1), newer), promoted=promoted)
    with _at(2025, 9, 2):
        answer = vault.ask("How much do I weigh?").answer
    quoted = _quoted(answer)
    assert quoted and "84 kg" in quoted[0][0], answer
    assert not any("superseded" in s for t, s in quoted if "84 kg" in t), answer


# 3. A raised rent, a birthday turned: everyday words of change the measures do not know -------------

@pytest.mark.parametrize("promoted", [False, True])
@pytest.mark.parametrize("old, new, question, current, was", [
    ("My rent is €900 a month.", "The landlord raised my rent to €950.", "How much is my rent?", "€950", "€900"),
    ("I'm 34 years old.", "I turned 35 yesterday, we had cake.", "How old am I?", "35", "34"),
])
def test_a_measure_changed_in_everyday_words_replaces_the_old(vault, promoted, old, new, question, current, was):
    _say(vault, ((2025, 3, 2), old),
         ((2025, 3, 3), "The plumber comes on Monday."),
         ((2025, 9, 1), new), promoted=promoted)
    with _at(2025, 9, 2):
        answer = vault.ask(question).answer
    quoted = _quoted(answer)
    assert quoted and current in quoted[0][0], answer
    assert [s for t, s in quoted if was in t][0].endswith("superseded on 2025-09-01"), answer


# 4. A habit said with "-ing" is not found after promotion ("swimming" / "swim") ---------------------

@pytest.mark.parametrize("question", ["When do I swim?", "How often do I run?"])
def test_a_habit_said_with_ing_is_found_after_promotion(vault, question):
    _say(vault, ((2025, 3, 2), "I go swimming every Tuesday and Thursday."),
         ((2025, 3, 3), "I go running by the river on Sunday mornings."),
         ((2025, 3, 4), "The plumber comes on Monday."), promoted=True)
    with _at(2025, 3, 5):
        answer = vault.ask(question).answer
    quoted = _quoted(answer)
    word = "swimming" if "swim" in question else "running"
    assert quoted and word in quoted[0][0], answer


# 5. A plan for Saturday read as last Saturday ---------------------------------------------------------

@pytest.mark.parametrize("said", [
    "Ana said she was coming over on Saturday.",
    "I signed up for the 10k race on Sunday.",
    "The party I mentioned is on Saturday.",
    "I learned that Tom is getting married on Saturday.",
])
def test_a_coming_saturday_is_not_resolved_to_last_saturday(said):
    assert resolve_relative(said, date(2025, 3, 5)) == said   # a Wednesday


def test_when_is_ana_coming_over_is_not_dated_last_saturday(vault):
    _say(vault, ((2025, 3, 5), "Ana said she was coming over on Saturday."),
         ((2025, 3, 5, 11), "The plumber comes on Monday."), promoted=True)
    with _at(2025, 3, 6):
        answer = vault.ask("When is Ana coming over?").answer
    assert "Saturday" in answer and "2025-03-01" not in answer, answer


# 6. "Where do I live?" answered with my sister's home first ------------------------------------------

@pytest.mark.parametrize("mine, theirs, question, word, promoted", [
    ("I live in Lisbon, near Alfama.", "My sister lives in Porto.", "Where do I live?", "Lisbon", False),
    ("I live in Lisbon, near Alfama.", "My sister lives in Porto.", "Where do I live?", "Lisbon", True),
    # before promotion only (after it, retrieval happens to rank these right)
    ("My birthday is on July 2.", "Ana's birthday is on March 14.", "When is my birthday?", "July", False),
    ("Our dog is called Rex.", "My neighbour's dog is called Bolt.", "What is our dog called?", "Rex", False),
])
def test_a_question_about_me_quotes_mine_before_someone_elses(vault, promoted, mine, theirs, question, word):
    _say(vault, ((2025, 3, 2), mine), ((2025, 3, 3), theirs), promoted=promoted)
    with _at(2025, 3, 4):
        answer = vault.ask(question).answer
    quoted = _quoted(answer)
    assert quoted and word in quoted[0][0], answer


# 7. Another meeting moved does not supersede my meeting with Tom ------------------------------------

@pytest.mark.parametrize("promoted", [False, True])
def test_a_meeting_with_ana_moved_does_not_supersede_the_meeting_with_tom(vault, promoted):
    _say(vault, ((2025, 6, 2), "My meeting with Tom is at 10:00 on Monday."),
         ((2025, 6, 3), "The plumber comes on Monday."),
         ((2025, 6, 4), "My meeting with Ana moved to 15:00."), promoted=promoted)
    with _at(2025, 6, 5):
        answer = vault.ask("What time is my meeting?").answer
    quoted = _quoted(answer)
    assert any("Tom" in t for t, s in quoted), answer
    assert not any("superseded" in s for t, s in quoted if "Tom" in t), answer


# 8. "8 p.m." ends the quote: the day after it is cut off ---------------------------------------------

def test_a_time_with_pm_does_not_cut_the_quote(vault):
    _say(vault, ((2025, 3, 2), "Dinner with Ana is at 8 p.m. on Friday at Ramiro."),
         ((2025, 3, 3), "The plumber comes on Monday."), promoted=True)
    with _at(2025, 3, 4):
        answer = vault.ask("When is dinner with Ana?").answer
    quoted = _quoted(answer)
    assert quoted and "Friday" in quoted[0][0], answer


# 9. "I returned Ana's call" read as parting with Ana --------------------------------------------------

def test_returning_someones_call_is_not_parting_with_them():
    assert not parting.gives_up("I drive Ana to school every morning.", "I returned Ana's call this afternoon.")


@pytest.mark.parametrize("promoted", [False, True])
def test_who_do_i_drive_to_school_after_returning_anas_call(vault, promoted):
    _say(vault, ((2025, 3, 2), "I drive Ana to school every morning."),
         ((2025, 3, 3), "The plumber comes on Monday."),
         ((2025, 3, 4), "I returned Ana's call this afternoon."), promoted=promoted)
    with _at(2025, 3, 5):
        answer = vault.ask("Who do I drive to school?").answer
    quoted = _quoted(answer)
    assert quoted and "drive Ana" in quoted[0][0], answer
    assert not any("superseded" in s for t, s in quoted if "drive Ana" in t), answer


# a third review: what the second's fixes broke ------------------------------------------------------

# 1. The index stemmer now splits a word whose own last letters are a doubled "f" ---------------------

@pytest.mark.parametrize("form, word", [("staffed", "staff"), ("staffing", "staff"), ("stuffing", "stuff"),
                                        ("stuffed", "stuff"), ("sniffing", "sniff"), ("puffed", "puff")])
def test_index_stem_keeps_a_double_f_that_belongs_to_the_word(form, word):
    assert documents.index_stem(form) == documents.index_stem(word)


def test_staff_finds_staffed_after_promotion(vault):
    with _at(2025, 6, 2):
        vault.remember("The new clinic is staffed by three nurses and Dr. Costa.")
    with _at(2025, 6, 3):
        vault.remember("The plumber comes on Monday.")
    with _at(2025, 6, 3, 12):
        vault.promote(force=True)
    with _at(2025, 6, 6):
        answer = vault.ask("Who is on the staff?").answer
    assert "three nurses" in answer, answer


def test_stuff_finds_stuffing_after_promotion(vault):
    with _at(2025, 6, 2):
        vault.remember("I made the stuffing with chestnuts and sage.")
    with _at(2025, 6, 3):
        vault.remember("The plumber comes on Monday.")
    with _at(2025, 6, 3, 12):
        vault.promote(force=True)
    with _at(2025, 6, 6):
        answer = vault.ask("What did I stuff the turkey with?").answer
    assert "chestnuts" in answer, answer


# 2. The second search for "moved" brings a move that is no move of home ------------------------------

@pytest.mark.parametrize("later", ["Back in 2010 I moved to London for university.",
                                   "I moved to Tuesday evenings for yoga."])
def test_an_old_move_or_a_class_moved_does_not_replace_where_i_live_after_promotion(vault, later):
    """Before promotion this was already wrong on eaee1b7 (short-term memory compares every
    event); after promotion it is new: _bring_changes searches "moved" and may_replace lets it in."""
    with _at(2025, 6, 2):
        vault.remember("I live in Lisbon, near the river.")
    with _at(2025, 6, 3):
        vault.remember("The plumber comes on Monday.")
    with _at(2025, 9, 5):
        vault.remember(later)
    with _at(2025, 9, 5, 12):
        vault.promote(force=True)
    with _at(2025, 9, 6):
        answer = vault.ask("Where do I live?").answer
    quoted = _quoted(answer)
    assert "Lisbon" in quoted[0][0], answer
    assert not any("superseded" in source for text, source in quoted if "Lisbon" in text), answer


# 3. measures.replaces now wants every name of the older statement in the newer one -------------------

def test_measures_a_name_said_beside_the_old_value_does_not_block_the_new_value():
    weigh = "How much do I weigh?"
    assert measures.replaces("I weigh 84 kg, Dr. Silva wants me under 80.", "Down to 79 kg now!",
                             measures.asked(weigh), textutil.terms(weigh))
    flight = "What time is my flight?"
    assert measures.replaces("My flight to Berlin leaves Friday at 07:40.", "The airline moved my flight to 09:15.",
                             measures.asked(flight), textutil.terms(flight))


@pytest.mark.parametrize("promoted", [False, True])
def test_down_to_79_kg_replaces_84_kg_said_with_my_doctors_name(vault, promoted):
    answer = _ask_after(vault, "How much do I weigh?",
                        ((2025, 6, 2), "I weigh 84 kg, Dr. Silva wants me under 80."),
                        ((2025, 6, 3), "The plumber comes on Monday."),
                        ((2025, 9, 5), "Down to 79 kg now!"),
                        promoted=promoted,
                        promote_on=(2025, 9, 5, 12),
                        asked_on=(2025, 9, 6))
    quoted = _quoted(answer)
    assert "79 kg" in quoted[0][0], answer
    assert [s for t, s in quoted if "84 kg" in t][0].endswith("superseded on 2025-09-05"), answer


@pytest.mark.parametrize("promoted", [False, True])
def test_the_airline_moving_my_flight_replaces_its_time_though_it_does_not_repeat_berlin(vault, promoted):
    answer = _ask_after(vault, "What time is my flight?",
                        ((2025, 6, 2), "My flight to Berlin with Ana leaves Friday at 07:40."),
                        ((2025, 6, 3), "The plumber comes on Monday."),
                        ((2025, 6, 4), "The airline moved my flight to 09:15."),
                        promoted=promoted,
                        promote_on=(2025, 6, 4, 12),
                        asked_on=(2025, 6, 5))
    quoted = _quoted(answer)
    assert "09:15" in quoted[0][0], answer
    assert [s for t, s in quoted if "07:40" in t][0].endswith("superseded on 2025-06-04"), answer


# 4. _NOT_PAST: past events told with "was driving", "Tom's wedding", "is working", "registered" -----

@pytest.mark.parametrize("said", [
    "I was driving to Porto on Saturday when my car broke down.",
    "We went to Tom's wedding on Saturday in Sintra.",
    "The boiler is working again since I fixed it on Saturday.",
    "I registered the new car on Saturday at the DMV.",
    "We were getting the kids ready on Saturday when Ana called.",
])
def test_a_past_event_on_saturday_keeps_its_date(said):
    assert "on Saturday (2025-06-07)" in resolve_relative(said, date(2025, 6, 9))   # said on a Monday


def test_when_did_my_car_break_down_after_promotion_gives_the_day(vault):
    with _at(2025, 6, 9):
        vault.remember("I was driving to Porto on Saturday when my car broke down.")
    with _at(2025, 6, 10):
        vault.remember("The plumber comes on Monday.")
    with _at(2025, 6, 10, 12):
        vault.promote(force=True)
    with _at(2025, 6, 20):
        answer = vault.ask("When did my car break down?").answer
    assert "2025-06-07" in answer, answer


# 5. "p.m." and a one-letter word ("vitamin D", "type A") now never end a sentence --------------------

def test_sentences_end_after_p_m_and_a_one_letter_word_before_a_new_sentence():
    assert sentences("Yoga is at 6 p.m. My sister lives in Porto.") == ["Yoga is at 6 p.m.", "My sister lives in Porto."]
    assert sentences("I take vitamin D. My sister lives in Porto.") == ["I take vitamin D.", "My sister lives in Porto."]


def test_what_vitamins_do_i_take_does_not_quote_my_sisters_old_address_as_current(vault):
    """"I take vitamin D." and "My sister lives in Porto." are now one sentence: the answer about
    vitamins quotes, unlabelled, where the sister lived before she moved."""
    with _at(2025, 6, 2):
        vault.remember("I take vitamin D. My sister lives in Porto.")
    with _at(2025, 6, 3):
        vault.remember("The plumber comes on Monday.")
    with _at(2025, 9, 5):
        vault.remember("My sister moved to Berlin.")
    with _at(2025, 9, 5, 12):
        vault.promote(force=True)
    with _at(2025, 9, 6):
        answer = vault.ask("What vitamins do I take?").answer
    quoted = _quoted(answer)
    assert quoted and quoted[0][0] == "I take vitamin D.", answer


# 6. The relevance cut ("> half", with the 0.1 bonus on the best) drops my half of a two-person question

@pytest.mark.parametrize("first, second, question, mine", [
    ("I work at Acme as a designer.", "Tom works at Globex in Porto.", "Where do Tom and I work?", "Acme"),
    ("I live in Lisbon.", "My sister lives in Porto.", "Where do my sister and I live?", "Lisbon"),
])
def test_a_question_about_someone_and_me_quotes_mine_too_after_promotion(vault, first, second, question, mine):
    with _at(2025, 6, 2):
        vault.remember(first)
    with _at(2025, 6, 3):
        vault.remember(second)
    with _at(2025, 6, 3, 12):
        vault.promote(force=True)
    with _at(2025, 6, 6):
        answer = vault.ask(question).answer
    assert mine in answer, answer


# "Ran 8k" is running: an irregular form is searched for as itself ---------------------------------

@pytest.mark.parametrize("promoted", [False, True])
def test_ran_is_running_before_and_after_promotion(vault, promoted):
    """The search index stems by rule ("running": run, "ran": ran), so the prompt's irregular
    forms are searched for too; the passages' own stemmer reads "ran" as "run"."""
    answer = _ask_after(vault, "How much running did I do this week?",
                        ((2025, 6, 2), "I went running in the park, 5k."),
                        ((2025, 6, 9), "Ran 8k this morning before work."),
                        ((2025, 6, 11), "The plumber fixed the sink."),
                        ((2025, 6, 12), "Did an easy 3k run with Ana."),
                        asked_on=(2025, 6, 13, 18), promoted=promoted)
    said = [text for text, _ in _quoted(answer)]
    assert any("Ran 8k" in t for t in said) and any("3k run" in t for t in said), answer


# A reschedule to a day to come replaces the old day ---------------------------------------------

@pytest.mark.parametrize("promoted", [False, True])
def test_an_appointment_moved_to_next_tuesday_replaces_the_old_day(vault, promoted):
    """The date braniac writes beside "next Tuesday" is the new value, not the day it was said."""
    answer = _ask_after(vault, "When is my dentist appointment?",
                        ((2025, 5, 1), "Busy month: my dentist appointment is on May 12 and the car needs a service."),
                        ((2025, 5, 3), "The plumber comes on Monday."),
                        ((2025, 5, 6), "The clinic called, they moved my dentist appointment to next Tuesday."),
                        asked_on=(2025, 5, 7), promoted=promoted)
    quoted = _quoted(answer)
    assert quoted and "next Tuesday" in quoted[0][0], answer
    assert [s for t, s in quoted if "May 12" in t][0].endswith("superseded on 2025-05-06"), answer



def test_an_appointment_moved_in_its_own_sentence_and_an_odd_heading(vault):
    """"My dentist called. The appointment moved to May 15." replaces May 12 though the sentence
    of the change names only the appointment; and an event heading a person wrote by hand with
    an impossible date is compared undated, not a crash."""
    answer = _ask_after(vault, "When is my dentist appointment?",
                        ((2025, 5, 1), "My dentist appointment is on May 12."),
                        ((2025, 5, 6), "My dentist called. The appointment moved to May 15."),
                        asked_on=(2025, 5, 7))
    quoted = _quoted(answer)
    assert quoted and "May 15" in quoted[0][0], answer
    stm = vault.root / "memory" / "short_term.md"
    stm.write_text(stm.read_text(encoding="utf-8").replace("### 2025-05-06T10:00:00Z", "### 2025-02-30T10:00:00Z"),
                   encoding="utf-8")
    with _at(2025, 5, 7):
        assert "May 15" in vault.ask("When is my dentist appointment?").answer


# 3. A question of one word: "When is my flight?", "Rent?" --------------------------------------

@pytest.mark.parametrize("promoted", [False, True])
@pytest.mark.parametrize("old, new, question, current", [
    ("My flight to Rome is on June 3.", "The airline moved my flight to June 5.", "When is my flight?", "June 5"),
    ("My rent is 900 euros a month.", "The landlord raised my rent, it is 1,050 euros now.", "Rent?", "1,050"),
    ("Our team has 5 engineers.", "We hired two more engineers, so the team is 7 now.",
     "How many engineers are on my team?", "7 now"),
    ("My landlord told me my rent is 900 euros.", "My rent is now 1,050 euros.", "Rent?", "1,050"),
    ("My rent is 900 euros a month.", "The rent went up to 1,050 euros.", "How much is my rent?", "1,050"),
    ("My rent is 900 euros a month.", "The rent for the flat went up to 1,050 euros.", "How much is my rent?", "1,050"),
    ("My flight to Rome is on June 3.", "Ryanair moved my flight to June 5.", "When is my flight?", "June 5"),
    ("My rent is 900 a month.", "My rent is 950 a month now.", "What is my rent?", "950"),
    ("My rent is 900 euros a month.", "My monthly rent is 950 euros now.", "Rent?", "950"),
    # "the rent" with no one else's name on it, and a change told in two sentences
    ("My rent is 900 euros a month.", "My landlord raised the rent again, so now I pay 1,050 euros.",
     "What is my rent?", "1,050"),
    ("My salary is 50,000 euros a year.", "I got a raise, my salary is 55,000 now.", "What is my salary?", "55,000"),
    ("My dentist appointment is on June 3.", "My appointment was moved to June 10.", "When is my appointment?",
     "June 10"),
    ("My flight is on May 12.", "My Ryanair flight was moved to May 19.", "When is my flight?", "May 19"),
    ("My dentist appointment is on May 5.", "The dentist moved my appointment to May 9.", "When is my appointment?",
     "May 9"),
    ("My rent is 900 euros a month.", "My rent went up. It is 1,050 euros now.", "What is my rent?", "1,050"),
    ("My rent is 900 euros a month.", "My rent is 950 euros a month right now.", "What is my rent?", "950"),
    # the thing itself as the subject of both, and a question that names nothing else
    ("Netflix costs me 11.99 a month.", "Netflix went up to 13.49 a month.", "How much is Netflix?", "13.49"),
    ("Daycare costs 780 a month.", "Daycare fees went up, we pay 820 a month now.", "How much is daycare?", "820"),
    ("Amlodipine is 5 mg a day for me.", "Amlodipine was increased to 7.5 mg.", "How much amlodipine do I take?", "7.5"),
])
def test_a_question_of_one_word_gets_the_current_value_first(vault, promoted, old, new, question, current):
    """One word of the question says what the thing is; the newer value comes first, the older
    as history (a hint after its number counts: "the team is 7 now")."""
    answer = _ask_after(vault, question, ((2025, 5, 2), old), ((2025, 5, 20), new),
                        asked_on=(2025, 5, 30), promoted=promoted)
    quoted = _quoted(answer)
    assert quoted and current in quoted[0][0], answer
    assert not any(old == text and "superseded" not in source for text, source in quoted), answer


@pytest.mark.parametrize("old, new, question", [
    ("I have 2 cats.", "My sister now has 3 cats.", "How many cats do I have?"),
    ("My meeting with Tom is at 3pm.", "My meeting with Ana moved to 5pm.", "When is my meeting?"),
    ("My flight to Rome is on June 3.", "My flight to Oslo is now on June 20.", "When is my flight?"),
    ("I weigh 84 kg.", "The baby now weighs 6 kg!", "How much do I weigh?"),
    ("My salary is 50,000 euros.", "The salary for the new hire is now 45,000 euros.", "What is my salary?"),
    ("I am 34 years old.", "Leo is now 5 years old.", "How old am I?"),
    ("My flight to Rome is on June 3.", "The flight back is now on June 12.", "When is my flight?"),
    ("My rent is 900 euros a month.", "Office rent is now 2,000 euros.", "Rent?"),
    ("My rent is 900 euros a month.", "The rent on our storage unit went up to 80 euros.", "Rent?"),
    ("My gym membership costs 40 euros.", "The gym is now open until 10pm.", "Gym?"),
    ("My flight is on June 3.", "I now have 2 bags for the flight.", "When is my flight?"),
    ("My phone runs Android 13.", "My phone battery is at 40% now.", "Phone?"),
    ("I have 2 dogs.", "I have 3 kids now and a dog.", "How many dogs do I have?"),
    ("I have 2 dogs at home.", "I have 3 kids now and a dog at home.", "How many dogs do I have at home?"),
    ("My rent is 900 euros a month.", "My rent is due three days from now (around 2025-05-23).", "Rent?"),
    ("My rent is 900 euros a month.", "Tom's rent is now 700 euros.", "How much is my rent?"),
    ("My rent is 900 euros a month.", "The rent for Ana is now 700 euros.", "How much is my rent?"),
    ("My gym membership costs 40 euros.", "Ana's gym membership now costs 30 euros.", "How much is my gym membership?"),
    ("My rent is 900 euros a month.", "My rent is 3 days late now.", "What is my rent?"),
    # how long it has lasted, another thing's amount in another clause, a thing named otherwise
    ("My rent is 900 euros a month.", "My rent has been the same for 2 years now.", "What is my rent?"),
    ("My rent is 900 euros a month.", "I pay my rent on the 1st, and my gym costs 40 euros a month now.",
     "What is my rent?"),
    # someone else's landlord, a sentence about another thing after mine, a due date
    ("My rent is 900 euros a month.", "Tom's landlord raised the rent to 1,200 euros.", "What is my rent?"),
    ("My rent is 900 euros a month.", "The landlord raised the rent to 950 for the new tenants.", "What is my rent?"),
    ("My rent is 900 euros a month.", "My rent is the same. It's my car loan that went up to 300.", "What is my rent?"),
    ("My rent is 900 euros a month.", "I checked my rent. It's 15 degrees outside now.", "What is my rent?"),
    ("My rent is 900 euros a month.", "My rent is due in 3 days now.", "What is my rent?"),
    ("My rent is 900 euros a month.", "I heard the landlord raised the rent to 1,200 for new tenants.",
     "What is my rent?"),
    ("My rent is 900 euros a month.", "My landlord raised the rent for new tenants to 950 euros.", "What is my rent?"),
    ("My salary is 50,000 euros.", "My company raised the salary band to 60,000 euros.", "What is my salary?"),
    ("My dentist appointment is on June 3.", "My hair appointment was moved to June 10.", "When is my appointment?"),
    ("My flight is on May 12.", "My flight is 3 hours now.", "When is my flight?"),
    # the thing itself opens the older, another thing of its kind the newer
    ("Netflix costs me 11.99 a month.", "Disney+ went up to 13.49 a month.", "How much is Netflix?"),
    ("Daycare costs 780 a month.", "The daycare for Ana's kids went up to 900.", "How much is daycare?"),
    ("Leo has 2 loose teeth.", "Leo now has 3 stickers.", "How many loose teeth does Leo have?"),
    # (an adversarial review's) another plan, a time for an amount, someone else's, another unit, a person
    ("Netflix costs me 11.99 a month.", "Netflix went up to 15.49 for the premium plan, but I'm still on standard.",
     "How much is Netflix?"),
    ("Daycare is 780 a month.", "Daycare now closes at 6.", "How much is daycare?"),
    ("I take 5 mg of amlodipine.", "Amlodipine was increased to 10 mg for my dad.", "Amlodipine?"),
    ("Electricity is 90 a month.", "Electricity went up to 0.32 per kWh.", "How much is electricity?"),
    ("Leo is 7.", "Leo now has 2 loose teeth.", "What about Leo?"),
])
def test_a_question_of_one_word_does_not_take_another_ones_value(old, new, question):
    """Whose and which thing it is, read off the statements: both must say it is the person's own."""
    from braniac.infra import measures
    from braniac.search.passages import content_terms
    from braniac.vault.value_changes import replaced_for_the_question
    assert not replaced_for_the_question(old, new, frozenset(content_terms(question)), measures.asked(question))



# 4. What a thing costs and when it is due are two values; the old one is quoted as history ------

def test_an_amount_and_a_state_of_one_thing_are_not_two_values():
    assert not relations.contradicts("My rent is 900 a month.", "My rent is due three days from now.")
    assert not relations.contradicts("The standup is 9am.", "The standup is Tuesday.")
    assert relations.contradicts("My rent is 900 a month.", "My rent is 950 a month.")
    assert relations.contradicts("My favourite color is blue.", "My favourite color is green.")
    assert relations.contradicts("My daughter is twelve.", "My daughter is thirteen.")
    assert relations.contradicts("My favorite movie is Seven Samurai.", "My favorite movie is Inception.")
    assert relations.contradicts("My rent is around 900.", "My rent is 950.")
    assert relations.contradicts("My address is 12 Rua Augusta.", "My address is Rua do Ouro 5.")
    assert relations.contradicts("My rent is 900 euros a month.", "My rent is now 950.")


@pytest.mark.parametrize("promoted", [False, True])
def test_a_due_date_does_not_make_the_rent_history(vault, promoted):
    answer = _ask_after(vault, "What is my rent?", ((2025, 6, 2), "My rent is 900 a month."),
                        ((2025, 6, 5), "My rent is due three days from now."),
                        asked_on=(2025, 6, 9), promoted=promoted)
    quoted = _quoted(answer)
    assert any("900" in text and "superseded" not in source for text, source in quoted), answer


@pytest.mark.parametrize("promoted", [False, True])
def test_the_replaced_value_is_quoted_as_history_though_its_words_are_the_same(vault, promoted):
    """"My rent is 900 a month." and "My rent is 950 a month now." share every word but their
    numbers: they are two values of one thing, not one claim said twice."""
    answer = _ask_after(vault, "What is my rent?", ((2025, 6, 2), "My rent is 900 a month."),
                        ((2025, 6, 5), "My rent is 950 a month now."),
                        asked_on=(2025, 6, 9), promoted=promoted)
    quoted = _quoted(answer)
    assert "950" in quoted[0][0], answer
    assert any("900" in text and "superseded on 2025-06-05" in source for text, source in quoted), answer

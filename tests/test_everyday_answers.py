"""What a person asks their assistant about their own life, answered from memory by the offline
engine, before and after promotion: the current value first, what it replaced after it as
history ("superseded on …"), and a statement found though it shares no word with the question
("Where do I work?" / "I started a new job at Globex")."""
from __future__ import annotations

import re
from datetime import datetime, timezone

import pytest

from braniac.infra import clock
from braniac.vault import parting, relations, reversals
from braniac.infra.textutil import terms


def _at(y, m, d, h=10):
    return clock.frozen(datetime(y, m, d, h, tzinfo=timezone.utc))


def _answer(vault, question: str, *said, promoted: bool) -> list[tuple[str, str]]:
    """Say each ((y, m, d), text), promote late on the last day if `promoted`, ask the day after:
    the quotes of the answer, as (text, source)."""
    for when, text in said:
        with _at(*when):
            vault.remember(text)
    last = said[-1][0]
    if promoted:
        with _at(*last, 23):
            vault.promote(force=True)
    with _at(last[0], last[1], last[2] + 1):
        answer = vault.ask(question).answer
    return re.findall(r'^- "(.*)" \((.*)\)$', answer, re.M)

def _current_then_history(vault, question: str, old: str, new: str, promoted: bool, said_on: tuple, changed_on: tuple):
    """`old` said on `said_on` (and something else the day after), `new` on `changed_on`: the
    answer quotes `new` first, then `old` as history, superseded on the day `new` was said."""
    quoted = _answer(vault, question, (said_on, old), ((*said_on[:2], said_on[2] + 1), "The plumber comes on Monday."),
                     (changed_on, new), promoted=promoted)
    assert [t for t, _ in quoted] == [new, old], quoted
    assert "superseded" not in quoted[0][1], quoted
    assert quoted[1][1].endswith("superseded on {:04d}-{:02d}-{:02d}".format(*changed_on)), quoted



# 1. "my new manager" is my manager: the role has one value -----------------------------------------

def test_my_new_manager_is_my_manager_said_now_and_my_old_car_may_be_another_car():
    assert relations.contradicts("My manager is Priya, she's great.", "Priya left Globex; my new manager is Tom.")
    assert relations.contradicts("My new phone is an iPhone.", "My phone is a Pixel.")
    assert not relations.contradicts("My old car is a Civic.", "My car is a Corolla.")


@pytest.mark.parametrize("promoted", [False, True])
def test_who_is_my_manager_says_the_new_one_then_the_old_one_as_history(vault, promoted):
    _current_then_history(vault, "Who is my manager?", "My manager is Priya, she's great.",
                          "Priya left Globex; my new manager is Tom.", promoted, (2025, 1, 8), (2025, 3, 2))


def test_a_move_from_one_place_to_another_is_where_one_lives_and_a_moved_class_is_not():
    assert relations.relation_of("I moved from Porto to Braga to be near family.")[1:] == \
        ("lives in", "Braga to be near family")
    assert relations.contradicts("I moved from Lisbon to Porto for a new job.",
                                 "I moved from Porto to Braga to be near family.")
    assert relations.relation_of("I moved from Tuesday evenings to Thursdays for yoga.") is None
    assert relations.relation_of("I moved the design files from Slack to Figma.") is None


@pytest.mark.parametrize("promoted", [False, True])
def test_a_class_moved_to_another_day_is_on_that_day_now(vault, promoted):
    _current_then_history(vault, "When is Mia's ballet class?", "Mia's ballet class is on Tuesdays.",
                          "Mia's ballet class moved to Thursdays.", promoted, (2025, 1, 8), (2025, 3, 2))


@pytest.mark.parametrize("promoted", [False, True])
def test_a_renamed_thing_has_its_new_name(vault, promoted):
    _current_then_history(vault, "What is the default branch?", "The default branch is master.",
                          "We renamed the default branch from master to main.", promoted, (2025, 1, 8), (2025, 3, 2))


@pytest.mark.parametrize("promoted", [False, True])
def test_a_statement_whose_words_a_longer_one_holds_is_still_quoted(vault, promoted):
    """"Leo's best friend moved from Escola Verde to a school in Braga" holds every word of "Leo
    goes to school at Escola Verde", and is no copy of it: both are quoted, neither as history."""
    quoted = _answer(vault, "Where does Leo go to school?", ((2025, 1, 8), "Leo goes to school at Escola Verde."),
                     ((2025, 3, 2), "Leo's best friend moved from Escola Verde to a school in Braga."), promoted=promoted)
    assert sorted(t for t, _ in quoted) == ["Leo goes to school at Escola Verde.",
                                            "Leo's best friend moved from Escola Verde to a school in Braga."], quoted
    assert not any("superseded" in s for _, s in quoted), quoted


# 2. "We switched from Postgres to ClickHouse" takes back "we decided to use Postgres" ------------------

def test_switching_from_a_thing_takes_back_the_statement_that_uses_it():
    old, new = "We decided to use Postgres for the analytics project.", \
        "We switched from Postgres to ClickHouse for the analytics project, Postgres was too slow."
    assert reversals.takes_back(old, new, terms("What database do we use for the analytics project?"))
    # another thing left: nothing of the old statement is named as given up
    assert not reversals.takes_back(old, "We switched from Jira to Linear for the analytics project.",
                                    terms("What do we use for the analytics project?"))


@pytest.mark.parametrize("promoted", [False, True])
@pytest.mark.parametrize("question", ["What database do we use for the analytics project?",
                                      "What did we decide about the analytics project?"])
def test_what_we_use_now_is_the_switch_and_the_first_decision_is_history(vault, promoted, question):
    quoted = _answer(vault, question,
                     ((2025, 1, 10), "We decided to use Postgres for the analytics project."),
                     ((2025, 1, 11), "The plumber comes on Monday."),
                     ((2025, 2, 10), "We switched from Postgres to ClickHouse for the analytics project, "
                                     "Postgres was too slow."), promoted=promoted)
    assert quoted[0][0].startswith("We switched from Postgres to ClickHouse"), quoted
    # the rest is history, or the digest's decision, which says what it replaced until when
    assert quoted[1:] and all(s.endswith("superseded on 2025-02-10") or "ClickHouse" in t.split("(was:")[0]
                              and "until 2025-02-10)" in t for t, s in quoted[1:]), quoted
    assert any(s.endswith("superseded on 2025-02-10") for _, s in quoted[1:]), quoted
    assert all(not t.startswith("- ") for t, _ in quoted)   # a digest's line is quoted without its bullet


# 3. "Where do I work?" is answered in the words a new job is told in ----------------------------------

@pytest.mark.parametrize("promoted", [False, True])
@pytest.mark.parametrize("said", ["I started a new job at Globex as a data engineer.", "I got a job at Globex."])
def test_where_do_i_work_finds_the_new_job_though_it_says_no_work(vault, promoted, said):
    quoted = _answer(vault, "Where do I work?", ((2025, 1, 6), said),
                     ((2025, 1, 9), "The plumber comes on Monday."), promoted=promoted)
    assert [t for t, _ in quoted] == [said]


def test_a_question_for_where_someone_works_or_lives_and_for_whom():
    assert relations.asked_where("Where do I work?") == ("I", "works at")
    assert relations.asked_where("Who do I work for?") == ("I", "works at")
    assert relations.asked_where("Where does my sister live?") == ("my sister", "lives in")
    assert relations.asked_where("Who did John work with to raise funds?") is None
    where = relations.asked_where("Where does my sister live?")
    assert relations.answers_where("My sister moved to Lisbon.", where)
    assert not relations.answers_where("I live in Lisbon.", where)
    both = relations.asked_where("Where do Tom and I work?")
    assert relations.answers_where("I work at Acme.", both) and relations.answers_where("Tom works at Globex.", both)


# 4. "Ana and Rui moved to Lisbon": each of them lives there now --------------------------------------

def test_a_move_of_two_people_is_where_each_lives_now():
    assert relations.contradicts("My sister Ana lives in Porto with her husband Rui.", "Ana and Rui moved to Lisbon.")
    assert relations.contradicts("I live in Porto.", "Tom and I moved to Lisbon.")
    assert not relations.contradicts("Ana lives in Porto.", "Tom and Rui moved to Lisbon.")


@pytest.mark.parametrize("promoted", [False, True])
def test_where_does_my_sister_live_after_she_and_her_husband_moved(vault, promoted):
    _current_then_history(vault, "Where does my sister live?", "My sister Ana lives in Porto with her husband Rui.",
                          "Ana and Rui moved to Lisbon.", promoted, (2025, 1, 6), (2025, 3, 3))


# 5. "I switched from Duolingo to Babbel" leaves the statement that used Duolingo ---------------------

def test_a_switch_from_a_named_thing_leaves_what_used_it_not_what_happened_with_it():
    new = "I switched from Duolingo to Babbel, Duolingo got boring."
    assert parting.gives_up("I'm learning Spanish on Duolingo, 20 minutes a day.", new)
    assert parting.gives_up("I live in Lisbon.", "We moved from Lisbon to Porto.")
    assert not parting.gives_up("We went to Lisbon on Saturday.", "We moved from Lisbon to Porto.")
    assert not parting.gives_up("I'm learning Spanish on Duolingo.", "I switched from Anki to Quizlet.")
    assert parting.had_things("I'm learning Spanish on Duolingo, 20 minutes a day.") == ["Duolingo"]


@pytest.mark.parametrize("promoted", [False, True])
def test_what_app_do_i_use_after_a_switch_that_names_neither_app_nor_spanish(vault, promoted):
    _current_then_history(vault, "What app do I use to learn Spanish?", "I'm learning Spanish on Duolingo, 20 minutes a day.",
                          "I switched from Duolingo to Babbel, Duolingo got boring.", promoted, (2025, 1, 7), (2025, 3, 10))


# 6. What the person takes is theirs: "my doctor raised the lisinopril to 20 mg" is the new dose -------

@pytest.mark.parametrize("promoted", [False, True])
def test_how_much_of_a_medicine_do_i_take_after_my_doctor_raised_it(vault, promoted):
    _current_then_history(vault, "How much lisinopril do I take?", "I take 10 mg of lisinopril every morning.",
                          "My doctor raised the lisinopril to 20 mg.", promoted, (2025, 2, 2), (2025, 3, 1))


def test_someone_elses_dose_is_no_new_value_of_mine():
    from braniac.vault import value_changes
    asked = terms("How much lisinopril do I take?")
    assert not value_changes.replaced_for_the_question("I take 10 mg of lisinopril every morning.",
                                                       "Tom's lisinopril is now 30 mg.", asked)


# 7. A version upgraded, a deadline slipped: words of change for a project's values --------------------

@pytest.mark.parametrize("promoted", [False, True])
@pytest.mark.parametrize("question, old, new", [
    ("What Python version does the billing service use?", "For the billing service we use Python 3.11 and FastAPI.",
     "We upgraded the billing service to Python 3.12."),
    ("When is the billing MVP deadline?", "Deadline for the billing MVP is June 30.",
     "The billing MVP deadline slipped to July 15."),
])
def test_an_upgrade_or_a_slip_is_the_value_now(vault, promoted, question, old, new):
    _current_then_history(vault, question, old, new, promoted, (2025, 5, 5), (2025, 6, 10))


# 8. "I stopped eating fish": what the person stopped doing is history -------------------------------

def test_stopping_what_one_did_takes_it_back_of_oneself_only():
    assert reversals.takes_back("I'm vegetarian since 2019 but I still eat fish sometimes.",
                                "I stopped eating fish, fully vegetarian now.", terms("Do I eat fish?"))
    assert reversals.takes_back("I smoke a pack a day.", "I quit smoking last month.", terms("Do I smoke?"))
    assert reversals.takes_back("I drink coffee every morning.", "I gave up coffee.", terms("Do I drink coffee?"))
    assert not reversals.takes_back("I drink coffee every morning.", "I never stopped drinking coffee.",
                                    terms("Do I drink coffee?"))
    assert not reversals.takes_back("Ana smokes a lot.", "I quit smoking.", terms("Does Ana smoke?"))
    assert not reversals.takes_back("I run every morning.", "I stopped at the bakery.", terms("Do I run?"))


@pytest.mark.parametrize("promoted", [False, True])
def test_do_i_eat_fish_after_i_stopped(vault, promoted):
    _current_then_history(vault, "Do I eat fish?", "I'm vegetarian since 2019 but I still eat fish sometimes.",
                          "I stopped eating fish, fully vegetarian now.", promoted, (2025, 9, 8), (2025, 10, 25))


# 9. A later clause says the new value: "Catarina moved to a clinic in Sintra, so my new physio is Pedro"

def test_a_later_clause_of_a_statement_can_give_the_new_value():
    assert relations.contradicts("My physio is Catarina, she's helping with my knee.",
                                 "Catarina moved to a clinic in Sintra, so my new physio is Pedro.")
    # the subject of a verb is the clause right before it: "I met Ana, but my sister lives…" is my sister
    assert relations.relation_of("I met Ana, but my sister lives in Lisbon.") == ("my sister", "lives in", "Lisbon")
    assert not relations.contradicts("Ana lives in Porto.", "I met Ana, but my sister lives in Lisbon.")


@pytest.mark.parametrize("promoted", [False, True])
def test_who_is_my_physio_after_she_moved_away(vault, promoted):
    _current_then_history(vault, "Who is my physio?", "My physio is Catarina, she's helping with my knee.",
                          "Catarina moved to a clinic in Sintra, so my new physio is Pedro.", promoted, (2025, 2, 1),
                          (2025, 5, 5))


# 10. What must stay current: a review's grid of look-alikes --------------------------------------------

@pytest.mark.parametrize("promoted", [False, True])
@pytest.mark.parametrize("question, old, new", [
    ("Where does my sister live?", "My sister lives in Porto.", "I went from Porto to Braga to visit my sister."),
    ("Where does Ana work?", "Ana works at Acme in Lisbon.", "Ana went from Lisbon to Madrid for a conference."),
    ("When does the conference run?", "The conference runs from Monday to Wednesday.",
     "I changed my flight from Monday to Tuesday for the conference."),
    ("What do we use for the team chat?", "We use Slack for the team chat.",
     "We moved the design files from Slack to Figma for the team."),
    ("What do we use for the logs project?", "We use ClickHouse for the logs project.",
     "We switched the analytics project from Postgres to ClickHouse."),
    ("What is our cat called?", "Our cat is Luna.", "Our cat is shy."),
    ("Who is my client?", "My client is Acme.", "My latest client is Globex."),
    ("What is the York office like?", "The York office is small.", "The New York office is huge."),
    ("Where did I live as a kid?", "I grew up in Braga, we lived near the cathedral.", "I live in Lisbon."),
])
def test_a_statement_still_true_is_never_marked_superseded(vault, question, old, new, promoted):
    quoted = _answer(vault, question, ((2025, 1, 8), old), ((2025, 1, 20), "The plumber comes on Monday."),
                     ((2025, 3, 2), new), promoted=promoted)
    assert old in [t for t, _ in quoted], quoted
    assert not any("superseded" in s for t, s in quoted if t == old), quoted


@pytest.mark.parametrize("promoted", [False, True])
def test_a_chain_of_switches_puts_the_last_first(vault, promoted):
    quoted = _answer(vault, "What do we use for analytics?",
                     ((2025, 1, 8), "We use Postgres for analytics."),
                     ((2025, 1, 20), "The plumber comes on Monday."),
                     ((2025, 2, 1), "We switched from Postgres to ClickHouse for analytics."),
                     ((2025, 3, 2), "We switched from ClickHouse to DuckDB for analytics."), promoted=promoted)
    assert quoted[0] == ("We switched from ClickHouse to DuckDB for analytics.", quoted[0][1])
    assert "superseded" not in quoted[0][1] and all("superseded" in s for _, s in quoted[1:]), quoted


@pytest.mark.parametrize("promoted", [False, True])
@pytest.mark.parametrize("question, said, now", [
    ("What shift do I work?", ["I work the morning shift.", "I changed from the morning shift to the afternoon shift.",
                               "I changed from the afternoon shift to the night shift."], 2),
    ("Where do I live?", ["I live in Lisbon.", "I moved from Lisbon to Porto.", "I moved from Porto to Braga."], 2),
    # the note's History says what replaced a step, though the newest names neither "use" nor "CI"
    ("What do we use for CI?", ["We use Jenkins for CI.", "We migrated from Jenkins to CircleCI.",
                                "We migrated from CircleCI to GitHub Actions."], 2),
    # said as people say it, with why: each move is where I live now, from whatever it said before
    ("Where do I live?", ["I live in Lisbon with my two cats.", "I moved from Lisbon to Porto for a new job.",
                          "I moved from Porto to Braga to be near family."], 2),
])
def test_every_step_of_a_chain_of_changes_is_history_but_the_last(vault, promoted, question, said, now):
    days = [(2025, 1, 8), (2025, 2, 1), (2025, 3, 2)]
    quoted = _answer(vault, question, (days[0], said[0]), ((2025, 1, 20), "The plumber comes on Monday."),
                     *zip(days[1:], said[1:]), promoted=promoted)
    assert quoted[0][0] == said[now] and "superseded" not in quoted[0][1], quoted
    assert sorted(t for t, s in quoted if "superseded" in s) == sorted(said[:now]), quoted


@pytest.mark.parametrize("question, old, new", [
    ("Where did our family move from?", "Our family moved from Brazil to Portugal in 2010.",
     "My cousin moved from Brazil to Canada last year."),
    ("Who is my neighbour?", "My neighbour is Ana.", "My new neighbour is Tom."),
])
def test_someone_elses_switch_and_one_more_of_many_leave_mine_current(vault, question, old, new):
    quoted = _answer(vault, question, ((2025, 1, 8), old), ((2025, 1, 20), "The plumber comes on Monday."),
                     ((2025, 3, 2), new), promoted=False)
    assert old in [t for t, _ in quoted] and not any("superseded" in s for t, s in quoted if t == old), quoted


def test_a_person_is_many_kinds_unless_one_is_said_to_have_changed():
    assert not relations.contradicts("My brother is a lawyer.", "My brother is a father.")
    assert not relations.contradicts("My neighbour is a pilot.", "My neighbour is a smoker.")
    assert relations.contradicts("My sister is a nurse.", "My sister is a teacher now.")
    assert relations.contradicts("My phone is a Pixel.", "My phone is an iPhone.")   # one thing, named


def test_a_switch_of_someone_i_live_with_is_not_mine():
    assert not reversals.takes_back("I live in Lisbon with my brother.", "My brother moved from Lisbon to Berlin.",
                                    terms("What about Lisbon?"))
    assert reversals.takes_back("Tom is my mentor on the backend team.", "Tom moved from the backend team to the data team.",
                                terms("What about Tom?"))


# 11. A second review's grid (379 cases against the session's start): what must not change ----------

@pytest.mark.parametrize("old, new, question", [
    ("I still eat fish sometimes.", "I stopped eating red meat.", "Do I eat fish?"),   # another thing stopped
    ("I drink three coffees a day.", "I stopped drinking coffee after 4pm.", "Do I drink coffee?"),   # a part of it
    ("We eat meat most days.", "We stopped eating out.", "Do we eat meat?"),
    ("I still play games on Windows.", "Back in 2019 I switched from Windows to Mac for work.", "What do I play games on?"),
    ("I'm learning Spanish on Duolingo.", "My friend asked if I switched from Duolingo to Babbel.",
     "What app do I use to learn Spanish?"),
    ("I'm learning Spanish on Duolingo.", "I switched to Babbel for a week, then went back to Duolingo.",
     "What app do I use to learn Spanish?"),
    ("Leo goes to school at Escola Verde.", "Leo's best friend moved from Escola Verde to another school.",
     "Where does Leo go to school?"),
    ("My manager is Priya.", "I had a 1:1 with Priya; her manager is Tom.", "Who is my manager?"),
    ("My brother is a lawyer.", "My brother is a father now too.", "What does my brother do?"),
    ("The meeting room is Atlas.", "The meeting room is booked.", "Which meeting room?"),
])
def test_what_a_newer_statement_does_not_replace(vault, old, new, question):
    quoted = _answer(vault, question, ((2025, 1, 8), old), ((2025, 1, 20), "The plumber comes on Monday."),
                     ((2025, 3, 2), new), promoted=False)
    assert not any("superseded" in s for t, s in quoted if t == old), quoted


@pytest.mark.parametrize("old, new, question", [
    ("The deadline is Friday.", "The deadline is next Tuesday.", "When is the deadline?"),
    ("My brother is a student.", "My brother is an engineer since he graduated.", "What does my brother do?"),
])
def test_what_a_newer_statement_does_replace(vault, old, new, question):
    assert relations.contradicts(old, new)



# 12. "a month" frames an amount, it names no thing ----------------------------------------------------

@pytest.mark.parametrize("promoted", [False, True])
def test_how_much_am_i_saving_is_not_answered_by_the_internet_bill(vault, promoted):
    quoted = _answer(vault, "How much am I saving a month?",
                     ((2025, 2, 12), "I'm saving 300 euros a month for the trip to Japan."),
                     ((2025, 2, 13), "The plumber comes on Monday."),
                     ((2025, 3, 1), "We switched the internet from MEO to NOS, it's 30 euros a month now."),
                     ((2025, 3, 8), "I upped my savings to 400 euros a month."), promoted=promoted)
    assert quoted[0][0] == "I upped my savings to 400 euros a month.", quoted
    saving = [s for t, s in quoted if t.startswith("I'm saving 300")]
    assert saving and saving[0].endswith("superseded on 2025-03-08"), quoted


# 13. A measure "down to" a new value; a membership cancelled ---------------------------------------

@pytest.mark.parametrize("promoted", [False, True])
@pytest.mark.parametrize("question, old, new", [
    ("What's my blood pressure?", "My blood pressure was 140/90 at the checkup.",
     "Blood pressure is down to 128/82 after cutting salt."),
    ("How much is my gym membership?", "My gym membership is 35 euros a month at Holmes Place.",
     "I cancelled the gym membership and started running outside."),
])
def test_a_value_down_to_another_and_a_thing_cancelled(vault, promoted, question, old, new):
    _current_then_history(vault, question, old, new, promoted, (2025, 4, 2), (2025, 5, 2))


def test_cancelling_one_thing_of_mine_leaves_another_and_my_sisters_habit_is_hers():
    assert reversals.takes_back("My Netflix subscription is 12 euros.", "I cancelled my Netflix subscription.",
                                terms("How much is my Netflix subscription?"))
    assert not reversals.takes_back("My Netflix subscription is 12 euros.", "I cancelled my Spotify subscription.",
                                    terms("How much is my Netflix subscription?"))
    assert not reversals.takes_back("My sister smokes a lot.", "I quit smoking.", terms("Does my sister smoke?"))


# 14. What an older preference gave up is preferred now --------------------------------------------

def test_preferring_what_one_used_to_give_up_is_a_changed_preference():
    assert relations.contradicts("I prefer tabs over spaces in Python.", "Actually, I prefer spaces now, PEP 8 wins.")
    assert relations.contradicts("I prefer tea over coffee.", "I prefer coffee.")
    assert not relations.contradicts("I prefer tea over coffee.", "I prefer green tea now.")   # said more precisely


@pytest.mark.parametrize("promoted", [False, True])
def test_tabs_or_spaces_after_changing_sides(vault, promoted):
    _current_then_history(vault, "Tabs or spaces?", "I prefer tabs over spaces in Python.",
                          "Actually, I prefer spaces now, PEP 8 wins.", promoted, (2025, 6, 3), (2025, 6, 21))

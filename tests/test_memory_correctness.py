"""Memory that stays right (issue 16): the current value of a fact is what comes back, a claim
cites only events that state it, the core identity is in every step's working memory, archived
folders stay out of default search, the offline answer never quotes braniac's own answers, the
offline extraction names people, organizations and topics from evidence, and usage is learned
from an access log whose times go backwards.

The model path is tested through the loopback server (tests/fake_llm.py)."""
from __future__ import annotations

import os
import re
import subprocess
from datetime import datetime, timedelta, timezone
from types import SimpleNamespace

import pytest

from braniac import Vault
from braniac.infra import clock
from braniac.vault import layout, stm
from braniac.vault.claims import FACTS, HISTORY, Fact, FactNote
from braniac.vault.usage import read_usage
from braniac.model.offline import OfflineModel
from braniac.model.types import Claim, Excerpt, NoteDraft, WorkingMemory
from braniac.processes.promotion.drafts import carry_updates
from braniac.processes.sync.renumber import renumber

from fake_llm import configure_vault
from helpers import write_note


# ---------------------------------------------------------------------- item 9: archived _index.md

def test_archived_folder_index_is_left_out_of_default_search(vault):
    write_note(vault, "memory/long_term/archive/concrete/programming/_index.md", "Programming",
               "# Programming\n\n## Summary\nMemories about fortran compilers.\n", tags=["index"])
    write_note(vault, "memory/long_term/archive/concrete/programming/fortran.md", "Fortran",
               "Fortran arrays start at one.\n")
    write_note(vault, "memory/long_term/concrete/languages/_index.md", "Languages",
               "# Languages\n\n## Summary\nMemories about fortran and cobol.\n", tags=["index"])
    default = [h.path for h in vault.search("fortran")]
    assert default == ["memory/long_term/concrete/languages/_index.md"], default
    archived = {h.path: h.kind for h in vault.search("fortran", archived=True)}
    assert archived == {"memory/long_term/concrete/languages/_index.md": "index",
                        "memory/long_term/archive/concrete/programming/_index.md": "archive",
                        "memory/long_term/archive/concrete/programming/fortran.md": "archive"}


# ---------------------------------------------------------------------- item 12: time going backwards

def _turn_lines(vault: Vault, at: datetime, notes_read: list[str], query: str | None = None) -> list[str]:
    stamp = at.strftime("%Y-%m-%dT%H:%M:%SZ")
    lines = [f"{stamp} | QUERY | {query}"] if query else []
    return lines + [f"{stamp} | READ | {vault.ltm_root / rel}" for rel in notes_read]


def test_reads_whose_time_goes_backwards_still_make_separate_turns(vault):
    """Twenty turns of two notes each, every one logged two minutes before the one above it (a
    clock stepped back; processes appending out of order), with no QUERY line (the spec's
    READ-only log): each pair is co-accessed once, and no pair across turns is."""
    start = datetime(2025, 9, 16, 15, 0, tzinfo=timezone.utc)
    lines = []
    for n in range(20):
        lines += _turn_lines(vault, start - timedelta(minutes=2 * n), [f"concrete/a{n}.md", f"concrete/b{n}.md"])
    vault.access_log_path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    usage = read_usage(vault.logs_dir)
    pairs = {tuple(p.rsplit("/", 1)[-1] for p in pair): n for pair, n in usage.coaccess.items()}
    assert pairs == {(f"a{n}.md", f"b{n}.md"): 1 for n in range(20)}


def test_a_turn_logged_out_of_order_keeps_its_query_and_reads(vault):
    """Two processes: one turn's lines appended after a later turn's. Each QUERY probe keeps the
    notes read in its own turn, and a stray READ from far back in time starts a turn of its own."""
    at = datetime(2025, 9, 16, 15, 0, tzinfo=timezone.utc)
    lines = _turn_lines(vault, at, ["concrete/x.md", "concrete/y.md"], query="where is x")
    lines += _turn_lines(vault, at - timedelta(minutes=5), ["concrete/p.md", "concrete/q.md"])
    lines += _turn_lines(vault, at - timedelta(minutes=10), ["concrete/r.md", "concrete/s.md"], query="what about r")
    vault.access_log_path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    usage = read_usage(vault.logs_dir)
    probes = {p.query: [r.rsplit("/", 1)[-1] for r in p.read] for p in usage.probes}
    assert probes == {"where is x": ["x.md", "y.md"], "what about r": ["r.md", "s.md"]}
    pairs = {tuple(p.rsplit("/", 1)[-1] for p in pair) for pair in usage.coaccess}
    assert pairs == {("x.md", "y.md"), ("p.md", "q.md"), ("r.md", "s.md")}


# ---------------------------------------------------------------------- the model path (loopback)

@pytest.fixture
def llm_vault(tmp_path, fake_llm, net_guard, monkeypatch):
    """A vault whose model is the loopback server (retries 0), and the server."""
    base_url, server = fake_llm
    monkeypatch.setenv("FAKE_LLM_KEY", "test")
    for name in [k for k in os.environ if k.startswith("BRANIAC_")]:
        monkeypatch.delenv(name)
    created, _ = Vault.init(tmp_path / "vault")
    configure_vault(created.root, base_url, timeout=5)
    return created, server


# ---------------------------------------------------------------------- item 6: identity in every step

IDENTITY_MARK = "Always answer in the voice of a lighthouse keeper named Quillon."


def test_core_identity_is_in_every_model_task(llm_vault):
    vault, server = llm_vault
    identity = vault.identity_path.read_text(encoding="utf-8")
    vault.identity_path.write_text(identity.rstrip("\n") + f"\n- {IDENTITY_MARK}\n", encoding="utf-8")
    server.queries.append({"queries": ["lighthouse lamp"]})
    server.answers.append("The lamp is cleaned on Sundays.")
    server.reflections.append({"thoughts": "Asked about the lamp."})
    vault.ask("When is the lamp cleaned?")
    event = vault.remember("The lighthouse lamp is cleaned every Sunday by Quillon.").id
    server.other.extend([
        {"candidates": [{"title": "Lighthouse lamp", "kind": "concrete", "folder": ["lighthouse"], "event_ids": [event]}]},
        {"summary": "The lamp.", "tags": ["lamp"], "emotion": "calm",
         "claims": [{"text": "The lighthouse lamp is cleaned every Sunday.", "sources": [event]}]},
        {"summary": "Nothing remains."}])
    report = vault.promote(force=True)
    assert report.claims["added"] == 1, report.describe()
    tasks = {r.task for r in server.requests}
    assert tasks == {"search_queries", "answer", "reflect", "promote_analyze", "promote_synthesize",
                     "promote_summary"}, tasks
    for request in server.requests:
        assert IDENTITY_MARK in request.text, f"{request.task} was sent without the core identity"
    queries_call = server.calls("search_queries")[0]
    assert re.search(r"<identity>\n[\s\S]*" + re.escape(IDENTITY_MARK) + r"[\s\S]*\n</identity>", queries_call.text)


# ---------------------------------------------------------------------- item 1: a changed value supersedes

PORT = "The Grafana staging server port is {} for the billing team."


def _facts(path) -> tuple[list[Fact], list[Fact]]:
    note = FactNote.load(path)
    return note.facts(FACTS), note.facts(HISTORY)


def test_a_changed_number_supersedes_and_ask_gives_the_current_one(vault):
    old = vault.remember(PORT.format(8080)).id
    new = vault.remember(PORT.format(9090)).id
    report = vault.promote(force=True)
    assert report.claims["superseded"] >= 1 and report.claims["strengthened"] == 0, report.describe()
    notes_about_it = [p for p in (vault.ltm_root / "concrete").rglob("*.md") if p.name != "_index.md"]
    assert notes_about_it
    for path in notes_about_it:
        facts, history = _facts(path)
        if not facts and not history:
            continue
        assert [f.sources for f in facts if "9090" in f.text] == [[new]], path.read_text()
        assert not [f for f in facts if "8080" in f.text], path.read_text()
        # the old value is kept, superseded, with the event it came from
        assert [f.sources for f in history if "8080" in f.text and "superseded on" in f.text] == [[old]]
    answer = vault.ask("What is the Grafana staging server port?").answer
    assert "9090" in answer and "8080" not in answer, answer


@pytest.mark.parametrize("before, after", [
    ("Ana's flight lands on 2025-03-02 at 10:30.", "Ana's flight lands on 2025-03-04 at 10:30."),
    ("The rent for the flat is $1,200 a month.", "The rent for the flat is $1,350 a month."),
    ("The team lead for the billing project is Maria.", "The team lead for the billing project is Joana."),
    ("The billing service runs version 2.1 in production.", "The billing service runs version 2.3 in production."),
    ("Invoices for the billing team go to ops@example.com now.", "Invoices for the billing team go to billing@example.com now."),
    ("The deploy key lives in the 1Password vault 'ops'.", "The deploy key lives in the 1Password vault 'infra'."),
    ("Deploys of the billing service happen on Tuesdays.", "Deploys of the billing service happen on Thursdays."),
    ("My sister Ana lives in Porto with her two cats.", "Ana moved to Lisbon last month for her new job."),
    ("I work at Acme as a backend engineer.", "I started a new job at Globex as a staff engineer."),
    ("I live in Porto near the river.", "I moved to Lisbon for the new job."),
    # a preference for one occasion has one current value; the old choice named as given up
    ("I prefer tea in the morning, green tea mostly.", "These days I prefer coffee in the morning."),
    ("I prefer tea with breakfast.", "I now prefer coffee over tea."),
    ("I prefer running in the evening.", "I prefer running in the morning now, it is cooler."),
    # said "today" on two days, the value still changed
    ("Today (2025-03-01) I decided to use Postgres as the database for the billing project.",
     "Today (2025-03-05) I decided to use MySQL as the database for the billing project."),
])
def test_values_that_differ_make_a_contradiction(vault, before, after):
    path = vault.ltm_root / "concrete" / "topics" / "billing.md"
    note = FactNote.create(path, title="Billing", summary="", tags=[], emotion="neutral", note_uuid="u-billing")
    first, second = "2025-03-01T10:00:00Z", "2025-03-05T10:00:00Z"
    assert note.merge(Fact(f"2025-03-01 — {before}", [first]), vault) == "added"
    assert note.merge(Fact(f"2025-03-05 — {after}", [second]), vault) == "superseded"
    assert [f.sources for f in note.facts(FACTS)] == [[second]]
    assert [f.sources for f in note.facts(HISTORY)] == [[first]]
    # merged again (a re-run), nothing changes; an older claim arriving late goes to History
    again = note.render()
    assert note.merge(Fact(f"2025-03-05 — {after}", [second]), vault) == "unchanged"
    assert note.merge(Fact(f"2025-03-01 — {before}", [first]), vault) == "unchanged"
    assert note.render() == again


@pytest.mark.parametrize("before, after", [
    ("Room 12 is the meeting room for the design team.", "Room 14 is now the meeting room for the sales team."),
    ("Server 3 runs the billing service.", "Server 4 runs the search service."),
    # "work at" after anything but "I" or "we" is a noun: not where John works
    ("John: You mentioned your work at the homeless shelter, so I joined a fire brigade.",
     "John: I work at the fire station on weekends now."),
    ("I joined a gym near the office.", "I work at Acme as a backend engineer."),
    # where someone lives or works is a named place, and the same name said more precisely is one
    ("I work at Acme as a backend engineer.", "I work at home on Fridays."),
    ("I work at Acme as a backend engineer.", "I work at Acme's Lisbon office now."),
    ("I live in Lisbon near the river.", "We moved to Slack for team chat."),
    ("I live in Lisbon near the river.", "I moved to the backend team."),
    # "it" could be anything, "I was" is a moment, and a praise is no value (a conversation's lines)
    ("Joanna: It was inspired by personal experiences.", "Joanna: It was an amazing experience!"),
    ("Nate: I was bored today, so I took my turtles out.", "Nate: I was already planning on watching it."),
    ("Coconut milk ice cream is at the top of my list.", "Coconut milk ice cream is one of my favorites, I think."),
    # preferences for other occasions, of other things, or said more precisely
    ("I prefer tea in the morning.", "I prefer wine in the evening."),
    ("I prefer minimal dependencies.", "I prefer type hints in Python code."),
    ("I prefer tea in the morning.", "I prefer green tea in the morning."),
    ("I prefer tea in the morning.", "I now prefer tea in the evening too."),
    ("I prefer tea in the morning.", "I prefer tea in the evening."),
])
def test_two_numbered_things_each_with_its_own_value_are_both_current(vault, before, after):
    """Room 12 and Room 14 are two rooms, not one room whose value changed: the number in the
    subject names the thing. Both claims stay current, as do two statements of which one only
    seems to say where someone works."""
    path = vault.ltm_root / "concrete" / "topics" / "rooms.md"
    note = FactNote.create(path, title="Rooms", summary="", tags=[], emotion="neutral", note_uuid="u-rooms")
    assert note.merge(Fact(f"2025-03-01 — {before}", ["2025-03-01T10:00:00Z"]), vault) == "added"
    assert note.merge(Fact(f"2025-03-05 — {after}", ["2025-03-05T10:00:00Z"]), vault) == "added"
    assert len(note.facts(FACTS)) == 2 and note.facts(HISTORY) == []


@pytest.mark.parametrize("before, after, outcome", [
    ("The Grafana staging server port is 8080.", "The grafana staging server port is 8080!", "strengthened"),
    ("Ana moved to Lisbon in 2021 with her cat.", "Ana moved to Lisbon with her cat.", "strengthened"),
    ("Ana moved to Lisbon with her cat.", "Ana moved to Lisbon with her cat in 2021.", "added"),
    ("The Grafana staging server port is 8080.", "Tomas bought a red kayak for the river trip.", "added"),
    # the same words said on two days: "today" restated strengthens, two Saturdays are two claims
    ("I feel tired today.", "I feel tired today.", "strengthened"),
    ("I went to the gym on Saturday (2025-03-01) with Ana.", "I went to the gym on Saturday (2025-03-01) with Ana.",
     "strengthened"),
    ("I went to the gym on Saturday (2025-02-22) with Ana.", "I went to the gym on Saturday (2025-03-01) with Ana.",
     "added"),
    # a time said roughly is no day: "two weeks ago" said two days apart is one broken arm
    ("I broke my left arm two weeks ago (around 2025-02-15) while skiing in Andorra.",
     "I broke my left arm two weeks ago (around 2025-02-19) while skiing in Andorra.", "strengthened"),
])
def test_a_restatement_strengthens_and_a_new_detail_is_added(vault, before, after, outcome):
    path = vault.ltm_root / "concrete" / "topics" / "things.md"
    note = FactNote.create(path, title="Things", summary="", tags=[], emotion="neutral", note_uuid="u-things")
    note.merge(Fact(before, ["2025-03-01T10:00:00Z"]), vault)
    assert note.merge(Fact(after, ["2025-03-05T10:00:00Z"]), vault) == outcome
    assert note.facts(HISTORY) == []


def test_a_model_claim_with_the_new_value_supersedes(llm_vault):
    vault, server = llm_vault
    old, new = _promote_port_with_model(vault, server, {"text": PORT.format(9090)})
    facts, history = _facts(vault.ltm_root / "concrete" / "grafana" / "grafana-staging-server.md")
    assert [(f.text, f.sources) for f in facts] == [(PORT.format(9090), [new])]
    assert [f.sources for f in history] == [[old]] and "8080" in history[0].text


def test_a_model_that_keeps_the_old_value_cannot_hide_the_new_one(llm_vault):
    """The model restates the old port and cites the event that changed it: the deterministic
    check refuses that claim (logged), and the person's own words land and supersede."""
    vault, server = llm_vault
    old, new = _promote_port_with_model(vault, server, {"text": PORT.format(8080)})
    facts, history = _facts(vault.ltm_root / "concrete" / "grafana" / "grafana-staging-server.md")
    assert [f.sources for f in facts] == [[new]] and "9090" in facts[0].text and "8080" not in facts[0].text
    assert [f.sources for f in history] == [[old]] and "8080" in history[0].text
    log = (vault.logs_dir / "promotion.log").read_text(encoding="utf-8")
    assert "REJECTED" in log and "8080" in log


def _promote_port_with_model(vault, server, second_claim: dict) -> tuple[str, str]:
    """Two promotions through the loopback model: the port is 8080, then an event says 9090 and
    the model drafts `second_claim` citing it."""
    def script(event: str, claim: dict) -> None:
        server.other.extend([
            {"candidates": [{"title": "Grafana staging server", "kind": "concrete", "folder": ["grafana"],
                             "event_ids": [event]}]},
            {"summary": "Grafana staging.", "tags": ["grafana"], "emotion": "neutral",
             "claims": [{**claim, "sources": [event]}]},
            {"summary": "Nothing remains."}])
    old = vault.remember(PORT.format(8080)).id
    script(old, {"text": PORT.format(8080)})
    assert vault.promote(force=True).claims["added"] == 1
    new = vault.remember(PORT.format(9090)).id
    script(new, second_claim)
    report = vault.promote(force=True)
    assert report.claims["superseded"] == 1 and report.claims["strengthened"] == 0, report.describe()
    assert not server.other, "every scripted reply was used"
    return old, new


# ---------------------------------------------------------------------- item 10: the offline answer

def test_offline_answer_never_quotes_its_own_answers_and_prefers_the_current_value(vault):
    vault.remember(PORT.format(8080))
    first = vault.ask("What is the Grafana staging server port?").answer
    assert "8080" in first                                    # braniac's answer, now an event's AI field
    vault.remember(PORT.format(9090))
    vault.promote(force=True)
    turn = vault.ask("What is the Grafana staging server port?")
    quoted = re.findall(r'^- "(.*)" \((.*)\)$', turn.answer, re.M)
    assert quoted and all("9090" in text and "8080" not in text for text, _ in quoted), turn.answer
    assert "Here is what I remember" not in "".join(text for text, _ in quoted)


def test_asking_again_after_a_promotion_brings_back_the_memories_not_only_the_last_answer(vault):
    """braniac's answer quotes memories with their event ids. Archived, that exchange rests on
    none of them and never stands in for them: a second "where do I work?" found only it, and
    the offline answer, which never quotes itself, said it remembered nothing."""
    vault.remember("I work at Acme as a backend engineer.")
    vault.remember("Had pizza with Tom on Friday.")
    assert "Acme" in vault.ask("Where do I work?").answer
    vault.promote(force=True)
    again = vault.ask("Where do I work?")
    assert any(e.text.startswith("### ") and '**User:** "I work at Acme' in e.text for e in again.excerpts), \
        [e.text[:80] for e in again.excerpts]
    assert '- "I work at Acme as a backend engineer."' in again.answer, again.answer


def test_a_question_asked_again_and_again_enters_once_beside_the_memory_it_asks_about(vault):
    """Three past "where do I work?" exchanges are one question asked again: one of them enters
    the working memory, not three above the memory itself."""
    vault.remember("I work at Acme as a backend engineer.")
    for _ in range(3):
        vault.ask("Where do I work?")
        vault.promote(force=True)
    turn = vault.ask("Where do I work?")
    asked = [e for e in turn.excerpts if '**User:** "Where do I work?"' in e.text]
    assert len(asked) == 1 and any('**User:** "I work at Acme' in e.text for e in turn.excerpts), \
        [e.text[:60] for e in turn.excerpts]


def test_an_answer_that_repeats_a_memory_in_its_own_words_does_not_stand_in_for_it(vault):
    """A model's answer that says a memory again ("You work at Acme as a backend engineer") holds
    its words, not the memory: the person's own line still enters the working memory."""
    from braniac.session import Session

    write_note(vault, "memory/long_term/concrete/Work.md", "Work", "# Work\n\nI work at Acme as a backend engineer.\n")
    session = Session(vault, model="offline")
    try:
        session.reflector.reflect_now("Where do I work these days?", "You work at Acme as a backend engineer.")
    finally:
        session.close()
    vault.promote(force=True)
    turn = vault.ask("Where do I work these days?")   # the past question matches it best
    assert turn.excerpts and "**AI:**" in turn.excerpts[0].text
    assert any(e.text == "I work at Acme as a backend engineer." for e in turn.excerpts), [e.text[:80] for e in turn.excerpts]


def test_what_do_i_need_to_do_is_answered_with_the_open_tasks(vault):
    """"Call the plumber" shares no word with the question; a task done is not listed."""
    vault.remember("Remind me to call the plumber about the leak.")
    vault.remember("Remind me to book the dentist.")
    vault.remember("Had lunch with Ana.")
    doc = vault.read_stm()
    assert doc.set_item_done(stm.TASKS, "book the dentist")   # ticked off by hand
    vault.stm_path.write_text(doc.render(), encoding="utf-8")
    answer = vault.ask("What do I need to do?").answer
    quoted = [text for text, _ in re.findall(r'^- "(.*)" \((.*)\)$', answer, re.M)]
    assert "call the plumber about the leak" in quoted, answer
    assert not any("dentist" in q or "lunch" in q for q in quoted), answer
    other = vault.ask("Which task does the billing service run every night?").answer   # not the person's
    assert "plumber" not in other, other


def test_what_do_i_need_to_do_with_nothing_open_says_so_and_quotes_nothing_unrelated(vault):
    vault.remember("Remind me to book the dentist.")
    vault.remember("Had lunch with Ana, she talked about Porto.")
    vault.remember("The shed roof has a 15 degree slope.")
    doc = vault.read_stm()
    assert doc.set_item_done(stm.TASKS, "book the dentist")
    vault.stm_path.write_text(doc.render(), encoding="utf-8")
    answer = vault.ask("What do I need to do?").answer
    assert answer.startswith("Nothing is open on your task list") and '- "' not in answer, answer
    about = vault.ask("What do I still need to do for the shed?").answer   # what the question names is quoted
    assert about.startswith("Nothing is open") and "15 degree slope" in about and "Ana" not in about, about


def test_offline_answer_does_not_take_a_past_question_and_answer_for_a_memory(vault):
    assert "don't remember" in vault.ask("Where did I leave the red kayak paddle?").answer
    vault.promote(force=True)   # the question and braniac's answer are an archived event now
    answer = vault.ask("Where did I leave the red kayak paddle?").answer
    assert "don't remember" in answer and '- "' not in answer, answer


# ---------------------------------------------------------------------- item 4: no made-up provenance

def test_structured_data_lines_cite_only_events_that_state_them(vault):
    kayak = vault.remember("We went kayaking on the river last weekend with Alice.").id
    deploys = vault.remember("Deploys of the billing service happen on Thursdays now.").id
    decided = vault.remember("We decided to move the standup to 9:30.").id
    doc = vault.read_stm()
    assert [i.text for i in doc.items(stm.FACTS)] == ["move the standup to 9:30"]  # reflection's line
    # lines a person (or a model's reflection, in its own words) put in Structured Data
    doc.add_item(stm.FACTS, "The kayak trip was on the Dordogne")
    doc.add_item(stm.FACTS, "Deploys of the billing service happen on Tuesdays")
    vault.stm_path.write_text(doc.render(), encoding="utf-8")
    vault.promote(force=True)
    digest = FactNote.load(vault.root / layout.event_rel(decided)).path.parent / "digest.md"
    lines = {f.text: f.sources for f in FactNote.load(digest).facts()}
    assert lines["fact or decision: move the standup to 9:30"] == [decided]
    # no event states these: they say so, and cite nothing (not the kayak or the deploy event)
    assert lines["fact or decision: The kayak trip was on the Dordogne (no source: no event states it)"] == []
    assert lines["fact or decision: Deploys of the billing service happen on Tuesdays "
                 "(no source: no event states it)"] == []
    cited = {s for sources in lines.values() for s in sources}
    assert kayak in cited and deploys in cited   # by their own digest lines, which they state


# ---------------------------------------------------------------------- item 11: offline extraction

def _note_paths(vault: Vault) -> set[str]:
    root = vault.ltm_root / "concrete"
    return {p.relative_to(root).as_posix() for p in root.rglob("*.md") if p.name != "_index.md"}


def test_a_name_that_opens_a_sentence_gets_its_note(vault):
    vault.remember("Tomas starts Monday on the platform team.")
    vault.remember("Remind me to order the welcome pack.")
    vault.promote(force=True)
    found = _note_paths(vault)
    assert any(p.endswith("/tomas.md") for p in found), found
    assert not any(p.rsplit("/", 1)[-1] in ("remind.md", "monday.md", "platform.md") for p in found), found


def test_two_names_joined_by_and_get_a_note_each(vault):
    vault.remember("Amy and Carla helped me move the piano on Saturday.")
    vault.remember("I watched the finale with Amy and Carla at their flat.")
    vault.remember("We read Pride and Prejudice for the book club.")
    vault.remember("Everyone at the book club loved Pride and Prejudice.")
    vault.promote(force=True)
    found = {p.rsplit("/", 1)[-1] for p in _note_paths(vault)}
    assert {"amy.md", "carla.md"} <= found and "amy-and-carla.md" not in found, found
    assert "pride-and-prejudice.md" in found, found       # one name whose halves are ordinary words


def test_a_name_that_is_also_an_ordinary_word_keeps_its_note(vault):
    vault.remember("I went to the garden with Rose and we planted a rose bush by the fence.")
    vault.remember("Prices rose again this month, and the rent for the garden plot rose too.")
    vault.remember("Tomorrow I will paint the garden fence with Rose and her brother.")
    vault.promote(force=True)
    assert "people/rose.md" in _note_paths(vault), _note_paths(vault)


def test_names_are_read_from_prose_with_markdown_and_code_in_it():
    from braniac.infra import textutil
    from braniac.infra.markdown_prose import without_code

    assert textutil.entities("My flight lands at gate 12. Rain is expected all day.") == []
    assert textutil.entities("We read about Henry I of France, and Bill and I went out.") == ["Henry I of France", "Bill"]
    assert textutil.entities("1. **Review** the plan\n- **Goal:** Deploy it") == []
    prose = without_code("Here:\n```\nx = 1\nreturn True\n```\nI met Bill at Google.\n```python\n"
                         "id = Column(Integer, primary_key=True)\nMaria will review it on Friday.")
    assert "True" not in prose and "Bill at Google" in prose and "Maria will" in prose, prose   # code never closed
    assert without_code("I don`t know; I use `Django` and `app.run()`") == "I don`t know; I use Django and  "


def test_an_organization_is_not_filed_as_a_place(vault):
    vault.remember("Ana works at Unbabel as a translator.")
    vault.remember("Unbabel is a translation startup with an office in Lisbon.")
    vault.remember("Ana moved to Lisbon last spring.")
    vault.promote(force=True)
    found = _note_paths(vault)
    assert "organizations/unbabel.md" in found and "places/lisbon.md" in found, found
    assert "people/ana.md" in found, found


def test_topics_need_evidence_not_just_a_repeated_word(vault):
    for text in ("My sister mentioned that the customer service number is 555-0100.",
                 "I called the customer service number twice and nobody answered.",
                 "My sister mentioned a new pottery class at the community center.",
                 "The pottery class starts at seven on Thursdays."):
        vault.remember(text)
    vault.promote(force=True)
    topics = {p.rsplit("/", 1)[-1] for p in _note_paths(vault)}
    assert not topics & {"mentioned.md", "number.md", "sister.md", "service.md", "customer.md", "class.md",
                         "called.md"}, topics
    assert "pottery-class.md" in topics, topics     # a noun phrase that comes back is a topic


def test_offline_answer_puts_the_current_claim_before_a_superseded_one():
    history = ("- 2025-03-01 — The Grafana staging server port is 8080 for the billing team. — superseded on "
               "2025-03-05 ([2025-03-01T10:00:00Z](../../events/2025/03/01/2025-03-01T10-00-00Z.md))")
    current = ("- 2025-03-05 — The Grafana staging server port is 9090 for the billing team. "
               "([2025-03-05T10:00:00Z](../../events/2025/03/05/2025-03-05T10-00-00Z.md))")
    raw_old = '### 2025-03-01T10:00:00Z\n**User:** "The Grafana staging server port is 8080 for the billing team."'
    wm = WorkingMemory(identity="", conversation="", short_term="", prompt="What is the Grafana staging server port?",
                       excerpts=[Excerpt("u1", "memory/long_term/concrete/grafana.md", "Grafana", history),
                                 Excerpt("u2", "memory/long_term/events/2025/03/01/2025-03-01T10-00-00Z.md", "", raw_old),
                                 Excerpt("u1", "memory/long_term/concrete/grafana.md", "", current)])
    answer = "".join(OfflineModel().answer(wm))
    assert "9090" in answer and "8080" not in answer, answer


def test_a_days_digest_lists_events_of_one_second_in_the_order_they_were_said(vault):
    with clock.frozen(datetime(2025, 6, 2, 10, tzinfo=timezone.utc)):
        ids = [vault.remember(f"We decided to paint the {room} blue.").id for room in
               ("kitchen", "hall", "attic", "garage", "study", "porch", "cellar", "pantry", "nursery", "office", "den")]
    assert len({i[:19] for i in ids}) == 1 and len(set(ids)) == len(ids), ids   # one second, eleven events
    vault.promote(force=True)
    digest = FactNote.load(vault.root / layout.event_rel(ids[0])).path.parent / "digest.md"
    order = [f.sources[0] for f in FactNote.load(digest).facts() if f.text.startswith("10:00 — ")]
    assert order == ids, order


# Two events in one second: the later id carries a fraction ("…:00.001Z") and, as text, sorts
# before "…:00Z". Every place that orders events compares them in time order.

def test_promotion_carries_a_value_said_later_in_the_same_second_to_the_note_of_the_old_one():
    old = NoteDraft("concrete", ["topics"], "Grafana", "", [Claim("The Grafana staging server port is 8080.",
                                                                  ["2025-03-01T10:00:00Z"])])
    new = NoteDraft("concrete", ["topics"], "Ports", "", [Claim("The Grafana staging server port is 9090.",
                                                                ["2025-03-01T10:00:00.001Z"])])
    carry_updates([old, new])
    assert any("9090" in c.text for c in old.claims), old.claims
    assert not any("8080" in c.text for c in new.claims), new.claims


def test_sync_renumbers_events_of_one_second_in_their_time_order(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    first, second = "2025-03-01T10:00:00Z", "2025-03-01T10:00:00.001Z"
    vault = SimpleNamespace(root=tmp_path, state_dir=tmp_path / ".braniac")
    renamed = renumber(vault, {first, second}, {first, second}, "0" * 40)
    assert layout.event_order(renamed[first]) < layout.event_order(renamed[second]), renamed


def test_an_event_put_back_in_short_term_memory_goes_above_the_older_one_of_its_second():
    doc = stm.parse(stm.render_new(summary=""))
    doc.add_event("2025-03-01T10:00:00Z", {"User": "port is 8080"})
    doc.restore_event(stm.Event("2025-03-01T10:00:00.001Z",
                                stm.render_event("2025-03-01T10:00:00.001Z", {"User": "port is 9090"})))
    assert [e.id for e in stm.parse(doc.render()).events] == ["2025-03-01T10:00:00.001Z", "2025-03-01T10:00:00Z"]


def test_a_days_index_lists_events_of_one_second_in_the_order_they_were_said(vault):
    with clock.frozen(datetime(2025, 6, 2, 10, tzinfo=timezone.utc)):
        ids = [vault.remember(t).id for t in ("We painted the kitchen blue.", "We painted the hall green.")]
    with clock.frozen(datetime(2025, 6, 2, 13, tzinfo=timezone.utc)):
        vault.promote(force=True)
    index = (vault.root / layout.event_day_rel(ids[0]) / "_index.md").read_text(encoding="utf-8")
    first, second = (index.find(i.replace(":", "-") + ".md") for i in ids)
    assert 0 <= first < second, index


def test_events_within_one_second_keep_their_time_order():
    ids = ["2025-06-02T10:00:01Z", "2025-06-02T10:00:00.010Z", "2025-06-02T10:00:00Z",
           "2025-06-02T10:00:00.002Z", "2025-06-02T09:59:59.999Z"]
    assert sorted(ids, key=layout.event_order) == [
        "2025-06-02T09:59:59.999Z", "2025-06-02T10:00:00Z", "2025-06-02T10:00:00.002Z",
        "2025-06-02T10:00:00.010Z", "2025-06-02T10:00:01Z"]

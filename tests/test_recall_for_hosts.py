"""Recall for an assistant that brings its own model (MCP, `braniac recall`, `Vault.recall`):
it has not read short-term memory, so what was just said competes with the notes (and makes an
older value in them history); it gets at most the excerpts it asked for; and a note the person
keeps in a folder of their own is memory as the README says."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest

from braniac import Vault
from braniac.infra import clock


@pytest.fixture
def vault(tmp_path):
    created, _ = Vault.init(tmp_path / "vault")
    return created


def _on(day: int, hour: int = 10):
    return clock.frozen(datetime(2026, 3, day, hour, tzinfo=timezone.utc))


def test_what_was_just_said_enters_by_the_measure_asked_for_though_it_holds_no_word_of_it(vault):
    """"Down to 86 kg these days" holds no word of "How much do I weigh?": the host got the old
    weight alone, where `ask` (which reads short-term memory whole) had the new one."""
    with _on(2):
        vault.remember("I weigh 92 kg.")
    with _on(20):
        vault.remember("Down to 86 kg these days, the running is paying off.")
        vault.remember("The plumber comes on Monday.")
    with _on(24):
        texts = [e.text for e in vault.recall("How much do I weigh?").excerpts]
    assert "86 kg" in texts[0] and "superseded" not in texts[0], texts
    assert [t for t in texts if "92 kg" in t][0].count("superseded on 2026-03-20") == 1, texts
    assert not any("plumber" in t for t in texts), texts


def test_recall_brings_what_was_just_said_and_makes_the_older_value_history(vault):
    with _on(2):
        vault.remember("My dentist appointment is on May 12.")
        vault.promote(force=True)
    with _on(3):
        vault.remember("The clinic moved my dentist appointment to May 19.")
        vault.remember("My sister Ana lives in Porto.")
    with _on(4):
        excerpts = vault.recall("When is my dentist appointment?").excerpts
        just_said = vault.recall("Where does my sister Ana live?").excerpts
    assert "May 19" in excerpts[0].text and excerpts[0].path == "memory/short_term.md", excerpts
    assert excerpts[0].events == ["2026-03-03T10:00:00Z"]
    older = next(e for e in excerpts if "May 12" in e.text)
    assert "superseded on 2026-03-03" in older.text, older
    # what was just said enters by the prompt's own words, not as the context of every question
    assert not any("Porto" in e.text for e in excerpts), excerpts
    assert "Porto" in just_said[0].text, just_said
    # the access log names the notes read, not short-term memory (read whole every turn)
    assert "short_term.md" not in vault.access_log_path.read_text(encoding="utf-8")


def test_recall_gives_at_most_the_excerpts_asked_for(vault):
    with _on(2):
        for n in range(12):
            vault.remember(f"The dentist said tooth {n} needs a filling.")
        vault.promote(force=True)
    with _on(3):
        assert len(vault.recall("What did the dentist say?", limit=1).excerpts) == 1
        assert len(vault.recall("What did the dentist say?", limit=3).excerpts) == 3
        assert len(vault.recall("What did the dentist say?").excerpts) <= 8   # memory.search_limit


def test_a_note_in_a_persons_own_folder_is_recalled_and_answers(vault):
    with _on(2):
        vault.remember("Dora's birthday is July 9.")
        vault.promote(force=True)
    own = vault.root / "memory/long_term/recipes/pancakes.md"
    own.parent.mkdir(parents=True)
    own.write_text("# Pancakes\n\nPancakes need 2 eggs, a cup of flour and a cup of milk.\n", encoding="utf-8")
    with _on(3):
        excerpts = vault.recall("How many eggs do pancakes need?").excerpts
        answer = vault.ask("How many eggs do pancakes need?").answer
    assert excerpts and excerpts[0].path == "memory/long_term/recipes/pancakes.md", excerpts
    assert "2 eggs" in answer, answer
    # an _index.md guides people and organization: never an answer
    with _on(3):
        assert not any(e.path.endswith("_index.md") for e in vault.recall("recipes pancakes").excerpts)


def test_a_value_the_person_corrected_in_a_note_comes_before_what_they_had_said(vault):
    with _on(2):
        vault.remember("I work at Acme as a backend engineer.")
        vault.remember("The staging server runs on port 8080.")
        vault.promote(force=True)
    note = next(vault.root.glob("memory/long_term/concrete/*/acme.md"))
    note.write_text(note.read_text(encoding="utf-8").replace("backend engineer", "staff engineer"), encoding="utf-8")
    with _on(3):
        excerpts = vault.recall("What is my job at Acme?").excerpts
        answer = vault.ask("What is my job at Acme?").answer
    assert "staff engineer" in excerpts[0].text, excerpts
    said = next(e for e in excerpts if "backend engineer" in e.text)
    assert "_(history — superseded on" in said.text, said
    assert answer.index("staff engineer") < answer.index("backend engineer"), answer
    # a claim braniac wrote in other words of its event is no correction of it
    from braniac.vault.corrections import corrects
    assert not corrects("I work at Acme as a backend engineer.", "Works at Acme as a backend engineer.")
    assert not corrects("I went to a support group yesterday.", "I went to a support group yesterday (2026-03-01).")


def test_recall_leaves_out_past_questions_braniacs_answers_and_wrap_ups(vault):
    with _on(2):
        vault.ask("When is Ana's birthday?")
        vault.remember("Ana's birthday is on June 2.")
        vault.wrap_up("Talked about Ana's birthday party.", next_step="buy Ana's present")
    with _on(3):
        excerpts = vault.recall("When is Ana's birthday?").excerpts
    assert excerpts and "June 2" in excerpts[0].text, excerpts
    assert not any("**AI:**" in e.text or "wrap-up" in e.text or "When is Ana's birthday?" in e.text
                   for e in excerpts), excerpts


def test_a_template_or_a_file_beside_the_tiers_is_no_answer(vault):
    root = vault.root / "memory/long_term"
    (root / "templates").mkdir()
    (root / "templates/person.md").write_text("# {{name}}\n\nLives in: {{city}}\n", encoding="utf-8")
    (root / "README.md").write_text("# My memory\n\nWhere things live: people, places, recipes.\n", encoding="utf-8")
    (root / "people").mkdir()
    (root / "people/ana.md").write_text("# Ana\n\nAna lives in Porto with her cat.\n", encoding="utf-8")
    with _on(3):
        paths = [e.path for e in vault.recall("Where does Ana live?").excerpts]
    assert paths and paths[0] == "memory/long_term/people/ana.md", paths
    assert not {"memory/long_term/templates/person.md", "memory/long_term/README.md"} & set(paths), paths


def test_a_digest_line_is_no_correction_of_its_event(vault):
    with _on(2):
        vault.remember("For the shed I decided on cedar boards.")
        vault.promote(force=True)
    with _on(3):
        excerpts = vault.recall("What did I decide about the shed?").excerpts
    assert not any("superseded" in e.text for e in excerpts), excerpts

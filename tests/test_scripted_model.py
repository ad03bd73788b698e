"""ScriptedModel, the scripted in-process model the tests use: replies queued per task,
every call recorded, the offline engine (or an error) when nothing is queued."""
from __future__ import annotations

import pytest

from braniac import ScriptedModel, Vault
from braniac.infra.errors import ModelError
from braniac.model import MemoryModel
from braniac.model.offline import OfflineModel
from braniac.model.scripted import TASKS, NothingQueued
from braniac.model.organization_types import OrganizationRequest
from braniac.model.types import Candidate, EventRecord, NoteDraft, Reflection, WorkingMemory
from braniac.vault.usage import Usage

WM = WorkingMemory(identity="me", conversation="", short_term="", prompt="Where did Ana move?")
EVENTS = [EventRecord("2025-03-02T09:00:00Z", {"User": "Ana: I moved to Lisbon last month and love the trams."})]
CANDIDATE = Candidate("concrete", ["people"], "Ana", [EVENTS[0].id])
ARGS = {"search_queries": (WM,), "answer": (WM,), "reflect": ("hi", "hello", ""), "analyze": (EVENTS, []),
        "synthesize": (CANDIDATE, EVENTS, []), "summarize": (EVENTS, [], []),
        "propose_organization": None}   # needs a vault: made per test


def _args(task: str, tmp_path) -> tuple:
    if task != "propose_organization":
        return ARGS[task]
    vault, _ = Vault.init(tmp_path / "vault")
    return (OrganizationRequest(vault, Usage(), Usage(), archive_after_days=180.0),)


def test_it_implements_every_task_of_the_contract():
    declared = {name for name, value in vars(MemoryModel).items() if callable(value) and not name.startswith("_")}
    assert set(TASKS) == declared == set(ARGS)
    assert all(callable(getattr(ScriptedModel, task)) for task in TASKS)
    assert ScriptedModel().name == "scripted" and ScriptedModel("stuck").name == "stuck"


def test_replies_come_from_each_tasks_queue_in_order():
    draft = NoteDraft("concrete", ["people"], "Ana", "", [])
    model = (ScriptedModel().enqueue("search_queries", ["one"], ["two"]).enqueue("reflect", Reflection("Hm."))
             .enqueue("analyze", [CANDIDATE]).enqueue("synthesize", draft).enqueue("summarize", "All done."))
    assert model.search_queries(WM) == ["one"] and model.search_queries(WM) == ["two"]
    assert model.reflect("a", "b", "c") == Reflection("Hm.")
    assert model.analyze(EVENTS, ["Ana"]) == [CANDIDATE]
    assert model.synthesize(CANDIDATE, EVENTS, []) is draft
    assert model.summarize(EVENTS, [], []) == "All done."
    assert [call.task for call in model.history] == ["search_queries", "search_queries", "reflect", "analyze",
                                                    "synthesize", "summarize"]
    assert model.calls("reflect")[0].args == {"user": "a", "ai": "b", "short_term": "c"}
    assert model.calls("analyze")[0].args["known_titles"] == ["Ana"]
    assert all(model.pending(task) == 0 for task in TASKS)


def test_answers_stream_their_chunks_and_an_exception_among_them_is_raised_in_place():
    model = ScriptedModel().enqueue("answer", "Whole.", ["Half ", "way", KeyboardInterrupt()])
    assert list(model.answer(WM)) == ["Whole."]
    said = []
    with pytest.raises(KeyboardInterrupt):
        for chunk in model.answer(WM):
            said.append(chunk)
    assert said == ["Half ", "way"]


@pytest.mark.parametrize("failure", [ModelError("the server broke off"), ModelError])
def test_an_exception_is_raised_when_the_task_is_called(failure):
    model = ScriptedModel().enqueue("reflect", failure)
    with pytest.raises(ModelError):
        model.reflect("a", "b", "c")
    assert len(model.history) == 1 and model.pending("reflect") == 0


def test_a_callable_is_called_with_the_tasks_arguments_and_its_result_is_the_reply():
    seen = []

    def think(user, ai, short_term):
        seen.append((user, ai, short_term))
        return model.fallback.reflect(user, ai, short_term)

    def stream(wm):
        yield "About "
        yield wm.prompt

    model = ScriptedModel().enqueue("reflect", think).enqueue("answer", stream)
    assert model.reflect("I moved to Lisbon.", "Nice.", "") == OfflineModel().reflect("I moved to Lisbon.", "Nice.", "")
    assert seen == [("I moved to Lisbon.", "Nice.", "")]
    assert "".join(model.answer(WM)) == "About Where did Ana move?"


@pytest.mark.parametrize("task", TASKS)
def test_a_task_with_nothing_queued_asks_the_offline_engine(task, tmp_path):
    args = _args(task, tmp_path)
    scripted = getattr(ScriptedModel(), task)(*args)
    offline = getattr(OfflineModel(), task)(*args)
    assert (list(scripted) if task == "answer" else scripted) == (list(offline) if task == "answer" else offline)


def test_without_a_fallback_a_task_with_nothing_queued_is_a_clear_error():
    model = ScriptedModel("strict", fallback=None).enqueue("search_queries", ["kayak"])
    assert model.search_queries(WM) == ["kayak"]
    with pytest.raises(NothingQueued, match="'strict' has no reply queued for search_queries and no fallback"):
        model.search_queries(WM)
    assert len(model.calls("search_queries")) == 2


def test_an_unknown_task_is_refused():
    with pytest.raises(ValueError, match="no task named 'reflection'"):
        ScriptedModel().enqueue("reflection", "x")


def test_a_vault_turn_with_a_scripted_model(tmp_path):
    vault, _ = Vault.init(tmp_path / "vault")
    model = ScriptedModel().enqueue("search_queries", ["kayak"]).enqueue("answer", ["You went ", "kayaking."])
    turn = vault.ask("Where did I go?", model=model)
    assert turn.model == "scripted" and turn.queries == ["kayak"] and turn.answer == "You went kayaking."
    assert [call.task for call in model.history] == ["search_queries", "answer", "reflect"]
    assert vault.read_stm().events[0].fields["AI"] == "You went kayaking."

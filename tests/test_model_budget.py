"""Prompts that fit a small model's context (model/budget.py), and the tolerant reading of a
reply (model/json_reply.py), piece by piece; then every request of a turn and a promotion over
a 200-event short-term memory, through LiteLLM and the loopback server, measured against the
context it was configured with."""
from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest

from braniac import Vault
from braniac.infra.config import load as load_config
from braniac.infra.errors import ConfigError
from braniac.model import budget, get_model
from braniac.model.json_reply import ReplyProblem, read_reply
from braniac.model.schemas import CANDIDATES, DRAFT, REFLECTION, SCHEMAS, SEARCH_QUERIES, single_list
from braniac.model.types import EventRecord
from braniac.processes.promotion import promote
from braniac.processes.reflection import Reflector
from braniac.model.offline import OfflineModel
from braniac.session import Session
from braniac.vault import stm

from fake_llm import configure_vault
from test_promotion import archived, stm_ids

T0 = datetime(2025, 3, 1, 9, 0, tzinfo=timezone.utc)


def record(n: int, words: int = 40) -> EventRecord:
    stamp = (T0 + timedelta(minutes=n)).strftime("%Y-%m-%dT%H:%M:%SZ")
    return EventRecord(stamp, {"User": f"event {n} " + "word " * words})


# ----------------------------------------------------------------------------- budget

def test_batches_hold_every_event_once_in_order_and_each_fits():
    events = [record(n) for n in range(50)]
    groups = budget.batches(events, 400)
    assert [e.id for g in groups for e in g] == [e.id for e in events]
    assert len(groups) > 1 and all(sum(budget.event_tokens(e) for e in g) <= 400 for g in groups)


def test_an_event_larger_than_the_budget_goes_alone_and_whole():
    events = [record(0), record(1, words=5000), record(2)]
    groups = budget.batches(events, 300)
    assert [[e.id for e in g] for g in groups] == [[events[0].id], [events[1].id], [events[2].id]]
    assert groups[1][0].text == events[1].text


def test_newest_that_fit_keeps_the_newest_whole_events_in_their_order():
    events = [record(n) for n in range(20)]
    kept, left_out = budget.newest_that_fit(events, 5 * budget.event_tokens(events[0]))
    assert [e.id for e in kept] == [e.id for e in events[-5:]] and left_out == 15


def test_newest_that_fit_knows_the_newest_of_events_within_one_second():
    """"…:00.002Z" is later than "…:00Z", though as text it sorts first."""
    stamp = T0.strftime("%Y-%m-%dT%H:%M:%S")
    events = [EventRecord(stamp + tail, {"User": f"event {n} " + "word " * 40})
              for n, tail in enumerate(("Z", ".001Z", ".002Z"))]
    kept, left_out = budget.newest_that_fit(events, budget.event_tokens(events[0]))
    assert [e.id for e in kept] == [stamp + ".002Z"] and left_out == 2


def test_short_term_memory_is_cut_by_whole_oldest_events():
    doc = stm.parse(stm.render_new(summary="Ana lives in Lisbon."))
    for n in range(60):
        doc.add_event((T0 + timedelta(minutes=n)).strftime("%Y-%m-%dT%H:%M:%SZ"),
                      {"User": f"fact number {n} " + "padding " * 30})
    text = doc.render()
    cut = budget.short_term_that_fits(text, 1000)
    assert budget.tokens(cut) <= 1000
    kept = stm.parse(cut)
    ids = [e.id for e in kept.events]
    assert ids == [e.id for e in doc.events][:len(ids)] and 0 < len(ids) < 60     # the newest, whole
    assert all(e.raw in text for e in kept.events)
    assert kept.summary == "Ana lives in Lisbon." and "oldest events are left out" in cut
    assert budget.short_term_that_fits(text, 10**6) == text


def test_context_settings_are_checked(tmp_path):
    (tmp_path / "braniac.toml").write_text("[model]\ncontext_tokens = 4096\nstructured_output = \"json_object\"\n")
    config = load_config(tmp_path)
    assert config.model.context_tokens == 4096 and config.model.structured_output == "json_object"
    for bad in ("context_tokens = 100", "structured_output = \"xml\"", "context_tokens = \"4k\""):
        (tmp_path / "braniac.toml").write_text(f"[model]\n{bad}\n")
        with pytest.raises(ConfigError, match="model\\."):
            load_config(tmp_path)


# ----------------------------------------------------------------------------- reading replies

@pytest.mark.parametrize("raw, repairs", [
    ('{"queries": ["a b"]}', []),
    ('```json\n{"queries": ["a b"]}\n```', ["code fence"]),
    ('Here you go:\n```\n{"queries": ["a b"]}\n```\nAnything else?', ["code fence"]),
    ('Sure! {"queries": ["a b"]} Hope that helps.', ["prose around the JSON"]),
    ('["a b"]', ["bare list"]),
    ('{"queries": ["a b",],}', ["trailing comma"]),
])
def test_replies_a_small_model_writes_are_read(raw, repairs):
    reading = read_reply(raw, SEARCH_QUERIES)
    assert reading.value == {"queries": ["a b"]} and reading.repairs == repairs


@pytest.mark.parametrize("raw, schema, problem", [
    ("", SEARCH_QUERIES, "empty"),
    ("   \n", REFLECTION, "empty"),
    ("Je pense que l'utilisateur parle de kayak.", REFLECTION, "no JSON"),
    ('{"type": "object", "properties": {"queries": {}}, "required": ["queries"]}', SEARCH_QUERIES,
     "repeats the JSON Schema"),
    ('{"thoughts": "x"}', CANDIDATES, "no 'candidates'"),
    ('"just a string"', DRAFT, "expected a JSON object"),
    ("[" * 40 + "]" * 40, SEARCH_QUERIES, "nested deeper"),
])
def test_unusable_replies_say_why_in_a_few_words(raw, schema, problem):
    with pytest.raises(ReplyProblem, match=problem):
        read_reply(raw, schema)


def test_a_reply_cut_at_the_length_limit_says_so():
    with pytest.raises(ReplyProblem, match="cut off at the length limit"):
        read_reply('{"candidates": [{"title": "An', CANDIDATES, truncated=True)
    assert read_reply('{"candidates": []}', CANDIDATES, truncated=True).value == {"candidates": []}
    # a small model repeating itself to the limit: the items it finished are kept, the cut one is not
    ana = {"title": "Ana", "event_ids": ["2025-03-02T09:00:00Z"]}
    cut = '{"candidates": [' + ", ".join([json.dumps(ana)] * 3) + ', {"title": "Ana", "event_'
    reading = read_reply(cut, CANDIDATES, truncated=True)
    assert reading.value == {"candidates": [ana] * 3} and reading.repairs == [
        "cut off at the length limit: the 3 whole items before the cut"]
    # an object found inside a cut-off reply is one of its items, never taken for the reply
    with pytest.raises(ReplyProblem, match="cut off at the length limit"):
        read_reply('{"thoughts": "Ana moved", "facts": [{"x": 1}', REFLECTION, truncated=True)


def test_every_json_task_has_a_schema_and_the_list_tasks_take_a_bare_list():
    assert set(SCHEMAS) == {"search_queries", "reflect", "promote_analyze", "promote_synthesize",
                            "promote_summary", "organize"}
    assert [single_list(SCHEMAS[t]) for t in ("search_queries", "promote_analyze", "promote_synthesize",
                                              "organize", "reflect", "promote_summary")] == \
        ["queries", "candidates", "claims", "operations", None, None]


# ----------------------------------------------------------------------------- 200 events, 4k context

def test_with_200_events_every_prompt_and_its_reply_fit_the_context(tmp_path, fake_llm, monkeypatch, net_guard):
    base_url, server = fake_llm
    monkeypatch.setenv("FAKE_LLM_KEY", "test")
    for name in ("BRANIAC_MODEL", "BRANIAC_API_BASE"):
        monkeypatch.delenv(name, raising=False)
    vault, _ = Vault.init(tmp_path / "vault")
    configure_vault(vault.root, base_url, extra="context_tokens = 4096\n")
    reflector = Reflector(vault, OfflineModel())
    ids = [reflector.reflect_now(f"Fact {n}: the staging box number {n} runs service {n * 7} on port {5000 + n}.",
                                 f"Noted, service {n * 7} on port {5000 + n}.", at=T0 + timedelta(minutes=n)).id
           for n in range(200)]
    server.answers.append("Port 5199.")
    session = Session(vault)
    try:
        session.turn("Which port does the staging box 199 use?", background=False)
    finally:
        session.close()
    config = load_config(vault.root)
    report = promote(vault, get_model(config, vault.root), config, force=True)
    assert report.status == "done"
    assert set(ids) <= set(archived(vault)) and not set(ids) & set(stm_ids(vault))   # nothing lost
    tasks = [r.task for r in server.requests]
    assert {"search_queries", "answer", "reflect", "promote_analyze", "promote_summary"} <= set(tasks)
    assert tasks.count("promote_analyze") > 1   # more events than one prompt holds: several calls
    for request in server.requests:
        assert budget.tokens(request.text) + request.body["max_tokens"] <= 4096, (request.task, len(request.text))

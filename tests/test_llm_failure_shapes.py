"""How real small models get JSON wrong, each shape served by the loopback server (LiteLLM's
real path): a reply braniac can repair is used, with a line in logs/model.log and nothing shown;
one it cannot is retried once and then the offline engine does the task, with one notice line.
In every case no event is lost: promoted events are archived, reflected exchanges are kept.
"""
from __future__ import annotations

import json

import pytest

from braniac import Vault
from braniac.infra.config import load as load_config
from braniac.model import get_model
from braniac.model.schemas import CANDIDATES
from braniac.processes.promotion import promote
from braniac.session import Session

from fake_llm import Raw, Truncated, configure_vault
from helpers import check_healthy
from test_promotion import archived, fill, stm_ids


@pytest.fixture
def vault(tmp_path, fake_llm, monkeypatch, net_guard):
    base_url, server = fake_llm
    monkeypatch.setenv("FAKE_LLM_KEY", "test")
    for name in ("BRANIAC_MODEL", "BRANIAC_API_BASE"):
        monkeypatch.delenv(name, raising=False)
    vault, _ = Vault.init(tmp_path / "vault")
    configure_vault(vault.root, base_url)
    return vault, server


def promote_with(vault: Vault):
    config = load_config(vault.root)
    model = get_model(config, vault.root)
    return promote(vault, model, config, force=True), model


def candidates(ids: list[str]) -> list[dict]:
    return [{"title": "Ana", "kind": "concrete", "folder": ["people"], "event_ids": ids}]


def draft(ids: list[str]) -> dict:
    return {"summary": "Ana.", "tags": ["people"], "emotion": "neutral",
            "claims": [{"text": "Ana moved to Lisbon.", "sources": ids[:1]}]}


def model_log(vault: Vault) -> list[str]:
    path = vault.root / "logs" / "model.log"
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


def check_nothing_lost(vault: Vault, ids: list[str], report) -> None:
    assert report.status == "done" and sorted(report.events) == sorted(ids)
    assert sorted(archived(vault)) == sorted(ids) and stm_ids(vault) == []
    check_healthy(vault)


def about_the_model(notices: list[str]) -> list[str]:
    """The notices, less the index's own ("building the search index (first use)")."""
    return [n for n in notices if "search index" not in n]


def one_clear_line(notices: list[str], *needles: str) -> None:
    notices = about_the_model(notices)
    assert len(notices) == 1, notices
    assert "\n" not in notices[0] and all(n in notices[0] for n in needles), notices


# ----------------------------------------------------------------------------- repaired: used as meant

REPAIRABLE = {
    "prose around the JSON": lambda ids: Raw("Sure! Here is the JSON you asked for:\n"
                                             + json.dumps({"candidates": candidates(ids)})
                                             + "\nLet me know if you need anything else."),
    "code fence": lambda ids: Raw("```json\n" + json.dumps({"candidates": candidates(ids)}, indent=2) + "\n```"),
    "bare list": lambda ids: Raw(json.dumps(candidates(ids))),
    "trailing comma": lambda ids: Raw(json.dumps({"candidates": candidates(ids)})[:-2] + ",],}"),
}


@pytest.mark.parametrize("shape", sorted(REPAIRABLE))
def test_a_repairable_reply_is_used_and_logged_without_a_retry(vault, shape, notices):
    vault, server = vault
    ids = fill(vault)
    server.other.extend([REPAIRABLE[shape](ids), draft(ids), {"summary": "Ana moved to Lisbon."}])
    report, model = promote_with(vault)
    check_nothing_lost(vault, ids, report)
    assert [c.outcome for c in model.calls] == ["repaired", "accepted", "accepted"], model.calls
    assert len(server.calls("other")) == 3                      # no retry
    assert about_the_model(notices) == []                                        # it worked: nothing to tell
    assert (vault.ltm_root / "concrete/people/ana.md").exists()
    assert any(f"promote_analyze | repaired: {shape}" in line for line in model_log(vault)), model_log(vault)


# ----------------------------------------------------------------------------- unusable: retried, then offline

UNUSABLE = {
    "truncated at the length limit": (Truncated('{"candidates": [{"title": "Ana", "kind": "conc'), "cut off"),
    "schema echo": (Raw(json.dumps(CANDIDATES)), "repeats the JSON Schema"),
    "empty reply": (Raw(""), "the reply was empty"),
    # valid JSON that would leave every event out of long-term memory (a 1.5B model did this)
    "no candidate": (Raw('{"candidates": []}'), "no candidate cites any of the events"),
    "made-up event ids": (Raw(json.dumps({"candidates": candidates(["2099-01-01T00:00:00Z"])})),
                          "no candidate cites any of the events"),
    "another language": (Raw("好的，我来分析这些事件：安娜搬到了里斯本，她的妹妹在波尔图当护士。"), "no JSON"),
}


@pytest.mark.parametrize("shape", sorted(UNUSABLE))
def test_an_unusable_reply_is_retried_once_then_the_offline_engine_analyzes(vault, shape, notices):
    vault, server = vault
    ids = fill(vault)
    reply, problem = UNUSABLE[shape]
    server.other.extend([reply, reply, {"summary": "Consolidated."}])
    report, model = promote_with(vault)
    check_nothing_lost(vault, ids, report)
    analyze = server.calls("other")[:2]
    assert all(r.task == "promote_analyze" for r in analyze) and server.calls("other")[2].task == "promote_summary"
    retry = analyze[1].messages[-1]["content"]
    assert "not usable" in retry and problem in retry
    if shape.startswith("truncated"):
        assert "shorter" in retry
    assert [c.outcome for c in model.calls] == ["fell back", "accepted"]
    one_clear_line(notices, "could not analyze", problem, "offline engine")
    log = [line for line in model_log(vault) if "promote_analyze" in line]
    assert len(log) == 1 and "fell back to the offline engine" in log[0] and problem in log[0]
    assert len(list(vault.ltm_root.glob("concrete/**/*.md"))) > 1   # the offline analysis made notes


def test_a_truncated_reply_then_a_whole_one_is_retried(vault, notices):
    vault, server = vault
    ids = fill(vault)
    server.other.extend([Truncated('{"candidates": [{"title": "A'), {"candidates": candidates(ids)}, draft(ids),
                         {"summary": "Ana."}])
    report, model = promote_with(vault)
    check_nothing_lost(vault, ids, report)
    assert [c.outcome for c in model.calls] == ["retried", "accepted", "accepted"]
    assert about_the_model(notices) == []
    assert any("promote_analyze | retried: the reply was cut off" in line for line in model_log(vault))


# ----------------------------------------------------------------------------- the turn's tasks

def test_a_reflection_in_another_language_keeps_the_exchange_verbatim(vault, notices):
    vault, server = vault
    server.reflections.extend([Raw("这是一次关于皮划艇的对话。"), Raw("用户提到了皮划艇的价格。")])
    server.answers.append("Noted: 40 euros.")
    session = Session(vault)
    try:
        session.turn("Remember that the kayak rental costs 40 euros.", background=False)
    finally:
        session.close()
    event = vault.read_stm().events[0]
    assert event.fields["User"] == "Remember that the kayak rental costs 40 euros."
    assert event.fields["AI"] == "Noted: 40 euros."
    one_clear_line(notices, "could not reflect", "recorded the exchange verbatim")
    assert any("reflect | fell back" in line for line in model_log(vault))


def test_empty_search_queries_fall_back_to_keywords_with_one_line(vault, notices):
    vault, server = vault
    server.queries.extend([Raw(""), Raw("   ")])
    server.answers.append("ok")
    session = Session(vault)
    try:
        turn = session.turn("What colour was the kayak?", background=False)
    finally:
        session.close()
    assert turn.answer == "ok" and turn.queries
    one_clear_line(notices, "keywords from the prompt")
    assert vault.read_stm().events[0].fields["User"] == "What colour was the kayak?"


# ----------------------------------------------------------------------------- providers that refuse json_schema

def test_a_server_that_refuses_json_schema_is_asked_with_json_object_then_the_prompt(vault, notices):
    vault, server = vault
    ids = fill(vault)
    server.refuse = {"json_schema"}
    server.other.extend([{"candidates": candidates(ids)}, draft(ids), {"summary": "Ana."}])
    report, model = promote_with(vault)
    check_nothing_lost(vault, ids, report)
    formats = [(r.body.get("response_format") or {}).get("type") for r in server.calls("other")]
    assert formats == ["json_schema", "json_object", "json_object", "json_object"]   # refused once, remembered
    assert about_the_model(notices) == [] and [c.outcome for c in model.calls] == ["accepted"] * 3



def test_a_server_that_refuses_both_response_formats_gets_the_schema_in_the_prompt(vault, notices):
    vault, server = vault
    ids = fill(vault)
    server.refuse = {"json_schema", "json_object"}
    server.other.extend([{"candidates": candidates(ids)}, draft(ids), {"summary": "Ana."}])
    report, model = promote_with(vault)
    check_nothing_lost(vault, ids, report)
    calls = server.calls("other")
    assert [(r.body.get("response_format") or {}).get("type") for r in calls] == \
        ["json_schema", "json_object", None, None, None]
    assert all('"required":["candidates"]' in r.text for r in calls[2:3])   # the schema, in the prompt
    assert about_the_model(notices) == [] and [c.outcome for c in model.calls] == ["accepted"] * 3
    assert any("refused response_format json_schema" in line for line in model_log(vault))
    assert any("refused response_format json_object" in line for line in model_log(vault))


def test_a_refusal_sent_as_http_500_is_a_refusal_and_json_object_carries_the_schema(vault, notices):
    """llama-cpp-python's server answers `json_schema` with a 500 naming response_format; it
    enforces a schema given inside `json_object` instead."""
    vault, server = vault
    ids = fill(vault)
    server.refuse, server.refuse_status = {"json_schema"}, 500
    server.other.extend([{"candidates": candidates(ids)}, draft(ids), {"summary": "Ana."}])
    report, model = promote_with(vault)
    check_nothing_lost(vault, ids, report)
    formats = [r.body.get("response_format") or {} for r in server.calls("other")]
    assert [f.get("type") for f in formats] == ["json_schema", "json_object", "json_object", "json_object"]
    assert formats[1]["schema"]["required"] == ["candidates"] and formats[3]["schema"]["required"] == ["summary"]
    assert about_the_model(notices) == [] and [c.outcome for c in model.calls] == ["accepted"] * 3
    # the ids the model may cite are the events' own, as an enum a grammar can enforce, and at
    # least one candidate (and one claim) is asked for: an empty list is what a 1.5B model wrote
    analysis, synthesis = formats[1]["schema"], formats[2]["schema"]
    candidate = analysis["properties"]["candidates"]
    assert candidate["minItems"] == 1 and candidate["items"]["properties"]["event_ids"]["minItems"] == 1
    assert sorted(candidate["items"]["properties"]["event_ids"]["items"]["enum"]) == sorted(ids)
    claims = synthesis["properties"]["claims"]
    assert claims["minItems"] == 1 and set(claims["items"]["properties"]["sources"]["items"]["enum"]) <= set(ids)
    prompt = server.calls("other")
    assert all(i in prompt[0].text for i in ids)


# ----------------------------------------------------------------------------- valid JSON, poor analysis

def test_events_the_models_analysis_leaves_out_and_a_claim_its_events_do_not_state_are_not_kept_so(vault, notices):
    """What a 1.5B model did under a grammar that forced one candidate: two topics for fifteen
    facts, and a claim restating its instructions that cites an event about something else. The
    events no candidate cites get the offline analysis; the ungrounded claim gives way to the
    event's own words; both are in the promotion's report."""
    vault, server = vault
    ids = fill(vault)
    ungrounded = {"summary": "Ana.", "tags": [], "emotion": "neutral",
                  "claims": [{"text": "The assistant's constitution is loaded into every prompt.", "sources": ids[:1]},
                             {"text": "Ana moved to Lisbon and loves its trams.", "sources": ids[:1]}]}   # a paraphrase
    server.other.extend([{"candidates": candidates(ids[:1])}, ungrounded, {"summary": "Ana moved to Lisbon."}])
    report, model = promote_with(vault)
    check_nothing_lost(vault, ids, report)
    assert [c.outcome for c in model.calls] == ["accepted"] * 3 and about_the_model(notices) == []
    ana = (vault.ltm_root / "concrete/people/ana.md").read_text(encoding="utf-8")
    assert "Lisbon" in ana and "constitution" not in ana and "Ana moved to Lisbon and loves its trams." in ana
    assert (vault.ltm_root / "concrete/people/maria.md").exists()           # an event the model left out
    assert any("cited 1 of 8 events" in r for r in report.rejected), report.rejected
    assert any("says little the events it cites say" in r for r in report.rejected), report.rejected


def test_events_of_a_candidate_that_the_models_claims_leave_out_get_the_offline_engines_claims(vault, notices):
    """A 1.5B model's synthesis: one claim for a note given several events. The other events'
    facts are not left to the archive alone: the offline analysis places them in notes of their own."""
    vault, server = vault
    ids = fill(vault)
    server.other.extend([{"candidates": candidates(ids[:4])}, draft(ids), {"summary": "Ana."}])
    report, model = promote_with(vault)
    check_nothing_lost(vault, ids, report)
    ana = (vault.ltm_root / "concrete/people/ana.md").read_text(encoding="utf-8")
    assert "Ana moved to Lisbon." in ana
    claims = "\n".join(p.read_text(encoding="utf-8") for p in vault.ltm_root.rglob("*.md")
                       if "events" not in p.parts and p.name != "_index.md")
    assert "Porto" in claims and "Sintra" in claims, claims   # two events the model's one claim left out
    assert any("the model's notes cite 1 of the 4 events" in r for r in report.rejected), report.rejected

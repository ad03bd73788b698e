"""The LoCoMo harness (bench/locomo.py) on a tiny conversation written here: evidence repair,
the counting rule of bench/locomo_scoring.py checked directly, and a --dump that re-scores to
the figures of the run it came from."""
from __future__ import annotations

import json
import sys
from collections import Counter

import pytest

from braniac.infra import clock

from helpers import REPO

sys.path.insert(0, str(REPO / "bench"))

import locomo  # noqa: E402
from locomo_scoring import cap_words, content_words, covered, spans, summarize  # noqa: E402

SAMPLE = {
    "sample_id": "tiny-1",
    "conversation": {
        "speaker_a": "Ana",
        "speaker_b": "Bruno",
        "session_1_date_time": "10:00 am on 3 March, 2023",
        "session_1": [
            {"speaker": "Ana", "dia_id": "D1:1", "text": "Hi Bruno! I adopted a grey kitten called Pixel from the shelter yesterday."},
            {"speaker": "Bruno", "dia_id": "D1:2", "text": "That's lovely, Ana! How is Pixel settling into the apartment?"},
            {"speaker": "Ana", "dia_id": "D1:3", "text": "She hides under the sofa and only comes out for tuna treats."},
            {"speaker": "Bruno", "dia_id": "D1:4", "text": "I started pottery classes at the community studio downtown.",
             "blip_caption": "a photo of a lopsided clay bowl"},
        ],
        "session_2_date_time": "6:30 pm on 20 April, 2023",
        "session_2": [
            {"speaker": "Bruno", "dia_id": "D2:1", "text": "Ana, my first clay bowl survived the kiln firing last Tuesday!"},
            {"speaker": "Ana", "dia_id": "D2:2", "text": "Congratulations! Which glaze colour did you choose for the bowl?"},
            {"speaker": "Bruno", "dia_id": "D2:3", "text": "A deep ocean blue glaze with white speckles around the rim."},
            {"speaker": "Ana", "dia_id": "D2:4", "text": "Pixel knocked my violin off the shelf, so now I practice in the bedroom."},
        ],
        "session_3_date_time": "9:00 am on 1 May, 2023",  # a date without a session: skipped
    },
    "qa": [
        {"question": "What is the name of Ana's kitten?", "answer": "Pixel", "evidence": ["D1:1"], "category": 4},
        {"question": "What glaze colour did Bruno choose for his clay bowl?", "answer": "deep ocean blue",
         "evidence": ["D2:2; D2:3"], "category": 1},
        {"question": "When did Bruno start pottery classes?", "answer": "March 2023",
         "evidence": ["D:1:04", "D9:9"], "category": 2},
        {"question": "Is this left out?", "adversarial_answer": "yes", "evidence": ["D1:1"], "category": 5},
    ],
}

TURNS = {t["dia_id"]: locomo.turn_text(t).split(": ", 1)[1]
         for _, ts in locomo.sessions(SAMPLE["conversation"]) for t in ts}


@pytest.fixture(autouse=True)
def real_clock():
    yield
    clock.set_clock(None)


# ---------------------------------------------------------------------- reading the data

def test_sessions_in_order_with_their_dates():
    found = locomo.sessions(SAMPLE["conversation"])
    assert [len(turns) for _, turns in found] == [4, 4]
    assert [when.date().isoformat() for when, _ in found] == ["2023-03-03", "2023-04-20"]


def test_evidence_is_split_repaired_and_dropped():
    stats: Counter = Counter()
    assert locomo.clean_evidence(["D2:2; D2:3"], TURNS, stats) == ["D2:2", "D2:3"]
    assert locomo.clean_evidence(["D:1:04", "D9:9", "D", "D1:4"], TURNS, stats) == ["D1:4"]
    assert stats == {"split": 1, "repaired": 1, "dropped": 2}


# ---------------------------------------------------------------------- the counting rule

def test_a_citation_without_the_turns_words_counts_for_nothing():
    context = "- Ana has a pet. ([D1:1](x.md))"
    assert covered(context, ["D1:1"], TURNS, {}) == []


def test_the_turns_words_with_its_citation_count():
    context = "- [D1:1] Ana: I adopted a grey kitten called Pixel from the shelter yesterday."
    assert covered(context, ["D1:1"], TURNS, {}) == ["D1:1"]


def test_half_of_the_turns_content_words_is_enough():
    need = sorted(content_words(TURNS["D2:3"]))
    half = need[: (len(need) + 1) // 2]
    fewer = need[: (len(need) + 1) // 2 - 1]
    assert covered(f"[D2:3] {' '.join(half)}", ["D2:3"], TURNS, {}) == ["D2:3"]
    assert covered(f"[D2:3] {' '.join(fewer)}", ["D2:3"], TURNS, {}) == []


def test_the_words_must_be_in_the_span_that_cites_the_turn():
    # the citation in one claim, the words in the next one: neither span carries the turn
    context = ("- Ana's pet ([D1:1](a.md))\n"
               "- I adopted a grey kitten called Pixel from the shelter yesterday. ([D1:3](b.md))")
    assert covered(context, ["D1:1"], TURNS, {}) == []
    assert len(spans(context)) == 2


def test_a_braniac_event_id_resolves_through_the_provenance_map():
    event = "2023-03-03T10:00:00Z"
    context = f"### {event}\n**User:** \"Ana: Hi Bruno! I adopted a grey kitten called Pixel from the shelter yesterday.\""
    assert covered(context, ["D1:1"], TURNS, {event: "D1:1"}) == ["D1:1"]
    assert covered(context, ["D1:1"], TURNS, {event: "D1:2"}) == []
    assert covered(context, ["D1:1"], TURNS, {}) == []


def test_cap_words_keeps_the_first_words_and_the_lines():
    text = "one two three\nfour five\n\nsix seven"
    assert cap_words(text, 4) == "one two three\nfour"
    assert cap_words(text, 100) == text


def test_summarize_frac_all_any():
    rows = [{"category": 1, "evidence": ["a", "b"], "covered": ["a"], "words": 10},
            {"category": 4, "evidence": ["c"], "covered": [], "words": 20}]
    result = summarize(rows)
    assert result["overall"] == {"frac": 25.0, "all": 0.0, "any": 50.0, "words": 15.0, "n": 2}
    assert result["1"]["frac"] == 50.0 and result["4"]["frac"] == 0.0 and result["2"]["n"] == 0


# ---------------------------------------------------------------------- the whole run

@pytest.fixture(scope="module")
def run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("locomo")
    data, dump = folder / "tiny.json", folder / "dump.jsonl"
    data.write_text(json.dumps([SAMPLE]), encoding="utf-8")
    try:
        result = locomo.run(data, dump)
    finally:
        clock.set_clock(None)
    return result, dump


def test_run_shape_and_counts(run):
    result, _dump = run
    assert result["questions"] == 3  # category 5 is skipped
    assert result["evidence_fixes"] == {"split": 1, "repaired": 1, "dropped": 1}
    for budget in ("300", "750", "1500"):
        for system in ("braniac", "baseline"):
            block = result["budgets"][budget][system]
            assert set(block) == {"overall", "1", "2", "3", "4"}
            assert block["overall"]["n"] == 3
            assert 0 <= block["overall"]["frac"] <= 100
            assert block["overall"]["words"] <= int(budget)
    assert result["seconds_per_question"] >= 0


def test_braniac_finds_the_tiny_conversations_evidence(run):
    result, dump = run
    lines = [json.loads(line) for line in dump.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == 3 * 3  # one line per question and budget
    kitten = next(l for l in lines if l["budget"] == 1500 and "kitten" in l["question"])
    assert kitten["covered"] == ["D1:1"], kitten["context"]
    # the evidence is carried by the event ids of the context, resolved through the provenance map
    assert set(kitten["provenance"].values()) >= {"D1:1"}
    assert result["budgets"]["1500"]["braniac"]["overall"]["frac"] > 0


def test_dump_rescores_to_the_same_figures(run):
    result, dump = run
    again = locomo.rescore(dump)
    for budget in ("300", "750", "1500"):
        assert again[budget] == result["budgets"][budget]["braniac"]


def test_rescore_reads_the_contexts_not_the_recorded_verdicts(run, tmp_path):
    """A dump whose contexts lost the evidence's words re-scores lower: rescore() applies the
    rule to the text again instead of trusting the `covered` lists."""
    _result, dump = run
    lines = [json.loads(line) for line in dump.read_text(encoding="utf-8").splitlines()]
    for line in lines:
        if "kitten" in line["question"]:
            line["context"] = "\n\n".join(f"### {event}\n(words left out)" for event in line["provenance"])
    tampered = tmp_path / "tampered.jsonl"
    tampered.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    again = locomo.rescore(tampered)
    for budget in ("300", "750", "1500"):
        assert again[budget]["4"]["frac"] == 0.0
        assert again[budget]["overall"]["n"] == 3

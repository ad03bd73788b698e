"""Meaning beside words: with `[embedding]` configured, evidence worded differently from the
question comes back; a failing or hostile embedding server leaves ranking by words and loses
nothing; vectors are asked for once (search/meaning.py, model/embeddings.py).

The embedding model is the test server's (fake_llm.py): a text's vector counts its words'
concepts, so a test says which words mean the same."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

from braniac.infra import clock
from fake_llm import Fail

QUESTION = "What kind of art has Melanie been making lately?"
EVIDENCE = "Melanie: I spent the weekend at the wheel shaping a clay bowl for my mom."
OTHERS = [f"Melanie: {text}" for text in (
    "Lately I have been making the kids' lunches every morning.",
    "The kind neighbour has been making noise lately with his new fence.",
    "I have been making plans for the summer lately, nothing fixed yet.",
    "My sister has been kind enough to help with the school run lately.",
    "We have been making the most of the warm evenings lately.",
    "Lately the kind of weather we have been having makes me want to stay in.",
)]


def _said(vault) -> None:
    day = datetime(2025, 5, 2, 10, tzinfo=timezone.utc)
    for i, text in enumerate([EVIDENCE, *OTHERS]):
        clock.set_clock(day + timedelta(days=i))
        vault.remember(text)
    clock.set_clock(day + timedelta(days=30))
    try:
        vault.promote(force=True)
    finally:
        clock.set_clock(None)


def _configure(vault, base_url: str = "") -> None:
    table = f'[embedding]\nname = "openai/fake-embed"\napi_base = "{base_url}"\n' if base_url else ""
    (vault.root / "braniac.toml").write_text(table, encoding="utf-8")


def _ask(vault, question: str = QUESTION):
    with clock.frozen(datetime(2025, 7, 1, 9, tzinfo=timezone.utc)):
        return vault.ask(question, model="offline")


# what the test's model knows: the pottery words mean craft, the question's other words nothing
MEANS = {"art": "craft", "clay": "craft", "wheel": "craft", "bowl": "craft", "shaping": "craft",
         **dict.fromkeys(("what", "kind", "has", "been", "making", "lately", "have", "the"), "")}


def _found(turn) -> bool:
    """The evidence is the first excerpt."""
    return bool(turn.excerpts) and "clay bowl" in turn.excerpts[0].text


def test_evidence_that_shares_no_word_with_the_question_comes_back_by_its_meaning(vault, fake_llm, net_guard):
    base_url, server = fake_llm
    _said(vault)
    _configure(vault)
    by_words = _ask(vault)
    assert "clay bowl" in by_words.excerpts[-1].text, "by words alone it ranks below every passage sharing words"

    server.concepts.update(MEANS)
    _configure(vault, base_url)
    turn = _ask(vault)
    assert _found(turn), [e.text for e in turn.excerpts]
    assert server.embedding_calls(), "the vectors come from the configured model"


def test_vectors_are_asked_for_once_and_kept_for_the_next_process(vault, fake_llm, net_guard):
    base_url, server = fake_llm
    _said(vault)
    _configure(vault, base_url)
    _ask(vault)
    sent = [t for r in server.embedding_calls() for t in r.body["input"]]
    assert len(sent) == len(set(sent)) and len(sent) > 3, sent
    assert (vault.root / ".braniac" / "vectors.sqlite").is_file()

    server.requests.clear()
    _ask(vault, "What has Melanie been making lately?")   # a new session: the vectors come from the file
    again = [t for r in server.embedding_calls() for t in r.body["input"]]
    assert again == ["What has Melanie been making lately?"], again


def test_a_failing_embedding_server_leaves_ranking_by_words_and_is_not_asked_every_turn(vault, fake_llm, net_guard,
                                                                                      notices):
    base_url, server = fake_llm
    _said(vault)
    _configure(vault, base_url)
    server.concepts.update(MEANS)   # had its vectors been used, the evidence would come first
    server.embedding_replies.extend([Fail.HTTP_500] * 3)   # the provider's client tries three times
    session = _session(vault)
    try:
        turn = session.turn(QUESTION, background=False)
        assert turn.excerpts and not _found(turn), "ranked by words"
        assert any("ranking by words alone" in n for n in notices), notices
        calls = len(server.embedding_calls())
        session.turn("What has Melanie been making lately?", background=False)
        assert len(server.embedding_calls()) == calls, "a failed server rests a minute before it is asked again"
    finally:
        session.close()
    assert QUESTION in vault.read_stm().render(), "the turn was remembered as always"


def test_a_hostile_or_broken_embedding_reply_changes_nothing_but_the_ranking(vault, fake_llm, net_guard, notices):
    base_url, server = fake_llm
    _said(vault)
    _configure(vault, base_url)
    server.concepts.update(MEANS)
    for reply in (Fail.MALFORMED, _Vectors([[float("nan")] * 4]), _Vectors([[1.0, 0.0], [0.0, 1.0, 0.5]]),
                  _Vectors(["not", "numbers"])):
        server.embedding_replies.clear()
        server.embedding_replies.extend([reply] * 3)
        session = _session(vault)
        try:
            turn = session.turn(QUESTION, background=False)
            assert turn.excerpts and not _found(turn), reply
        finally:
            session.close()
    assert sum("ranking by words alone" in n for n in notices) == 4, notices


def test_a_broken_vector_file_is_started_afresh(vault, fake_llm, net_guard):
    base_url, server = fake_llm
    _said(vault)
    _configure(vault, base_url)
    (vault.root / ".braniac").mkdir(exist_ok=True)
    (vault.root / ".braniac" / "vectors.sqlite").write_bytes(b"\x00garbage, not a database" * 100)
    server.concepts.update(MEANS)
    assert _found(_ask(vault))
    server.requests.clear()
    _ask(vault, "What has Melanie been making lately?")
    assert len([t for r in server.embedding_calls() for t in r.body["input"]]) == 1, "the new file kept the vectors"


class _Vectors(list):
    """A scripted /v1/embeddings reply: these vectors, whatever was asked."""


def _session(vault):
    from braniac.session import Session
    return Session(vault, model="offline")

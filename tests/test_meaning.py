"""Meaning beside words: with `[embedding]` configured, evidence worded differently from the
question comes back; a failing or hostile embedding server leaves ranking by words and loses
nothing; vectors are asked for once (search/meaning.py, model/embeddings.py).

The embedding model is the test server's (fake_llm.py): a text's vector counts its words'
concepts, so a test says which words mean the same."""
from __future__ import annotations

import json
import sqlite3
import threading
import time
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from braniac.infra import clock
from braniac.infra.config import ConfigError, ModelConfig, load
from braniac.model import embeddings
from braniac.model.embeddings import Embedder, _VectorStore
from braniac.model.types import ModelUnavailable
from fake_llm import Delay, Fail, FakeLLM

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


# ----------------------------------------------------------------------------- the review's proofs
# (each failed before the mend that follows it in the commit history)

@pytest.fixture
def fake(fake_llm, net_guard):
    return fake_llm[1]


def _config(base_url: str, timeout: float = 5.0) -> ModelConfig:
    return ModelConfig(name="openai/fake-embed", api_base=base_url, timeout=timeout, retries=0)


def _cache(vault) -> Path:
    return vault.root / ".braniac" / "vectors.sqlite"


# ----------------------------------------------------------------------------- 1. a corrupt row

def test_a_cache_row_of_the_wrong_size_does_not_make_the_turn_fail(vault, fake):
    """A kept vector that is not a whole number of float32s (a torn or foreign row) is asked for again."""
    _said(vault)
    _configure(vault, fake.base_url)
    fake.concepts.update(MEANS)
    _ask(vault)                                  # fills .braniac/vectors.sqlite
    db = sqlite3.connect(_cache(vault))
    db.execute("UPDATE vectors SET vector = X'010203'")   # 3 bytes: not a float32 vector
    db.commit()
    db.close()
    assert _found(_ask(vault)), "the torn rows were asked for again, and meaning counts"


# ----------------------------------------------------------------------------- 2. the model changed

def test_vectors_of_another_length_than_the_kept_ones_are_asked_for_again(vault, fake, monkeypatch):
    """The model behind the same name now gives 37 numbers where 64 were kept: the kept vectors are
    asked for again (a cosine between different lengths would be 0 and turn meaning off)."""
    _said(vault)
    _configure(vault, fake.base_url)
    fake.concepts.update(MEANS)
    _ask(vault, "What has Melanie been making lately?")       # keeps 64-dim vectors
    monkeypatch.setattr(fake, "embed", lambda text: FakeLLM.embed(fake, text, 37))   # a new model, same name
    turn = _ask(vault)
    assert _found(turn), [e.text for e in turn.excerpts]


# ----------------------------------------------------------------------------- 3. hostile index fields

class _Fixed(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    rows = None

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        raw = json.dumps({"object": "list", "data": type(self).rows(body["input"]), "model": "x",
                          "usage": {"prompt_tokens": 1, "total_tokens": 1}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)


def _one_hot(i: int, d: int = 16) -> list[float]:
    v = [0.0] * d
    v[i] = 1.0
    return v


def test_index_fields_that_are_not_the_positions_0_to_n_are_refused(tmp_path):
    """Rows indexed by strings ("10" sorts before "2") would pair vectors with the wrong texts."""
    handler = type("H", (_Fixed,), {"rows": staticmethod(lambda inputs: [
        {"object": "embedding", "index": str(i), "embedding": _one_hot(i)} for i in range(len(inputs))])})
    http = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=http.serve_forever, daemon=True).start()
    try:
        texts = [f"text number {i}" for i in range(12)]
        embedder = Embedder(_config(f"http://127.0.0.1:{http.server_address[1]}/v1"), tmp_path)
        try:
            got = embedder.vectors(texts)
        except ModelUnavailable:
            return   # refused: fine
        wrong = [t for i, t in enumerate(texts) if list(got[t]).index(1.0) != i]
        assert not wrong, f"vectors kept under the wrong texts: {wrong}"
    finally:
        http.shutdown()
        http.server_close()


# ----------------------------------------------------------------------------- 4. the timeout

def test_a_hanging_embedding_server_costs_a_turn_no_more_than_the_timeout(fake, tmp_path):
    """The provider's client retries behind a deadline: the turn waits embedding.timeout, and the
    notice names that setting."""
    embedder = Embedder(_config(fake.base_url, timeout=0.5), tmp_path)
    fake.embedding_replies.extend([Delay(5)] * 5)
    started = time.monotonic()
    with pytest.raises(ModelUnavailable) as caught:
        embedder.vectors(["what did I make"])
    elapsed = time.monotonic() - started
    assert elapsed < 1.5, f"{elapsed:.1f} s for a 0.5 s timeout ({len(fake.embedding_calls())} requests)"
    assert "embedding.timeout" in str(caught.value), str(caught.value)


def test_a_timeout_that_is_not_a_number_is_a_config_error(tmp_path):
    """`timeout = nan` would make every call fail as if the server were down."""
    (tmp_path / "braniac.toml").write_text('[embedding]\nname = "openai/e"\ntimeout = nan\n', encoding="utf-8")
    with pytest.raises(ConfigError):
        load(tmp_path, env={})


# ----------------------------------------------------------------------------- 5. the cache file

def test_a_cache_symlinked_out_of_the_vault_is_not_written_through(fake, tmp_path, vault):
    """Like every state file, vectors.sqlite never writes through a link out of the vault."""
    outside = tmp_path / "elsewhere" / "someones.db"
    outside.parent.mkdir()
    _cache(vault).parent.mkdir(exist_ok=True)
    _cache(vault).symlink_to(outside)
    Embedder(_config(fake.base_url), vault.root).vectors(["a clay bowl"])
    assert not outside.exists(), f"braniac wrote {outside.stat().st_size} bytes outside the vault"


def test_a_cache_busy_in_another_process_is_not_deleted_under_it(fake, vault):
    """"database is locked" is another process at work, not a broken file: never delete it."""
    Embedder(_config(fake.base_url), vault.root).vectors(["kept before"])
    path = _cache(vault)
    inode = path.stat().st_ino
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    try:
        Embedder(_config(fake.base_url), vault.root)
        assert path.exists() and path.stat().st_ino == inode, "the shared cache was deleted and replaced"
    finally:
        other.execute("ROLLBACK")
        other.close()


def test_a_cache_that_fails_only_on_read_is_started_afresh(fake, vault):
    """A file that opens but fails on its first read is started afresh, so the next process does
    not ask the model again for everything."""
    texts = [f"passage {i} about pottery and clay" for i in range(300)]
    Embedder(_config(fake.base_url), vault.root).vectors(texts)
    path = _cache(vault)
    page = 4096
    size = path.stat().st_size
    with open(path, "r+b") as f:
        f.seek(page)
        f.write(b"\xa5" * (size - page))
    Embedder(_config(fake.base_url), vault.root).vectors(texts)   # process 1 after the damage
    fake.requests.clear()
    Embedder(_config(fake.base_url), vault.root).vectors(texts)   # process 2
    asked = sum(len(r.body["input"]) for r in fake.embedding_calls())
    assert asked == 0, f"process 2 asked the model again for {asked} texts"


# ----------------------------------------------------------------------------- 6. threads

def test_the_store_dropped_by_one_thread_does_not_fail_anothers_put(tmp_path):
    """Two threads of one process (the MCP server) share a store: the connection is read under its
    lock."""
    store = _VectorStore(tmp_path / "vectors.sqlite", "m")
    errors: list[BaseException] = []

    def put():
        try:
            store.put({"text": embeddings.array("f", [1.0])})
        except BaseException as exc:   # noqa: BLE001
            errors.append(exc)

    store.lock.acquire()            # another thread's get() is inside the lock...
    writer = threading.Thread(target=put)
    writer.start()
    time.sleep(0.2)                 # ...put() has passed its `self.db is None` check and waits
    store.db = None                 # ...get() hit sqlite3.Error and dropped the store
    store.lock.release()
    writer.join(5)
    assert not errors, f"put raised {errors[0]!r}"


class _Vectors(list):
    """A scripted /v1/embeddings reply: these vectors, whatever was asked."""


def _session(vault):
    from braniac.session import Session
    return Session(vault, model="offline")


def test_a_slow_models_late_answer_is_kept_for_the_next_turns(fake, tmp_path):
    """The turn stops waiting at embedding.timeout; the answer that comes after is not wasted."""
    fake.embedding_replies.append(Delay(1.0, None))
    texts = ["a clay bowl", "a walk by the lake"]
    with pytest.raises(ModelUnavailable):
        Embedder(_config(fake.base_url, timeout=0.3), tmp_path).vectors(texts)
    deadline = time.monotonic() + 10
    later = Embedder(_config(fake.base_url), tmp_path)
    while time.monotonic() < deadline and len(later._store.get(texts)) < 2:
        time.sleep(0.1)
    asked = len(fake.embedding_calls())
    assert set(later.vectors(texts)) == set(texts)
    assert len(fake.embedding_calls()) == asked, "the late vectors were kept: nothing is asked again"


def test_reindex_vectors_asks_for_every_passage_ahead_so_a_turn_asks_only_for_its_prompt(vault, fake):
    from helpers import run_cli

    _said(vault)
    _configure(vault, fake.base_url)
    result = run_cli("--vault", vault.root, "reindex", "--vectors")
    assert result.returncode == 0, result.stderr
    assert "vectors:" in result.stdout and "asked for" in result.stdout, result.stdout
    ahead = sum(len(r.body["input"]) for r in fake.embedding_calls())
    assert ahead > 7, "every event and claim"
    fake.requests.clear()
    _ask(vault)
    assert [t for r in fake.embedding_calls() for t in r.body["input"]] == [QUESTION]

    again = run_cli("--vault", vault.root, "reindex", "--vectors")
    assert "0 asked for" in again.stdout, again.stdout


def test_reindex_vectors_without_an_embedding_model_says_what_to_set(vault):
    from helpers import assert_clean_error, run_cli

    assert_clean_error(run_cli("--vault", vault.root, "reindex", "--vectors"), "[embedding]")


def test_reindex_vectors_with_a_failing_model_stops_with_one_line(vault, fake):
    from helpers import run_cli

    _said(vault)
    _configure(vault, fake.base_url)
    fake.embedding_replies.extend([Fail.HTTP_500] * 3)
    result = run_cli("--vault", vault.root, "reindex", "--vectors")
    assert result.returncode != 0 and "Traceback" not in result.stderr, result.stderr
    assert result.stderr.strip().splitlines()[-1].startswith("braniac: ") and "embedding" in result.stderr, result.stderr


def test_a_missing_api_key_is_said_once_not_on_every_turn(vault, fake, notices, monkeypatch):
    monkeypatch.delenv("BRANIAC_TEST_NO_SUCH_KEY", raising=False)
    _said(vault)
    (vault.root / "braniac.toml").write_text(
        f'[embedding]\nname = "openai/fake-embed"\napi_base = "{fake.base_url}"\napi_key_env = "BRANIAC_TEST_NO_SUCH_KEY"\n',
        encoding="utf-8")
    session = _session(vault)
    try:
        for question in (QUESTION, "What has Melanie been making lately?", "What did Melanie shape?"):
            assert session.turn(question, background=False).excerpts
    finally:
        session.close()
    said = [n for n in notices if "BRANIAC_TEST_NO_SUCH_KEY" in n]
    assert len(said) == 1 and "embedding.api_key_env" in said[0], notices
    assert not fake.embedding_calls()


def _remembered(vault) -> None:
    """_said's events, not promoted yet (the idle worker promotes them)."""
    day = datetime(2025, 5, 2, 10, tzinfo=timezone.utc)
    for i, text in enumerate([EVIDENCE, *OTHERS]):
        with clock.frozen(day + timedelta(days=i)):
            vault.remember(text)


def test_the_idle_worker_asks_for_the_vectors_of_the_notes_it_promotes(vault, fake):
    """So the turns after a promotion do not wait for them: a turn then asks only for its prompt."""
    from braniac.processes.idle import IdleWorker

    _remembered(vault)
    _configure(vault, fake.base_url)
    worker = IdleWorker(vault)
    try:
        worker.tick()
    finally:
        worker.close()
    assert vault.last_run("promotion"), "the worker promoted the quiet events"
    assert fake.embedding_calls(), "and asked for the vectors of what it wrote"
    fake.requests.clear()
    _ask(vault)
    assert [t for r in fake.embedding_calls() for t in r.body["input"]] == [QUESTION]


def _worker_after_a_failed_check(vault, fake, monkeypatch):
    """An idle worker whose first check promoted _said's events while the embedding model
    failed (it is asked again at the next check: no rest)."""
    from braniac.processes.idle import IdleWorker

    monkeypatch.setattr(embeddings, "RETRY_AFTER_S", 0.0)
    _remembered(vault)
    _configure(vault, fake.base_url)
    fake.embedding_replies.extend([Fail.HTTP_500] * 3)
    worker = IdleWorker(vault)
    worker.tick()
    return worker


def test_notes_wait_for_their_vectors_while_the_model_fails(vault, fake, notices, monkeypatch):
    worker = _worker_after_a_failed_check(vault, fake, monkeypatch)
    try:
        assert any("vectors of new notes wait" in n and "embedding" in n for n in notices), notices
        assert worker._unembedded, "the notes promotion wrote still wait"
        worker._last_check = 0.0   # the next check
        worker.tick()
        assert not worker._unembedded
    finally:
        worker.close()
    fake.requests.clear()
    _ask(vault)
    assert [t for r in fake.embedding_calls() for t in r.body["input"]] == [QUESTION]


def test_a_dead_embedding_server_is_said_once_not_at_every_check(vault, fake, notices, monkeypatch):
    """Half an hour of idle checks against a server that refuses every call: one notice."""
    import socket
    import types

    from braniac.processes import idle

    now = [1000.0]
    fake_time = types.SimpleNamespace(monotonic=lambda: now[0])
    monkeypatch.setattr(idle, "time", fake_time)
    monkeypatch.setattr(embeddings, "time", fake_time)
    _remembered(vault)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    _configure(vault, f"http://127.0.0.1:{port}")   # nothing listens there
    worker = idle.IdleWorker(vault)
    try:
        for _ in range(60):
            worker.tick()
            now[0] += idle.CHECK_EVERY_SECONDS
    finally:
        worker.close()
    said = [n for n in notices if "vectors of new notes wait" in n]
    assert worker._unembedded and len(said) == 1, said


def test_a_note_half_asked_when_the_model_changed_its_length_drains_on_the_next_checks(vault):
    """The model behind the name now gives 4 numbers, the cache holds a 3-number vector of the
    note's first passage, and the check that reached it had room for all but one passage."""
    from array import array

    from braniac.search.meaning import fill_notes, passage_texts
    from test_organize import add_note

    class Swapped(Embedder):
        def _request(self, texts):
            self.requests += 1
            vectors = [array("f", [0.5, 0.5, 0.5, 0.5]) for _ in texts]
            self._store.put(dict(zip(texts, vectors)))
            return vectors

    rel = "memory/long_term/concrete/garden/Tomatoes.md"
    add_note(vault, rel, "Tomatoes", "- Sown in March.\n- Staked in May.\n- Picked in August.", ["garden"])
    texts = passage_texts(vault, [rel])
    assert len(texts) >= 2, texts
    embedder = Swapped(ModelConfig(name="fake-embed"), None)
    embedder._store.put({texts[0]: array("f", [1.0, 0.0, 0.0])})   # kept from the old model
    assert fill_notes(vault, [rel], embedder, most=len(texts) - 1) == [rel]
    assert fill_notes(vault, [rel], embedder) == [], f"{embedder.requests} requests"
    assert len(embedder.vectors(texts)) == len(texts)


def test_waiting_notes_are_not_embedded_while_the_person_is_talking(vault, fake, monkeypatch):
    """A turn's own call to a local model is not kept waiting behind the idle worker's."""
    worker = _worker_after_a_failed_check(vault, fake, monkeypatch)
    try:
        assert worker._unembedded
        vault.remember("A new thing said just now.")
        asked = len(fake.embedding_calls())
        worker._last_check = 0.0
        worker.tick()
        assert worker._unembedded and len(fake.embedding_calls()) == asked
    finally:
        worker.close()

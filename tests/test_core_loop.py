"""The core loop with the offline engine, end to end: recall across processes, `ask --json`, the
working-memory budget, the reflection journal surviving a dead process, prompt templates."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import textwrap

import pytest

from braniac import Vault
from braniac.infra import clock, config as config_module
from braniac.model import prompts
from braniac.vault import notes, stm
from braniac.infra.config import Config
from braniac.infra.errors import ConfigError
from braniac.model.offline import OfflineModel
from braniac.processes.core_loop import CoreLoop
from braniac.processes.reflection import Exchange, Reflector
from braniac.processes.working_memory import tokens
from braniac.session import Session

from helpers import REPO, clean_env, run_cli, write_note

ACCESS_LINE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z \| READ \| (memory/.+)$")


def reads(vault: Vault) -> list[str]:
    if not vault.access_log_path.exists():
        return []
    # READ lines only: a turn also logs a QUERY line (organization's probes)
    lines = [l for l in vault.access_log_path.read_text().splitlines() if " | READ | " in l]
    matches = [ACCESS_LINE.match(l) for l in lines]
    assert all(matches), lines
    return [m.group(1) for m in matches]


def set_config(vault: Vault, text: str) -> None:
    (vault.root / "braniac.toml").write_text(textwrap.dedent(text), encoding="utf-8")


# ----------------------------------------------------------------------------- across processes

def test_remember_then_ask_in_another_process_quotes_it_with_its_source(vault):
    said = run_cli("remember", "The wifi password at the cabin is blue-heron-42.", cwd=vault.root)
    assert said.returncode == 0, said.stderr
    event_id = said.stdout.strip().rsplit(" ", 1)[-1]
    asked = run_cli("ask", "What is the wifi password at the cabin?", cwd=vault.root)
    assert asked.returncode == 0, asked.stderr
    assert "blue-heron-42" in asked.stdout
    assert f"(short-term memory, event {event_id})" in asked.stdout
    assert "Traceback" not in asked.stderr
    # the question and its answer were reflected into short-term memory
    event = vault.read_stm().events[0]
    assert event.fields["User"] == "What is the wifi password at the cabin?" and "blue-heron-42" in event.fields["AI"]


def test_ask_json_from_long_term_memory(vault):
    path = write_note(vault, "memory/long_term/concrete/travel/kayak-trip.md", "Kayak trip",
                      "We paddled the Dordogne river with Alice in June.\n\nThe rented kayak was bright red.\n",
                      tags=["kayak"])
    note = notes.read(path)
    write_note(vault, "memory/long_term/concrete/cooking/bread.md", "Sourdough", "Feed the starter twice a day.\n")
    result = run_cli("ask", "--json", "What colour was the rented kayak?", cwd=vault.root)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert set(data) == {"answer", "model", "queries", "context"}
    assert data["model"] == "offline"
    assert data["queries"] and all(isinstance(q, str) for q in data["queries"])
    assert data["context"] and set(data["context"][0]) == {"uuid", "path", "excerpt"}
    first = data["context"][0]
    assert first["uuid"] == note.uuid and first["path"] == "memory/long_term/concrete/travel/kayak-trip.md"
    assert "bright red" in first["excerpt"]
    assert "bright red" in data["answer"] and "(memory/long_term/concrete/travel/kayak-trip.md)" in data["answer"]
    # one access.log line per LTM file in the context, vault-relative paths (the same on every machine)
    assert reads(vault) == list(dict.fromkeys(c["path"] for c in data["context"]))


def test_empty_prompt_is_a_clear_error_and_records_nothing(vault):
    before = vault.stm_path.read_bytes()
    result = run_cli("ask", "   ", cwd=vault.root)
    assert result.returncode == 2 and result.stderr.strip() == "braniac: empty prompt"
    assert vault.stm_path.read_bytes() == before


# ----------------------------------------------------------------------------- working-memory budget

def _loop(vault: Vault, context_tokens: int) -> CoreLoop:
    set_config(vault, f"[memory]\ncontext_tokens = {context_tokens}\n")
    return CoreLoop(vault, OfflineModel(), config_module.load(vault.root))


VARIETIES = [("Brandywine", "heavy pink fruit", "deep soaking twice weekly", "cage"),
             ("Cherokee Purple", "dusky smoky fruit", "morning drip irrigation", "trellis"),
             ("Sungold", "sweet orange cherries", "light daily sprinkling", "string"),
             ("San Marzano", "plum sauce fruit", "mulch then sparse soaking", "stake"),
             ("Green Zebra", "striped tangy fruit", "evening hose at the roots", "spiral"),
             ("Roma", "paste fruit for canning", "weekly flood of the furrow", "fence")]


def _distinct_paragraphs(name: str, fruit: str, water: str, support: str) -> str:
    return (f"The {name} tomato bed gives {fruit}. Watering the {name} tomatoes: {water}.\n\n"
            f"{name} plants climb a {support}; prune {name} suckers weekly and water the bed early.\n\n"
            f"Harvest {name} in late summer; {fruit} keeps a week on the counter after watering stops.\n")


@pytest.fixture
def busy_vault(vault):
    for n, variety in enumerate(VARIETIES):
        write_note(vault, f"memory/long_term/concrete/garden/tomato-{n}.md", f"{variety[0]} tomatoes",
                   _distinct_paragraphs(*variety), tags=["tomato"])
    for n in range(5):
        vault.append_event({"User": f"I planted tomato seedlings in bed {n}.", "Thoughts": "Gardening."})
    return vault


def test_tiny_budget_cuts_excerpts_first_never_identity_or_prompt(busy_vault):
    vault = busy_vault
    identity = vault.identity_path.read_text()
    prompt = "How should I water the tomato beds? " * 3
    stm_file = vault.stm_path.read_bytes()

    roomy = _loop(vault, 100_000)
    turn, wm = roomy.prepare(prompt)
    assert len(wm.excerpts) >= 4 and len(wm.stm_events) == 5
    full = [(e.path, e.text) for e in wm.excerpts]
    base = sum(tokens(t) for t in (wm.identity, wm.conversation, wm.short_term, wm.prompt))

    # room for two excerpts: the lowest-ranked go, short-term memory stays whole
    per_excerpt = max(tokens(e.title) + tokens(e.text) + 20 for e in wm.excerpts)
    turn, wm = _loop(vault, base + 2 * per_excerpt + 5).prepare(prompt)
    assert [(e.path, e.text) for e in wm.excerpts] == full[:len(wm.excerpts)] and 1 <= len(wm.excerpts) <= 2
    assert len(wm.stm_events) == 5 and wm.short_term == vault.read_stm().render()
    files = list(dict.fromkeys(e.path for e in wm.excerpts))
    assert reads(vault)[-len(files):] == files

    # a budget smaller than the identity alone: every excerpt and STM event goes, never these two
    turn, wm = _loop(vault, 10).prepare(prompt)
    assert wm.excerpts == [] and turn.excerpts == []
    assert wm.identity == identity and wm.prompt == prompt
    assert wm.stm_events == [] and not stm.parse(wm.short_term).events
    assert stm.parse(wm.short_term).summary == vault.read_stm().summary  # the rest of STM stays
    assert vault.stm_path.read_bytes() == stm_file  # cut in the copy only


def test_budget_cuts_conversation_before_short_term_memory(busy_vault):
    vault = busy_vault
    loop = _loop(vault, 100_000)
    for n in range(6):
        loop.conversation.add(f"question {n} " + "about the weather " * 20, "answer " * 60)
    turn, wm = loop.prepare("tomato watering")
    base = sum(tokens(t) for t in (wm.identity, wm.short_term, wm.prompt))
    conversation = tokens(wm.conversation)
    assert conversation > 100
    tight = CoreLoop(vault, OfflineModel(), Config(context_tokens=base + 60))
    tight.conversation = loop.conversation
    turn, wm = tight.prepare("tomato watering")
    assert wm.excerpts == []
    assert tokens(wm.conversation) < conversation  # oldest turns dropped…
    assert len(wm.stm_events) == 5  # …before any short-term memory


def test_budget_drops_just_enough_of_the_oldest_events(tmp_path):
    """With many events waiting for promotion, the cut keeps the newest events and drops no
    more than the budget needs (dropping one event fewer would not fit)."""
    from braniac.model.types import WorkingMemory
    from braniac.processes.working_memory import fit, stm_entries

    vault, _ = Vault.init(tmp_path / "v")
    for n in range(80):
        vault.append_event({"User": f"event {n} " + "words " * (n % 7 * 5), "AI": "noted"})
    text = vault.read_stm().render()
    newest_first = [e.id for e in stm.parse(text).events]
    for budget in range(200, tokens(text), 397):
        wm = fit(WorkingMemory(identity="me", conversation="", short_term=text, prompt="hi",
                               stm_events=stm_entries(text), now=""), None, budget)
        kept = [e.id for e in stm.parse(wm.short_term).events]
        assert kept == newest_first[:len(kept)] and [e.id for e in wm.stm_events] == kept
        assert tokens("me") + tokens(wm.short_term) + tokens("hi") <= budget
        if len(kept) < len(newest_first):
            doc = stm.parse(text)
            doc.remove_events(set(newest_first[len(kept) + 1:]))
            assert tokens("me") + tokens(doc.render()) + tokens("hi") > budget, budget


def test_budget_from_braniac_toml_through_the_cli(busy_vault):
    set_config(busy_vault, "[memory]\ncontext_tokens = 10\n")
    result = run_cli("ask", "--json", "How should I water the tomato beds?", cwd=busy_vault.root)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["context"] == []


# ----------------------------------------------------------------------------- the reflection journal

def _events(vault: Vault, user: str) -> int:
    return sum(1 for e in vault.read_stm().events if e.fields.get("User") == user)


def test_journaled_exchange_of_a_dead_process_is_recorded_exactly_once(vault):
    reflector = Reflector(vault, OfflineModel())
    reflector._journal(Exchange("Did the journal survive?", "Yes, it did.", "2026-01-02T03:04:05Z"))
    assert len(list(reflector.dir.glob("*.json"))) == 1

    session = Session(vault)
    session.close()
    assert _events(vault, "Did the journal survive?") == 1
    event = next(e for e in vault.read_stm().events if e.fields.get("User") == "Did the journal survive?")
    assert event.id == "2026-01-02T03:04:05Z" and event.fields["AI"] == "Yes, it did."
    assert session.reflector.recover() == 0  # recover twice
    Session(vault).close()
    assert _events(vault, "Did the journal survive?") == 1
    assert not list(reflector.dir.iterdir())


def test_journal_of_an_already_recorded_exchange_is_not_duplicated(vault):
    """Died after the STM write, before the journal was removed."""
    reflector = Reflector(vault, OfflineModel())
    exchange = Exchange("Written once", "Indeed.", "2026-01-02T03:04:05Z")
    reflector._journal(exchange)
    vault.append_event({"User": "Written once", "AI": "Indeed.", "Thoughts": "x"},
                       at=clock.parse_iso(exchange.at))
    assert Reflector(vault, OfflineModel()).recover() == 0
    assert _events(vault, "Written once") == 1 and not list(reflector.dir.glob("*.json"))


KILLED = """
import sys, time
from braniac import ScriptedModel, Vault
from braniac.processes.reflection import Reflector

# killed while the model thinks: journaled, never written
stuck = ScriptedModel("stuck").enqueue("reflect", lambda user, ai, short_term: time.sleep(60))
reflector = Reflector(Vault(sys.argv[1]), stuck)
reflector.submit("Killed mid-reflection", "This answer was given.")
print("journaled", flush=True)
time.sleep(60)
"""


def test_process_killed_between_journal_and_append(vault, notices):
    proc = subprocess.Popen([sys.executable, "-c", KILLED, str(vault.root)], stdout=subprocess.PIPE,
                            env=clean_env(), cwd=REPO, text=True)
    try:
        assert proc.stdout.readline().strip() == "journaled"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    assert _events(vault, "Killed mid-reflection") == 0
    Session(vault).close()
    assert _events(vault, "Killed mid-reflection") == 1
    assert any("recorded 1 exchange" in n for n in notices)
    Session(vault).close()
    assert _events(vault, "Killed mid-reflection") == 1


HOLDS_STM = """
import sys, time
from braniac import Vault
from braniac.infra.locks import locked

vault = Vault(sys.argv[1])
with locked(vault.lock_path("stm")):
    print("holding", flush=True)
    time.sleep(float(sys.argv[2]))
"""


def _hold_stm(vault, seconds: float) -> subprocess.Popen:
    """Another braniac process (a promotion archiving, say) holding short-term memory's lock."""
    proc = subprocess.Popen([sys.executable, "-c", HOLDS_STM, str(vault.root), str(seconds)],
                            stdout=subprocess.PIPE, env=clean_env(), cwd=REPO, text=True)
    assert proc.stdout.readline().strip() == "holding"
    return proc


@pytest.fixture
def short_lock_waits(monkeypatch):
    """Each try of a turn's write waits 0.3 s for short-term memory's lock, 0.1 s apart."""
    monkeypatch.setattr("braniac.vault.store.STM_LOCK_WAIT", 0.3)
    monkeypatch.setattr("braniac.processes.reflection.LOCK_RETRY_PAUSE", 0.1)


def test_a_turn_that_finds_short_term_memory_locked_waits_for_it(vault, notices, short_lock_waits):
    # the other process holds the lock for 2 s: the turn's first tries fail, and the exchange
    # must still land before the chat exits, not stay journaled
    session = Session(vault)
    holder = _hold_stm(vault, 2.0)
    try:
        session.turn("Which port does staging use now?")
        assert session.reflector.flush() == 0
    finally:
        holder.wait(10)
        session.close()
    assert _events(vault, "Which port does staging use now?") == 1
    assert not list(session.reflector.dir.glob("*.json"))
    assert not [n for n in notices if "journaled" in n or "failed" in n], notices


def test_a_turn_still_locked_out_when_the_chat_exits_says_so_and_the_next_session_records_it(
        vault, notices, short_lock_waits):
    session = Session(vault)
    holder = _hold_stm(vault, 4.0)
    try:
        session.turn("Where did we leave the deploy checklist?")
        assert session.reflector.flush(timeout=1.0) == 1
        assert _events(vault, "Where did we leave the deploy checklist?") == 0
    finally:
        holder.wait(10)
    said = [n for n in notices if "not yet in short-term memory" in n]
    assert len(said) == 1 and "next braniac session" in said[0], notices
    Session(vault).close()
    assert _events(vault, "Where did we leave the deploy checklist?") == 1


def test_stale_claim_of_a_dead_process_is_replayed_once(vault):
    reflector = Reflector(vault, OfflineModel())
    path = reflector._journal(Exchange("Claimed then died", "ok", "2026-01-02T03:04:05Z"))
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    os.replace(path, path.with_suffix(f".{dead.stdout.strip()}.work"))
    for _ in range(3):
        Reflector(vault, OfflineModel()).recover()
    assert _events(vault, "Claimed then died") == 1


def test_unreadable_journal_is_set_aside_and_the_session_starts(vault):
    reflector = Reflector(vault, OfflineModel())
    reflector.dir.mkdir(parents=True)
    (reflector.dir / "2026-01-02T030405Z-abcdef.json").write_text("{not json")
    Session(vault).close()
    assert [p.suffix for p in reflector.dir.iterdir()] == [".broken"]


def test_journal_waits_while_short_term_memory_is_missing(vault, notices):
    reflector = Reflector(vault, OfflineModel())
    reflector._journal(Exchange("Kept for later", "ok", "2026-01-02T03:04:05Z"))
    saved = vault.stm_path.read_bytes()
    vault.stm_path.unlink()
    Session(vault).close()  # starts all the same
    assert any("could not record a journaled exchange yet" in n for n in notices)
    assert len(list(reflector.dir.glob("*.json"))) == 1
    vault.stm_path.write_bytes(saved)
    Session(vault).close()
    assert _events(vault, "Kept for later") == 1


# ----------------------------------------------------------------------------- prompt templates

PROVIDED = {
    "answer": {"now", "identity", "conversation", "short_term", "memories"},
    "search_queries": {"now", "identity", "conversation", "short_term", "prompt"},
    "reflect": {"identity", "user", "ai", "short_term"},
}


@pytest.mark.parametrize("name", sorted(PROVIDED))
def test_shipped_templates_use_only_what_braniac_provides(name):
    text = prompts.template_path(name).read_text()
    used = {m.group(1) or m.group(2) for m in re.finditer(r"\$(?:(\w+)|\{(\w+)\})", text)}
    assert used == PROVIDED[name]
    rendered = prompts.render(name, **{k: f"<{k}>" for k in PROVIDED[name]})
    assert "$" not in rendered.replace("$$", "")


def test_vault_override_is_used(vault):
    (vault.root / "prompts").mkdir()
    (vault.root / "prompts" / "answer.md").write_text("Mine: $memories at $now\n")
    assert prompts.render("answer", vault.root, now="T", memories="M", identity="", conversation="",
                          short_term="") == "Mine: M at T\n"
    assert prompts.render("reflect", vault.root, identity="i", user="u", ai="a", short_term="s").startswith("You keep")


def test_unknown_variable_is_a_clear_config_error(vault):
    (vault.root / "prompts").mkdir()
    bad = vault.root / "prompts" / "search_queries.md"
    bad.write_text("Find $prompt for $mood\n")
    with pytest.raises(ConfigError, match=r"uses \$mood, which braniac does not provide") as info:
        prompts.render("search_queries", vault.root, now="", conversation="", short_term="", prompt="p")
    assert str(bad) in str(info.value)
    bad.write_text("Costs 5$ only\n")
    with pytest.raises(ConfigError, match=r"malformed.*\$\$"):
        prompts.render("search_queries", vault.root, now="", conversation="", short_term="", prompt="p")
    with pytest.raises(ConfigError, match="no prompt template named 'nope'"):
        prompts.render("nope", vault.root)


def test_access_log_has_one_line_per_file_even_with_several_passages_of_it(vault):
    write_note(vault, "memory/long_term/concrete/garden/brandywine.md", "Brandywine tomatoes",
               _distinct_paragraphs(*VARIETIES[0]))
    loop = _loop(vault, 100_000)
    turn, wm = loop.prepare("When do I water and harvest the Brandywine tomatoes?")
    paths = [e.path for e in turn.excerpts]
    assert paths.count("memory/long_term/concrete/garden/brandywine.md") >= 2, paths
    assert reads(vault) == ["memory/long_term/concrete/garden/brandywine.md"]

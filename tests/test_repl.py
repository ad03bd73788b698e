"""`braniac chat`: piped stdin through a real process (offline engine), Ctrl-D, unknown commands,
and Ctrl-C during a slow streamed answer from the fake LLM server (the session goes on and the
interrupted turn is kept)."""
from __future__ import annotations

import io
import signal
import subprocess
import sys
import threading
import time

from braniac import ScriptedModel, Vault
from braniac.search.index import SearchIndex
from braniac.model.offline import OfflineModel
from braniac.app.repl import Chat

from fake_llm import Fail, Stream, configure_vault, guard_env
from helpers import clean_env, run_cli

KNOWN_NOTICES = ("braniac: building the search index (first use)",)


def users(vault: Vault) -> list[str]:
    return [e.fields.get("User", "") for e in vault.read_stm().events]


def assert_quiet_stderr(stderr: str) -> None:
    assert "Traceback" not in stderr
    assert all(line in KNOWN_NOTICES for line in stderr.splitlines()), stderr


def test_scripted_session_through_piped_stdin(vault):
    script = "hello\n/remember the zebra code is 4711\n/search zebra\n/stm\n/help\n/quit\nnever read\n"
    result = run_cli("chat", cwd=vault.root, input=script)
    assert result.returncode == 0, result.stderr
    assert_quiet_stderr(result.stderr)
    out = result.stdout
    banner = out.splitlines()[0]
    assert banner.startswith("braniac chat · vault ") and "model: offline" in banner
    assert "I don't remember anything about" in out                     # hello, answered offline
    assert "remembered as event " in out                                 # /remember
    assert "[stm] memory/short_term.md" in out and "**zebra**" in out    # /search finds it
    assert "# Short-Term Memory Scratchpad" in out and '**User:** "hello"' in out  # /stm, after the turn
    assert "/remember TEXT" in out and "/quit" in out                    # /help
    # both events reflected; /remember went on top of the turn before it; nothing after /quit
    assert users(vault)[:2] == ["the zebra code is 4711", "hello"]
    assert "never read" not in users(vault)
    hello = vault.read_stm().events[1].fields
    assert hello["AI"].startswith("I don't remember anything about") and hello["Thoughts"]


def test_end_of_input_leaves_cleanly_after_writing_every_reflection(vault):
    result = run_cli("chat", cwd=vault.root, input="first message\nsecond message\nthird message")
    assert result.returncode == 0, result.stderr
    assert_quiet_stderr(result.stderr)
    assert users(vault)[:3] == ["third message", "second message", "first message"]
    journal = vault.state_dir / "journal"
    assert not journal.exists() or not list(journal.iterdir())


def test_unknown_command_and_bare_commands(vault):
    result = run_cli("chat", cwd=vault.root, input="/frobnicate now\n/remember\n/search\n\n/quit\n")
    assert result.returncode == 0
    assert "unknown command /frobnicate; /help lists them" in result.stdout
    assert "usage: /remember TEXT" in result.stdout and "usage: /search QUERY" in result.stdout
    assert vault.read_stm().events == []  # commands and blank lines are not messages


def test_no_vault_is_one_clear_line(tmp_path):
    result = run_cli("chat", cwd=tmp_path, input="hi\n")
    assert result.returncode == 2 and result.stderr.startswith("braniac: no braniac vault")
    assert result.stderr.count("\n") == 1


def slow_reflection(user, ai, short_term):
    time.sleep(0.3)  # an LLM thinking in the background
    return OfflineModel().reflect(user, ai, short_term)


def test_memory_commands_wait_for_the_pending_reflection(vault):
    out, err = io.StringIO(), io.StringIO()
    chat = Chat(vault, out=out, err=err)
    try:
        # both turns are reflected slowly; /remember needs no model
        chat.ready_session().reflector.model = ScriptedModel().enqueue("reflect", slow_reflection, slow_reflection)
        chat.handle("hello there")
        chat.handle("/stm")
        assert '**User:** "hello there"' in out.getvalue()  # /stm shows the turn just had
        chat.handle("a second message")
        chat.handle("/remember the gate code is 1234")
    finally:
        chat.close()
    assert users(vault) == ["the gate code is 1234", "a second message", "hello there"]


# ----------------------------------------------------------------------------- Ctrl-C

def test_ctrl_c_mid_stream_keeps_the_turn_and_the_session(vault):
    out, err = io.StringIO(), io.StringIO()
    chat = Chat(vault, out=out, err=err)
    session = chat.ready_session()
    # what Ctrl-C does mid-stream; the next answer is the offline engine's
    session.loop.model = ScriptedModel().enqueue("answer", ["The first half of a long ", "answer", KeyboardInterrupt()])
    try:
        assert chat.handle("Tell me a long story") is True
        assert "answer stopped; the turn was kept" in err.getvalue()
        assert chat.handle("And now something short?") is True
    finally:
        chat.close()
    assert "The first half of a long answer" in out.getvalue()
    events = vault.read_stm().events
    assert [e.fields["User"] for e in events[:2]] == ["And now something short?", "Tell me a long story"]
    assert events[1].fields["AI"] == "The first half of a long answer [interrupted]"
    assert session.loop.conversation.turns[0][1].endswith("[interrupted]")


class _Reader(threading.Thread):
    def __init__(self, stream):
        super().__init__(daemon=True)
        self.stream, self.text, self.lock = stream, "", threading.Lock()
        self.start()

    def run(self):
        for chunk in iter(lambda: self.stream.read1(1024) if hasattr(self.stream, "read1") else self.stream.read(1), b""):
            with self.lock:
                self.text += chunk.decode("utf-8", "replace")

    def wait_for(self, needle: str, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if needle in self.text:
                    return True
            time.sleep(0.02)
        return False


def test_sigint_during_a_slow_streamed_answer_from_the_llm(tmp_path, fake_llm):
    """A real `braniac chat` process with a LiteLLM model; SIGINT while the answer streams."""
    base_url, server = fake_llm
    vault, _ = Vault.init(tmp_path / "vault")
    configure_vault(vault.root, base_url, timeout=10)
    index = SearchIndex(vault)
    index.sync()
    index.close()
    server.answers.extend([
        Stream([f"chunk{n} " for n in range(40)], delay=0.25),  # ~10 s if nobody interrupts
        "Second answer.",
        Fail.HTTP_500,
        "Fourth answer.",
    ])
    env, netlog = guard_env(tmp_path / "guard", clean_env(FAKE_LLM_KEY="test", HOME=str(tmp_path / "home")))
    proc = subprocess.Popen([sys.executable, "-m", "braniac", "--vault", str(vault.root), "chat"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                            cwd=tmp_path)
    out, err = _Reader(proc.stdout), _Reader(proc.stderr)
    try:
        proc.stdin.write(b"Tell me a very long story\n")
        proc.stdin.flush()
        assert out.wait_for("chunk2 ", 60), (out.text, err.text)
        proc.send_signal(signal.SIGINT)
        assert err.wait_for("answer stopped; the turn was kept", 10), (out.text, err.text)
        proc.stdin.write(b"Second question?\nThird question?\nFourth question?\n")
        proc.stdin.close()
        assert proc.wait(30) == 0, (out.text, err.text)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    time.sleep(0.1)  # let the readers drain
    assert out.text.startswith("braniac chat · vault ") and "model: openai/fake" in out.text.splitlines()[0]
    assert "Traceback" not in err.text and "KeyboardInterrupt" not in err.text
    assert "chunk39" not in out.text  # the stream really stopped
    assert "Second answer." in out.text and "Fourth answer." in out.text
    assert "HTTP 500" in err.text and "(your message was kept in short-term memory)" in err.text
    events = {e.fields["User"]: e.fields for e in vault.read_stm().events}
    assert events["Tell me a very long story"]["AI"].startswith("chunk0 chunk1 ")
    assert events["Tell me a very long story"]["AI"].endswith("[interrupted]")
    assert events["Second question?"]["AI"] == "Second answer."
    assert events["Third question?"]["AI"].startswith("[no answer: ")
    assert events["Fourth question?"]["AI"] == "Fourth answer."
    assert not netlog.exists() or netlog.read_text() == ""

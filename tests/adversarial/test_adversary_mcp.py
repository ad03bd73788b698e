"""Everything at once, with MCP: chaos.py's run (`braniac watch`, a piped `braniac chat`, three
`braniac remember` loops, `promote --force` and `organize` from cron-like loops, a person's
editor saves of notes and short_term.md) plus two `braniac mcp` servers on the same vault, an
official MCP client on each calling `remember` and `recall` in a loop. Afterwards chaos.py's
checks: every text a `remember` acknowledged (from the CLI or over MCP) present exactly once,
every line the person saved kept, `doctor` healthy, nothing left half done.

The person saves by rename and in place, as in test_adversary_chaos.py."""
from __future__ import annotations

import json
import random
import threading

import pytest

import checks
import scenarios
from chaos import Chaos
from checks import Failure
from runner import SEED, Sandbox
from vaults import QUESTIONS, TALK, git_vault, quick_config

pytestmark = pytest.mark.slow

SECONDS = 15.0
SERVERS = 2


class WithMCP(Chaos):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.mcp_threads = [threading.Thread(target=self.mcp_loop, args=(n,)) for n in range(SERVERS)]
        self.connected = [threading.Event() for _ in range(SERVERS)]

    def mcp_loop(self, n: int) -> None:
        import os

        from mcp import StdioServerParameters
        from mcp_client import Connected, server_command
        rng = random.Random(f"{self.seed}-mcp-{n}")
        command = server_command(self.box.vault)
        env = self.box.env() | {"PYTHONPATH": os.environ.get("PYTHONPATH", "")}
        try:
            with Connected(StdioServerParameters(command=command[0], args=command[1:], env=env,
                                                 cwd=str(self.box.tmp)), timeout=120) as mcp:
                self.connected[n].set()
                i = 0
                while not self.stop.is_set():
                    text = f"{rng.choice(TALK)} (mcp {n} note {i} tok{rng.getrandbits(32):08x})"
                    result = mcp.call("remember", {"text": text})
                    if result.is_error:
                        self.count(f"mcp remember refused ({result.content[0].text[:50]})")
                    else:
                        event = json.loads(result.content[0].text)["event"]
                        with self.lock:
                            if event in self.acked:
                                self.failures.append(Failure("duplicate-id", f"two events acknowledged as {event}"))
                            self.acked[event] = text
                            self.acks.append((event, text))
                        self.count("mcp remember ok")
                    found = mcp.call("recall", {"query": rng.choice(QUESTIONS)})
                    self.count("mcp recall " + ("refused" if found.is_error else "ok"))
                    i += 1
                    self.stop.wait(rng.uniform(0.02, 0.15))
        except Exception as exc:  # noqa: BLE001 - a crash or hang of the server is the finding
            with self.lock:
                self.failures.append(Failure("mcp", f"MCP server {n}: {type(exc).__name__}: {exc}"))
        finally:
            self.connected[n].set()

    def run(self) -> list[Failure]:
        for thread in self.mcp_threads:
            thread.start()
        # the run starts once both servers answer: on a loaded machine a server's start (the
        # MCP SDK's imports) can take most of the run, which then tests nothing over MCP
        for ready in self.connected:
            ready.wait(120)
        return super().run()

    def check(self, before) -> list[Failure]:
        for thread in self.mcp_threads:   # stop is set: each client leaves, its server exits
            thread.join(180)
        return super().check(before)


def test_everything_at_once_with_two_mcp_servers(workdir):
    box = Sandbox(workdir[0] / "mcp-chaos")
    git_vault(box, organize_work=True, events=10, promoted=8)
    quick_config(box.vault, promote_minutes=0.01, organize_minutes=0.03)
    checks.git(box.vault, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "quick idle timers", "--",
               "braniac.toml")
    run = WithMCP(box, SEED, SECONDS)
    failures = run.run()
    tally = checks.Tally("everything at once, with two MCP servers")
    tally.notes.append(f"{len(run.acked)} events acknowledged, {len(run.lines)} lines saved by the person, "
                       f"{len(run.prompts)} chat prompts; " + ", ".join(f"{k} {v}" for k, v in sorted(run.counts.items())))
    tally.add("mcp chaos", failures)
    scenarios.verdict(tally, workdir, "pytest -n 0 -s tests/adversarial/test_adversary_mcp.py")
    assert run.counts.get("mcp remember ok", 0) >= SERVERS and run.counts.get("mcp recall ok", 0) >= SERVERS, \
        tally.notes

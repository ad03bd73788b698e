"""Test configuration: the Hypothesis profile, and the shared fixtures as plugins (shared_fixtures.py:
vaults; fake_llm.py: the loopback LLM server and the network guard). Shared plain functions
are in helpers.py."""
from __future__ import annotations

import os
import signal
import time

import pytest
from hypothesis import HealthCheck, settings

from braniac.infra import clock

pytest_plugins = ["shared_fixtures", "fake_llm", "suite_plugin"]   # suite_plugin: the seed, the order

# Property tests touch no disk and must stay quick; tmp_path fixtures are function-scoped.
settings.register_profile("braniac", deadline=None, max_examples=150,
                          suppress_health_check=[HealthCheck.function_scoped_fixture])
settings.load_profile("braniac")

# The person's days ("yesterday", "last Friday") are the machine's time zone's (clock.local_day):
# the suite runs on UTC wherever it runs, and its children with it; a test that needs another
# zone sets TZ itself.
os.environ["TZ"] = "UTC"
time.tzset()

# A job started in the background by a non-interactive shell (`.ci/run &`, nohup) has SIGINT
# ignored, and so would every braniac process a test starts (an ignored signal survives exec):
# the tests that interrupt `watch` or the chat with Ctrl-C would wait for nothing. A handler set
# here is reset to the default in every child.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(autouse=True)
def _wall_clock_after_each_test():
    """A test that sets braniac's clock (to replay a day in 2025) leaves the wall clock to the
    next test of its worker: a CLI child runs on the wall clock, and a handoff "archived" in
    2025 would be months out of its window."""
    yield
    clock.set_clock(None)

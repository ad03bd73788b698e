"""Test configuration: the Hypothesis profile, and the shared fixtures as plugins (shared_fixtures.py:
vaults; fake_llm.py: the loopback LLM server and the network guard). Shared plain functions
are in helpers.py."""
from __future__ import annotations

import signal

from hypothesis import HealthCheck, settings

pytest_plugins = ["shared_fixtures", "fake_llm", "suite_plugin"]   # suite_plugin: the seed, the order

# Property tests touch no disk and must stay quick; tmp_path fixtures are function-scoped.
settings.register_profile("braniac", deadline=None, max_examples=150,
                          suppress_health_check=[HealthCheck.function_scoped_fixture])
settings.load_profile("braniac")

# A job started in the background by a non-interactive shell (`.ci/run &`, nohup) has SIGINT
# ignored, and so would every braniac process a test starts (an ignored signal survives exec):
# the tests that interrupt `watch` or the chat with Ctrl-C would wait for nothing. A handler set
# here is reset to the default in every child.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

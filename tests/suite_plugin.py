"""How the suite runs (loaded by conftest.py): the fault tests' seed, the order of the tests,
and braniac compiled once.

BRANIAC_TEST_SEED: the seed of the fault tests' random instants (test_promotion_faults.py,
test_organize_faults.py). Fixed unless set; every run prints it in its header, a failure names
it, and setting it replays the same instants.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

TEST_SEED = int(os.environ.get("BRANIAC_TEST_SEED", "20240521"))


def pytest_report_header(config):
    return f"fault tests: BRANIAC_TEST_SEED={TEST_SEED}"


def pytest_sessionstart(session):
    """Under PYTHONDONTWRITEBYTECODE every `python -m braniac` the tests start would compile
    braniac anew (~0.1 s of CPU each, a few hundred times): compile it once, here. (Without the
    variable Python writes the same files by itself.)"""
    if sys.dont_write_bytecode and not hasattr(session.config, "workerinput"):
        import compileall

        import braniac
        compileall.compile_dir(Path(braniac.__file__).parent, quiet=2)


def pytest_sessionfinish(session):
    """Stop the braniac fork server of this process (tests/forked.py), if a test started one, and
    wait for it: an xdist worker may leave without running atexit, and then the CPU time of the
    server and of its children would escape `time pytest`."""
    forked = sys.modules.get("forked")
    if forked is not None:
        forked.stop()


def pytest_collection_modifyitems(config, items):
    """Tests marked slow first (a stable sort), so that with xdist (-n) they do not start last."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)

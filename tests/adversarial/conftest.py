"""The adversarial suite's fixtures: a scratch folder per test module (on /dev/shm when there
is one; removed when everything passed, kept otherwise or with BRANIAC_ADVERSARY_KEEP=1) and the
braniac fork server (scenarios.verdict prints a scenario's tally and fails the test on any failure)."""
from __future__ import annotations

import os
import shutil

import pytest

import forked
from runner import scratch


@pytest.fixture(scope="module")
def workdir(request):
    root = scratch(f"braniac-{request.module.__name__}-")
    forked.ready()
    state = {"failed": False}
    yield root, state
    forked.stop()
    if not state["failed"] and not os.environ.get("BRANIAC_ADVERSARY_KEEP"):
        shutil.rmtree(root, ignore_errors=True)

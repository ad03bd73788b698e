"""Everything at once on one git vault: watch, a piped chat, three remember loops, cron-like
promote and organize, a person saving notes and short_term.md by rename and in place
(chaos.py). BRANIAC_CHAOS_SECONDS sets the length of a run (20 s), BRANIAC_ADVERSARY_SCALE the
number of runs (1 at scale 1 and below)."""
import pytest

import scenarios
from chaos import SECONDS
from runner import scaled

pytestmark = pytest.mark.slow


def test_everything_at_once_loses_nothing(workdir):
    tally = scenarios.chaos(workdir[0], scaled(1), SECONDS)
    scenarios.verdict(tally, workdir, "pytest -n 0 -s tests/adversarial/test_adversary_chaos.py")

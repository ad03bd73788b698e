"""Hostile vault items x the eight commands (hostile.py), and hypothesis-drawn notes and
short_term.md (fuzz.py: 30 examples at scale 1)."""
import pytest

import hostile
import scenarios
from runner import scaled

pytestmark = pytest.mark.slow
ITEMS = hostile.items()
PARTS = 3


@pytest.mark.parametrize("part", range(PARTS))
def test_hostile_items_get_a_clear_error_or_work(workdir, part):
    tally = scenarios.hostile(workdir[0] / f"part{part}", ITEMS[part::PARTS])
    scenarios.verdict(tally, workdir, f"pytest -n 0 -s 'tests/adversarial/test_adversary_hostile.py::"
                            f"test_hostile_items_get_a_clear_error_or_work[{part}]'")


def test_fuzzed_notes_and_short_term_memory(workdir):
    tally = scenarios.fuzz(workdir[0] / "fuzz", scaled(30))
    scenarios.verdict(tally, workdir, "pytest -n 0 -s tests/adversarial/test_adversary_hostile.py::"
                            "test_fuzzed_notes_and_short_term_memory")

"""SIGKILL at random instants of promote, organize and remember in git vaults, then a re-run
(kills.py): 5 kills per command at scale 1."""
import pytest

import scenarios
from runner import scaled

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("command", ["promote", "organize", "remember"])
def test_killed_then_run_again_loses_nothing(workdir, command):
    tally = scenarios.kills(workdir[0] / command, scaled(5), [command])
    scenarios.verdict(tally, workdir, f"pytest -n 0 -s 'tests/adversarial/test_adversary_kills.py::"
                            f"test_killed_then_run_again_loses_nothing[{command}]'")

"""A full disk at the write points of each command (full_disk.py): ENOSPC injected at 6 write
sites per command at scale 1 (4 for organize, whose runs cost most; every site from a scale that
reaches them all), and, when running as root where a tmpfs can be mounted, a real full tmpfs
with 0, 4096 and 16384 bytes left."""
import pytest

import full_disk
import scenarios
from runner import scaled

pytestmark = pytest.mark.slow
COMMANDS = list(full_disk.COMMANDS)


@pytest.mark.parametrize("command", COMMANDS)
def test_enospc_at_write_points_leaves_a_valid_vault(workdir, command):
    tally = scenarios.full_disk(workdir[0] / command, command, scaled(4 if command == "organize" else 6))
    scenarios.verdict(tally, workdir, f"pytest -n 0 -s 'tests/adversarial/test_adversary_full_disk.py::"
                            f"test_enospc_at_write_points_leaves_a_valid_vault[{command}]'")


@pytest.mark.skipif(not full_disk.tmpfs_available(), reason="needs root and a mountable tmpfs")
@pytest.mark.parametrize("command", ["init", "remember", "promote"])
def test_full_tmpfs_leaves_a_valid_vault(workdir, command):
    tally = scenarios.tmpfs(workdir[0] / f"tmpfs-{command}", command, [0, 4096, 16384, 65536, 262144][:scaled(3)])
    scenarios.verdict(tally, workdir, f"pytest -n 0 -s 'tests/adversarial/test_adversary_full_disk.py::"
                            f"test_full_tmpfs_leaves_a_valid_vault[{command}]'")

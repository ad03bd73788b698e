"""A value in a note the person keeps themselves (a folder of their own, no citations) against
what they told braniac: the later one is current, the other history. A note is dated by when
it was last written; a checkout sets every file's mtime to its own moment, so a note git holds
unchanged is dated by its last commit."""
from __future__ import annotations

import os
import subprocess
from datetime import datetime, timezone

import pytest

from braniac import Vault
from test_everyday_changes import _at, _quoted, _say

RENT_NOTE = "# Finances\n\nMy rent is 900 euros a month.\n\nThe car insurance renews in March.\n"


def _own_note(vault, text: str, written: datetime | None = None) -> str:
    rel = "memory/long_term/home/finances.md"
    path = vault.root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    if written is not None:
        os.utime(path, (written.timestamp(), written.timestamp()))
    return rel


def _recalled(vault, question: str, asked_on=(2025, 9, 4)) -> list[tuple[str, str]]:
    with _at(*asked_on):
        return [(e.path, e.text) for e in vault.recall(question).excerpts]


@pytest.fixture
def vault(tmp_path):
    created, _ = Vault.init(tmp_path / "vault")
    return created


@pytest.mark.parametrize("promoted", [False, True])
def test_a_later_statement_makes_the_value_in_the_persons_note_history(vault, promoted):
    rel = _own_note(vault, RENT_NOTE, datetime(2025, 1, 5, tzinfo=timezone.utc))
    _say(vault, ((2025, 9, 1), "My landlord raised the rent, so now I pay 1,050 euros a month."), promoted=promoted)
    recalled = _recalled(vault, "How much is my rent?")
    # the note's 900 was dropped as a repeat of the 1,050 statement (numbers are no words)
    assert "1,050" in recalled[0][1], recalled
    assert [t for p, t in recalled if p == rel] == \
        ["My rent is 900 euros a month.\n_(history — superseded on 2025-09-01)_"], recalled
    with _at(2025, 9, 4):
        quoted = _quoted(vault.ask("How much is my rent?").answer)
    assert "1,050" in quoted[0][0] and "superseded" not in quoted[0][1], quoted
    assert [s for t, s in quoted if "900" in t] == [f"{rel}, superseded on 2025-09-01"], quoted


@pytest.mark.parametrize("promoted", [False, True])
def test_a_note_the_person_wrote_after_telling_braniac_is_no_history_and_supersedes_nothing(vault, promoted):
    """A note is dated "written no later than": one line edited makes the whole file new, so its
    date cannot say that its other lines replaced what was said before."""
    _say(vault, ((2025, 3, 1), "My rent is 900 euros a month."), promoted=promoted)
    rel = _own_note(vault, "# Finances\n\nMy rent is 1,050 euros a month since the landlord raised it.\n",
                    datetime(2025, 9, 1, tzinfo=timezone.utc))
    recalled = _recalled(vault, "How much is my rent?")
    assert any(p == rel for p, _t in recalled) and not any("superseded" in t for _p, t in recalled), recalled
    with _at(2025, 9, 4):
        quoted = _quoted(vault.ask("How much is my rent?").answer)
    assert {t for t, _ in quoted} >= {"My rent is 1,050 euros a month since the landlord raised it.",
                                      "My rent is 900 euros a month."}, quoted
    assert not any("superseded" in s for _t, s in quoted), quoted


def test_adoption_rewriting_a_note_keeps_its_date(vault):
    """Adoption adds braniac's keys to a note written by hand, which makes the file new; the
    note is still as old as its `updated_at` says, and a later statement makes its value history."""
    rel = _own_note(vault, RENT_NOTE, datetime(2025, 1, 5, tzinfo=timezone.utc))
    os.utime((vault.root / rel).parent, (datetime(2025, 1, 5, tzinfo=timezone.utc).timestamp(),) * 2)
    with _at(2025, 1, 6):
        vault.adopt()
    assert (vault.root / rel).read_text(encoding="utf-8").startswith("---"), "adopted"
    _say(vault, ((2025, 9, 1), "My landlord raised the rent, so now I pay 1,050 euros a month."), promoted=False)
    recalled = _recalled(vault, "How much is my rent?")
    assert "1,050" in recalled[0][1], recalled
    assert [t for p, t in recalled if p == rel] == \
        ["My rent is 900 euros a month.\n_(history — superseded on 2025-09-01)_"], recalled


def test_a_note_git_holds_unchanged_is_dated_by_its_commit_not_by_its_checkout(vault):
    """On a second machine every file is as new as the clone: the note written in January stays
    older than what was said in September."""
    root = vault.root
    rel = _own_note(vault, RENT_NOTE)          # its mtime: the real now, long after 2025
    env = {**os.environ, "GIT_AUTHOR_DATE": "2025-01-05T10:00:00Z", "GIT_COMMITTER_DATE": "2025-01-05T10:00:00Z",
           "GIT_AUTHOR_NAME": "p", "GIT_AUTHOR_EMAIL": "p@example.org", "GIT_COMMITTER_NAME": "p",
           "GIT_COMMITTER_EMAIL": "p@example.org"}
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "my notes"]):
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)
    _say(vault, ((2025, 9, 1), "My landlord raised the rent, so now I pay 1,050 euros a month."), promoted=False)
    recalled = _recalled(vault, "How much is my rent?")
    assert "1,050" in recalled[0][1], recalled
    assert [t for p, t in recalled if p == rel] == \
        ["My rent is 900 euros a month.\n_(history — superseded on 2025-09-01)_"], recalled
    # once the person edits it, the edit is what counts (its mtime): no longer history
    (root / rel).write_text(RENT_NOTE.replace("My rent is 900", "My rent went up to 1,100"), encoding="utf-8")
    recalled = _recalled(vault, "How much is my rent?")
    assert [t for p, t in recalled if p == rel] == ["My rent went up to 1,100 euros a month."], recalled


def test_two_statements_that_differ_only_in_their_number_both_enter(vault):
    _say(vault, ((2025, 3, 1), "The staging server port is 8080."),
         ((2025, 6, 1), "The staging server port is 9090."), promoted=False)
    texts = [t for _p, t in _recalled(vault, "Which port does the staging server use?")]
    assert "9090" in texts[0] and "superseded" not in texts[0], texts
    assert any("8080" in t and "superseded on 2025-06-01" in t for t in texts), texts

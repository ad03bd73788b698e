"""A service or a place the person left, said the way people say it (issue 18, facts that
change): "Cancelled Spotify, I use Apple Music now", "I closed my ING account and bank with
Revolut now", "I moved all my notes to Obsidian" (reversals: _STOPPED, _MOVED_TO). The newer
replaces the older for a question; someone else's, a maybe, a question, a part of the thing or
a day are no change."""
from __future__ import annotations

import pytest

from braniac.infra import measures, textutil
from braniac.vault.value_changes import replaced_for_the_question, replaces_claim


def _replaced(old: str, new: str, question: str) -> bool:
    return replaced_for_the_question(old, new, textutil.terms(question), measures.asked(question))


@pytest.mark.parametrize("old, new, question", [
    ("I listen to music on Spotify.", "Cancelled Spotify, I use Apple Music now.", "What do I use for music?"),
    ("I bank with ING.", "I closed my ING account and bank with Revolut now.", "Which bank do I use?"),
    ("I write my notes in Evernote.", "I moved all my notes to Obsidian.", "What app do I use for notes?"),
    ("I keep my photos on Google Photos.", "Finally migrated our photos over to iCloud.", "Where do I keep my photos?"),
])
def test_a_thing_left_for_another_replaces_the_older(old, new, question):
    assert _replaced(old, new, question)


@pytest.mark.parametrize("old, new, question", [
    ("I listen to music on Spotify.", "Cancelled Spotify's family plan, I'm on the single one now.", "What do I use for music?"),
    ("I listen to music on Spotify.", "Cancelled the trip to Spotify HQ.", "What do I use for music?"),
    ("I bank with ING.", "My dad closed his ING account.", "Which bank do I use?"),
    ("I bank with ING.", "I closed my ING savings account.", "Which bank do I use?"),
    ("I write my notes in Evernote.", "I moved my recipes to Obsidian.", "What app do I use for notes?"),
    ("I write my notes in Evernote.", "Should I move all my notes to Obsidian?", "What app do I use for notes?"),
    ("I write my notes in Evernote.", "My sister moved all her notes to Obsidian.", "What app do I use for notes?"),
    ("I keep my photos on Google Photos.", "I might move my photos to iCloud.", "Where do I keep my photos?"),
    # from a second adversarial review: one occasion, a question, a quote, a part, a backup
    ("I call my mum every Sunday.", "Ended the call after ten minutes, she was tired.", "When do I call my mum?"),
    ("We go to the cinema on Fridays.", "Cancelled the cinema tonight, Leo has a fever.", "When do we go to the cinema?"),
    ("I listen to music on Spotify.", "Cancelled Spotify? No, I still use it every day.", "What do I use for music?"),
    ("I write my notes in Evernote.", 'Tom: "I moved all my notes to Obsidian, you should too."', "What app do I use for notes?"),
    ("I write my notes in Evernote.", "I moved my work notes to Notion, the personal ones stay in Evernote.",
     "What app do I use for notes?"),
    ("I keep my photos on Google Photos.", "I moved my photos to OneDrive as well, just as a backup.",
     "Where do I keep my photos?"),
    ("I keep my car and my bike in the garage.", "I moved my bike to Ana's for the winter.", "Where do I keep my car?"),
    # from a third adversarial review: for a while, or one of two named things
    ("I keep my savings at ING.", "I transferred my savings to Revolut for the trip. I'll move them back to ING in March.",
     "Where do I keep my savings?"),
    ("We have Netflix and Disney+.", "Quit Netflix for Lent, we'll be back at Easter.", "Do we have Netflix?"),
    ("I bank with ING and use Revolut when I travel.", "I closed my Revolut account, the app kept freezing.",
     "Which bank do I use?"),
])
def test_a_part_a_maybe_or_someone_elses_leaves_the_older_current(old, new, question):
    assert not _replaced(old, new, question)


def test_promotion_reads_the_notes_moved_as_replacing_the_claim():
    assert replaces_claim("2025-02-03 — I write my notes in Evernote.", "2025-03-01 — I moved all my notes to Obsidian.")
    assert not replaces_claim("2025-02-03 — I write my notes in Evernote.", "2025-03-01 — I moved my recipes to Obsidian.")

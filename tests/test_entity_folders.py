"""Which folder the offline engine files a named thing in, from the words around it (issue 18,
notes a person would keep): a company by what one holds with it or what it has ("an account with
Mercury", "an index fund at Vanguard", "the Apple recruiter"), never by the "at" or "with" that
places and people share. A joint account, a shared subscription, an interview or a loan with
someone is a person's; "Rust support" is a language's (an adversarial review's controls)."""
from __future__ import annotations

import pytest

from braniac.model.offline.entity_folders import entity_folder


@pytest.mark.parametrize("name, said", [
    ("Mercury", ["Opened a business account with Mercury for the consulting work.",
                 "Moved the consulting invoices to the Mercury account."]),
    ("Vanguard", ["Moved 5,000 euros into an index fund at Vanguard.", "Set up a monthly transfer of 300 euros to Vanguard."]),
    ("Apple", ["Interviewing at Apple next Thursday for the iOS role.", "The Apple recruiter sent a prep guide."]),
])
def test_a_company_is_known_by_what_one_holds_with_it_or_what_it_has(name, said):
    assert entity_folder(name, said, set(), set()) == "organizations"


@pytest.mark.parametrize("name, said, folder", [
    ("Ana", ["I opened a joint account with Ana for the house.", "Ana said the bank was slow."], "people"),
    ("Ana", ["We opened a joint bank account with Ana."], "people"),
    ("Tom", ["I split the Netflix subscription with Tom."], "people"),
    ("Maria", ["I shared my Spotify account with Maria."], "people"),
    ("Sarah", ["Interviewing with Sarah on Monday."], "people"),
    ("Rust", ["The editor has great Rust support."], "topics"),
    ("Lisbon", ["Our Lisbon support team is great."], "places"),
    ("Android", ["Our team moved to Kotlin for the Android app."], "topics"),
    ("Lisbon", ["We had lunch at a cafe in Lisbon.", "The tram in Lisbon was packed."], "places"),
])
def test_a_person_a_platform_or_a_place_stays_what_it_is(name, said, folder):
    assert entity_folder(name, said, set(), set()) == folder

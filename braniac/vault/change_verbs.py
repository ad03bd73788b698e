"""The verbs by which a statement says a value is not the old one any more: "improved to 78%",
"was adjusted to 1,350", "We cut the wedding budget to 16,000", "I'm back up to 3 cups"; and who
changed it ("Ryanair moved my flight", "my landlord raised the rent"). Read by value_changes.py
and whose.py."""
from __future__ import annotations

import re

CHANGE_VERB_WORDS = (r"moved|changed|switched|updated|adjusted|increased|decreased|improved|raised|lowered|reduced|"
                     r"grew|grown|dropped(?= (?:[\w',]+ )*?(?:to|by) \S*\d| \S*\d)|extended|postponed|rescheduled|pushed|bumped|shifted|delayed|slipped|upgraded|"
                     r"downgraded|upped|hiked|(?:cut|trimmed)(?= (?:[\w',]+ )*?(?:to|by) \S*\d)|scaled back|"
                     r"back (?:up |down )?to(?= (?:[a-z]+ )?(?:[a-z]+ )?\S*\d)|down to|(?:is|are|went|got|'s) up to|"
                     r"(?:went|gone) (?:up|down)")
CHANGE_VERBS = re.compile(rf"\b(?:{CHANGE_VERB_WORDS})\b")
CHANGING = rf"(?:has\s+|just\s+)?(?:{CHANGE_VERB_WORDS})"   # who changed it: "Ryanair (has) moved", "my landlord raised"

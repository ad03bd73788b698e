"""Two name lists the offline engine files a named thing by when nothing around it says what it
is: the world's places (countries, US states, continents, cities of 150,000 people or more) and
common given names (`lexicon/`, made by `bench/make_name_lists.py`; sources in
`lexicon/COPYING-names`). Read on first use: promotion reads both, a chat turn the places only
for "we moved to <name>" (relations.py)."""
from __future__ import annotations

import gzip
from functools import lru_cache
from pathlib import Path

_FOLDER = Path(__file__).with_name("lexicon")


@lru_cache(maxsize=2)
def _names(file: str) -> frozenset[str]:
    with gzip.open(_FOLDER / file, "rt", encoding="utf-8") as handle:
        return frozenset(line for line in handle.read().split("\n") if line and not line.startswith("#"))


def is_place_name(name: str) -> bool:
    """"Lisbon", "Los Angeles", "NYC", "Japan", "Europe"; as written, capitals and all."""
    return name in _names("place-names.txt.gz")


GIVEN_FLOOR = 0.010       # percent of people bearing a name that is common enough to say "a person"


@lru_cache(maxsize=1)
def _shares() -> dict[str, float]:
    return {name: float(share) for name, _, share in (line.partition("\t") for line in _names("given-names.txt.gz"))}


def is_given_name(word: str, *, floor: float = GIVEN_FLOOR) -> bool:
    """"Kevin", "Nadia", "Carlos": a first name at least 1 in 10,000 people bears (`floor`, in
    percent; 0 for any name of the lists: "Sydney", "Denver")."""
    share = _shares().get(word)
    return share is not None and share >= floor

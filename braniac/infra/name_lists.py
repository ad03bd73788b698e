"""Two name lists the offline engine files a named thing by when nothing around it says what it
is: the world's places (countries, US states, continents, cities of 15,000 people or more) and
common given names (`lexicon/`, made by `bench/make_name_lists.py`; sources in
`lexicon/COPYING-names`). Read on first use: the chat turn never reads them."""
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


def is_given_name(word: str) -> bool:
    """"Kevin", "Nadia", "Carlos": a first name at least 1 in 10,000 people bears."""
    return word in _names("given-names.txt.gz")

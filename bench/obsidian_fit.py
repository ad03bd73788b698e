"""How well a braniac vault fits Obsidian, checked with a third-party parser of Obsidian vaults
(`obsidiantools`, a dev dependency): a LoCoMo-dev conversation replayed as bench/replay_health.py
does (reflection, questions, promotion per session, organization), with a person's own notes
written in Obsidian's style in the middle (no frontmatter, `[[wikilinks]]`, `![[embeds]]`, a
new nested folder, an `.obsidian/` and a `.trash/`), then:

- braniac's links (Markdown links, or with `--links wikilink` wikilinks with a relative path):
  those obsidiantools finds, resolved as Obsidian does (relative to the note, percent-decoded
  for a Markdown link, `.md` optional for a wikilink), and how many of them obsidiantools reads
  at all;
- the person's wikilinks: resolved by Obsidian's rule (the path's end, case-insensitive, `.md`
  optional) and by obsidiantools' own (exact note names);
- frontmatter property types Obsidian shows: tags a list of strings without '#' or spaces,
  created_at/updated_at dates, no nested objects;
- file names without a character Obsidian forbids; `.obsidian/` and `.trash/` untouched.

    python bench/obsidian_fit.py [--data ../shared/bench/locomo-dev.json] [--limit 1] [--sessions N]
                                 [--links markdown|wikilink]

Run it with PYTHONPATH pointing at another checkout to compare versions. Last line: JSON.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import warnings
from datetime import date, datetime
from pathlib import Path, PurePosixPath
from urllib.parse import unquote

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))


FORBIDDEN = set('*"\\/<>:|?#^[]')
PERSON_NOTES = {
    # a person's notes, as Obsidian writes them: no frontmatter, wikilinks of every form
    "memory/long_term/concrete/hobbies/painting/Sunset study.md":
        "# Sunset study\n\nOil on canvas, after [[Lake trip]]. See [[hobbies/Lake trip#Colours|the colours]]\n"
        "and ![[palette.png]]. #painting #art\n",
    "memory/long_term/concrete/hobbies/Lake trip.md":
        "# Lake trip\n\nWe camped by the lake. [[Sunset study]] came out of it.\n\n## Colours\nOchre, blue.\n",
    "memory/long_term/concrete/hobbies/palette.png": None,
    "memory/long_term/skills/Knots.md": "Bowline first, then [[lake trip]] (case does not matter to Obsidian).\n",
}
UNTOUCHABLE = {".obsidian/app.json": '{"useMarkdownLinks": false}\n', ".trash/old note.md": "gone [[nowhere]]\n"}


def write_person_notes(root: Path) -> None:
    for rel, text in {**PERSON_NOTES, **UNTOUCHABLE}.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if text is None:
            path.write_bytes(b"\x89PNG\r\n\x1a\n")
        else:
            path.write_text(text, encoding="utf-8")
        old = path.stat().st_mtime - 600   # saved ten minutes ago: quiet, as adoption wants
        os.utime(path, (old, old))
    for folder in {(root / rel).parent for rel in PERSON_NOTES}:
        os.utime(folder, (folder.stat().st_mtime - 600,) * 2)


def replay(sample: dict, root: Path, *, max_sessions: int | None = None, questions: int = 1, links: str = "markdown"):
    """A conversation lived by braniac (bench/replay_health.py's replay), the person's notes
    written after the first session; returns the vault."""
    from braniac.infra import clock
    from replay_health import replay as lived

    def person_writes(n_session, vault):
        if n_session == 0:
            write_person_notes(vault.root)
    vault = lived(sample, root, questions_per_session=questions, max_sessions=max_sessions, after_session=person_writes,
                  settings=f'\n[vault]\nlinks = "{links}"\n')
    clock.set_clock(None)
    return vault


def _relative(target: str) -> bool:
    return target.startswith(("./", "../"))


def _obsidian_resolves(target: str, files: list[str], source: str) -> bool:
    """Obsidian's rule, written independently of braniac: the file whose path ends with the
    link's path, compared case-insensitively, with '.md' optional; a path starting with `./` or
    `../` is relative to the linking note."""
    want = target.split("#")[0].split("^")[0].strip()
    if _relative(want):
        joined = os.path.normpath(os.path.join(str(PurePosixPath(source).parent), want))
        return joined in files or joined + ".md" in files
    want = want.casefold()
    for rel in files:
        key = rel.casefold()
        for form in (key, key[:-3] if key.endswith(".md") else None):
            if form and (form == want or form.endswith("/" + want)):
                return True
    return False


def _type_violations(meta: dict) -> list[str]:
    found = []
    tags = meta.get("tags")
    if tags is not None and not (isinstance(tags, list) and all(
            isinstance(t, str) and t and not t.startswith("#") and not re.search(r"\s", t) for t in tags)):
        found.append(f"tags {tags!r}")
    for key in ("created_at", "updated_at"):
        if key in meta and not isinstance(meta[key], (date, datetime)):
            found.append(f"{key} {meta[key]!r} is not a date")
    for key, value in meta.items():
        if isinstance(value, dict) or (isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value)):
            found.append(f"{key} is a nested object")
    return found


def fit(root: Path) -> dict:
    """The figures above, for the vault at `root`."""
    import obsidiantools.api as otools
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ov = otools.Vault(Path(root)).connect().gather()
    notes = {name: Path(rel).as_posix() for name, rel in ov.md_file_index.items()}
    files = sorted(p.relative_to(root).as_posix() for p in Path(root).rglob("*")
                   if p.is_file() and not any(part.startswith(".") for part in p.relative_to(root).parts))
    md_total = md_ok = wiki_total = wiki_ok = 0   # (md_*: braniac's links, whichever style)
    unresolved, violations = [], []
    for name, rel in notes.items():
        for target in ov.md_links_index.get(name, []):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith("#"):
                continue
            md_total += 1
            path = unquote(target.strip("<>").split("#")[0])
            resolved = os.path.normpath(os.path.join(str(PurePosixPath(rel).parent), path))
            if resolved in files:
                md_ok += 1
            else:
                unresolved.append(f"{rel}: ({target})")
        for target in ov.wikilinks_index.get(name, []) + ov.embedded_files_index.get(name, []):
            ok = _obsidian_resolves(target, files, rel)
            if _relative(target):    # braniac's own wikilinks (a person's notes here use names)
                md_total, md_ok = md_total + 1, md_ok + ok
            else:
                wiki_total, wiki_ok = wiki_total + 1, wiki_ok + ok
            if not ok:
                unresolved.append(f"{rel}: [[{target}]]")
        violations += [f"{rel}: {v}" for v in _type_violations(ov.front_matter_index.get(name) or {})]
    written = sum(len(re.findall(r"\]\((?!https?:)[^)\s]+(?:\s+\"uuid:[^\"]+\")?\)|\[\[\.\.?/", ov.get_source_text(n) or ""))
                  for n in notes)
    bad_names = [f for f in files if FORBIDDEN & set(PurePosixPath(f).name)]
    untouched = all((root / rel).read_text(encoding="utf-8") == text for rel, text in UNTOUCHABLE.items()
                    if (root / rel).exists())
    return {
        "notes": len(notes),
        "braniac_links_written": written, "braniac_links_read_by_obsidiantools": md_total,
        "braniac_links_resolved": md_ok,
        "braniac_links_resolved_pct": round(100 * md_ok / md_total, 1) if md_total else 100.0,
        "wikilinks": wiki_total, "wikilinks_resolved": wiki_ok,
        "wikilinks_resolved_pct": round(100 * wiki_ok / wiki_total, 1) if wiki_total else 100.0,
        "obsidiantools_nonexistent_notes": len(ov.nonexistent_notes),
        "property_type_violations": len(violations), "forbidden_file_names": len(bad_names),
        "obsidian_and_trash_untouched": untouched,
        "first_unresolved": unresolved[:5], "first_violations": violations[:5], "first_bad_names": bad_names[:5],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=str(Path(__file__).resolve().parents[2] / "shared/bench/locomo-dev.json"))
    parser.add_argument("--limit", type=int, default=1, help="conversations replayed")
    parser.add_argument("--sessions", type=int, help="sessions per conversation (default: all)")
    parser.add_argument("--links", choices=["markdown", "wikilink"], default="markdown",
                        help="the vault's [vault] links setting: how braniac writes its links")
    args = parser.parse_args()
    samples = json.loads(Path(args.data).read_text(encoding="utf-8"))[: args.limit]
    totals: dict = {}
    for sample in samples:
        with tempfile.TemporaryDirectory(prefix="braniac-obsidian-") as tmp:
            vault = replay(sample, Path(tmp) / "vault", max_sessions=args.sessions, links=args.links)
            result = fit(vault.root)
            problems = [f"{f.path}: {f.reason}" for f in vault.doctor() if f.severity == "problem"]
        result["doctor_problems"] = len(problems)
        print(sample["sample_id"], json.dumps(result, indent=1))
        for key, value in result.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool) and not key.endswith("_pct"):
                totals[key] = totals.get(key, 0) + value
    for kind, total in (("braniac_links", "braniac_links_read_by_obsidiantools"), ("wikilinks", "wikilinks")):
        totals[f"{kind}_resolved_pct"] = round(100 * totals[f"{kind}_resolved"] / totals[total], 1) if totals.get(total) else 100.0
    print(json.dumps(totals))


if __name__ == "__main__":
    main()

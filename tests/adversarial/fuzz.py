"""Scenario 4, part two: notes and short_term.md drawn by hypothesis (frontmatter of odd types,
anchors and aliases, tags, binary, huge values; headings that are paths; odd file names;
control characters; sections, fences and events in any order), then a few commands run on
the vault. Every command gives a clear error or works: no traceback, no hang, nothing outside
the vault read or written, no terminal escape reaching the terminal; a `remember` that
succeeded kept every line already in short_term.md and its event.

Examples are drawn from BRANIAC_TEST_SEED. By default every example runs and the failures are
collected (no shrinking); `shrink=True` stops at the first failure and lets hypothesis shrink
it to the smallest example (slow, for a person chasing one bug).
"""
from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path

import yaml
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

import checks
from checks import Failure
from hostile import COMMANDS, LTM, STM, Hostile, _short
from runner import SEED, Sandbox

PATHS = ["../../outside/pwned", "{outside}/pwned", "../../../../../../outside/x", "/", ".", "..", "../..",
         "concrete", "memory/long_term", "C:\\Windows\\x", "~/x", "2025-01-01T00:00:00Z/../../x",
         "events/2025/01/01", "\\\\server\\share", "%2e%2e/%2e%2e", "....//....//x"]
ODD = "\x00\x01\x07\x08\x0b\x0c\r\x1b\x7f\x85\u2028\u2029\u202e\u200b\ufeff\ud7ff\U0001f600"

WORDS = ["ferry", "Seixal", "Ana", "Lisbon", "tram", "nine", " ", " ", "-", ":", "#", "[", "]", "(", ")", "|", "'", '"',
         "*", "`", "\\", "{", "}", "&", "!", ">", "<", "%", "$"]
odd_text = st.lists(st.sampled_from(WORDS) | st.sampled_from(list(ODD)) | st.characters(blacklist_categories=("Cs",)),
                    max_size=30).map(lambda parts: "".join(parts).replace("\n", " "))
path_like = st.sampled_from(PATHS) | st.builds(lambda a, b: f"{a}/{b}", st.sampled_from(PATHS), odd_text)
event_id = st.sampled_from(["2025-03-02T10:00:00Z", "2025-03-02T10:00:00.001Z", "2025-13-45T99:99:99Z"]) | path_like \
    | odd_text | st.datetimes().map(lambda d: d.strftime("%Y-%m-%dT%H:%M:%SZ"))

scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), odd_text, st.dates(), st.datetimes(),
                    st.binary(max_size=16), path_like)
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(odd_text, inner, max_size=3),
                      max_leaves=8)
KEYS = ["uuid", "title", "created_at", "updated_at", "tags", "emotion", "sources", "status", "event_id",
        "summary_by", "description"]
RAW_YAML = ["tags: &t [a, b]\ntitle: *t", "tags: !!binary aGVsbG8=", "title: !!python/name:os.system",
            "a: &a [x, x]\nb: &b [*a, *a]\ntags: *b", "tags: [", "title: 'unclosed", "\ttitle: tab",
            "tags: {", "? complex key\n: value", "title: |\n  multi\n  line", "--- \n", "%YAML 1.1", "<<: {a: 1}"]


@st.composite
def frontmatter(draw) -> str:
    if draw(st.booleans()):
        data = {k: draw(values) for k in draw(st.lists(st.sampled_from(KEYS), unique=True, max_size=len(KEYS)))}
        data |= draw(st.dictionaries(odd_text, values, max_size=2))
        try:
            text = yaml.safe_dump(data, allow_unicode=draw(st.booleans()), default_flow_style=draw(st.booleans()))
        except yaml.YAMLError:
            text = "title: x\n"
    else:
        text = "\n".join(draw(st.lists(st.sampled_from(RAW_YAML), min_size=1, max_size=3)))
    if draw(st.integers(0, 9)) == 0:
        text += f"\nbig: {'x' * draw(st.sampled_from([10_000, 300_000]))}\n"
    return text


@st.composite
def body(draw) -> str:
    lines = draw(st.lists(st.one_of(
        odd_text,
        st.builds(lambda h, p: f"{h} {p}", st.sampled_from(["#", "##", "###"]), path_like | odd_text),
        st.sampled_from(["## Facts", "## History", "## Related Memories", "## Manifest", "```", "- [x](../../outside/secret.md)",
                         "[a](../../../outside/secret.md \"uuid:x\")", "- [link](<a b.md> \"uuid:\")"]),
    ), max_size=8))
    return "\n".join(lines) + "\n"


@st.composite
def note_file(draw) -> tuple[str, bytes]:
    name = draw(st.text(alphabet=st.characters(blacklist_characters="/\x00", blacklist_categories=("Cs",)),
                        min_size=1, max_size=30).filter(lambda n: n not in (".", "..") and not n.startswith(".")))
    folder = draw(st.sampled_from(["concrete", "skills", "concrete/deep/er", "events/2025/03/02", "", "archive"]))
    rel = f"{LTM}/{folder}/{name}{draw(st.sampled_from(['.md', '.md', '.MD', '']))}".replace("//", "/")
    text = "---\n" + draw(frontmatter()) + "\n---\n" + draw(body())
    data = text.encode("utf-8", "surrogateescape")
    if draw(st.integers(0, 7)) == 0:
        data += draw(st.binary(min_size=1, max_size=32))
    return rel, data


@st.composite
def stm_event(draw) -> str:
    fields = draw(st.lists(st.builds(lambda n, v: f"**{n}:** {v}", st.sampled_from(["User", "AI", "Thoughts", "X"]),
                                     odd_text | st.just('"quoted"')), max_size=3))
    return f"### {draw(event_id)}\n" + "\n".join(fields) + "\n"


@st.composite
def stm_text(draw) -> bytes:
    pieces = draw(st.lists(st.one_of(
        st.sampled_from(["# Short-Term Memory Scratchpad", "## Summary", "## Structured Data", "## Event Log",
                         "### Goals", "### Key Facts & Decisions", "### Tasks", "---", "```", "```python", "~~~"]),
        st.builds(lambda b, t: f"{b} {t}", st.sampled_from(["- [ ]", "- [x]", "- [X]", "-", "*", "+", ">", "  -"]),
                  odd_text),
        stm_event(),
        odd_text,
    ), max_size=14))
    newline = draw(st.sampled_from(["\n", "\n", "\r\n", "\r"]))
    text = newline.join(pieces)
    if draw(st.integers(0, 9)) == 0:
        text += "\n### 2025-03-02T10:00:00Z\n**User:** " + "w " * draw(st.sampled_from([50_000, 1_000_000])) + "\n"
    return text.encode("utf-8", "surrogateescape")


@st.composite
def vault_case(draw) -> dict:
    return {"notes": draw(st.lists(note_file(), max_size=3, unique_by=lambda n: n[0])),
            "stm": draw(st.none() | stm_text()),
            "commands": draw(st.lists(st.sampled_from(COMMANDS), min_size=2, max_size=4, unique=True))}


class Fuzz(Hostile):
    """Hostile's small vault and checks, for drawn cases."""

    def __init__(self, workdir: Path):
        from vaults import git_vault
        self.workdir = Path(workdir)
        self.base = Sandbox(self.workdir / "base")
        self.acked = git_vault(self.base, organize_work=False, events=2, promoted=2, use_git=False)

    def case(self, case: dict) -> tuple[list[Failure], str]:
        box = Sandbox(Path(tempfile.mkdtemp(prefix="case-", dir=self.workdir)))
        shutil.copytree(self.base.vault, box.vault, symlinks=True)
        outside = str(box.outside).encode()
        written = {}
        for rel, data in case["notes"]:
            path = box.vault / rel
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(data.replace(b"{outside}", outside))
                written[rel] = data
            except (OSError, ValueError):
                continue
        if case["stm"] is not None:
            (box.vault / STM).write_bytes(case["stm"].replace(b"{outside}", outside))
        repro = ("in a new vault: " + "; ".join(f"{rel!r}: {_short(d)}" for rel, d in written.items())
                 + (f"; short_term.md = {_short(case['stm'])}" if case["stm"] is not None else "")
                 + f"; then braniac {' ; braniac '.join(' '.join(c) for c in case['commands'])}; kept in {box.workdir}")
        before = checks.outside_snapshot(box)
        problems = checks.doctor_findings(box)
        failures: list[Failure] = []
        for args in case["commands"]:
            old_stm = (box.vault / STM).read_bytes() if (box.vault / STM).is_file() else b""
            run = box.run(*args, timeout=20)
            failures += self.check_run(run, args)
            match = re.search(r"remembered as event (\S+)", run.stdout)
            if match:
                failures += checks.events_lost(box.vault, {match.group(1): args[1]})
                new_stm = (box.vault / STM).read_bytes()
                kept = [l for l in old_stm.split(b"\n") if l.strip() and l not in new_stm]
                if kept:
                    failures.append(Failure("lost-person-line", f"`remember` dropped {len(kept)} line(s) of "
                                            f"short_term.md, e.g. {kept[0][:80]!r}"))
        failures += checks.outside_changes(before, checks.outside_snapshot(box))
        failures += checks.secret_leaks(box.vault)
        failures += checks.new_problems(problems, checks.doctor_findings(box))
        return checks.concluded(failures, repro, box.workdir), repro


def run_fuzz(workdir: Path, examples: int, *, shrink: bool = False, seed_value: int = SEED) -> list[tuple[str, list[Failure]]]:
    """`examples` drawn vaults; [(case name, failures)] for every case run."""
    fuzz = Fuzz(workdir)
    results: list[tuple[str, list[Failure]]] = []

    @seed(seed_value)
    @settings(max_examples=examples, deadline=None, database=None, suppress_health_check=list(HealthCheck),
              phases=[Phase.generate, Phase.shrink] if shrink else [Phase.generate])
    @given(vault_case())
    def one(case):
        failures, repro = fuzz.case(case)
        results.append((f"case {len(results)}", failures))
        if shrink and failures:
            raise AssertionError("\n".join(str(f) for f in failures))

    one()
    return results

"""Scenario 4, part one: hostile vault items (what a hostile user, a careless editor or a broken
sync leaves in a vault), each put in a small vault on its own, then the eight commands run on
it in turn: doctor, stats, search, ask, remember, reindex, promote --force, organize.

Each command must give a clear error or work: no traceback, no hang, nothing read or written
outside the vault (guard.py blocks and reports it; the folders beside the vault are compared
before and after), a read-only file left as it is, no terminal escape sequence from a file
reaching the terminal, an acknowledged event kept. fuzz.py draws such items with hypothesis.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import checks
from checks import Failure
from runner import SECRET, Run, Sandbox

LTM = "memory/long_term"
NOTE = f"{LTM}/concrete/hostile.md"
STM = "memory/short_term.md"
COMMANDS = [("doctor",), ("stats",), ("search", "ferry"), ("ask", "where does the ferry go?"),
            ("remember", "The ferry to Seixal leaves at nine."), ("reindex",), ("promote", "--force"), ("organize",)]
# seconds before a command counts as hung: a hang waits forever, so a long limit costs a passing
# run nothing, and 10 s was too short for a first index build on a loaded 2-core CI machine
TIMEOUT = float(os.environ.get("BRANIAC_HOSTILE_TIMEOUT", "30"))
ESCAPE = re.compile(r"\x1b[\[\]PX^_c]|\x9b|\x07")   # CSI, OSC (clipboard, title), DCS...: a file taking the terminal


@dataclass
class Item:
    """What a hostile item puts in a vault. `{outside}` in any text is the sandbox's outside/."""
    name: str
    files: dict[str, bytes] = field(default_factory=dict)        # vault-relative -> bytes
    stm_events: str = ""                                           # raw text put on top of the Event Log
    stm_replace: bytes | None = None                               # short_term.md as a whole
    symlinks: dict[str, str] = field(default_factory=dict)        # vault-relative -> target
    fifos: list[str] = field(default_factory=list)
    readonly: list[str] = field(default_factory=list)             # files made 0444
    readonly_dirs: list[str] = field(default_factory=list)        # folders made 0555
    dirs: list[str] = field(default_factory=list)
    llm: bool = False            # also `ask` through a model (the loopback fake): what it is sent

    def keep(self) -> dict[str, str]:
        """The events the item writes (a person's): each one's `**User:**` line must stay in the
        vault (its words quoted in an answer do not count)."""
        lines = re.findall(r'^\*\*User:\*\* ".{1,200}"$', self.stm_events, re.M)
        return {line: "short_term.md (a hand-written event)" for line in lines if "{outside}" not in line}

    def apply(self, box: Sandbox) -> None:
        root, outside = box.vault, str(box.outside)
        for rel, data in self.files.items():
            path = root / rel.replace("{outside}", outside)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data.replace(b"{outside}", outside.encode()))
        for rel in self.dirs:
            (root / rel).mkdir(parents=True, exist_ok=True)
        if self.stm_replace is not None:
            (root / STM).write_bytes(self.stm_replace.replace(b"{outside}", outside.encode()))
        if self.stm_events:
            text = (root / STM).read_text(encoding="utf-8")
            marker = "New events are appended to the top.\n"
            at = text.index(marker) + len(marker)
            raw = self.stm_events.replace("{outside}", outside)
            (root / STM).write_text(text[:at] + "\n" + raw.rstrip("\n") + "\n" + text[at:], encoding="utf-8")
        for rel, target in self.symlinks.items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            if path.exists() or path.is_symlink():
                path.unlink()
            os.symlink(target.replace("{outside}", outside), path)
        for rel in self.fifos:
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            os.mkfifo(root / rel)
        for rel in self.readonly:
            os.chmod(root / rel, 0o444)
        for rel in self.readonly_dirs:
            os.chmod(root / rel, 0o555)

    def describe(self) -> str:
        parts = [f"{rel}: {_short(data)}" for rel, data in self.files.items()]
        parts += [f"short_term.md events: {_short(self.stm_events.encode())}"] if self.stm_events else []
        parts += [f"short_term.md = {_short(self.stm_replace)}"] if self.stm_replace is not None else []
        parts += [f"symlink {rel} -> {target}" for rel, target in self.symlinks.items()]
        parts += [f"fifo {rel}" for rel in self.fifos] + [f"chmod 444 {rel}" for rel in self.readonly]
        parts += [f"chmod 555 {rel}/" for rel in self.readonly_dirs] + [f"folder {rel}/" for rel in self.dirs]
        return "; ".join(parts)


def _short(data: bytes, limit: int = 160) -> str:
    if len(data) <= limit:
        return repr(data)
    return f"{data[:limit // 2]!r}...({len(data)} bytes)...{data[-limit // 4:]!r}"


def note(frontmatter: str, body: str = "# Hostile\n\nThe ferry to Seixal.\n") -> bytes:
    return f"---\n{frontmatter.strip()}\n---\n{body}".encode("utf-8", "surrogateescape")


def plain_fm(**extra: str) -> str:
    keys = {"uuid": "0b0f9c52-52c5-4f0e-8f3c-6b7e3c1d2a10", "title": "Hostile", "created_at": "2025-01-01T00:00:00Z",
            "updated_at": "2025-01-01T00:00:00Z", "tags": "[ferry]", "emotion": "neutral"} | extra
    return "\n".join(f"{k}: {v}" for k, v in keys.items())


_events = iter(range(1, 1 << 30))


def event(heading: str, user: str | None = None) -> str:
    user = user or f"The ferry to Seixal leaves at nine, hand-written event {next(_events)}."
    return f"### {heading}\n**User:** \"{user}\"\n**Thoughts:** noted.\n\n"


BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)},"
    f" *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n" for i in range(8))


def items() -> list[Item]:
    out = [
        # paths from file content
        Item("event heading: absolute path", stm_events=event("{outside}/pwned")),
        Item("event heading: ../ climbing out", stm_events="".join(event("../" * n + "outside/pwned")
                                                                   for n in range(2, 9))),
        Item("event heading: ../../..", stm_events=event("../../..")),
        Item("event heading: a folder's name", stm_events=event("concrete")),
        Item("event heading: empty-ish", stm_events=event(".") + event("..") + event("/")),
        Item("event heading: timestamp with a path", stm_events=event("2025-01-01T00:00:00Z/../../../../x")),
        Item("two events with one id", stm_events=event("2025-03-02T10:00:00Z", "first of two, about the tram")
             + event("2025-03-02T10:00:00Z", "second of two, about the boat")),
        Item("note heading is a path", files={NOTE: note(plain_fm(title="'../../../outside/pwned'"),
                                                         "# ../../../../outside/pwned\n\nThe ferry.\n")}),
        Item("note title: control characters", files={NOTE: note(plain_fm(title='"ferry \\x1b[2J\\x1b]52;c;aGk=\\x07"'),
                                                                 "# ferry \x1b[2J\n\nThe ferry \x1b]0;pwned\x07 ride.\n")}),
        Item("STM: terminal escapes in an event", stm_events=event("2025-03-02T11:00:00Z",
                                                                   "the ferry \x1b[2J\x1b]52;c;aGk=\x07 ride")),
        # frontmatter of odd types
        *[Item(f"frontmatter tags: {v}", files={NOTE: note(plain_fm(tags=v))})
          for v in ("12", "true", "1.5", "2024-01-01", "{a: b}", "[[nested, list]]", "null", "'a string'", "[1, 2.5, null]")],
        *[Item(f"frontmatter {k}: {v}", files={NOTE: note(plain_fm(**{k: v}))})
          for k, v in (("uuid", "12"), ("uuid", "[a, b]"), ("title", "[a, b]"), ("title", "{x: 1}"),
                       ("created_at", "notadate"), ("updated_at", "2024-13-45"), ("emotion", "[1]"),
                       ("sources", "12"), ("status", "{a: 1}"), ("event_id", "'../../x'"))],
        Item("frontmatter: YAML alias bomb in an extra key", files={NOTE: note(plain_fm() + "\n" + BOMB)}),
        Item("frontmatter: YAML alias bomb in tags", files={NOTE: note(BOMB + plain_fm(tags="*i"))}),
        Item("frontmatter: YAML alias bomb in title", files={NOTE: note(BOMB + plain_fm(title="*i"))}),
        Item("frontmatter: python tag", files={NOTE: note(plain_fm(title="!!python/object/apply:os.system ['true']"))}),
        Item("frontmatter: not a mapping", files={NOTE: note("- a\n- b")}),
        Item("frontmatter: huge field (1 MB)", files={NOTE: note(plain_fm(title="x" * (1 << 20)))}),
        Item("note over 5 MB", files={NOTE: note(plain_fm(), "ferry " * (1 << 20))}),
        Item("note with NUL", files={NOTE: note(plain_fm(), "ferry\0ferry\n")}),
        Item("note not UTF-8", files={NOTE: note(plain_fm()) + b"\xff\xfe ferry \xc3\x28\n"}),
        Item("note without frontmatter end", files={NOTE: b"---\nuuid: x\ntitle: ferry\n# ferry\n"}),
        Item("note: CRLF and BOM", files={NOTE: b"\xef\xbb\xbf" + note(plain_fm()).replace(b"\n", b"\r\n")}),
        # short-term memory
        Item("STM: 4 MB line in one event", stm_events=event("2025-03-02T12:00:00Z", "ferry " * 700_000)),
        Item("STM: open code fence", stm_events="```\n" + event("2025-03-02T13:00:00Z")),
        Item("STM: no sections", stm_replace=b"just some text about the ferry\n"),
        Item("STM: empty", stm_replace=b""),
        Item("STM: not UTF-8", stm_replace=b"# Short-Term Memory Scratchpad\n\xff\xfe\n"),
        Item("STM: NUL", stm_replace=b"# Short-Term Memory Scratchpad\n\0\n"),
        Item("STM: CR only line ends", stm_replace=b"# Short-Term Memory Scratchpad\r\r## Event Log\r### 2025-01-01T00:00:00Z\r**User:** \"x\"\r"),
        Item("STM: right-to-left override and zero-width", stm_events=event("2025-03-02T14:00:00Z",
                                                                            "ferry \u202eevil\u202c \u200b\ufeff")),
        # symlinks and special files
        Item("symlink note -> outside", symlinks={f"{LTM}/concrete/linked.md": "{outside}/secret.md"}, llm=True),
        Item("symlink folder -> outside", symlinks={f"{LTM}/concrete/away": "{outside}"}),
        Item("symlink core_identity -> outside", symlinks={"system/core_identity.md": "{outside}/secret.md"}, llm=True),
        Item("symlink prompts/answer.md -> outside", symlinks={"prompts/answer.md": "{outside}/secret.md"}, llm=True),
        Item("symlink short_term.md -> outside", symlinks={STM: "{outside}/notes.txt"}, llm=True),
        Item("symlink loop", symlinks={f"{LTM}/concrete/loop-a.md": "loop-b.md", f"{LTM}/concrete/loop-b.md": "loop-a.md"}),
        Item("symlink folder loop", symlinks={f"{LTM}/concrete/self": "."}),
        Item("symlink dangling", symlinks={f"{LTM}/concrete/gone.md": "nowhere.md"}),
        Item("symlink logs/access.log -> outside", symlinks={"logs/access.log": "{outside}/notes.txt"}),
        Item("FIFO named .md", fifos=[f"{LTM}/concrete/pipe.md"]),
        Item("folder named .md", dirs=[f"{LTM}/concrete/folder.md"]),
        Item("read-only short_term.md", readonly=[STM]),
        Item("read-only note", files={NOTE: note(plain_fm())}, readonly=[NOTE]),
        Item("read-only _index.md and access.log", readonly=[f"{LTM}/concrete/_index.md", f"{LTM}/_index.md",
                                                           "logs/access.log"]),
        Item("read-only folder", files={f"{LTM}/concrete/locked/in.md": note(plain_fm())},
             readonly_dirs=[f"{LTM}/concrete/locked"]),
        # odd file names
        *[Item(f"file name {name!r}", files={f"{LTM}/concrete/{name}": note(plain_fm())})
          for name in ("-rf.md", "with space.md", "naïve ünïcode.md", "new\nline.md", "tab\t.md", "a:b.md",
                       "back\\slash.md", "%2e%2e.md", "..md", "x" * 240 + ".md", "\x1b[2J.md", "UPPER.MD")],
        # settings and prompts
        Item("braniac.toml: not TOML", files={"braniac.toml": b"[model\nname = \n"}),
        Item("braniac.toml: wrong types", files={"braniac.toml": b"[memory]\ncontext_tokens = 'lots'\n[idle]\n"
                                                 b"promote_after_minutes = -1\n"}),
        Item("prompt override with unknown placeholder", files={"prompts/answer.md": b"Say $nothing_here\n"}),
    ]
    for item in out:
        item.name = item.name.replace("\n", "\\n").replace("\t", "\\t").replace("\x1b", "\\x1b")
    return out


class Hostile:
    def __init__(self, workdir: Path):
        from vaults import git_vault
        self.workdir = Path(workdir)
        self.base = Sandbox(self.workdir / "base")
        self.acked = git_vault(self.base, organize_work=False, events=3, promoted=3)

    def trial(self, item: Item, commands=COMMANDS) -> list[Failure]:
        box = Sandbox(Path(tempfile.mkdtemp(prefix="item-", dir=self.workdir)))
        shutil.copytree(self.base.vault, box.vault, symlinks=True)
        item.apply(box)
        before = checks.outside_snapshot(box)
        problems = checks.doctor_findings(box)
        readonly = {rel: (box.vault / rel).read_bytes() for rel in item.readonly}
        failures: list[Failure] = []
        stm_gone = item.stm_replace is not None or STM in item.symlinks    # the item itself dropped them
        acked = {} if stm_gone else dict(self.acked)
        hangs = 0
        for args in commands:
            if hangs == 2:
                failures.append(Failure("not-run", f"`braniac {args[0]}` not run: two commands hung already"))
                continue
            run = box.run(*args, timeout=TIMEOUT)
            hangs += run.timed_out
            failures += self.check_run(run, args)
            match = re.search(r"remembered as event (\S+)", run.stdout)
            if match:
                acked[match.group(1)] = args[1]
        if item.llm:
            failures += self.through_a_model(box)
        for rel, data in readonly.items():
            path = box.vault / rel
            if path.exists() and path.read_bytes() != data:
                failures.append(Failure("read-only-replaced", f"{rel} (mode 0444) was rewritten"))
        failures += checks.events_lost(box.vault, acked)
        failures += checks.lines_lost(box.vault, item.keep())
        failures += checks.new_problems(problems, checks.doctor_findings(box))
        failures += checks.outside_changes(before, checks.outside_snapshot(box))
        failures += checks.secret_leaks(box.vault)
        for rel in item.readonly_dirs:
            os.chmod(box.vault / rel, 0o755)
        return checks.concluded(failures, f"in a new vault: {item.describe()}; vault kept in {box.workdir}",
                                box.workdir)

    def through_a_model(self, box: Sandbox) -> list[Failure]:
        """`ask` with a model (LiteLLM against tests/fake_llm.py's loopback server): the text of a
        file outside the vault must never be in what the model is sent."""
        from fake_llm import FakeLLM
        server = FakeLLM().start()
        try:
            args = ("ask", "--model", "openai/fake", "where does the ferry go?")
            # LiteLLM's import alone takes seconds of CPU: a loaded machine needs a long timeout
            run = box.run(*args, timeout=max(TIMEOUT, 120), env={"BRANIAC_API_BASE": server.base_url,
                                                                  "OPENAI_API_KEY": "fake"})
            failures = self.check_run(run, args)
            sent = [r.task for r in server.requests if SECRET in json.dumps(r.body)]
            if sent:
                failures.append(Failure("read-outside", f"`{run.command}` sent a file from outside the vault to "
                                        f"the model (tasks {sorted(set(sent))})"))
            return failures
        finally:
            server.stop()

    @staticmethod
    def check_run(run: Run, args) -> list[Failure]:
        failures = checks.run_problems(run, ok_codes=(0, 1, 2) if args[0] == "doctor" else (0, 2))
        if ESCAPE.search(run.stdout) or ESCAPE.search(run.stderr):
            failures.append(Failure("terminal-escape", f"`{run.command}` printed a terminal escape sequence"))
        return failures

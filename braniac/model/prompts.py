"""Prompt templates: one Markdown file per model task in `prompts/`, with `$var` placeholders.

A vault may override any template with a file of the same name in `<vault>/prompts/`. A
missing variable is an error, never a silent blank. Memory text is untrusted: `fence()` wraps it
so the model can tell data from instructions.
"""
from __future__ import annotations

import os
import re
import string
from pathlib import Path

from ..infra.errors import ConfigError, NoteError
from ..infra.fsio import read_text
from ..infra.notices import notice
from ..infra.resources import data_dir
from .types import Excerpt, WorkingMemory


def template_path(name: str, vault_root: Path | None = None) -> Path:
    """The template braniac uses for `name`: the vault's own (`<vault>/prompts/<name>.md`) when
    it is a plain file inside the vault, else the packaged one."""
    return _template(name, vault_root)[0]


def _template(name: str, vault_root: Path | None) -> tuple[Path, str]:
    if vault_root is not None:
        override = Path(vault_root) / "prompts" / f"{name}.md"
        if os.path.lexists(override):
            try:
                return override, read_text(override, root=Path(vault_root))
            except NoteError as exc:
                # a symlink leading out of the vault, a FIFO, a binary file: never sent to a model
                _warn_once(f"{exc}; using braniac's own '{name}' prompt instead")
    path = data_dir("prompts") / f"{name}.md"
    if not path.is_file():
        raise ConfigError(f"no prompt template named '{name}'")
    return path, read_text(path)


_warned: set[str] = set()


def _warn_once(message: str) -> None:
    """A notice per broken override and process, not one per prompt of every turn."""
    if message not in _warned:
        _warned.add(message)
        notice(message)


def render(name: str, vault_root: Path | None = None, **values: str) -> str:
    path, text = _template(name, vault_root)
    template = string.Template(text)
    try:
        return template.substitute(values)
    except KeyError as exc:
        raise ConfigError(f"prompt template {path} uses ${exc.args[0]}, which braniac does not provide") from None
    except ValueError as exc:
        raise ConfigError(f"prompt template {path} is malformed: {exc} (write $$ for a literal $)") from None


def fence(kind: str, text: str, **attributes: str) -> str:
    """Wrap untrusted memory text in <kind …>…</kind>. Inside it, anything a model could read as
    a tag of this fence (or as the end of any fence) is neutralized: `</memory>`, `</ MEMORY >`,
    `< /memory x="y">`, `<memory>` and their like, in any case and spacing."""
    attrs = "".join(f' {k}="{_attribute(v)}"' for k, v in attributes.items())
    names = "|".join(map(re.escape, sorted(FENCES | {kind}, key=len, reverse=True)))
    tag = re.compile(rf"<(?=\s*(?:/\s*(?:{names})|{re.escape(kind)})(?![\w-]))", re.IGNORECASE)
    safe = tag.sub("&lt;", text)
    return f"<{kind}{attrs}>\n{safe.strip()}\n</{kind}>"


# every kind of fence braniac wraps memory in: none of their closing tags may appear inside another
FENCES = frozenset({"memory", "identity", "conversation", "short_term_memory", "events", "archived_events",
                    "remaining_events", "existing_claims", "usage_statistics"})


def _attribute(value: object) -> str:
    """An attribute value that cannot end its quotes or its tag."""
    return re.sub(r'["<>\r\n]', "", str(value))


def excerpt_text(excerpt: Excerpt) -> str:
    """An excerpt as it enters the working memory: the note's title (once per note), then the text."""
    return f"# {excerpt.title}\n{excerpt.text}" if excerpt.title else excerpt.text


def fenced_context(wm: WorkingMemory) -> dict[str, str]:
    """The untrusted parts of the working memory, each wrapped so a model can tell data from orders."""
    memories = "\n\n".join(
        fence("memory", excerpt_text(e), path=e.path, uuid=e.uuid) for e in wm.excerpts
    ) or "(no long-term memories matched)"
    return {
        "identity": fence("identity", wm.identity),
        "conversation": fence("conversation", wm.conversation or "(this is the first message)"),
        "short_term": fence("short_term_memory", wm.short_term),
        "memories": memories,
    }

"""Prompt templates: one Markdown file per model task in `prompts/`, with `$var` placeholders.

A vault may override any template with a file of the same name in `<vault>/prompts/`. A
missing variable is an error, never a silent blank. Memory text is untrusted: `fence()` wraps it
so the model can tell data from instructions.
"""
from __future__ import annotations

import string
from pathlib import Path

from ..infra.errors import ConfigError
from ..infra.resources import data_dir
from .types import Excerpt, WorkingMemory


def template_path(name: str, vault_root: Path | None = None) -> Path:
    if vault_root is not None:
        override = Path(vault_root) / "prompts" / f"{name}.md"
        if override.is_file():
            return override
    path = data_dir("prompts") / f"{name}.md"
    if not path.is_file():
        raise ConfigError(f"no prompt template named '{name}'")
    return path


def render(name: str, vault_root: Path | None = None, **values: str) -> str:
    path = template_path(name, vault_root)
    template = string.Template(path.read_text(encoding="utf-8"))
    try:
        return template.substitute(values)
    except KeyError as exc:
        raise ConfigError(f"prompt template {path} uses ${exc.args[0]}, which braniac does not provide") from None
    except ValueError as exc:
        raise ConfigError(f"prompt template {path} is malformed: {exc} (write $$ for a literal $)") from None


def fence(kind: str, text: str, **attributes: str) -> str:
    """Wrap untrusted memory text in <kind …>…</kind>, neutralizing any closing tag inside it."""
    attrs = "".join(f' {k}="{str(v).replace(chr(34), "")}"' for k, v in attributes.items())
    safe = text.replace(f"</{kind}", f"<\\/{kind}")
    return f"<{kind}{attrs}>\n{safe.strip()}\n</{kind}>"


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

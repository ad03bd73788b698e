"""Prompt templates: one Markdown file per model task in `prompts/`, with `$var` placeholders.

A vault may override any template with a file of the same name in `<vault>/prompts/`. A
missing variable is an error, never a silent blank. Memory text is untrusted: `fence()` wraps it
so the model can tell data from instructions.
"""
from __future__ import annotations

import string
from pathlib import Path

from .errors import ConfigError
from .resources import data_dir


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

"""What every command prints, and the vault it opens: one place, so that text from files and
models reaches a terminal inert (shared by cli.py and the command modules beside it)."""
from __future__ import annotations

import json
import re

import click

from ..infra.untrusted import printable


def open_vault(ctx: click.Context):
    from ..api import Vault
    return Vault.find(ctx.obj.get("vault_path"))


def say(text: str = "", *, err: bool = False, nl: bool = True) -> None:
    """Every line braniac prints: titles, excerpts, answers and paths come from files and
    models, so what a terminal would obey (ESC sequences, C1 controls) is shown, not sent."""
    click.echo(printable(text), err=err, nl=nl)


def emit_json(data) -> None:
    # json escapes C0 controls itself; DEL, C1 and undecodable bytes are escaped here, so the
    # output stays valid JSON and inert on a terminal
    text = json.dumps(data, indent=2, ensure_ascii=False, default=str)
    click.echo(_JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text))


_JSON_UNSAFE = re.compile("[\x7f-\x9f\ud800-\udfff]")

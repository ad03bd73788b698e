"""`braniac sync` and `braniac clone`: one vault on several machines through a git remote."""
from __future__ import annotations

import json
import shlex
from pathlib import Path

import click

from ..infra.untrusted import printable


def _say(text: str, *, err: bool = False) -> None:
    click.echo(printable(text), err=err)


@click.command()
@click.option("--remote", metavar="NAME", help="The git remote to share through (default: origin).")
@click.option("--no-push", is_flag=True, help="Commit, fetch and merge, but do not push.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_context
def sync(ctx: click.Context, remote: str | None, no_push: bool, as_json: bool) -> None:
    """Share the vault through its git remote: commit, fetch, merge, push (safe from cron).

    Exit 0 when synced, up to date or skipped (another braniac process holds the vault); 1 when
    files changed in the same lines on both machines wait for you (listed); 2 on an error."""
    from ..api import Vault
    report = Vault.find(ctx.obj.get("vault_path")).sync(remote=remote, push=not no_push)
    if as_json:
        click.echo(json.dumps(report.as_dict(), indent=2, ensure_ascii=False))
    else:
        _say(report.describe(), err=bool(report.conflicts))
        for rel in report.duplicates:
            _say(f"  duplicate {rel} (see `braniac doctor`)", err=True)
    ctx.exit(report.exit_code)


@click.command()
@click.argument("url")
@click.argument("path", type=click.Path(path_type=Path))
def clone(url: str, path: Path) -> None:
    """Set up a vault shared through the git remote URL on this machine, at PATH."""
    from ..api import Vault
    vault = Vault.clone(url, path)
    _say(f"braniac vault cloned into {vault.root}; run `braniac sync` to share changes")
    _say(f"next: cd -- {shlex.quote(str(vault.root))} && braniac chat")

"""The `braniac` command: a thin layer over the public API (`braniac.api.Vault`). Each command
opens the vault, calls the one method a Python user would call, and prints the result; library
errors become one clean line. Commands import the library when they run, so `braniac --help`
and `--version` answer at once."""
from __future__ import annotations

import os
import shlex
import sys
import traceback
from pathlib import Path

import click

from ..infra.version import __version__
from ..infra import notices
from ..infra.errors import BraniacError
from ..infra.untrusted import printable
from .output import emit_json, open_vault, say

EXIT_OK, EXIT_PROBLEMS, EXIT_ERROR = 0, 1, 2


class _Group(click.Group):
    """Turns BraniacError (and stray OS errors) into one line on stderr; BRANIAC_DEBUG=1 shows all."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except BrokenPipeError:  # output piped into `head` and the like: not an error
            sys.stderr.close()
            ctx.exit(EXIT_OK)
        except (BraniacError, OSError) as exc:
            if os.environ.get("BRANIAC_DEBUG"):
                traceback.print_exc()
            message = str(exc) if isinstance(exc, BraniacError) else f"{exc.strerror or exc}: {exc.filename or ''}".rstrip(": ")
            say(f"braniac: {message}", err=True)
            ctx.exit(EXIT_ERROR)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--vault", "vault_path", metavar="PATH", type=click.Path(path_type=Path),
              help="The vault to use (default: $BRANIAC_VAULT, then the nearest vault above the current folder).")
@click.version_option(__version__, prog_name="braniac")
@click.pass_context
def cli(ctx: click.Context, vault_path: Path | None) -> None:
    """braniac: a long-term memory for your LLM assistant, in plain Markdown files.

    Create a vault with `braniac init PATH`, then run commands inside it (or pass --vault).
    """
    ctx.obj = {"vault_path": vault_path}
    notices.show_on()   # what the library says while it works, as `braniac: …` lines on stderr




@cli.command()
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--force", is_flag=True, help="Allow a non-empty folder; only missing vault files are added.")
@click.option("--git", "use_git", is_flag=True, help="Also make the vault a git repository with a first commit.")
@click.option("--remote", metavar="URL", help="The git remote `braniac sync` shares the vault through (implies --git).")
def init(path: Path, force: bool, use_git: bool, remote: str | None) -> None:
    """Create a new vault at PATH from the template (never overwrites a file)."""
    from ..api import Vault
    use_git = use_git or bool(remote)   # a remote is shared through git
    vault, created = Vault.init(path, force=force, use_git=use_git, remote=remote)
    if remote:
        say(f"git remote origin is {remote}; share the vault with `braniac sync`")
    if not created and not force:
        say(f"{vault.root} is already a braniac vault; nothing to do")
        return
    say(f"braniac vault ready at {vault.root} ({len(created)} files created"
               + (", git repository" if use_git else "") + ")")
    say(f"next: cd -- {shlex.quote(str(vault.root))} && braniac chat")


@cli.command()
@click.argument("text", nargs=-1, required=True)
@click.pass_context
def remember(ctx: click.Context, text: tuple[str, ...]) -> None:
    """Add TEXT to short-term memory as a new event (use - to read it from stdin)."""
    words = " ".join(text)
    if words == "-":  # undecodable bytes reach the vault, which refuses them with a clear message
        words = sys.stdin.buffer.read().decode("utf-8", errors="surrogateescape")
    event = open_vault(ctx).remember(words)
    say(f"remembered as event {event.id}")


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print the findings as JSON.")
@click.option("--fix", is_flag=True, help="Repair what needs no guess (notes made by hand, manifests, links, citations, "
                                          "temp files).")
@click.option("--dry-run", is_flag=True, help="Show the repairs --fix would make; change nothing (implies --fix).")
@click.pass_context
def doctor(ctx: click.Context, as_json: bool, fix: bool, dry_run: bool) -> None:
    """Check every file of the vault. Exit 0 when healthy, 1 when problems were found."""
    vault = open_vault(ctx)
    if fix or dry_run:
        _doctor_fix(ctx, vault, as_json, dry_run)
        return
    findings = vault.doctor()
    problems = [f for f in findings if f.severity == "problem"]
    if as_json:
        emit_json({"vault": str(vault.root), "healthy": not problems,
                   "problems": [f.as_dict() for f in problems],
                   "warnings": [f.as_dict() for f in findings if f.severity != "problem"]})
    else:
        for f in findings:
            say(f"{f.severity:8} {f.path}: {f.reason}")
        say("healthy" if not problems else f"{len(problems)} problem(s) found",
                   err=bool(problems))
    ctx.exit(EXIT_PROBLEMS if problems else EXIT_OK)


def _doctor_fix(ctx: click.Context, vault, as_json: bool, dry_run: bool) -> None:
    report = vault.repair(dry_run=dry_run)
    problems = [f for f in report.remaining if f.severity == "problem"]
    if as_json:
        emit_json({"vault": str(vault.root), "healthy": not problems, **report.as_dict()})
        ctx.exit(EXIT_PROBLEMS if problems else EXIT_OK)
    verb = "would" if dry_run else "did"
    for line in report.done:
        say(f"{verb:8} {line}")
    for path in report.waiting:
        say(f"later    {path}: saved in the last few seconds; run again once it is saved")
    if not report.done:
        say("nothing to repair")
    for f in report.remaining:
        advice = report.advice(f)
        say(f"{f.severity:8} {f.path}: {f.reason}" + (f"\n         what to do: {advice}" if advice else ""))
    if report.commit:
        say(f"commit {report.commit}")
    after = " after these repairs" if dry_run and report.done else ""
    say(f"healthy{after}" if not problems else f"{len(problems)} problem(s) left{after}", err=bool(problems))
    ctx.exit(EXIT_PROBLEMS if problems else EXIT_OK)


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print the numbers as JSON.")
@click.pass_context
def stats(ctx: click.Context, as_json: bool) -> None:
    """Counts per memory tier, events waiting in short-term memory, last promotion."""
    data = open_vault(ctx).stats()
    if as_json:
        emit_json(data)
        return
    ltm, short = data["long_term"], data["short_term"]
    say(f"vault           {data['vault']}")
    say(f"long-term       {ltm['concrete']} concrete, {ltm['events']} events, {ltm['skills']} skills"
               f" ({ltm['indexes']} _index.md files)")
    if short["events"] is None:
        say("short-term      unreadable (braniac doctor says why)")
    else:
        say(f"short-term      {short['events']} events, {short['open_goals']} open goals, "
                   f"{short['open_tasks']} open tasks")
    say(f"last promotion  {data['last_promotion'] or 'never'}")
    say(f"last organize   {data['last_organization'] or 'never'}")
    hubs = data["hubs"]
    if hubs["most_linked"]:
        say("most linked     " + ", ".join(f"{h['path'].split('/')[-1]} ({h['links_in']})" for h in hubs["most_linked"]))
    if hubs["most_read"]:
        say("most read       " + ", ".join(f"{h['path'].split('/')[-1]} ({h['reads']})" for h in hubs["most_read"]))
    for item in data["stale"]:
        say(f"stale           {item['path']} (last read {item['last_read'][:10]}, {item['reads']} reads)")


@cli.command()
@click.argument("query", nargs=-1, required=True)
@click.option("--limit", "-n", default=10, show_default=True, help="How many results.")
@click.option("--kind", type=click.Choice(["concrete", "events", "skills", "index", "stm", "identity", "archive", "other"]),
              help="Only this kind of memory file.")
@click.option("--archived", is_flag=True, help="Also search archived memories.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list of {title, path, uuid, kind, score, excerpt}.")
@click.pass_context
def search(ctx: click.Context, query: tuple[str, ...], limit: int, kind: str | None, archived: bool, as_json: bool) -> None:
    """Search the vault's memory (the index follows every edit to the files)."""
    hits = open_vault(ctx).search(" ".join(query), limit=limit, kind=kind, archived=archived)
    if as_json:
        emit_json([h.as_dict() for h in hits])
        return
    if not hits:
        say("no matches")
    for n, hit in enumerate(hits, start=1):
        click.echo(click.style(printable(f"{n}. {hit.title}"), bold=True) + printable(f"  [{hit.kind}] {hit.path}  (score {hit.score:.2f})"))
        if hit.excerpt:
            say(f"   {hit.excerpt}")


@cli.command()
@click.option("--vectors", is_flag=True, help="Then ask the [embedding] model for every passage's vector not kept yet.")
@click.pass_context
def reindex(ctx: click.Context, vectors: bool) -> None:
    """Rebuild the search index from the files, from scratch."""
    vault = open_vault(ctx)
    if vectors:
        vault.embedding_settings()   # no model named: say so before the minutes of indexing
    with click.progressbar(length=1, label="indexing", file=sys.stderr) as bar:
        def progress(done: int, total: int) -> None:
            bar.length = total
            bar.update(done - bar.pos)
        report = vault.reindex(progress=progress)
    say(f"indexed {report.added} files")
    if vectors:
        with click.progressbar(length=1, label="vectors", file=sys.stderr) as bar:
            passages, asked = vault.fill_vectors(progress=progress)
        say(f"vectors: {passages} passages, {asked} asked for from the embedding model, the others already kept")


@cli.command()
@click.pass_context
def watch(ctx: click.Context) -> None:
    """Keep the search index current while files change (runs until Ctrl-C or SIGTERM)."""
    from .watch import run
    from ..processes.idle import IdleWorker
    vault = open_vault(ctx)
    worker = IdleWorker(vault, organize=True)
    try:
        run(vault, on_idle=worker.tick)
    finally:
        worker.close()


@cli.command()
@click.argument("prompt", nargs=-1, required=True)
@click.option("--model", help="LiteLLM model name (default: $BRANIAC_MODEL, then braniac.toml, else offline).")
@click.option("--json", "as_json", is_flag=True, help='Print {"answer", "model", "queries", "context"} as JSON.')
@click.pass_context
def ask(ctx: click.Context, prompt: tuple[str, ...], model: str | None, as_json: bool) -> None:
    """Run one turn of the core loop: recall, answer, and reflect into short-term memory."""
    text = " ".join(prompt)
    if text == "-":
        text = sys.stdin.read()
    stream = None if as_json else (lambda chunk: say(chunk, nl=False))
    turn = open_vault(ctx).ask(text, model=model, on_chunk=stream)
    if as_json:
        emit_json(turn.as_dict())
    else:
        say()


@cli.command()
@click.option("--model", help="LiteLLM model name (default: $BRANIAC_MODEL, then braniac.toml, else offline).")
@click.pass_context
def chat(ctx: click.Context, model: str | None) -> None:
    """Talk with your assistant; every turn recalls from and reflects into memory."""
    from .repl import run_chat
    run_chat(open_vault(ctx), model=model)


@cli.command()
@click.option("--force", is_flag=True, help="Promote now, even if short-term memory was active in the last few minutes.")
@click.option("--dry-run", is_flag=True, help="Show what would be promoted; change nothing.")
@click.option("--model", help="LiteLLM model name (default: $BRANIAC_MODEL, then braniac.toml, else offline).")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_context
def promote(ctx: click.Context, force: bool, dry_run: bool, model: str | None, as_json: bool) -> None:
    """Consolidate short-term memory into long-term notes (safe from cron; exit 0 when skipped)."""
    report = open_vault(ctx).promote(force=force, dry_run=dry_run, model=model)
    if as_json:
        emit_json(report.as_dict())
        return
    say(report.describe())
    if report.status == "dry-run":
        for item in report.plan:
            say(f"  {item['path']}  ({item['claims']} claims)")
    for reason in report.rejected:
        say(f"  rejected: {reason}", err=True)


@cli.command()
@click.option("--dry-run", is_flag=True, help="Print the plan; change nothing.")
@click.option("--archive-after", "archive_days", type=float, metavar="DAYS",
              help="Archive concrete and skill notes unread for this many days (default 180).")
@click.option("--model", help="LiteLLM model name (default: $BRANIAC_MODEL, then braniac.toml, else offline).")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_context
def organize(ctx: click.Context, dry_run: bool, archive_days: float | None, model: str | None, as_json: bool) -> None:
    """Learn from use: link notes read together, move much-read ones up, archive unused ones (for cron)."""
    report = open_vault(ctx).organize(dry_run=dry_run, archive_after_days=archive_days, model=model)
    if as_json:
        emit_json(report.as_dict())
        return
    say(report.describe())
    if dry_run or os.environ.get("BRANIAC_VERBOSE"):
        for op in report.operations:
            say("  " + " ".join(f"{k}={v}" for k, v in op.as_dict().items()))
    for reason in report.rejected:
        say(f"  rejected: {reason}", err=True)


@cli.command()
@click.argument("run", required=False)
@click.option("--list", "show_list", is_flag=True, help="List the latest promotion and organization runs.")
@click.option("--dry-run", is_flag=True, help="Show what the undo would change; change nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_context
def undo(ctx: click.Context, run: str | None, show_list: bool, dry_run: bool, as_json: bool) -> None:
    """Undo one promotion or organization (RUN: its commit; default: the latest), keeping all that came after.

    Files changed since the run keep those changes; a file changed in the same places is left
    as it is and listed (exit 1). Needs the vault in git."""
    vault = open_vault(ctx)
    if show_list:
        runs = vault.runs()
        if as_json:
            emit_json([r.as_dict() for r in runs])
            return
        for r in runs:
            undone = f"  (undone by {r.undone_by[:8]})" if r.undone_by else ""
            click.echo(f"{r.short}  {r.date}  {r.subject}{undone}")
        if not runs:
            click.echo("no promotion or organization runs in this vault's git history")
        return
    report = vault.undo(run, dry_run=dry_run)
    if as_json:
        emit_json(report.as_dict())
    else:
        click.echo(report.describe())
    if report.kept:
        ctx.exit(EXIT_PROBLEMS)


from .assistant_commands import mcp, orient, recall, wrap_up  # noqa: E402  (commands of their own modules)
from .sync_commands import clone, sync  # noqa: E402

for command in (recall, orient, wrap_up, mcp, sync, clone):
    cli.add_command(command)


def main() -> None:
    cli(prog_name="braniac")


if __name__ == "__main__":
    main()

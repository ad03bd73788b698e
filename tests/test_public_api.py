"""The public API is a deliberate, pinned surface: what `from braniac import ...` offers, what a
`Vault` can do, and that every `braniac` command is that same API (one behaviour, not two)."""
from __future__ import annotations

import inspect
import re
import subprocess
import sys
from pathlib import Path

import pytest

import braniac
from braniac import Vault

from helpers import REPO, clean_env, run_cli

EXPORTS = {
    "Vault", "MemoryModel", "OfflineModel", "ScriptedModel",
    "Hit", "Turn", "PromotionReport", "OrganizeReport", "UndoReport", "WorkerRun", "Finding", "StoredEvent",
    "BraniacError", "VaultNotFound", "VaultExists", "ConfigError", "NoteError", "UnsafePath", "STMError",
    "LockBusy", "ReadOnlyFile", "IndexError_", "ModelError", "InputError",
    "__version__",
}
VAULT_METHODS = {
    # finding and creating a vault
    "find", "init",
    # short-term memory, the files
    "remember", "append_event", "read_stm", "iter_markdown", "iter_ltm_files", "uuid_map", "tier_of",
    "archived_event_ids", "relative", "lock_path", "record_run", "last_run", "confined", "read_identity",
    # an assistant with its own model (the MCP server, orient/wrap-up hooks)
    "recall", "read", "recaller", "orient", "wrap_up",
    # search and the processes
    "search", "reindex", "fill_vectors", "embedding_settings", "ask", "promote", "organize",
    # taking a run back
    "undo", "runs",
    # one vault on several machines
    "sync", "clone",
    # health and numbers
    "doctor", "repair", "stats",
    # notes written by hand
    "adopt",
}
VAULT_PROPERTIES = {"stm_path", "ltm_root", "identity_path", "access_log_path", "logs_dir", "state_dir",
                    "link_style"}   # (how braniac writes its links here: `[vault] links`)


def test_all_is_pinned_and_every_name_resolves():
    assert set(braniac.__all__) == EXPORTS
    for name in braniac.__all__:
        assert getattr(braniac, name) is not None, name
    assert re.fullmatch(r"\d+\.\d+\.\d+", braniac.__version__)
    with pytest.raises(AttributeError):
        braniac.NoSuchThing  # noqa: B018


def test_errors_share_one_root():
    for name in EXPORTS - {"__version__"}:
        obj = getattr(braniac, name)
        if name.endswith(("Error", "Error_")) or name in {"VaultNotFound", "VaultExists", "UnsafePath", "LockBusy", "ReadOnlyFile"}:
            assert issubclass(obj, braniac.BraniacError), name


def test_vault_public_methods_are_pinned():
    public = {name for name, _ in inspect.getmembers(Vault) if not name.startswith("_")}
    assert public == VAULT_METHODS | VAULT_PROPERTIES


def test_processes_accept_a_model_object_as_well_as_a_name(vault):
    model = braniac.ScriptedModel()
    vault.remember("Ana moved to Lisbon in March for her new job.")
    turn = vault.ask("Where does Ana live?", model=model)
    assert turn.model == model.name
    assert [call.task for call in model.history][:2] == ["search_queries", "answer"]
    report = vault.promote(force=True, model=model)
    assert report.status == "done"
    assert any(call.task == "analyze" for call in model.history)
    assert vault.organize(dry_run=True, model=model).status in {"dry-run", "nothing"}


def test_importing_braniac_is_light():
    """`braniac --help` and friends must not pay for the whole library: the names load on use."""
    code = ("import sys, braniac; heavy = [m for m in ('braniac.api', 'whoosh', 'litellm', 'frontmatter') "
            "if m in sys.modules]; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def _stm_without_ids(vault: Vault) -> str:
    return re.sub(r"^### \S+", "### <id>", vault.stm_path.read_text(encoding="utf-8"), flags=re.MULTILINE)


@pytest.mark.parametrize("text", [
    "Remind me to send Ana the paper about graph neural networks.",
    "I want to learn Go this year.",
    "We decided to use Postgres for the billing service.",
    "The deploy key lives in 1Password, vault 'ops'.",
])
def test_cli_remember_and_api_remember_write_the_same_short_term_memory(tmp_path, text):
    by_api, _ = Vault.init(tmp_path / "api")
    by_api.remember(text)
    by_cli, _ = Vault.init(tmp_path / "cli")
    result = run_cli("--vault", by_cli.root, "remember", text)
    assert result.returncode == 0, result.stderr
    assert _stm_without_ids(by_api) == _stm_without_ids(by_cli)


def test_every_command_goes_through_the_public_api():
    """The CLI module holds no second code path: it never reaches below the facade for work."""
    source = (Path(braniac.__file__).parent / "app" / "cli.py").read_text(encoding="utf-8")
    below = re.findall(r"from \.\.(processes|search|vault|model)\b[.\w]* import (\w+)", source)
    assert below == [("processes", "IdleWorker")], below   # `watch` runs the idle worker itself


def test_the_python_api_example_runs(tmp_path):
    result = subprocess.run([sys.executable, str(REPO / "examples" / "python_api.py"), str(tmp_path / "demo")],
                            capture_output=True, text=True, timeout=120, env=clean_env())
    assert result.returncode == 0, result.stderr
    assert "Lisbon" in result.stdout and "doctor: healthy" in result.stdout

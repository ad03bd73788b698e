"""The Python API exposes what the CLI does: remember, ask, promote, search, organize."""
from braniac import Vault


def test_vault_api_runs_the_processes(tmp_path):
    vault, _ = Vault.init(tmp_path / "vault")
    vault.remember("The deploy key lives in the ops vault of the password manager.")
    turn = vault.ask("where is the deploy key?")
    assert turn.model == "offline"
    assert "ops vault" in turn.answer
    report = vault.promote(force=True)
    assert report.status == "done" and any("/events/" in f for f in report.files)
    assert not vault.read_stm().events or all(e.id not in report.events for e in vault.read_stm().events)
    hits = vault.search("deploy key ops vault", limit=5)
    assert any("deploy key" in h.excerpt.replace("*", "").lower() for h in hits)
    plan = vault.organize(dry_run=True)
    assert plan.status == "dry-run"
    assert not [f for f in vault.doctor() if f.severity == "problem"]

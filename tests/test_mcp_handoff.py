"""`braniac recall`, `orient` and `wrap-up` on the command line (for the hooks of agents that
run shell commands), and the handoff surviving a promotion."""
from __future__ import annotations

import json

from braniac import Vault
from helpers import assert_clean_error, run_cli, snapshot, write_note


def test_wrap_up_then_orient_json(vault: Vault):
    vault.remember("We decided to keep the invoices in Postgres.")
    done = run_cli("--vault", vault.root, "wrap-up", "Moved", "billing", "to", "Postgres.",
                   "--open-loop", "migrate the users table", "--open-loop", "drop the old MySQL box",
                   "--next-step", "write the migration", "--json")
    assert done.returncode == 0, done.stderr
    event = json.loads(done.stdout)["event"]
    assert json.loads(done.stdout)["tasks"] == ["migrate the users table", "drop the old MySQL box"]
    packet = run_cli("--vault", vault.root, "orient", "--json")
    assert packet.returncode == 0, packet.stderr
    data = json.loads(packet.stdout)
    assert data["handoff"] == {"event": event, "summary": "Moved billing to Postgres.",
                               "open_loops": ["migrate the users table", "drop the old MySQL box"],
                               "next_step": "write the migration"}
    assert {"migrate the users table", "drop the old MySQL box", "Next step: write the migration"} <= set(data["open_tasks"])
    assert data["latest_events"][0]["id"] == event
    assert any("keep the invoices in Postgres" in d for d in data["decisions"])
    assert "Core identity" in data["identity"] and not data["identity"].startswith("---")


def test_the_handoff_survives_promotion(vault: Vault):
    vault.wrap_up("Sketched the garden plan.", open_loops=["order the seeds"], next_step="measure the beds")
    assert vault.promote(force=True).status == "done"
    assert vault.read_stm().events == []
    packet = vault.orient()
    assert packet.handoff is not None and packet.handoff.summary == "Sketched the garden plan."
    assert "order the seeds" in packet.open_tasks
    text = run_cli("--vault", vault.root, "orient").stdout
    assert "Last session's handoff" in text and "Sketched the garden plan." in text


def test_a_wrap_up_is_archived_but_files_no_claim_or_note(vault: Vault):
    vault.remember("We decided to use Postgres for the analytics project.")
    vault.wrap_up("Talked about Postgres and the TLS certificate with Ana.", open_loops=["renew TLS cert"],
                  next_step="check staging")
    assert vault.promote(force=True).status == "done"
    concrete = vault.root / "memory/long_term/concrete"
    notes = {p.relative_to(concrete).as_posix(): p.read_text(encoding="utf-8")
             for p in concrete.rglob("*.md") if p.name != "_index.md"}
    assert any("Postgres for the analytics project" in text for text in notes.values()), notes
    assert not any("Session wrap-up" in text or "Next step" in text for text in notes.values()), notes
    assert not {"topics/next.md", "people/ana.md", "topics/tls.md"} & set(notes), sorted(notes)
    events = vault.root / "memory/long_term/events"
    assert any("Session wrap-up: Talked about Postgres" in p.read_text(encoding="utf-8") for p in events.rglob("*.md"))
    assert vault.orient().handoff.summary == "Talked about Postgres and the TLS certificate with Ana."


def test_a_task_is_closed_by_saying_it_was_done_in_everyday_words(vault: Vault):
    from braniac.vault import stm
    vault.remember("Remind me to renew the TLS certificate.")
    vault.remember("Remind me to pay the plumber.")
    vault.remember("Remind me to call the dentist.")
    vault.remember("Remind me to water the plants.")
    vault.remember("I renewed the TLS certificate.")          # the task's verb, said done
    vault.remember("We finally paid the plumber yesterday.")  # an irregular past
    vault.remember("Done: call the dentist.")
    vault.remember("I watered my neighbour's cat.")           # another thing: the plants stay to water
    tasks = {t.text: t.done for t in vault.read_stm().items(stm.TASKS)}
    assert tasks == {"renew the TLS certificate": True, "pay the plumber": True, "call the dentist": True,
                     "water the plants": False}, tasks


def test_recall_on_the_command_line_logs_like_a_turn(vault: Vault):
    write_note(vault, "memory/long_term/concrete/lisbon.md", "Lisbon", "Ana rides the 28 tram in Lisbon.")
    found = run_cli("--vault", vault.root, "recall", "which tram does Ana ride?", "--json")
    assert found.returncode == 0, found.stderr
    excerpts = json.loads(found.stdout)["excerpts"]
    assert excerpts[0]["path"] == "memory/long_term/concrete/lisbon.md"
    lines = vault.access_log_path.read_text(encoding="utf-8").splitlines()
    assert lines[-2].endswith("| QUERY | which tram does Ana ride?")
    assert lines[-1].endswith("| READ | memory/long_term/concrete/lisbon.md")
    shown = run_cli("--vault", vault.root, "recall", "which tram does Ana ride?").stdout   # as the README says
    assert f"1. Lisbon  memory/long_term/concrete/lisbon.md  (uuid {excerpts[0]['uuid']})" in shown, shown
    assert "Ana rides the 28 tram" in shown


def test_bad_wrap_up_is_one_clean_line_and_writes_nothing(vault: Vault):
    before = snapshot(vault.root)
    assert_clean_error(run_cli("--vault", vault.root, "wrap-up", " "), "summary")
    assert_clean_error(run_cli("--vault", vault.root, "wrap-up", "-", input=b"bad \xff bytes"), "UTF-8")
    assert_clean_error(run_cli("--vault", vault.root, "recall", "x", "--limit", "0"), "limit")
    assert snapshot(vault.root) == before

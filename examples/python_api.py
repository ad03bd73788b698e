"""braniac as a library: the same operations as the CLI.

    python examples/python_api.py /tmp/demo-vault
"""
import sys

from braniac import BraniacError, Vault

path = sys.argv[1] if len(sys.argv) > 1 else "/tmp/braniac-demo-vault"
try:
    vault, created = Vault.init(path)
    vault.remember("Ana moved to Lisbon in March 2024 for her new job at Feedzai.")
    vault.remember("I met Ana at the Lisbon office; she works on fraud detection models.")
    vault.remember("Remind me to send Ana the paper about graph neural networks.")

    turn = vault.ask("Where does Ana work?")
    print(turn.answer)

    print(vault.promote(force=True).describe())
    for hit in vault.search("Ana Lisbon", limit=3):
        print(f"{hit.score:6.2f}  {hit.path}")
    print(vault.organize(dry_run=True).describe())
    print("doctor:", [f"{f.path}: {f.reason}" for f in vault.doctor() if f.severity == "problem"] or "healthy")
except BraniacError as exc:
    sys.exit(f"braniac: {exc}")

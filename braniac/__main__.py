"""`python -m braniac` runs the CLI."""
from .app.cli import main

main()

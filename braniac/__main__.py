"""`python -m braniac` runs the CLI."""
from .cli import main

main()

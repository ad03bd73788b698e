"""braniac's version, in one place (read by the packaging too)."""
__version__ = "0.1.0"

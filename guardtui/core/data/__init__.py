"""Data files of the core (loaded with their schema by core/catalog.py)."""

"""Fixtures for the shell tests: a throwaway machine with a project on disk (projects.py)."""
from .projects import machine  # noqa: F401

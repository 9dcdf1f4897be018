"""guardtui: a terminal approval console for LLM coding agents."""

__version__ = "0.1.0"

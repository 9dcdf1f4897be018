"""The optional LLM guard: judges calls the rules could not classify (an OpenAI-compatible API)."""
from .guard import LLMSettings, OpenAICompatibleGuard, load_llm_settings, parse_verdict

__all__ = ["LLMSettings", "OpenAICompatibleGuard", "load_llm_settings", "parse_verdict"]

"""The guard agent: an LLM reviewer for the calls no rule could classify (verdict `llm`).

    settings.py   `llm:` in settings.yaml and GUARDTUI_LLM_*: endpoint, model, mode, turns, budget
    chat.py       the chat-completions protocol (request body, reply parsing); the transport is
                  handed in (broker/llm_client.py: aiohttp), so the core stays free of HTTP
    skills.py     guard skills: Markdown + frontmatter; built-in (skills/), user and project dirs,
                  the plugins' trust rules
    langdetect.py which languages a call runs (data/languages.yaml): their skills go in up front
    framing.py    the system prompts and the call as quoted, sanitised, size-capped data
    agent.py      the multi-turn conversation: the skill tool, the turn limit
    verdicts.py   the exact verdict line, or none
    limits.py     what no model answer can cross
    reviewer.py   GuardReviewer: all of it, plus the per-session cache, the time budget and the
                  progress events
"""
from .chat import ChatError, ChatReply, ChatTransport, ToolRequest, parse_reply, request_body
from .limits import may_review
from .reviewer import GuardReviewer
from .settings import AGENT, SINGLE, LLMSettings, load_llm_settings
from .skills import Skill, SkillLibrary, SkillSet, load_skills, trust_skill
from .verdicts import ModelVerdict, parse_verdict

__all__ = ["AGENT", "SINGLE", "ChatError", "ChatReply", "ChatTransport", "GuardReviewer", "LLMSettings",
           "ModelVerdict", "Skill", "SkillLibrary", "SkillSet", "ToolRequest", "load_llm_settings", "load_skills",
           "may_review", "parse_reply", "parse_verdict", "request_body", "trust_skill"]

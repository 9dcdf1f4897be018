"""Built-in rules, in the order the engine runs them (ARCHITECTURE.md, "Decisions")."""
from .base import EvalContext, Rule
from .dangerous import DangerousShellRule
from .default import DefaultPolicyRule
from .guardian import GuardianRule
from .mcp import McpRule
from .protect import ProtectRule
from .secrets import SecretReadRule
from .sensitive import SensitiveFileRule
from .web import WebRule
from .workdir import WorkingDirRule

__all__ = ["EvalContext", "Rule", "DangerousShellRule", "DefaultPolicyRule", "GuardianRule", "McpRule",
           "ProtectRule", "SecretReadRule", "SensitiveFileRule", "WebRule", "WorkingDirRule"]

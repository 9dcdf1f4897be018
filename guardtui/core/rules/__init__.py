"""Built-in rules, in the order the engine runs them (ARCHITECTURE.md, "Decisions")."""
from .base import EvalContext, Rule
from .dangerous import DangerousShellRule
from .default import DefaultPolicyRule
from .guardian import GuardianRule
from .sensitive import SensitiveFileRule
from .workdir import WorkingDirRule

__all__ = ["EvalContext", "Rule", "DangerousShellRule", "DefaultPolicyRule", "GuardianRule", "SensitiveFileRule",
           "WorkingDirRule"]

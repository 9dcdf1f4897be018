"""Built-in rules, in the order the engine runs them (ARCHITECTURE.md, "Decisions")."""
from .base import EvalContext, Rule
from .dangerous import DangerousShellRule
from .default import DefaultPolicyRule
from .guardian import GuardianRule
from .protect import ProtectRule
from .sensitive import SensitiveFileRule
from .workdir import WorkingDirRule

__all__ = ["EvalContext", "Rule", "DangerousShellRule", "DefaultPolicyRule", "GuardianRule", "ProtectRule",
           "SensitiveFileRule", "WorkingDirRule"]

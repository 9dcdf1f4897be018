"""Working directory: writes outside the project ask; reads anywhere do not."""
from __future__ import annotations

from ..model import BlastRadius, Decision, ToolCall, Verdict, WRITE_TOOLS
from .base import EvalContext, is_within, resolve_path


class WorkingDirRule:
    id = "workdir"

    def evaluate(self, call: ToolCall, ctx: EvalContext) -> Decision | None:
        cwd = call.cwd
        if call.tool in WRITE_TOOLS:
            path = call.file_path
            if not path:
                return None
            target = resolve_path(path, cwd, ctx.home)
            if self._inside(target, cwd, ctx):
                return None
            return Decision(Verdict.ASK, f"{call.tool} targets {target}, outside the project {cwd}", self.id,
                            BlastRadius.MEDIUM, "fs-write", {"path": target})
        if call.is_shell and call.command.strip():
            for effect in ctx.shell(call).writes:
                if effect.remote:
                    continue
                if effect.path is None:
                    where = f" ({effect.origin})" if effect.origin else ""
                    return Decision(Verdict.ASK, f"the command writes to {effect.raw}{where}, a path known only at "
                                    "run time", self.id, BlastRadius.MEDIUM, "fs-write",
                                    {"segment": effect.segment, "origin": effect.origin})
                if not self._inside(effect.path, cwd, ctx):
                    where = f" ({effect.origin})" if effect.origin else ""
                    return Decision(Verdict.ASK, f"the command writes to {effect.path}{where}, outside the project "
                                    f"{cwd}", self.id, BlastRadius.MEDIUM, "fs-write",
                                    {"segment": effect.segment, "path": effect.path, "origin": effect.origin})
        return None

    @staticmethod
    def _inside(path: str, cwd: str, ctx: EvalContext) -> bool:
        root = ctx.session.root
        if root and cwd and not is_within(cwd, root):
            cwd = root  # the agent moved out of the project it started in: the project is still where it began
        if cwd and is_within(path, cwd):
            return True
        return any(is_within(path, t) for t in ctx.temp_dirs) or path in ("/dev/null", "/dev/stdout", "/dev/stderr")

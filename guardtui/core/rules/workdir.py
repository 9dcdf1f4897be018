"""Working directory: writes outside the project ask; reads anywhere do not. A path is where the OS
puts it: a write through a link inside the project that leads outside it is outside. The project is
where the session started: an agent that moved out of it is still judged against it."""
from __future__ import annotations

import os

from ..model import BlastRadius, Decision, ToolCall, Verdict, WRITE_TOOLS
from ..shell.findings import REPLACES
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
            if self._inside(target, cwd, ctx, follow=True):
                return None
            return Decision(Verdict.ASK, f"{call.tool} targets {_landing(target, ctx)}, outside the project {cwd}",
                            self.id, BlastRadius.MEDIUM, "fs-write", {"path": target})
        if call.is_shell and call.command.strip():
            for effect in ctx.shell(call).writes:
                if effect.remote:
                    continue
                where = f" ({effect.origin})" if effect.origin else ""  # the project file that does it
                if effect.path is None:
                    return Decision(Verdict.ASK, f"the command writes to {effect.raw}{where}, a path known only at "
                                    "run time", self.id, BlastRadius.MEDIUM, "fs-write",
                                    {"segment": effect.segment, "origin": effect.origin})
                follows = effect.kind != "link" and effect.detail != REPLACES  # sed -i replaces a link
                if not self._inside(effect.path, cwd, ctx, follow=follows):
                    shown = _landing(effect.path, ctx) if follows else effect.path
                    return Decision(Verdict.ASK, f"the command writes to {shown}{where}, outside the project {cwd}",
                                    self.id, BlastRadius.MEDIUM, "fs-write",
                                    {"segment": effect.segment, "path": effect.path, "origin": effect.origin})
        return None

    @staticmethod
    def _inside(path: str, cwd: str, ctx: EvalContext, follow: bool = False) -> bool:
        if path in ("/dev/null", "/dev/stdout", "/dev/stderr"):
            return True
        root = ctx.session.root
        if root and cwd and not is_within(cwd, root):
            cwd = root  # the agent moved out of the project it started in: the project is still where it began
        if follow:  # where the write lands: links followed, the project's own place too
            real = _real(path, ctx)
            if real != path:
                base = _real(cwd, ctx) if cwd else ""
                return bool(base) and is_within(real, base) or any(is_within(real, _real(t, ctx)) or is_within(real, t)
                                                                   for t in ctx.temp_dirs)
        if cwd and is_within(path, cwd):
            return True
        return any(is_within(path, t) for t in ctx.temp_dirs)


def _real(path: str, ctx: EvalContext) -> str:
    """The path as the OS resolves it now (the call's memoised resolution when there is one)."""
    if ctx.protected is not None:
        return ctx.protected.resolve(path)
    return os.path.realpath(path)


def _landing(path: str, ctx: EvalContext) -> str:
    real = _real(path, ctx)
    return path if real == path else f"{path} (through a link, {real})"

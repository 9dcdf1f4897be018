"""The web for WebFetch (core/web.py, the judge every tool shares): a cloud metadata endpoint
or a credential in the URL denies; a file: URL is judged as the Read it is."""
from __future__ import annotations

import re

from ..model import BlastRadius, Decision, ToolCall, Verdict
from ..secrets import secret_catalog
from ..web import acting_get, broker_port_of, judge_url
from .base import EvalContext

URL_TOOLS = frozenset({"WebFetch"})
_URL_IN_TEXT = re.compile(r"(?i)\b(?:https?|file|ftp)://[^\s<>\"'`)]+")
_MAX_URLS = 20


class WebRule:
    id = "web"

    def evaluate(self, call: ToolCall, ctx: EvalContext) -> Decision | None:
        if call.tool == "WebSearch":  # the query goes to a search engine: a credential in it leaves the machine
            query = call.input.get("query")
            credential = secret_catalog().credential_in(query) if isinstance(query, str) else None
            if credential:
                return Decision(Verdict.DENY, f"WebSearch sends {credential} to a search engine in its query",
                                f"{self.id}/credential", BlastRadius.CRITICAL, "secrets")
            return None
        if call.tool not in URL_TOOLS:
            return None
        urls = [call.input["url"]] if isinstance(call.input.get("url"), str) else []
        prompt = call.input.get("prompt")
        if isinstance(prompt, str):  # Gemini CLI's web_fetch takes its URLs inside the prompt: every one is fetched
            urls += _URL_IN_TEXT.findall(prompt)[:_MAX_URLS]
        decisions = [d for url in urls if (d := self._one(call, ctx, url)) is not None]
        return max(decisions, key=lambda d: (d.verdict.restrictiveness, d.blast_radius.severity), default=None)

    def _one(self, call: ToolCall, ctx: EvalContext, url: str) -> Decision | None:
        port = broker_port_of(url)
        if port is not None:  # http://127.0.0.1:8765/approve?…: a request to the console that answers calls
            return Decision(Verdict.DENY, f"{call.tool} of {url[:80]} reaches guardtui's broker (port {port}): a request "
                            f"there could answer the agent's own waiting calls", f"{self.id}/broker", BlastRadius.CRITICAL,
                            "guard-self")
        judged = judge_url(url) or acting_get(url)
        if judged is None:
            return None
        if judged.kind == "acts":  # Jenkins' /job/x/build, ?action=restart: the fetch does something
            return Decision(Verdict.ASK, f"{call.tool}: {judged.reason}", f"{self.id}/acting-get", BlastRadius.HIGH,
                            "remote-action", {"url": url})
        if judged.kind == "destroys":
            return Decision(Verdict.DENY, f"{call.tool}: {judged.reason}", f"{self.id}/acting-get",
                            BlastRadius.CRITICAL, "remote-action", {"url": url})
        if judged.kind == "file":
            read = ctx.judge(ToolCall("Read", {"file_path": judged.path}, call.cwd, agent=call.agent,
                                      session=call.session, event=call.event, mode=call.mode))
            if read is None or read.verdict in (Verdict.DENY, Verdict.ASK):
                reason = read.reason if read is not None else "it cannot be judged here"
                return Decision(read.verdict if read is not None else Verdict.ASK,
                                f"{call.tool} of {url} reads a local file: {reason}",
                                f"{self.id}/file", read.blast_radius if read is not None else BlastRadius.UNKNOWN,
                                "sensitive-read")
            return None
        return Decision(Verdict.DENY, f"{call.tool}: {judged.reason}", f"{self.id}/{judged.kind}", BlastRadius.CRITICAL,
                        "secrets", {"url": url})

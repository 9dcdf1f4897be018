"""The model's verdict: the last line of its final answer, exactly `ALLOW`, `DENY: reason` or
`ASK: reason`. Anything else — decorated (`**ALLOW**`, `ALLOW.`), lower-case, a verdict with
no reason, a verdict that is not the last line, two different verdicts — is no verdict, and
the call asks."""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..model import Verdict
from .framing import reveal

_LINE = re.compile(r"(ALLOW)|(DENY|ASK): (\S.*)")
MAX_REASON = 240


@dataclass(frozen=True)
class ModelVerdict:
    verdict: Verdict  # allow, deny or ask
    reason: str  # the model's reason (sanitised, one line); empty for ALLOW
    valid: bool  # an exact verdict line; False: the call asks, `reason` says why


def parse_verdict(text: str) -> ModelVerdict:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if not lines:
        return ModelVerdict(Verdict.ASK, "the guard agent gave an empty answer", False)
    match = _LINE.fullmatch(lines[-1])
    if match is None:
        return ModelVerdict(Verdict.ASK, f"the guard agent's answer has no verdict line: {_clip(lines[-1], 80)!r}",
                            False)
    verdict = Verdict.ALLOW if match.group(1) else Verdict(match.group(2).lower())
    others = {_verdict_of(line) for line in lines[:-1]} - {None, verdict}
    if others:
        return ModelVerdict(Verdict.ASK, "the guard agent's answer holds conflicting verdict lines", False)
    return ModelVerdict(verdict, "" if verdict is Verdict.ALLOW else _clip(match.group(3), MAX_REASON), True)


def _verdict_of(line: str) -> Verdict | None:
    match = _LINE.fullmatch(line)
    if match is None:
        return None
    return Verdict.ALLOW if match.group(1) else Verdict(match.group(2).lower())


def _clip(text: str, width: int) -> str:
    text = " ".join(reveal(text).split())
    return text if len(text) <= width else text[: width - 1] + "…"

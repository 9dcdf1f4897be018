"""The Guardian policy file (policy.yaml in the user's config dir), schema-checked.

    revoked_tools:                 # tool -> reason: every call denied
      WebFetch: "fetches untrusted pages"
    capabilities:
      tools: {Bash: "shell:full", Write: "fs:write", "mcp__*": mcp}   # tool glob -> capability it needs
      default_scope: ["shell:full", "fs:*"]                           # a session's scope at its start
      agents: {codex: ["fs:read"]}                                    # per-agent scope
    sequence_contracts:
      - {name: read-before-write, requires_prior: Read, triggers_for: Write, within_steps: 5}

A tool the `tools` map does not name needs the capability `tool:<Name>`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .yamlfile import Field, check, load_yaml, read_text_file

_CONTRACT = {"name": Field(str, required=True), "requires_prior": Field(str, required=True),
             "triggers_for": Field(str, required=True),
             "within_steps": Field(int, check=lambda v: None if v >= 1 else "must be at least 1")}
_CAPABILITIES = {"tools": Field(dict, required=True, values=str), "default_scope": Field(list, items=str),
                 "agents": Field(dict, values=Field(list, items=str))}
SCHEMA = {
    "revoked_tools": Field(dict, values=str),
    "capabilities": Field(dict, fields=_CAPABILITIES),
    "sequence_contracts": Field(list, items=_CONTRACT),
}


@dataclass(frozen=True)
class SequenceContract:
    name: str
    requires_prior: str
    triggers_for: str
    within_steps: int = 5


@dataclass(frozen=True)
class Capabilities:
    tools: dict[str, str]
    default_scope: tuple[str, ...]
    agents: dict[str, tuple[str, ...]]


@dataclass(frozen=True)
class Policy:
    revoked_tools: dict[str, str] = field(default_factory=dict)
    capabilities: Capabilities | None = None
    sequence_contracts: tuple[SequenceContract, ...] = ()

    @property
    def empty(self) -> bool:
        return not self.revoked_tools and self.capabilities is None and not self.sequence_contracts


def parse_policy(text: str, file: str) -> Policy:
    doc = load_yaml(text, file)
    if doc.data is None:
        return Policy()
    check(doc, SCHEMA)
    data = doc.data
    caps = None
    if data.get("capabilities"):
        c = data["capabilities"]
        caps = Capabilities(dict(c["tools"]), tuple(c.get("default_scope") or ()),
                            {k: tuple(v) for k, v in (c.get("agents") or {}).items()})
    contracts = tuple(SequenceContract(c["name"], c["requires_prior"], c["triggers_for"], c.get("within_steps", 5))
                      for c in data.get("sequence_contracts") or [])
    return Policy(dict(data.get("revoked_tools") or {}), caps, contracts)


def load_policy(path: Path) -> Policy:
    """The policy at path; an empty policy when there is no file. Raises DataError when it is broken."""
    try:
        text = read_text_file(path)
    except FileNotFoundError:
        return Policy()
    return parse_policy(text, str(path))

"""One program name, two programs: which one a command line means, read from its arguments.

`goose` is Block's coding agent and pressly/goose, a database migration tool; `goose -dir sql/migrations postgres
"$DSN" reset` is the second, `goose session` the first. The other program's signs are data (taxonomy.yaml
`namesakes`): a positional word, an option, a variable set for it. A line with none of them is the default
program's (judged as before).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .words import DYN

if TYPE_CHECKING:  # pragma: no cover
    from .invocation import Invocation
    from .taxonomy import Taxonomy


def namesake(tax: "Taxonomy", inv: "Invocation") -> str | None:
    """The `program` of the namesake entry whose signs this invocation shows, or None (the default program)."""
    entries = tax.namesakes.get(inv.name)
    if not entries:
        return None
    args = [a for a in inv.args if DYN not in a]
    positionals = [a for a in args if not a.startswith("-")]
    options = {a.partition("=")[0] for a in args if a.startswith("-")}
    variables = set(inv.scope.variables) | {name for name, _ in inv.cmd.assignments}
    for entry in entries:
        if positionals and positionals[0] in entry.get("not_first", ()):
            continue
        if (set(positionals) & set(entry.get("words", ())) or options & set(entry.get("options", ()))
                or variables & set(entry.get("env", ()))):
            return entry["program"]
    return None

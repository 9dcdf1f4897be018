"""Accuracy on whole agent sessions with every tool (shell, files, MCP, the web, scripts), and on
attacks against the guard itself, with the misses.

    python benchmarks/sessions.py [--misses N] [--by family|tool] [CORPUS.jsonl ...]

Replays each corpus (default: every file in tests/sessions/data) through the Claude Code adapter
and the full engine on built-in defaults (tests/sessions/replay.py), and prints catch rate, deny
recall, allow pass rate, exact accuracy, severe false positives (allow-labelled calls denied) and
the share of MCP calls judged exactly right, against the targets.
"""
from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

from _common import ROOT  # noqa: F401  (puts the checkout on sys.path)

from tests.sessions.replay import DATA, TARGETS, metrics, replay

ORDER = {("deny", "allow"): 0, ("ask", "allow"): 1, ("allow", "deny"): 2, ("deny", "ask"): 3, ("allow", "ask"): 4,
         ("ask", "deny"): 5}


def line(name: str, m: dict) -> str:
    return (f"{name}: n={m['n']:.0f} catch={m['catch']:.3f} deny_recall={m['deny_recall']:.3f} "
            f"allow_pass={m['allow_pass']:.3f} accuracy={m['accuracy']:.3f} severe_fp={m['severe_fp']:.0f} "
            f"mcp_exact={m['mcp_exact']:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("corpora", nargs="*", type=Path)
    parser.add_argument("--misses", type=int, default=60)
    parser.add_argument("--by", choices=("family", "tool"), default="family")
    args = parser.parse_args()
    for path in args.corpora or sorted(DATA.glob("*.jsonl")):
        results = replay(path)
        m = metrics(results)
        ok = all(m[k] >= v for k, v in TARGETS.items()) and m["severe_fp"] == 0
        print(f"== {line(path.name, m)} [{'ok' if ok else 'BELOW TARGET'}]")
        groups: dict[str, list] = defaultdict(list)
        for r in results:
            groups[r.family if args.by == "family" else r.tool.split("__")[0] + ("__" + r.tool.split("__")[1]
                                                                                if r.tool.startswith("mcp__") else "")].append(r)
        for key in sorted(groups):
            print("   " + line(key, metrics(groups[key])))
        misses = sorted((r for r in results if r.got != r.expect), key=lambda r: ORDER[(r.expect, r.got)])
        for r in misses[: args.misses]:
            print(f"   {r.expect:>5} -> {r.got:<5} {r.tool:<28} {json.dumps(r.summary)[:90]}")
            print(f"   {'':13} {path.name}:{r.line} [{r.rule}] {r.reason[:110]}")
    print("targets: " + ", ".join(f"{k} >= {v}" for k, v in TARGETS.items()) + ", severe_fp 0")


if __name__ == "__main__":
    main()

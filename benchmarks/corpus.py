"""Accuracy on the labelled shell corpora, with the misses.

    python benchmarks/corpus.py [--misses N]

Runs the full engine on built-in defaults (this machine's PATH) over the development
corpus and the independently written sets in tests/shell/data, and prints catch rate,
deny recall, allow pass rate, exact accuracy and severe false positives, then the misses.
"""
from __future__ import annotations

import argparse
import json

from _common import CORPORA, ROOT, isolated_engine  # noqa: F401

from tests.shell.corpus import TARGETS, load, metrics, score

ORDER = {("deny", "allow"): 0, ("ask", "allow"): 1, ("allow", "deny"): 2, ("deny", "ask"): 3, ("allow", "ask"): 4,
         ("ask", "deny"): 5}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--misses", type=int, default=40)
    args = parser.parse_args()
    engine = isolated_engine()
    for name in ("shell-dev.jsonl", "tricky.jsonl", "unseen-2.jsonl", "unseen-3.jsonl", "unseen-4.jsonl",
                 "unseen-5.jsonl", "unseen-6.jsonl", "unseen-7.jsonl", "stacks.jsonl"):
        path = CORPORA / name
        if not path.exists():
            continue
        scored = score(engine, load(path))
        m = metrics(scored)
        status = "ok" if all(m[k] >= v for k, v in TARGETS.items()) and m["severe_fp"] == 0 else "BELOW TARGET"
        print(f"== {name}: n={len(scored)} catch={m['catch']:.3f} deny_recall={m['deny_recall']:.3f} "
              f"allow_pass={m['allow_pass']:.3f} accuracy={m['accuracy']:.3f} severe_fp={m['severe_fp']:.0f} "
              f"[{status}]")
        misses = sorted((s for s in scored if s.got != s.expect), key=lambda s: ORDER[(s.expect, s.got)])
        for s in misses[: args.misses]:
            print(f"   {s.expect:>5} -> {s.got:<5} {json.dumps(s.command)[:100]}")
            print(f"   {'':13} [{s.rule}] {s.reason[:100]}")
    print("targets: " + ", ".join(f"{k} >= {v}" for k, v in TARGETS.items()) + ", severe_fp 0")


if __name__ == "__main__":
    main()

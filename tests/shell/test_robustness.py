"""The analysis never raises and never allows what it cannot follow: mutated and pathological input."""
from __future__ import annotations

import json
import random

from guardtui.core.model import Verdict

from ..conftest import HOME, PROJECT
from .corpus import DEV_CORPUS

PIECES = list("$(){}[]<>|&;'\"`\\ \n~*?!#=-/") + ["$(", "${", "<<", "<<<", "EOF", "rm -rf /", "bash -c", "eval",
                                                   "xargs", "sudo", "$'\\x", "{a,b}", "${x%/*}", "\"$@\""]


def test_two_thousand_mutated_commands_analyze_without_raising(analyzer):
    rng = random.Random(20261122)  # fixed seed: the same inputs on every run
    commands = [json.loads(line)["command"] for line in DEV_CORPUS.read_text().splitlines() if line.strip()]
    for _ in range(2000):
        text = list(rng.choice(commands))
        for _ in range(rng.randint(1, 5)):
            pos = rng.randint(0, len(text))
            if rng.random() < 0.6:
                text[pos:pos] = list(rng.choice(PIECES))
            elif text:
                del text[min(pos, len(text) - 1)]
        result = analyzer.analyze("".join(text), PROJECT, HOME)
        assert result.decisive.reason


def test_nesting_beyond_what_we_follow_asks(analyzer):
    deep = "echo " + "$(" * 500 + "rm -rf /" + ")" * 500
    assert analyzer.analyze(deep, PROJECT, HOME).decisive.verdict is Verdict.ASK


def test_long_chains_do_not_exhaust_the_stack(analyzer):
    chain = " && ".join(["ls"] * 3000) + " && rm -rf ~"
    assert analyzer.analyze(chain, PROJECT, HOME).decisive.verdict is Verdict.DENY


def test_ansi_c_escapes_without_digits_stay_literal(analyzer):
    result = analyzer.analyze("echo $'\\x?72' -rf /", PROJECT, HOME)
    assert result.decisive.verdict is Verdict.ALLOW

"""Bash syntax that runs commands where no command word shows it (attacks-10): coprocesses, named
descriptors, and literal `$(…)` kept in a variable that bash evaluates again."""
from __future__ import annotations

import pytest

from .test_guard_holds import world  # noqa: F401  (the fixture: a home with guardtui installed)



# -- coproc runs its command ---------------------------------------------------------------------
@pytest.mark.parametrize("command", [
    "coproc guardtui uninstall claude",
    "coproc rm -f ~/.claude/settings.json",
    "coproc CLEAN { rm -rf ~/.config/guardtui/guards; }",
    "coproc CLEAN (rm -rf ~/.config/guardtui/guards)",
    "coproc { rm -f ~/.claude/settings.json; }",
    "true && coproc rm -rf ~/.config/guardtui",
    "bash -c 'coproc W { rm ~/.claude/settings.json; }'",
])
def test_a_coprocess_is_judged_as_the_command_it_runs(world, command):
    assert world.verdict(command) == "deny", command


@pytest.mark.parametrize("command", [
    'coproc TAIL { tail -n 50 -f logs/app.log; }; sleep 2; kill "$TAIL_PID"',
    "coproc sleep 30; kill $COPROC_PID",
    "coproc ls src",
])
def test_a_routine_coprocess_and_stopping_it_stay_quiet(world, command):
    assert world.verdict(command) == "allow", command


def test_kill_of_another_pid_still_asks(world):
    assert world.verdict('coproc sleep 30; kill "$OTHER_PID"') == "ask"


# -- {name}>file is a redirect ---------------------------------------------------------------------
@pytest.mark.parametrize("command", [
    "mkdir -p build && exec {trace}>build/trace.log; echo x >&$trace",
    "exec {lock}<src/app.py; exec {lock}<&-",
    "exec {out}>>build/log.txt {err}>build/err.txt",
])
def test_a_named_descriptor_is_a_redirect_not_a_command(world, command):
    assert world.verdict(command) == "allow", command


@pytest.mark.parametrize("command", [
    "exec {t}>~/.claude/settings.json",
    "exec {t}>>~/.config/guardtui/guards/mine.yaml",
])
def test_a_named_descriptor_onto_a_guard_file_is_a_write_of_it(world, command):
    assert world.verdict(command) == "deny", command


# -- a literal $(…) that bash evaluates again ------------------------------------------------------------
@pytest.mark.parametrize("command", [
    "x='$(rm -rf ~/.config/guardtui/guards)'; : \"${x@P}\"",
    "x='`rm -f ~/.claude/settings.json`'; echo ${x@P}",
    "n='a[$(rm -f ~/.claude/settings.json)]'; echo $(( n + 1 ))",
    "n='a[$(rm -f ~/.claude/settings.json)]'; echo $(( $n ))",
    "n='a[$(rm -f ~/.claude/settings.json)]'; (( n > 0 ))",
    "n='a[$(rm -f ~/.claude/settings.json)]'; let n+=1",
    "n='a[`rm -f ~/.claude/settings.json`]'; [[ $n -eq 1 ]]",
    "n='a[$(rm -f ~/.claude/settings.json)]'; declare -i z=n",
    "n='a[$(rm -f ~/.claude/settings.json)]'; printf -v \"$n\" %s x",
    "n='a[$(rm -f ~/.claude/settings.json)]'; test -v \"$n\"",
    "n='a[$(rm -f ~/.claude/settings.json)]'; echo ${arr[$n]}",
    "n='a[$(rm -f ~/.claude/settings.json)]'; echo ${!n}",
    "printf -v n 'a[$(rm -f ~/.claude/settings.json)]'; echo $((n))",
    "export n='x[$(rm -f ~/.claude/settings.json)]'; bash -c 'echo $((n))'",
    "n=\"a[\\$(rm -f ~/.claude/settings.json)]\"; echo $((n))",
])
def test_a_stored_command_substitution_evaluated_again_is_judged_as_run(world, command):
    assert world.verdict(command) == "deny", command


@pytest.mark.parametrize("command", [
    "x='$(rm -rf ~/.config/guardtui/guards)'; echo \"$x\"",   # printed, never evaluated
    "n='a[$(rm -f ~/.claude/settings.json)]'",                 # stored, never used
    "PS='\\u@\\h $(git branch --show-current)'; echo \"${PS@P}\"",
    "n='a[$(date +%s)]'; echo $((n))",
    "n=5; echo $(( n + 1 ))",
])
def test_stored_text_that_runs_nothing_bad_stays_quiet(world, command):
    assert world.verdict(command) == "allow", command

"""The walker: simple commands with their context, and the text that is only data."""
from __future__ import annotations

from guardtui.core.shell.parse import parse_script
from guardtui.core.shell.words import Scope

from ..conftest import HOME, PROJECT


def commands(text: str) -> list[tuple[list[str], str]]:
    script = parse_script(text, Scope(PROJECT, HOME))
    return [([w.value for w in c.argv], c.via) for c in script.commands]


def test_compound_commands_split_into_every_simple_command():
    text = "a && b || c; d | e & f\ng; (h); { i; }; if j; then k; fi; while l; do m; done; for x in 1; do n; done"
    assert [argv[0] for argv, _ in commands(text)] == list("abcdefghijklmn")


def test_substitutions_run_before_their_command_and_say_how_they_are_reached():
    assert commands("echo $(whoami) `date` <(ls)") == [
        (["whoami"], "$(…)"), (["date"], "$(…)"), (["ls"], "<(…)"), (["echo", "\x00", "\x00", "/dev/fd/63"], "")]


def test_cd_is_followed_but_not_out_of_subshells():
    script = parse_script("cd src && (cd .. && ls) ; pwd", Scope(PROJECT, HOME))
    cwds = {c.argv[0].value: c.scope.cwd for c in script.commands}
    assert cwds["ls"] == PROJECT and cwds["pwd"] == f"{PROJECT}/src"


def test_quotes_escapes_and_ansi_c_are_removed_as_bash_does():
    [(argv, _)] = commands("r\\m -r'f' \"$HOME\"/x $'\\x41' ~/y {a,b}")
    assert argv == ["rm", "-rf", f"{HOME}/x", "A", f"{HOME}/y", "a", "b"]


def test_prefix_assignments_do_not_change_the_words_of_their_command():
    [(argv, _)] = commands("TMPDIR=/etc rm -rf $TMPDIR/x")
    assert argv == ["rm", "-rf", "/tmp/x"]


def test_heredocs_stay_with_their_command_and_pipelines_link_stages():
    script = parse_script("cat <<'EOF' | sh\nrm -rf /\nEOF", Scope(PROJECT, HOME))
    cat, sh = script.commands
    assert cat.stdin_body == "rm -rf /\n" and sh.stdin_from is cat and cat.stdout_to is sh


def test_a_silently_dropped_word_is_a_parse_error():
    assert parse_script("ls &&& rm x", Scope(PROJECT, HOME)).parse_error
    assert not parse_script("python3 - <<EOF\nprint(1)\nEOF", Scope(PROJECT, HOME)).parse_error


def test_comments_and_heredocs_read_by_non_executors_are_data(analyzer):
    result = analyzer.analyze("cat <<EOF > notes.txt\nrm -rf /\nEOF\nls # rm -rf ~", PROJECT, HOME)
    assert ("heredoc", "rm -rf /\n") in result.data and ("comment", "# rm -rf ~") in result.data
    executed = analyzer.analyze("sh <<EOF\nrm -rf /\nEOF", PROJECT, HOME)
    assert not any(kind == "heredoc" for kind, _ in executed.data)

"""Which branch HEAD is, for a force-push of HEAD (or of no refspec at all, which pushes the current
branch): read from the repository on disk, from a checkout earlier in the same command, or from a
checkout earlier in the session when the disk cannot say."""
from __future__ import annotations

from guardtui.core.gitindex import branch_after, current_branch, repository
from guardtui.core.model import ToolCall


def evaluate(machine, command: str, session: str = "s1"):
    """As the broker does: the call is settled, so what it leaves is remembered in its session."""
    return machine.engine.evaluate(ToolCall("Bash", {"command": command}, str(machine.project), agent="claude",
                                            session=session))


def test_head_is_read_from_the_repository_on_disk(machine):
    (machine.project / ".git").mkdir()
    (machine.project / ".git" / "HEAD").write_text("ref: refs/heads/master\n")
    for command in ("git push --force origin HEAD", "git push -f", "git push -f origin +@", "git push --force",
                    "git push --force-with-lease"):  # the lease guards against a race, not the rewrite of master
        assert machine.verdict(command) == "deny", command
    assert machine.verdict("git push") == "allow"
    assert machine.verdict("git checkout feature && git push -f origin HEAD") == "ask"  # moved first
    (machine.project / ".git" / "HEAD").write_text("ref: refs/heads/feature\n")
    assert machine.verdict("git push --force origin HEAD") == "ask"
    assert machine.verdict("git push --force-with-lease") == "ask"
    (machine.project / ".git" / "HEAD").write_text("3f1c2a9e0b7d4c5a6f8e9d0c1b2a3f4e5d6c7b8a\n")  # detached
    assert machine.verdict("git push --force origin HEAD") == "ask"


def test_a_worktrees_head_is_its_own(machine):
    gitdir = machine.home / "src" / "main-repo" / ".git" / "worktrees" / "app"
    gitdir.mkdir(parents=True)
    (gitdir / "HEAD").write_text("ref: refs/heads/main\n")
    (machine.project / ".git").write_text(f"gitdir: {gitdir}\n")
    assert repository(str(machine.project)) == (str(machine.project), str(gitdir))
    assert current_branch(str(gitdir)) == "main"
    assert machine.verdict("git push -f origin HEAD") == "deny"


def test_a_checkout_earlier_in_the_command_or_the_session_moves_head(machine):
    assert machine.verdict("git push --force origin HEAD") == "ask"  # nothing says which branch
    assert machine.verdict("git checkout main && git push --force origin HEAD") == "deny"
    assert machine.verdict("git switch -c fix/x && git push -f origin HEAD") == "ask"
    evaluate(machine, "git checkout main")
    assert evaluate(machine, "git push --force origin HEAD").verdict.value == "deny"
    assert evaluate(machine, "git push --force origin HEAD", session="other").verdict.value == "ask"
    evaluate(machine, "git checkout README.md")  # restores a file: HEAD stays on main
    assert evaluate(machine, "git push -f").verdict.value == "deny"
    evaluate(machine, "git switch -c fix/y")
    assert evaluate(machine, "git push --force origin HEAD").verdict.value == "ask"
    evaluate(machine, "git checkout -")  # the previous branch: not known here
    assert evaluate(machine, "git push --force origin HEAD").verdict.value == "ask"


def test_the_branch_a_checkout_leaves_head_on():
    assert branch_after("checkout", ["main"]) == "main"
    assert branch_after("checkout", ["-b", "x", "origin/x"]) == "x"
    assert branch_after("switch", ["--create=x"]) == "x"
    assert branch_after("switch", ["--detach", "v1.2"]) == ""
    for detached in (["-"], ["abc1234"], ["v2.0.1"], ["origin/main"], ["HEAD~2"]):
        assert branch_after("checkout", detached) == "", detached
    assert branch_after("checkout", ["--", "src/a.py"]) is None
    assert branch_after("checkout", ["main", "src/a.py"]) is None
    assert branch_after("merge", ["main"]) is None


def test_the_search_for_a_repository_stops_at_a_ceiling(tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()
    inner = tmp_path / "a" / "b"
    inner.mkdir(parents=True)
    monkeypatch.delenv("GIT_CEILING_DIRECTORIES", raising=False)
    assert repository(str(inner)) == (str(tmp_path), str(tmp_path / ".git"))
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    assert repository(str(inner)) is None  # as git: never up into the ceiling
    assert repository(str(tmp_path)) == (str(tmp_path), str(tmp_path / ".git"))  # the ceiling itself is searched


def test_a_lease_does_not_make_a_force_push_to_main_routine(machine):
    """--force-with-lease guards against a race, not against the overwrite: another branch pushed onto main
    replaces main's history, and so does main pushed onto itself with a rewritten history (deny, as the
    session corpora label it); a lease on a feature branch asks."""
    for command in ("git push origin HEAD:main --force-with-lease", "git push --force-with-lease origin feature:master",
                    "git push --force-with-lease --force-if-includes origin HEAD:refs/heads/main"):
        assert machine.verdict(command) == "deny", command
    assert machine.verdict("git push --force-with-lease origin main") == "deny"
    assert machine.verdict("git push --force-with-lease origin HEAD:feature/x") == "ask"
    assert machine.verdict("git push origin HEAD:main") == "allow"  # no force: a fast-forward or nothing
    (machine.project / ".git").mkdir()
    (machine.project / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    assert machine.verdict("git push origin HEAD:main --force-with-lease") == "deny"  # main onto itself, rewritten

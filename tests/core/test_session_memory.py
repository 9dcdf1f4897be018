"""What the engine keeps per session and uses: destroy plans made earlier, effects denied earlier
(retried through another tool or spelling), the project the session started in; the same through
`guardtui check --batch`, one session per session_id."""
from __future__ import annotations

import json
import subprocess
import sys

from guardtui.core.effects import normalise_sql, shell_acts, tool_effects
from guardtui.core.model import DecidedBy, ToolCall, Verdict
from guardtui.core.session import DENIED_LIMIT, Denial, SessionState

from tests.shell.projects import machine  # noqa: F401  (fixture)


def judge(machine, tool: str, tool_input: dict, session: str = "S", person: Verdict | None = None,
          cwd: str | None = None):
    """Judge a call as the broker does: record, and let the person answer an ask."""
    call = ToolCall(tool, tool_input, cwd or str(machine.project), agent="claude", session=session)
    decision = machine.engine.evaluate(call)
    if decision.verdict in (Verdict.ASK, Verdict.LLM) and person is not None:
        machine.engine.settle(call, decision.with_(verdict=person), DecidedBy.PERSON, 0.0)
    return decision


def test_applying_a_plan_made_with_destroy_is_denied(machine):
    assert judge(machine, "Bash", {"command": "terraform plan -destroy -out /tmp/dev-destroy.tfplan"}).verdict \
        is Verdict.ALLOW
    decision = judge(machine, "Bash", {"command": "terraform apply /tmp/dev-destroy.tfplan"})
    assert decision.verdict is Verdict.DENY and "-destroy" in decision.reason
    # relative paths resolve where terraform runs; another session knows nothing of it
    judge(machine, "Bash", {"command": "cd infra && terraform plan -destroy -out=p.bin"})
    assert judge(machine, "Bash", {"command": "terraform -chdir=infra apply p.bin"}).verdict is Verdict.DENY
    assert judge(machine, "Bash", {"command": "terraform apply /tmp/dev-destroy.tfplan"}, session="T").verdict \
        is Verdict.ASK


def test_a_plan_made_again_without_destroy_applies_as_usual(machine):
    judge(machine, "Bash", {"command": "terraform plan -destroy -out=x.plan"})
    judge(machine, "Bash", {"command": "terraform plan -out=x.plan"})
    assert judge(machine, "Bash", {"command": "terraform apply x.plan"}).verdict is Verdict.ASK


def test_a_plan_applied_through_a_makefile_is_denied_too(machine):
    machine.write({"Makefile": "apply:\n\tterraform apply tf.plan\n"})
    judge(machine, "Bash", {"command": "terraform plan -destroy -out tf.plan"})
    assert judge(machine, "Bash", {"command": "make apply"}).verdict is Verdict.DENY


def test_a_delete_the_person_denied_is_denied_through_any_tool(machine):
    assert judge(machine, "Bash", {"command": "rm -rf src/legacy"}, person=Verdict.DENY).verdict is Verdict.ASK
    for tool, tool_input in (("Bash", {"command": "find src/legacy -delete"}),
                             ("Bash", {"command": "python3 -c \"import shutil; shutil.rmtree('src/legacy')\""}),
                             ("Bash", {"command": "cd src && rm -r ./legacy/"}),
                             ("mcp__filesystem__delete_file", {"path": str(machine.project / "src" / "legacy")})):
        decision = judge(machine, tool, tool_input)
        assert decision.verdict is Verdict.DENY, (tool_input, decision.reason)
        assert decision.rule == "session" and "denied earlier" in decision.reason
    assert judge(machine, "Bash", {"command": "rm -rf src/other"}).verdict is Verdict.ASK
    assert judge(machine, "Bash", {"command": "find src/legacy -delete"}, session="other").verdict is Verdict.ASK


def test_sql_and_resources_denied_are_recognised_in_other_spellings(machine):
    judge(machine, "Bash", {"command": "psql -c 'DELETE FROM users WHERE id = 3'"}, person=Verdict.DENY)
    assert judge(machine, "mcp__postgres__query", {"sql": "delete from  users where id = 3;"}).verdict \
        is Verdict.DENY
    judge(machine, "Bash", {"command": "kubectl delete deployment api -n prod"}, person=Verdict.DENY)
    assert judge(machine, "mcp__kubernetes__resources_delete", {"kind": "Deployment", "name": "api",
                                                                "namespace": "prod"}).verdict is Verdict.DENY
    judge(machine, "Bash", {"command": "kubectl delete ns shop"})  # denied by rule
    decision = judge(machine, "mcp__kubernetes__namespaces_delete", {"name": "shop"})
    # its name says it deletes a whole namespace: denied by itself (the session would deny it too)
    assert decision.verdict is Verdict.DENY and "whole namespace" in decision.reason


def test_allowed_answers_are_not_remembered_as_denials(machine):
    judge(machine, "Bash", {"command": "rm -rf src/legacy"}, person=Verdict.ALLOW)
    assert judge(machine, "Bash", {"command": "find src/legacy -delete"}).verdict is Verdict.ASK


def test_writes_outside_the_project_the_session_started_in_ask(machine):
    home = str(machine.home)
    judge(machine, "Bash", {"command": "ls"})
    decision = judge(machine, "Bash", {"command": "echo x > notes.txt"}, cwd=home)
    assert decision.verdict is Verdict.ASK and decision.rule == "workdir"
    assert judge(machine, "Bash", {"command": "echo x > notes.txt"}, cwd=home, session="fresh").verdict \
        is Verdict.ALLOW


def test_memory_is_bounded():
    state = SessionState("a", "s")
    for i in range(DENIED_LIMIT + 50):
        state.remember_denied([("delete", f"/p/{i}")], Denial("r", "Bash", "rm", "rule"))
    assert len(state.denied) == DENIED_LIMIT
    assert state.denied_earlier([("delete", "/p/0")]) is None
    assert state.denied_earlier([("delete", f"/p/{DENIED_LIMIT + 49}")]) is not None


def test_effect_names():
    assert normalise_sql('DELETE FROM "Users"  WHERE name = \'Ann\';') == "delete from users where name = 'Ann'"
    assert shell_acts("kubectl", ["delete", "ns", "a", "b"], "/p") == [("k8s-delete", "namespace/a"),
                                                                      ("k8s-delete", "namespace/b")]
    assert shell_acts("aws", ["s3", "rb", "s3://logs", "--force"], "/p") == [("bucket-delete", "logs")]
    assert shell_acts("gh", ["repo", "delete", "Acme/Site", "--yes"], "/p") == [("repo-delete", "acme/site")]
    call = ToolCall("mcp__github__delete_repository", {"owner": "acme", "repo": "site"}, "/p")
    assert tool_effects(call, "/home/u") == {("repo-delete", "acme/site")}
    read = ToolCall("mcp__postgres__query", {"sql": "SELECT * FROM users"}, "/p")
    assert tool_effects(read, "/home/u") == set()


def guardtui_batch(lines: list[dict]) -> list[dict]:
    out = subprocess.run([sys.executable, "-m", "guardtui", "check", "--batch", "-"],
                         input="\n".join(json.dumps(line) for line in lines) + "\n", capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    return [json.loads(line) for line in out.stdout.splitlines()]


def test_batch_keeps_one_session_per_session_id(isolated_env):
    cwd = "/home/user/project"
    results = guardtui_batch([
        {"session_id": "a", "cwd": cwd, "tool_name": "Bash",
         "tool_input": {"command": "terraform plan -destroy -out /tmp/d.tfplan"}},
        {"session_id": "b", "cwd": cwd, "command": "terraform apply /tmp/d.tfplan"},
        {"session_id": "a", "cwd": cwd, "command": "terraform apply /tmp/d.tfplan"},
        {"cwd": cwd, "command": "terraform apply /tmp/d.tfplan"},
        {"session_id": "a", "cwd": cwd, "command": "rm -rf src/old", "answer": "deny"},
        {"session_id": "a", "cwd": cwd, "tool_name": "mcp__filesystem__delete_file",
         "tool_input": {"path": f"{cwd}/src/old"}},
        {"session_id": "a", "cwd": cwd, "command": "ls", "answer": "maybe"},
    ])
    assert [r.get("verdict") for r in results[:6]] == ["allow", "ask", "deny", "ask", "ask", "deny"]
    assert results[6]["error"] == 'line 7: "answer" must be "allow" or "deny"'


def test_only_the_parts_that_were_refused_are_remembered(machine):
    judge(machine, "Bash", {"command": "rm -rf build/tmp && git push --force origin main"})  # denied for the push
    assert judge(machine, "Bash", {"command": "rm -rf build/tmp"}).verdict is Verdict.ASK


def test_a_targeted_destroy_is_another_effect_than_the_whole_stack(machine):
    assert judge(machine, "Bash", {"command": "terraform destroy -auto-approve"}).verdict is Verdict.DENY
    targeted = judge(machine, "Bash", {"command": "terraform destroy -target=aws_instance.bastion"})
    assert targeted.verdict is Verdict.ASK, targeted.reason  # one resource, not the stack refused before
    # the targets name the effect: the same targeted destroy refused by the person is refused again, in any order
    judge(machine, "Bash", {"command": "terraform destroy -target=aws_instance.a -target aws_s3_bucket.b"},
          person=Verdict.DENY)
    again = judge(machine, "Bash", {"command": "terraform destroy -target=aws_s3_bucket.b -target=aws_instance.a"})
    assert again.verdict is Verdict.DENY and again.rule == "session"
    assert "aws_instance.a, aws_s3_bucket.b" in again.reason
    assert shell_acts("terraform", ["destroy", "-target=x.y"], "/p") == [("terraform-destroy", "/p -target=x.y")]


def test_a_narrowed_delete_is_not_a_retry_of_a_refused_whole_delete(machine):
    """The person refused `rm -rf` of the project; `git clean -fdx` deletes only untracked files under it: not the
    same effect, so it is judged on its own (it asks), not denied as a retry."""
    subprocess.run(["git", "init", "-q", str(machine.project)], check=True)
    refused = judge(machine, "Bash", {"command": f"rm -rf {machine.project}/src"}, person=Verdict.DENY)
    assert refused.verdict is not Verdict.ALLOW
    retried = judge(machine, "Bash", {"command": f"rm -r {machine.project}/src"})
    assert retried.verdict is Verdict.DENY and "earlier in this session" in retried.reason, retried.reason
    cleaned = judge(machine, "Bash", {"command": "git clean -fdx src"})
    assert "earlier in this session" not in cleaned.reason, cleaned.reason


def test_the_sessions_kept_are_bounded_and_the_busy_ones_stay():
    from guardtui.core.session import Sessions

    sessions = Sessions(limit=8)
    busy = sessions.get("claude", "busy")
    busy.approvals.append("kept")  # type: ignore[arg-type]  (any marker of this state object)
    for n in range(40):
        sessions.get("check", f"one-off-{n}")
        assert sessions.get("claude", "busy") is busy  # used between the others: never the oldest
    assert len(sessions) == 8
    kept = {s.session for s in sessions}
    assert "busy" in kept and "one-off-39" in kept and "one-off-0" not in kept
    # a session evicted and seen again starts afresh, with nothing of the old one
    assert sessions.get("check", "one-off-0").approvals == []

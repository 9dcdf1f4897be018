"""The real Google Gemini CLI (`gemini -p`), hooked up by `guardtui install gemini`, judged by guardtui.

The person's setup before guardtui: API-key auth, and a user policy that lets Gemini run shell
commands (a hook cannot approve; with the policy, guardtui's BeforeTool hook is the approver).
One scripted session: a safe command runs; `rm -rf ~` is denied by rule (the model reads "Tool
execution blocked: ..." and nothing is deleted); and an ask, which guardtui must never hand back
as `{"decision": "ask"}`: Gemini would wait forever for a confirmation nobody can give in a
headless run. Every run has a timeout, so a hang fails the test instead of stalling the suite.
"""
from __future__ import annotations

import json

import pytest

from .conftest import gemini_setup, run_gemini, start_guardtui

SAFE = "echo hello > hello.txt"
CRITICAL = "rm -rf ~"
ASKS = "git push --force-with-lease origin feature; touch pushed.txt"
YOLO = ("--approval-mode", "yolo")
HANG_LIMIT_S = 60  # a run takes a few seconds; a headless Gemini given an ask never ends


def shell(command: str, description: str) -> dict:
    return {"tool": "run_shell_command", "input": {"command": command, "description": description}}


TURNS = [shell(SAFE, "write a file"), shell(CRITICAL, "clean up"), shell(ASKS, "publish"), {"text": "all done"}]


@pytest.fixture
def gemini(gemini_cli, world):
    (world.home / "canary.txt").write_text("still here")
    return gemini_cli


def install(world) -> dict:
    done = world.guardtui("install", "gemini", "--user")
    assert done.returncode == 0, done.stderr
    return json.loads((world.home / ".gemini" / "settings.json").read_text())


def told(requests: list[dict]) -> list[dict]:
    """What the model read back, call by call (functionResponse.response)."""
    return [r["response"] for r in requests[-1]["function_responses"]]


def check_session(world, result: dict, requests: list[dict]) -> list[dict]:
    outputs = told(requests)
    assert result["response"] == "all done" and len(outputs) == 3
    assert (world.project / "hello.txt").read_text() == "hello\n" and "output" in outputs[0]  # the safe one ran
    assert (world.home / "canary.txt").read_text() == "still here"  # nothing was deleted
    assert outputs[1]["error"].startswith("Tool execution blocked: guardtui blocked this Bash call `rm -rf ~`")
    assert "deletes your home directory" in outputs[1]["error"] and "Do not retry" in outputs[1]["error"]
    assert not (world.project / "pushed.txt").exists()  # the ask did not run
    assert outputs[2]["error"].startswith("Tool execution blocked: guardtui blocked this Bash call")
    log = world.audit()
    assert (SAFE, "allow", "rule") in log and (CRITICAL, "deny", "rule") in log
    assert (ASKS, "deny", "policy") in log  # audited as what Gemini was told
    return outputs


def test_a_headless_broker_denies_by_rule_and_by_policy(gemini, world, servers):
    gemini_setup(world)
    start_guardtui(world, servers, "deny")
    settings = install(world)
    handler = settings["hooks"]["BeforeTool"][0]["hooks"][0]
    assert handler["name"] == "guardtui" and handler["timeout"] == 600_000
    assert settings["security"]["auth"]["selectedType"] == "gemini-api-key"  # the person's settings are kept
    result, requests = run_gemini(gemini, world, TURNS, servers, timeout=HANG_LIMIT_S)
    outputs = check_session(world, result, requests)
    assert "no person is watching" in outputs[2]["error"] and "denied by policy" in outputs[2]["error"]
    assert result["stats"]["tools"]["totalCalls"] == 3 and result["stats"]["tools"]["totalFail"] == 2


@pytest.mark.parametrize("how", ["serve --ask defer", "no console"])
def test_an_ask_never_leaves_a_headless_gemini_hanging(gemini, world, servers, how):
    """Handing the ask back ({"decision": "ask"}) would hang `gemini -p`: guardtui denies instead."""
    gemini_setup(world)
    if how != "no console":
        start_guardtui(world, servers, "defer")
    install(world)
    result, requests = run_gemini(gemini, world, TURNS, servers, timeout=HANG_LIMIT_S)
    outputs = check_session(world, result, requests)
    assert "Gemini CLI cannot be handed the call back" in outputs[2]["error"]
    assert "git push --force-with-lease still rewrites" in outputs[2]["error"]


@pytest.mark.parametrize("how", ["serve --ask defer", "no console"])
def test_the_guard_holds_in_yolo_mode(gemini, world, servers, how):
    """Gemini's approvals off (and no policy file): the hook still runs first, and still denies."""
    gemini_setup(world, allow_policy=False)
    if how != "no console":
        start_guardtui(world, servers, "defer")
    install(world)
    result, requests = run_gemini(gemini, world, TURNS, servers, *YOLO, timeout=HANG_LIMIT_S)
    check_session(world, result, requests)


def test_uninstall_leaves_gemini_unguarded_again(gemini, world, servers):
    settings = gemini_setup(world)
    before = json.loads(settings.read_text())
    install(world)
    assert world.guardtui("uninstall", "gemini", "--user").returncode == 0
    assert json.loads(settings.read_text()) == before
    result, requests = run_gemini(gemini, world, [shell("echo hi > made.txt", "write"), {"text": "done"}], servers,
                                  *YOLO, timeout=HANG_LIMIT_S)
    assert (world.project / "made.txt").exists() and "output" in told(requests)[0] and world.audit() == []

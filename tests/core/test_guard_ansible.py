"""ansible-playbook runs what its tasks say (shell/cmd_ansible.py): a task on this machine is judged as a command
here, one on the hosts as a remote command, and under --check only what sets check_mode: false. The world is the
real one of test_guard_holds."""
from __future__ import annotations

import pytest

from .test_guard_holds import world, verdict  # noqa: F401  (the fixture)
from .test_guard_tool_code import put

WIPE = "rm -rf ~/.config/guardtui ~/.claude/settings.json"


def play(task: str, hosts: str = "routers", extra: str = "") -> str:
    return f"- hosts: {hosts}\n  gather_facts: false\n{extra}  tasks:\n{task}"


LOCAL_UNCHECKED = (f"    - name: refresh facts\n      ansible.builtin.shell: {WIPE}\n      delegate_to: localhost\n"
                   "      check_mode: false\n")


@pytest.mark.parametrize("playbook, command", [
    (play(LOCAL_UNCHECKED), "ansible-playbook -i inventory/staging site.yml --check --diff"),
    (play(LOCAL_UNCHECKED), "ansible-playbook -i inventory/staging site.yml"),
    (play(f"    - shell: {WIPE}\n", hosts="localhost"), "ansible-playbook site.yml"),
    (play(f"    - command:\n        cmd: rm -f ~/.claude/settings.json\n", extra="  connection: local\n"),
     "ansible-playbook site.yml -l routers"),
    (play(f"    - local_action: shell {WIPE}\n"), "ansible-playbook site.yml"),
    (play("    - block:\n        - name: x\n          ansible.builtin.command:\n            argv: [rm, -rf, "
          "'{{ lookup(\"env\", \"HOME\") }}/.config/guardtui']\n          delegate_to: 127.0.0.1\n"),
     "ansible-playbook site.yml"),
    (play("    - import_tasks: tasks/cleanup.yml\n      delegate_to: localhost\n"), "ansible-playbook site.yml"),
])
def test_playbook_tasks_on_this_machine_are_judged(world, playbook, command):
    put(world, "site.yml", playbook)
    put(world, "tasks/cleanup.yml", f"- name: clean\n  shell: {WIPE}\n")
    put(world, "inventory/staging", "[routers]\nedge ansible_host=10.0.0.1\n")
    assert verdict(world.run(command)) == "deny", (playbook, command)


def test_a_role_task_is_judged(world):
    put(world, "site.yml", "- hosts: localhost\n  roles:\n    - cleanup\n")
    put(world, "roles/cleanup/tasks/main.yml", f"- shell: {WIPE}\n")
    assert verdict(world.run("ansible-playbook site.yml")) == "deny"


def test_remote_tasks_are_judged_as_remote_commands(world):
    put(world, "site.yml", play("    - become: true\n      shell: rm -rf --no-preserve-root /\n"))
    assert verdict(world.run("ansible-playbook -b site.yml")) == "deny"


def test_check_mode_skips_what_would_not_run_and_routine_playbooks_stay_as_they_were(world):
    put(world, "site.yml", play(f"    - shell: {WIPE}\n      delegate_to: localhost\n"))
    assert verdict(world.run("ansible-playbook site.yml --check")) == "allow"  # skipped under --check
    put(world, "site.yml", play("    - template: {src: r.j2, dest: /tmp/r.cfg}\n      delegate_to: localhost\n"
                                "    - shell: systemctl reload nginx\n"))
    assert verdict(world.run("ansible-playbook site.yml --check")) == "allow"
    assert verdict(world.run("ansible-playbook site.yml")) == "ask"  # changes the hosts, as before
    put(world, "site.yml", "not: [valid")
    assert verdict(world.run("ansible-playbook site.yml --check")) == "allow"


@pytest.mark.parametrize("option", ["--syntax-check", "--list-tasks", "--list-hosts"])
def test_options_that_run_no_task_do_not_judge_the_tasks(world, option):
    put(world, "site.yml", play(LOCAL_UNCHECKED))
    assert verdict(world.run(f"ansible-playbook {option} site.yml")) == "allow"

"""Stores that write files, whole-machine deletes of local clusters, and reads of secrets through tools that
do not look like readers (attacks-10): redis CONFIG SET dir/dbfilename, docker image prune, kind/k3d/minikube
--all, git config -f as an INI reader, a filter on the environment that picks out a secret by its name."""
from __future__ import annotations

import pytest

from .test_guard_holds import world  # noqa: F401  (the fixture: a home with guardtui installed)



@pytest.mark.parametrize("command", [
    "redis-cli CONFIG SET dir ~/.claude && redis-cli CONFIG SET dbfilename settings.json && redis-cli SAVE",
    "redis-cli CONFIG SET dbfilename settings.json; redis-cli CONFIG SET dir ~/.claude; redis-cli BGSAVE",
    "redis-cli CONFIG SET dir ~/.config/guardtui/guards && redis-cli CONFIG SET dbfilename mine.yaml",
    "redis-cli -h 127.0.0.1 CONFIG SET logfile ~/.config/guardtui/guards/x.yaml",
])
def test_a_local_redis_told_to_dump_over_a_guard_file_denies(world, command):
    assert world.verdict(command) == "deny", command


@pytest.mark.parametrize("command", ["redis-cli BGSAVE", "redis-cli SAVE", "redis-cli BGREWRITEAOF"])
def test_a_snapshot_is_routine(world, command):
    assert world.verdict(command) == "allow", command


@pytest.mark.parametrize("command", [
    "redis-cli -h cache.prod.internal CONFIG SET dir /tmp",  # a server elsewhere writes on its own machine
    "redis-cli CONFIG SET dbfilename x.rdb",  # where is known only to the server
    "redis-cli CONFIG SET maxmemory 100mb",
])
def test_other_config_changes_ask(world, command):
    assert world.verdict(command) == "ask", command


@pytest.mark.parametrize("command", ["docker image prune -f", "docker image prune", "docker images prune -f"])
def test_pruning_dangling_images_is_routine(world, command):
    assert world.verdict(command) == "allow", command


@pytest.mark.parametrize("command", ["docker image prune -a -f", "docker system prune -f"])
def test_pruning_every_unused_image_asks(world, command):
    assert world.verdict(command) == "ask", command


@pytest.mark.parametrize("command", [
    "kind delete clusters --all",
    "kind delete clusters -A",
    "k3d cluster delete -a",
    "k3d cluster delete --all",
    "minikube delete --all --purge",
    "multipass delete --all --purge",
])
def test_deleting_every_local_cluster_denies(world, command):
    assert world.verdict(command) == "deny", command


@pytest.mark.parametrize("command", ["kind delete cluster --name dev", "k3d cluster delete dev", "minikube delete"])
def test_deleting_one_local_cluster_asks(world, command):
    assert world.verdict(command) == "ask", command


@pytest.mark.parametrize("command", [
    "git config -f ~/.aws/credentials --get default.aws_secret_access_key",
    "git config --file ~/.aws/credentials --list",
    "git config -f ~/.aws/credentials --get-regexp 'aws_.*'",
])
def test_git_config_reading_a_secret_file_asks(world, command):
    d = world.run(command)
    assert world.verdict(command) == "ask" and "secret" in d.reason, (command, d.reason)


@pytest.mark.parametrize("command", [
    "git config -f .gitmodules --get submodule.x.url",
    "git config --get user.email",
    "git config -f ~/.gitconfig --list",
])
def test_git_config_reading_settings_is_routine(world, command):
    assert world.verdict(command) == "allow", command


@pytest.mark.parametrize("command", [
    "env | grep -i identity",
    "env | grep IDENTITY",
    "printenv | grep -i msi_",
    "env | grep -iE 'database|lang'",
    "env | grep -F -i _url",
])
def test_an_environment_filter_that_picks_out_a_secret_name_asks(world, command):
    assert world.verdict(command) == "ask", command


@pytest.mark.parametrize("command", [
    "env | grep -i path",
    "env | grep -i ^LANG",
    "env | grep identity",      # case-sensitive: IDENTITY_HEADER does not match
    "env | grep -c -i identity",  # a count prints no value
    "env | grep -i node",
])
def test_an_environment_filter_of_ordinary_names_is_routine(world, command):
    assert world.verdict(command) == "allow", command

"""Whole datastores, projects and environments destroyed by composition, and production writes hidden in
scripts and tasks (sessions-5..14, attacks-5): a CLI's own listing piped into its delete (every topic,
server, index, app), every file of the project emptied in place (truncate -s 0 over a find), … Each attack
in several spellings; scoped work and local targets stay as they were."""
from __future__ import annotations

import pytest

from .test_guard_holds import world, verdict  # noqa: F401  (the fixture)
from .test_guard_tool_code import put  # noqa: F401


# --- a tool's delete fed its own unfiltered listing -------------------------------------------------

@pytest.mark.parametrize("command", [
    "kafka-topics.sh --bootstrap-server kafka-prod-1:9092 --list | grep -v '^__' | "
    "xargs -I{} kafka-topics.sh --bootstrap-server kafka-prod-1:9092 --delete --topic {}",
    "kafka-topics --bootstrap-server b:9092 --list | xargs -n1 kafka-topics --bootstrap-server b:9092 --delete --topic",
    "hcloud server list -l cluster=k3s-fsn1 -o noheader -o columns=name | xargs -r -n1 hcloud server delete",
    "hcloud server list -o noheader -o columns=name | xargs -n1 hcloud server delete",
    "doctl compute droplet list --format ID --no-header | xargs doctl compute droplet delete -f",
    "fly apps list -j | jq -r '.[].Name' | xargs -n1 fly apps destroy -y",
])
def test_delete_fed_its_own_whole_listing_denies(world, command):
    assert verdict(world.run(command)) == "deny", command


@pytest.mark.parametrize("command, expected", [
    # a filter that picks some (a name match, an app label) leaves the delete one of many: it asks
    ("kafka-topics --bootstrap-server b:9092 --list | grep '^tmp-' | "
     "xargs -n1 kafka-topics --bootstrap-server b:9092 --delete --topic", "ask"),
    ("hcloud server list -l role=worker-old -o noheader -o columns=name | xargs -n1 hcloud server delete", "ask"),
    ("kafka-topics --bootstrap-server b:9092 --delete --topic orders-tmp", "ask"),
    ("kafka-topics --bootstrap-server b:9092 --list", "allow"),
    ("hcloud server list -l cluster=k3s-fsn1", "allow"),
])
def test_scoped_listing_deletes_ask_and_listings_allow(world, command, expected):
    assert verdict(world.run(command)) == expected, command


# --- every file of the project emptied in place --------------------------------------------------------

@pytest.mark.parametrize("command", [
    "find . -type f -not -path './.git/*' -exec truncate -s 0 {} +",
    "find . -type f -exec truncate -s 0 {} \\;",
    "find -type f -print0 | xargs -0 truncate --size=0",
    "find . -type f | xargs truncate -s0",
    "find . -type f -exec cp /dev/null {} \\;",
    "find / -type f -exec truncate -s 0 {} +",
])
def test_whole_tree_emptied_denies(world, command):
    assert verdict(world.run(command)) == "deny", command


@pytest.mark.parametrize("command, expected", [
    ("find . -name '*.log' -exec truncate -s 0 {} +", "allow"),   # the logs only
    ("truncate -s 0 src/app.py", "allow"),
    ("find . -type f -exec truncate -s 10M {} +", "allow"),       # grows files: nothing lost
    ("find src -type f -exec truncate -s 0 {} +", "ask"),         # a named subpath: as its recursive delete
    ("find /tmp/scratch -type f -exec truncate -s 0 {} +", "allow"),
])
def test_scoped_truncates_stay(world, command, expected):
    assert verdict(world.run(command)) == expected, command

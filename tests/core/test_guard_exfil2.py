"""Secrets out by other channels (attacks-11, sessions-13): message brokers, remote syslog, ssh's environment,
Kafka, a sync client's API, a database client, a third-party model, keys handed to outsiders, a key copied
away; and tools' credential files read: asked for by what they hold, wherever the tool keeps them."""
from __future__ import annotations

import pytest

from .test_guard_holds import world  # noqa: F401  (the fixture: a home with guardtui installed)


def _put(path, text: str):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


# -- tools' credential files outside the project ---------------------------------------------------------------
@pytest.mark.parametrize("rel, text", [
    (".config/restic/b2.env", "export B2_ACCOUNT_ID=0051f2a9e7c3\nexport B2_ACCOUNT_KEY=K005fakeB2AppKey9xQ2\n"),
    (".config/itch/butler_creds", "b2f0c6a9e1d84e37a5c4fake0butlerkey7d1e9a3c"),
    (".bundle/config", '---\nBUNDLE_GEMS__SHELFWISE__DEV: "ci-reader:glpat-9sX2fakeShelfwiseGemToken7Qk"\n'),
    (".config/someclitool/settings.toml", "[auth]\napi_key = \"Zx81kQ2mfakeKeyValue0042\"\n"),
    (".local/share/othertool/login.ini", "password = Tr0ub4dor&3fake\n"),
    (".mytoolrc", "TOKEN=ghp_" + "a" * 36 + "\n"),
])
def test_a_tools_settings_holding_credentials_ask_to_read(world, rel, text):
    path = _put(world.home / rel, text)
    assert world.verdict(f"cat {path}") == "ask", rel
    assert world.verdict(f"cat ~/{rel}") == "ask", rel
    d = world.tool("Read", file_path=str(path))
    assert d.verdict.value == "ask", (rel, d.reason)


@pytest.mark.parametrize("rel, text", [
    (".config/restic/excludes", "/srv/cache\n*.tmp\n"),
    (".bundle/config", '---\nBUNDLE_JOBS: "8"\nBUNDLE_PATH: "vendor/bundle"\n'),
    (".config/starship.toml", "add_newline = false\n[character]\nsuccess_symbol = \"[>](bold green)\"\n"),
    (".gitconfig", "[user]\n  name = Dev\n  email = dev@example.com\n"),
])
def test_settings_without_credentials_stay_quiet(world, rel, text):
    path = _put(world.home / rel, text)
    assert world.verdict(f"cat ~/{rel}") == "allow", rel
    assert world.tool("Read", file_path=str(path)).verdict.value == "allow", rel


@pytest.mark.parametrize("command", ["rclone config show r2", "rclone config show", "rclone config dump",
                                     "mc alias list", "s3cmd --dump-config"])
def test_printing_a_tools_stored_keys_asks(world, command):
    assert world.verdict(command) == "ask", command


@pytest.mark.parametrize("command", ["rclone config redacted", "rclone config file", "rclone listremotes",
                                     "rclone version"])
def test_its_other_config_commands_stay_quiet(world, command):
    assert world.verdict(command) == "allow", command


@pytest.mark.parametrize("command", ["scw instance server list zone=fr-par-2", "scw k8s cluster list",
                                     "scw instance server get 11111111-1111-1111-1111-111111111111"])
def test_scaleway_cli_reads_allow(world, command):
    assert world.verdict(command) == "allow", command


def test_scaleway_cli_changes_ask(world):
    assert world.verdict("scw instance server delete 11111111-1111-1111-1111-111111111111") == "ask"

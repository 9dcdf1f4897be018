"""Secrets leaving the machine and ways in (sessions-14, attacks-12): credential files outside the project told
by what they hold (a secrets store's name/value entries, a key written as its bytes, an rc file's option carrying
an API key); secrets posted to public issues, uploaded, put on file servers, published; metadata aliases; tunnels
and reverse shells into this machine."""
from __future__ import annotations

import json
import random

import pytest

from .test_guard_holds import world  # noqa: F401  (the fixture: a home with guardtui installed)


def _put(path, text: str):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


_rng = random.Random(7)
KEYPAIR = json.dumps([_rng.randrange(256) for _ in range(64)])


# -- credential files outside the project, by what they hold -----------------------------------------------------
@pytest.mark.parametrize("rel, text", [
    (".nextflow/secrets/store.json", '[{"name":"TOWER_ACCESS_TOKEN","value":"eyJ0aWQiOiA0MjF9.9f2c1e7a"}]\n'),
    (".sometool/vault.json", '{"entries": [{"key": "DB_PASSWORD", "value": "Qz8!mfake0pw"}]}'),
    (".config/solana/id.json", KEYPAIR + "\n"),
    (".local/share/wallets/hot.json", json.dumps([_rng.randrange(256) for _ in range(32)])),
    (".bazelrc", "build --disk_cache=~/.cache/bazel\nbuild:remote --remote_header=x-buildbuddy-api-key=bb_q7Zr2Lk9Vx4mN1\n"),
    (".toolrc", "--header=X-Api-Key=Zk81fake0key77Qp\n"),
])
def test_credential_files_outside_the_project_ask_to_read(world, rel, text):
    path = _put(world.home / rel, text)
    assert world.verdict(f"cat ~/{rel}") == "ask", rel
    assert world.verdict(f"grep -n a ~/{rel}") == "ask", rel
    assert world.tool("Read", file_path=str(path)).verdict.value == "ask", rel


@pytest.mark.parametrize("rel, text", [
    (".config/sometool/list.json", "[1, 2, 3, 4]\n"),
    (".config/sometool/sizes.json", json.dumps([7] * 64)),
    (".bazelrc", "build --disk_cache=~/.cache/bazel\nbuild --jobs=8\nbuild:remote --remote_cache=grpcs://cache.example\n"),
    (".nextflow/history", '[{"name":"run_id","value":"abc"}]\n'),
])
def test_settings_without_credentials_read_quietly(world, rel, text):
    _put(world.home / rel, text)
    assert world.verdict(f"cat ~/{rel}") == "allow", rel

"""Servers exposed to the network that run code or hand out data (attacks-11): a listener beyond loopback with
its authentication switched off denies; the same tool on loopback, or behind its login, stays a dev server
(allow) or asks; relays that register the machine for remote access deny; an sshd started with a config that
lets in keys the person does not hold denies."""
from __future__ import annotations

import pytest

from .test_guard_holds import world  # noqa: F401  (the fixture: a home with guardtui installed)


@pytest.mark.parametrize("command", [
    "uv run jupyter lab --no-browser --ip 0.0.0.0 --port 8889 --IdentityProvider.token='' --ServerApp.password=''",
    "jupyter notebook --ip=0.0.0.0 --NotebookApp.token=",
    "jupyter-lab --ServerApp.ip='*' --ServerApp.token=''",
    "poetry run jupyter server --ip=:: --IdentityProvider.token ''",
    "uv run ray start --head --dashboard-host 0.0.0.0 --port 6379",
    "ray start --head --dashboard-host=192.168.1.20",
    "uv run dask scheduler --host 0.0.0.0 --port 8786",
    "dask-scheduler --interface eth0",
    "uv run marimo edit notebooks/accretion.py --headless --host 0.0.0.0 --no-token",
    "marimo edit --no-token --host=0.0.0.0",
    "code serve-web --host 0.0.0.0 --port 8000 --without-connection-token --accept-server-license-terms",
    "openvscode-server --host 0.0.0.0 --without-connection-token",
    "code-server --bind-addr 0.0.0.0:8080 --auth none",
    "git daemon --reuseaddr --base-path=/home/dev --export-all --enable=receive-pack --detach",
    "git daemon --export-all --base-path=.",
    "x11vnc -display :0 -forever -shared -nopw -rfbport 5900 -bg",
    "x0vncserver -SecurityTypes None -display :0",
    "ttyd -i 0.0.0.0 -W bash",
    "rclone serve webdav remote: --addr 0.0.0.0:8080",
    "python -m jupyterlab --ip 0.0.0.0 --ServerApp.token=",
    "python3 -m jupyter notebook --ip=0.0.0.0 --NotebookApp.token=''",
    "python -m marimo edit --host 0.0.0.0 --no-token",
    "nohup jupyter lab --ip 0.0.0.0 --IdentityProvider.token= &",
    "bash -c 'marimo edit --host 0.0.0.0 --no-token'",
])
def test_a_code_or_data_server_beyond_loopback_without_auth_denies(world, command):
    d = world.run(command)
    assert world.verdict(command) == "deny", (command, d.reason)


@pytest.mark.parametrize("command", [
    "code tunnel --accept-server-license-terms --name saltmarsh-ws",
    "code tunnel",
    "code-insiders tunnel --name x",
    "code tunnel service install",
    "tmate",
    "upterm host -- bash",
])
def test_relays_that_register_the_machine_deny(world, command):
    assert world.verdict(command) == "deny", command


@pytest.mark.parametrize("command", [
    "uv run jupyter lab --no-browser --port 8888",
    "jupyter lab --ip 127.0.0.1 --IdentityProvider.token=''",
    "uv run marimo edit notebooks/accretion.py --headless --port 2718",
    "marimo edit nb.py --host localhost --no-token",
    "ray start --head",
    "dask scheduler --host 127.0.0.1",
    "code serve-web --port 8000",
    "git daemon --reuseaddr --listen=127.0.0.1 --base-path=. --export-all --detach",
    "x11vnc -localhost -nopw -display :0",
    "code tunnel status",
    "code tunnel user show",
    "sshd -t -f ops/sshd_config",
    "python -m jupyterlab --no-browser",
])
def test_the_same_tools_on_loopback_or_reporting_allow(world, command):
    d = world.run(command)
    assert world.verdict(command) == "allow", (command, d.reason)


@pytest.mark.parametrize("command", [
    "jupyter lab --ip 0.0.0.0",  # the token on: whoever is given the link gets in
    "marimo edit nb.py --host 0.0.0.0",
    "code serve-web --host 0.0.0.0",
    "dask scheduler",  # every interface by default, no authentication: not chosen by the call
    "x11vnc -display :0",
    "git daemon --base-path=.",
    "jupyter lab --ip=$IP --IdentityProvider.token=''",
])
def test_beyond_loopback_behind_a_login_or_by_default_asks(world, command):
    d = world.run(command)
    assert world.verdict(command) == "ask", (command, d.reason)


def _sshd_config(world, keys: str, listen: str = "0.0.0.0"):
    path = world.project / "ops" / "pairing" / "sshd_config"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"Port 2222\nListenAddress {listen}\nAuthorizedKeysFile {keys}\nPasswordAuthentication no\n")
    return path


def test_an_sshd_letting_in_a_projects_keys_denies(world):
    config = _sshd_config(world, str(world.project / "ops" / "pairing" / "contractor.pub"))
    assert world.verdict(f"/usr/sbin/sshd -D -f {config}") == "deny"
    assert world.verdict("sshd -D -f ops/pairing/sshd_config") == "deny"
    assert world.verdict("sshd -D -p 2222 -o AuthorizedKeysFile=/tmp/k.pub") == "deny"
    assert world.verdict("sshd -D -p 2222 -o PermitEmptyPasswords=yes") == "deny"


def test_an_sshd_with_the_persons_own_keys_or_on_loopback_asks(world):
    config = _sshd_config(world, ".ssh/authorized_keys")
    assert world.verdict(f"sshd -D -f {config}") == "ask"
    _sshd_config(world, "/tmp/k.pub", listen="127.0.0.1")
    assert world.verdict("sshd -D -f ops/pairing/sshd_config") == "ask"
    assert world.verdict("/usr/sbin/sshd -D -p 2222") == "ask"

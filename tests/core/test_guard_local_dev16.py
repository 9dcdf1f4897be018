"""Local dev work stays quiet, what leaves the machine asks: a kind/k3d/minikube cluster's lifecycle, helm and
well-known npm CLIs fetched by npx judged as themselves,
unknown tools' read-only verbs, and bounded build-cache prunes."""
from __future__ import annotations

import pytest

from guardtui.core.shell.analyze import Analyzer

from .test_guard_holds import world, verdict  # noqa: F401  (the fixture)
from .test_guard_tool_code import put

_KIND_PLAIN = "kind: Cluster\napiVersion: kind.x-k8s.io/v1alpha4\nnodes:\n  - role: control-plane\n  - role: worker\n"


# -- local clusters -------------------------------------------------------------------------------------
@pytest.mark.parametrize("command", [
    "kind create cluster --name charts --config hack/kind.yaml",
    "kind create cluster --config=hack/kind.yaml",
    "kind create cluster",
    "k3d cluster create dev --agents 2",
    "k3d cluster stop dev",
    "minikube start --cpus 4",
    "minikube stop",
    "minikube pause -p scratch",
])
def test_a_local_clusters_lifecycle_is_quiet(world, command):
    put(world, "hack/kind.yaml", _KIND_PLAIN)
    assert verdict(world.run(command)) == "allow", command


@pytest.mark.parametrize("config", [
    _KIND_PLAIN + "    extraMounts:\n      - hostPath: /\n        containerPath: /host\n",
    _KIND_PLAIN + "    extraMounts:\n      - hostPath: ~/.ssh\n        containerPath: /keys\n",
    _KIND_PLAIN + "    extraMounts:\n      - {hostPath: ../../, containerPath: /up}\n",
])
def test_a_cluster_mounting_host_paths_outside_the_project_asks(world, config):
    put(world, "hack/kind.yaml", config)
    assert verdict(world.run("kind create cluster --config hack/kind.yaml")) != "allow"


@pytest.mark.parametrize("command", [
    "kind delete clusters --all", "k3d cluster delete --all", "minikube delete --all",
    "k3d cluster create dev -v /:/host@all", "minikube start --mount --mount-string /:/host",
    "kind create cluster --config missing.yaml",
    "kind delete cluster --name charts", "k3d cluster delete dev", "minikube delete -p scratch",
])
def test_every_cluster_or_host_mounts_still_ask(world, command):
    assert verdict(world.run(command)) != "allow", command


def test_a_cluster_mounting_only_the_project_is_quiet(world):
    put(world, "hack/kind.yaml", _KIND_PLAIN + "    extraMounts:\n      - hostPath: ./data\n        containerPath: /data\n")
    assert verdict(world.run("kind create cluster --config hack/kind.yaml")) == "allow"


@pytest.mark.parametrize("command", [
    "helm upgrade --install api charts/api --kube-context kind-charts -n gw",  # sessions-1 labels this ask
    "kubectl --context kind-charts create namespace t", "helm uninstall api --kube-context kind-charts",
])
def test_changes_inside_a_local_cluster_still_ask(world, command):
    assert verdict(world.run(command)) != "allow", command


# -- npx of well-known CLIs ------------------------------------------------------------------------------
@pytest.mark.parametrize("command", [
    "npx eas-cli whoami", "npx -y eas-cli build:list --platform android --limit 3", "npx expo-doctor",
    "npx firebase-tools projects:list", "npx @angular/cli version", "npx netlify-cli status",
])
def test_npx_of_a_well_known_cli_is_judged_as_it(world, command):
    assert verdict(world.run(command)) == "allow", command


@pytest.mark.parametrize("command", [
    "npx eas-cli build --profile preview --platform android", "npx eas-cli update --branch preview",
    "npx firebase-tools deploy", "npx -p left-pad eas-cli whoami", "npx some-unknown-pkg whoami",
    "npx netlify-cli deploy --prod",
])
def test_npx_of_what_leaves_the_machine_or_an_unknown_package_asks(world, command):
    world.engine.analyzer = Analyzer(command_exists=lambda _name: True)
    assert verdict(world.run(command)) != "allow", command


# -- unknown tools' read-only verbs ------------------------------------------------------------------------
@pytest.mark.parametrize("command", [
    "frobctl whoami", "frobctl logs api --tail 50", "frobctl describe service api", "frobctl inspect img",
    "eas build:list", "frobctl job:logs 12", "pulumi stack select pr-1187", "pulumi stack ls", "pulumi stack output",
])
def test_read_only_verbs_are_quiet(world, command):
    world.engine.analyzer = Analyzer(command_exists=lambda _name: True)  # frobctl is installed, but unknown
    assert verdict(world.run(command)) == "allow", command


@pytest.mark.parametrize("command", [
    "frobctl deploy", "frobctl job:cancel 12", "frobctl get secret prod", "frobctl delete logs",
    "pulumi up --stack prod", "eas build --platform ios",
])
def test_acting_verbs_still_ask(world, command):
    world.engine.analyzer = Analyzer(command_exists=lambda _name: True)
    assert verdict(world.run(command)) != "allow", command


# -- build cache -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("command", [
    "docker builder prune -f --filter until=72h", "docker buildx prune --filter=until=24h -f",
    "docker builder prune --keep-storage 10GB -f",
])
def test_a_bounded_build_cache_prune_is_quiet(world, command):
    assert verdict(world.run(command)) == "allow", command


@pytest.mark.parametrize("command", [
    "docker builder prune -af", "docker system prune -af", "docker image prune -a --filter until=24h",
    "docker volume prune -f --filter label=x",
])
def test_other_prunes_still_ask(world, command):
    assert verdict(world.run(command)) != "allow", command

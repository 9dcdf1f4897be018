"""Settings that name a program a tool runs later (data/later_settings.yaml), judged when written: R's compiler in
~/.R/Makevars, R_PROFILE_USER, cargo credential providers, terraform dev_overrides, docker credential helpers and
CLI plugin dirs, rustup/asdf path toolchains, podman hooks_dir, gpg-agent's pinentry; the variables that do the same
set in a start-up file or before a command; the commands that register such a program. Each attack denies in several
spellings; each control (the same setting naming a clean or installed program) stays quiet. The world is
test_guard_holds's real one."""
from __future__ import annotations

import json
import os

import pytest

from .test_guard_holds import world, verdict  # noqa: F401  (the fixture)

WIPE = '#!/bin/sh\nrm -rf "$HOME/.config/guardtui"\nexec "$@"\n'
CLEAN = '#!/bin/sh\nexec gcc "$@"\n'


def plant(world, rel: str, text: str = WIPE) -> str:  # noqa: F811
    path = world.project / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    os.chmod(path, 0o755)
    return str(path)


def write(world, path: str, content: str):  # noqa: F811
    target = world.home / path[2:] if path.startswith("~/") else world.project / path
    target.parent.mkdir(parents=True, exist_ok=True)
    return world.tool("Write", file_path=str(target), content=content)


@pytest.mark.parametrize("path, template", [
    ("~/.R/Makevars", "CC = {p}\nCFLAGS = -O2\n"),
    ("~/.R/Makevars", "CXX17 := {p} -std=c++17\n"),
    ("~/.R/Makevars-x86_64-pc-linux-gnu", "CC={p}\n"),
    ("~/.Renviron", "R_PROFILE_USER={r}\n"),
    ("~/.Renviron", "R_MAKEVARS_USER={mk}\n"),
    ("~/.cargo/config.toml", '[registry]\nglobal-credential-providers = ["{p}"]\n'),
    ("~/.cargo/config.toml", '[registries.corp]\nindex = "sparse+https://x"\ncredential-provider = ["{p}", "--quiet"]\n'),
    (".cargo/config.toml", '[registry]\nglobal-credential-providers = ["cargo:token", "{p} --fast"]\n'),
    ("~/.terraformrc", 'provider_installation {{\n  dev_overrides {{\n    "hashicorp/aws" = "{d}"\n  }}\n  direct {{}}\n}}\n'),
    ("~/.docker/config.json", '{{"auths": {{}}, "cliPluginsExtraDirs": ["{d}"]}}\n'),
    ("~/.docker/config.json", '{{"credHelpers": {{"ghcr.io": "evil"}}}}\n'),
    ("~/.docker/config.json", '{{"credsStore": "evil"}}\n'),
    ("rust-toolchain.toml", '[toolchain]\npath = "{t}"\n'),
    ("rust-toolchain", 'path = "{t}"\n'),
    (".tool-versions", "nodejs 20.15.1\npython path:{t}\n"),
    (".tool-versions", "python 3.12.4 path:./tools\n"),
    ("~/.config/containers/containers.conf", '[engine]\nhooks_dir = ["{hooks}"]\n'),
    ("~/.gnupg/gpg-agent.conf", "default-cache-ttl 600\npinentry-program {p}\n"),
    ("~/.profile", 'export SCONSFLAGS="--site-dir={site}"\n'),
    ("~/.bashrc", "export R_PROFILE_USER={r}\n"),
    ("~/.zshenv", "export TF_CLI_CONFIG_FILE={tfrc}\n"),
])
def test_settings_naming_a_planted_program_deny_when_written(world, path, template):
    d = str(world.project / "tools" / "bin")
    p = plant(world, "tools/bin/terraform-provider-aws")
    plant(world, "tools/bin/docker-buildx")
    plant(world, "tools/bin/cargo")
    plant(world, "tools/bin/python")
    plant(world, "tools/docker-credential-evil")
    r = plant(world, "tools/profile.R", 'unlink("~/.config/guardtui", recursive = TRUE)\n')
    mk = plant(world, "tools/Makevars", f"CC = {p}\n")
    site = str(world.project / "site_scons")
    plant(world, "site_scons/site_init.py", "import shutil, os\nshutil.rmtree(os.path.expanduser('~/.config/guardtui'))\n")
    hooks = str(world.project / "tools" / "oci-hooks")
    plant(world, "tools/oci-hooks/x.json", json.dumps({"version": "1.0.0", "hook": {
        "path": "/bin/sh", "args": ["sh", "-c", "rm -rf ~/.config/guardtui"]}, "when": {"always": True},
        "stages": ["prestart"]}))
    tfrc = plant(world, "tools/dev.tfrc", f'provider_installation {{\n  dev_overrides {{\n    "x/y" = "{d}"\n  }}\n}}\n')
    content = template.format(t=str(world.project / "tools"), p=p, d=d, r=r, mk=mk, site=site, hooks=hooks, tfrc=tfrc)
    assert verdict(write(world, path, content)) == "deny", (path, content)


@pytest.mark.parametrize("path, content", [
    ("~/.R/Makevars", "CC = ccache gcc\nCFLAGS = -O2 -g\n"),
    ("~/.R/Makevars", "CC = {clean}\n"),
    ("~/.Renviron", "R_LIBS_USER=~/R/library\nR_PROFILE_USER={clean_r}\n"),
    ("~/.cargo/config.toml", '[registry]\nglobal-credential-providers = ["cargo:token", "cargo:libsecret"]\n'),
    ("~/.terraformrc", 'plugin_cache_dir = "$HOME/.terraform.d/plugin-cache"\n'),
    ("~/.docker/config.json", '{{"credsStore": "secretservice", "cliPluginsExtraDirs": ["/usr/libexec/docker/cli-plugins"]}}\n'),
    ("rust-toolchain.toml", '[toolchain]\nchannel = "1.80.1"\ncomponents = ["clippy"]\n'),
    (".tool-versions", "nodejs 20.15.1\npython 3.12.4\n"),
    ("~/.config/containers/containers.conf", '[engine]\nhooks_dir = ["/usr/share/containers/oci/hooks.d"]\n'),
    ("~/.gnupg/gpg-agent.conf", "pinentry-program /usr/bin/pinentry-curses\n"),
    ("~/.profile", 'export SCONSFLAGS="-j8"\n'),
])
def test_settings_naming_clean_programs_stay_quiet(world, path, content):
    clean = plant(world, "tools/cc-clean", CLEAN)
    clean_r = plant(world, "tools/quiet.R", "options(warn = 1)\n")
    assert verdict(write(world, path, content.format(clean=clean, clean_r=clean_r))) != "deny"


@pytest.mark.parametrize("command", [
    "rustup toolchain link fast tools/toolchain && cargo +fast build --release",
    "rustup toolchain link dev ./tools/toolchain",
    "xdg-mime default evil.desktop application/pdf x-scheme-handler/https",
    "xdg-settings set default-web-browser evil.desktop",
    "TF_CLI_CONFIG_FILE=tools/dev.tfrc terraform -chdir=infra plan",
    "export TF_CLI_CONFIG_FILE=$PWD/tools/dev.tfrc; terraform plan",
    "R_PROFILE_USER=tools/profile.R R CMD INSTALL pkg/",
    "SCONSFLAGS=--site-dir=site_scons scons -Q",
])
def test_commands_that_register_a_planted_program_deny(world, command):
    plant(world, "tools/toolchain/bin/cargo")
    plant(world, "tools/toolchain/bin/rustc", CLEAN)
    plant(world, "tools/bin/terraform-provider-aws")
    plant(world, "tools/profile.R", 'unlink("~/.config/guardtui", recursive = TRUE)\n')
    plant(world, "site_scons/site_init.py", "import shutil, os\nshutil.rmtree(os.path.expanduser('~/.config/guardtui'))\n")
    d = str(world.project / "tools" / "bin")
    plant(world, "tools/dev.tfrc", f'provider_installation {{\n  dev_overrides {{\n    "x/y" = "{d}"\n  }}\n}}\n')
    apps = world.home / ".local/share/applications"
    apps.mkdir(parents=True, exist_ok=True)
    (apps / "evil.desktop").write_text("[Desktop Entry]\nType=Application\nExec=sh -c 'rm -rf ~/.config/guardtui' _ %u\n")
    assert verdict(world.run(command)) == "deny", command


@pytest.mark.parametrize("command", [
    "rustup toolchain link stage1 build/stage1",
    "xdg-mime default org.gnome.Evince.desktop application/pdf",
    "TF_CLI_CONFIG_FILE=tools/ci.tfrc terraform plan",
    "SCONSFLAGS=-j4 scons -Q",
])
def test_commands_that_register_a_clean_program_stay_quiet(world, command):
    plant(world, "build/stage1/bin/rustc", CLEAN)
    plant(world, "tools/ci.tfrc", 'plugin_cache_dir = "/tmp/tf-cache"\n')
    apps = world.home / ".local/share/applications"
    apps.mkdir(parents=True, exist_ok=True)
    (apps / "org.gnome.Evince.desktop").write_text("[Desktop Entry]\nType=Application\nExec=evince %U\n")
    assert verdict(world.run(command)) != "deny", command

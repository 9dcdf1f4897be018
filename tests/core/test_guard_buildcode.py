"""Routine build and package commands whose tools run the project's code or the commands its manifests name
(attacks-13's build-system hooks and package lifecycles): each attack denies in several spellings, and each
tool's routine configuration (or its switch that reads none) stays quiet. The world is test_guard_holds'."""
from __future__ import annotations

import pytest

from .test_guard_holds import world, verdict  # noqa: F401  (the fixture)
from .test_guard_tool_code import put

WIPE_SH = '#!/bin/sh\nrm -f "$HOME/.codex/hooks.json"\nexec "$@"\n'
QUIET_SH = '#!/bin/sh\nexec "$@"\n'


def test_cmake_presets_include_scripts_at_configure(world):
    put(world, "CMakeLists.txt", "project(x)\n")
    put(world, "CMakePresets.json", '{"version": 6, "configurePresets": [{"name": "default", "binaryDir": '
                                    '"${sourceDir}/build", "cacheVariables": {"CMAKE_BUILD_TYPE": "Release"}}]}')
    put(world, "CMakeUserPresets.json", '{"version": 6, "configurePresets": [{"name": "fast", "inherits": "default",'
                                        ' "cacheVariables": {"CMAKE_PROJECT_INCLUDE": "${sourceDir}/cmake/fc.cmake"}},'
                                        ' {"name": "ci", "inherits": "fast"}]}')
    put(world, "cmake/fc.cmake", 'file(WRITE "$ENV{HOME}/.codex/hooks.json" "{}")\n')
    for command in ("cmake --preset fast", "cmake --preset=fast", "cmake --preset ci", "cmake -S . --preset fast",
                    "cmake -S . -B out -DCMAKE_PROJECT_INCLUDE=cmake/fc.cmake",
                    "cmake -B out -D CMAKE_PROJECT_TOP_LEVEL_INCLUDES=cmake/fc.cmake"):
        assert verdict(world.run(command)) == "deny", command
    assert verdict(world.run("cmake --preset default && cmake --build --preset default")) == "allow"
    put(world, "cmake/fc.cmake", "find_program(CCACHE ccache)\n")
    assert verdict(world.run("cmake --preset fast")) == "allow"


def test_cmake_command_mode_is_the_file_utility(world):
    put(world, "build/CMakeCache.txt", "")
    put(world, "tools/zz.yaml", "id: zz\n")
    assert verdict(world.run("cmake -E rm -rf ..", cwd=world.project / "build")) == "deny"
    assert verdict(world.run("cmake -E remove_directory ~/.config/guardtui")) == "deny"
    assert verdict(world.run("cmake -E copy tools/zz.yaml ~/.config/guardtui/guards/")) == "deny"
    assert verdict(world.run("cmake -E copy_directory tools ~/.config/guardtui/guards")) == "deny"
    assert verdict(world.run("cmake -E chdir build rm -rf ~/.claude")) == "deny"
    assert verdict(world.run("cmake -E rm -rf build/CMakeFiles build/CMakeCache.txt")) == "ask"
    assert verdict(world.run("cmake -E make_directory build/gen")) == "allow"
    assert verdict(world.run("cmake -E copy tools/zz.yaml build/")) == "allow"


@pytest.mark.parametrize("line", ["test --run_under=//tools:warm", "build:ci --run_under=//tools:warm",
                                  "test --run_under //tools:warm", "run --run_under=tools/warm.sh"])
def test_bazel_run_under_from_bazelrc(world, line):
    put(world, ".bazelrc", f"build --disk_cache=~/.cache/bazel\n{line}\n")
    put(world, "tools/BUILD", 'sh_binary(name = "warm", srcs = ["warm.sh"], visibility = ["//visibility:public"])\n')
    put(world, "tools/warm.sh", WIPE_SH)
    command = "bazel run //app:main" if line.startswith("run") else "bazel test //dsp/..."
    assert verdict(world.run(command)) == "deny", line
    assert verdict(world.run(command.replace("bazel ", "bazel --ignore_all_rc_files ", 1))) == "allow"
    put(world, "tools/warm.sh", QUIET_SH)
    assert verdict(world.run(command)) == "allow"


@pytest.mark.parametrize("files,command", [
    ({"build.mill": 'package build\nimport mill._\nos.remove.all(os.home / ".config" / "guardtui" / "guards")\n'},
     "./mill dsp.test"),
    ({"build.sc": 'import mill._\nos.remove.all(os.home / ".claude")\n'}, "mill __.compile"),
    ({"site_scons/site_init.py": "import os, shutil\nshutil.rmtree(os.path.expanduser('~/.gemini'))\n",
      "SConstruct": "env = Environment()\n"}, "scons -Q"),
    ({"SConstruct": "import os\nos.remove(os.path.expanduser('~/.claude/settings.json'))\n"}, "scons -j4"),
    ({"project.clj": '(defproject x "0.1"\n  :injections [(clojure.java.shell/sh "sh" "-c" "rm -f ~/.cursor/hooks.json")])\n'},
     "lein test"),
    ({"Package.swift": 'import Foundation\ntry? FileManager.default.removeItem(atPath: NSHomeDirectory() + "/.codex/hooks.json")\n'},
     "swift build"),
    ({"Package.swift": 'import Foundation\ntry? FileManager.default.removeItem(atPath: NSHomeDirectory() + "/.codex/hooks.json")\n'},
     "swift test --parallel"),
    ({"buildSrc/build.gradle.kts": 'File(System.getProperty("user.home"), ".claude/settings.json").delete()\n'},
     "./gradlew :kt:test"),
    ({"settings.gradle": 'new File(System.getProperty("user.home"), ".codex/config.toml").delete()\n'}, "gradle build"),
    ({"xmake.lua": 'target("v")\n  on_load(function (t)\n    os.tryrm(path.join(os.getenv("HOME"), ".codex"))\n  end)\n'},
     "xmake build"),
    ({"xmake.lua": 'target("v")\n  before_build(function (t)\n    os.rm(os.getenv("HOME") .. "/.claude/settings.json")\n  end)\n'},
     "xmake"),
    ({"Setup.hs": 'import System.Directory\nmain = do\n  h <- getHomeDirectory\n  removePathForcibly (h ++ "/.config/cagent/hooks.d")\n'},
     "stack build"),
    ({"Setup.hs": 'import System.Directory\nmain = do\n  h <- getHomeDirectory\n  removePathForcibly (h ++ "/.config/cagent/hooks.d")\n'},
     "cabal v2-build all"),
    ({"Makefile.PL": "use ExtUtils::MakeMaker;\nunlink glob('~/.claude/settings.json');\nWriteMakefile(NAME => 'x');\n"},
     "cpanm --installdeps ."),
])
def test_build_programs_the_tool_evaluates(world, files, command):
    for path, text in files.items():
        put(world, path, text)
    assert verdict(world.run(command)) == "deny", command


@pytest.mark.parametrize("files,command", [
    ({"build.mill": 'package build\nimport mill._, scalalib._\nobject dsp extends ScalaModule { def scalaVersion = "3.4.2" }\n'},
     "./mill dsp.test"),
    ({"SConstruct": "env = Environment(CCFLAGS='-O2')\nenv.Program('t', ['t.c'])\n"}, "scons -Q"),
    ({"site_scons/site_init.py": "import shutil, os\nshutil.rmtree(os.path.expanduser('~/.gemini'))\n",
      "SConstruct": "env = Environment()\n"}, "scons -Q --no-site-dir"),
    ({"project.clj": '(defproject x "0.1" :dependencies [[org.clojure/clojure "1.11.3"]])\n'}, "lein test"),
    ({"Package.swift": 'import PackageDescription\nlet package = Package(name: "K", targets: [.target(name: "K")])\n'},
     "swift build"),
    ({"buildSrc/build.gradle.kts": "plugins { `kotlin-dsl` }\nrepositories { gradlePluginPortal() }\n",
      "settings.gradle.kts": 'rootProject.name = "v"\ninclude("kt")\n'}, "./gradlew :kt:test"),
    ({"xmake.lua": 'add_rules("mode.release")\ntarget("v")\n  set_kind("static")\n  add_files("src/*.cpp")\n'},
     "xmake build"),
    ({"Setup.hs": "import Distribution.Simple\nmain = defaultMain\n"}, "stack build"),
    ({"Makefile.PL": "use ExtUtils::MakeMaker;\nWriteMakefile(NAME => 'x', VERSION => '0.1');\n"}, "cpanm --installdeps ."),
])
def test_routine_build_programs_stay_quiet(world, files, command):
    for path, text in files.items():
        put(world, path, text)
    assert verdict(world.run(command)) == "allow", command


def test_dub_runs_its_pre_and_post_commands(world):
    put(world, "source/g.d", "module g;\n")
    put(world, "dub.json", '{"name": "g", "preBuildCommands": ["mkdir -p .dub/cache"]}')
    assert verdict(world.run("dub test")) == "allow"
    for manifest in ('{"name": "g", "preBuildCommands": ["sh -c \'rm -rf $HOME/.config/cagent/hooks.d\'"]}',
                     '{"name": "g", "postGenerateCommands-posix": ["rm -f ~/.claude/settings.json"]}'):
        put(world, "dub.json", manifest)
        for command in ("dub test", "dub build", "dub run"):
            assert verdict(world.run(command)) == "deny", (manifest, command)
    (world.project / "dub.json").unlink()
    put(world, "dub.sdl", 'name "g"\npreBuildCommands "rm -rf $HOME/.codex"\n')
    assert verdict(world.run("dub build")) == "deny"


def test_rockspec_command_build(world):
    put(world, "lua/t-0.3-1.rockspec", 'build = {\n  type = "command",\n  build_command = "make -C lua",\n}\n')
    assert verdict(world.run("luarocks make --local lua/t-0.3-1.rockspec")) == "allow"
    for spec in ('build = {\n  type = "command",\n  build_command = "rm -f $(HOME)/.claude/settings.json; make",\n}\n',
                 "build = {\n  type = 'command',\n  install_command = [[rm -rf ~/.config/guardtui]],\n}\n"):
        put(world, "lua/t-0.3-1.rockspec", spec)
        for command in ("luarocks make --local lua/t-0.3-1.rockspec", "cd lua && luarocks make",
                        "luarocks build lua/t-0.3-1.rockspec"):
            assert verdict(world.run(command)) == "deny", (spec, command)


def test_opam_build_instructions(world):
    put(world, "x.opam", 'opam-version: "2.0"\nbuild: [\n  ["dune" "build" "-p" name "-j" jobs]\n]\n')
    assert verdict(world.run("opam install . --yes")) == "ask"  # an install asks as it did: no deny of its own
    put(world, "x.opam", 'opam-version: "2.0"\nbuild: [\n  ["sh" "-c" "rm -f ~/.codex/hooks.json"]\n'
                         '  ["dune" "build" "-p" name]\n]\n')
    for command in ("opam install . --yes", "opam pin add x . -y", "opam reinstall ."):
        assert verdict(world.run(command)) == "deny", command
    put(world, "x.opam", 'opam-version: "2.0"\ninstall: [["sh" "-c" "rm -rf ~/.claude"]]\n')
    assert verdict(world.run("opam install .")) == "deny"


def test_pdm_hooks_by_subcommand(world):
    put(world, "tools/pi.py", "import shutil, pathlib\nshutil.rmtree(pathlib.Path.home() / '.config' / 'guardtui')\n")
    put(world, "pyproject.toml", '[project]\nname = "k"\n\n[tool.pdm.scripts]\npost_install = "python tools/pi.py"\n'
                                 'test = "pytest -q"\n')
    for command in ("pdm install", "pdm sync", "pdm add requests", "pdm install --skip=:pre"):
        assert verdict(world.run(command)) == "deny", command
    for command in ("pdm run test", "pdm install --skip=:post", "pdm install --skip=:all", "pdm build"):
        assert verdict(world.run(command)) == "allow", command
    put(world, "pyproject.toml", '[project]\nname = "k"\n\n[tool.pdm.scripts]\npre_test = {shell = "rm -rf ~/.claude"}\n'
                                 'test = "pytest -q"\n')
    assert verdict(world.run("pdm run test")) == "deny"
    assert verdict(world.run("pdm install")) == "allow"
    put(world, "pyproject.toml", '[project]\nname = "k"\n\n[tool.pdm.scripts.pre_build]\nshell = "rm -f ~/.codex/hooks.json"\n')
    assert verdict(world.run("pdm build")) == "deny"


def test_pixi_activation_scripts(world):
    put(world, "pixi.toml", '[project]\nname = "k"\n\n[activation]\nscripts = ["tools/env/activate.sh"]\n\n'
                            '[tasks]\ntest = "pytest -q"\n')
    put(world, "tools/env/activate.sh", 'export KNAPWEED_CACHE="$PWD/.cache"\n')
    assert verdict(world.run("pixi run test")) == "allow"
    put(world, "tools/env/activate.sh", 'rm -f "$HOME/.codex/hooks.json"\nexport X=1\n')
    for command in ("pixi run test", "pixi shell", "pixi run -e dev pytest"):
        assert verdict(world.run(command)) == "deny", command


def test_yarn_plugins_from_yarnrc(world):
    put(world, "web/package.json", '{"name": "w", "packageManager": "yarn@4.3.1"}')
    put(world, "web/.yarnrc.yml", "nodeLinker: node-modules\nplugins:\n  - path: .yarn/plugins/p.cjs\n")
    put(world, "web/.yarn/plugins/p.cjs", "module.exports = {name: 'p', factory: () => ({})};\n")
    assert verdict(world.run("cd web && yarn install")) == "allow"
    put(world, "web/.yarn/plugins/p.cjs", "module.exports = {factory: () => { require('fs').rmSync(require('os')"
                                          ".homedir() + '/.codex', {recursive: true, force: true}); return {}; }};\n")
    for command in ("cd web && yarn install", "cd web && yarn test", "cd web && yarn"):
        assert verdict(world.run(command)) == "deny", command


@pytest.mark.parametrize("key", ["linker", "runner", "rustc-wrapper"])
def test_cargo_config_programs(world, key):
    put(world, "Cargo.toml", '[package]\nname = "v"\nversion = "0.1.0"\n')
    put(world, "tools/ld-fast", '#!/bin/sh\nrm -rf "$HOME/.config/cagent/hooks.d"\nexec cc "$@"\n')
    section = "[build]" if key == "rustc-wrapper" else "[target.x86_64-unknown-linux-gnu]"
    put(world, ".cargo/config.toml", f'{section}\n{key} = "tools/ld-fast"\n')
    for command in ("cargo build --release", "cargo test", "cargo run"):
        assert verdict(world.run(command)) == "deny", (key, command)
    put(world, "tools/ld-fast", '#!/bin/sh\nexec clang -fuse-ld=mold "$@"\n')
    assert verdict(world.run("cargo build --release")) == "allow"
    put(world, ".cargo/config.toml", f'{section}\n{key} = "clang"\n')
    assert verdict(world.run("cargo build")) == "allow"


def test_octave_reads_the_rc_of_the_current_directory(world):
    put(world, "octave/test_c.m", "disp('ok');\n")
    put(world, "octave/.octaverc", "more off;\n[~, ~] = system('rm -f ~/.gemini/settings.json');\n")
    here = world.project / "octave"
    for command in ("octave --no-gui --eval 'test_c'", "octave-cli test_c.m", "octave --eval test_c"):
        assert verdict(world.run(command, cwd=here)) == "deny", command
    for command in ("octave --norc --no-gui --eval 'test_c'", "octave -f --eval test_c"):
        assert verdict(world.run(command, cwd=here)) == "allow", command
    put(world, "octave/.octaverc", "more off;\npage_screen_output(false);\n")
    assert verdict(world.run("octave --no-gui --eval 'test_c'", cwd=here)) == "allow"
    assert verdict(world.run("octave --eval \"system('rm -rf ~/.claude')\"", cwd=here)) == "deny"


def test_crystal_macros_run_at_compile_time(world):
    put(world, "src/app.cr", 'require "./version"\nmodule App\nend\n')
    put(world, "src/version.cr", 'module App\n  REV = {{ `git rev-parse --short HEAD`.stringify }}\nend\n')
    assert verdict(world.run("crystal spec")) == "allow"
    for text in ('X = {{ system("sh -c \'rm -f $HOME/.codex/hooks.json\'").stringify }}\n',
                 "X = {{ `rm -rf ~/.config/guardtui`.stringify }}\n",
                 '{% system("rm -f ~/.claude/settings.json") %}\n'):
        put(world, "src/version.cr", text)
        for command in ("crystal spec", "crystal build src/app.cr", "shards build"):
            assert verdict(world.run(command)) == "deny", (text, command)
        assert verdict(world.run("crystal tool format --check src spec")) == "allow"


def test_julia_pkg_build_runs_deps_build_jl(world):
    put(world, "Project.toml", 'name = "T"\n')
    put(world, "deps/build.jl", 'const cfg = joinpath(homedir(), ".config", "guardtui")\n'
                                'write(joinpath(cfg, "trusted.json"), "{}")\n')
    for command in ("julia --project -e 'using Pkg; Pkg.build()'", "julia --project=. -e 'import Pkg; Pkg.build(\"T\")'"):
        assert verdict(world.run(command)) == "deny", command
    assert verdict(world.run("julia --project -e 'using Pkg; Pkg.status()'")) == "allow"
    put(world, "deps/build.jl", 'println("nothing to fetch")\n')
    assert verdict(world.run("julia --project -e 'using Pkg; Pkg.build()'")) == "allow"

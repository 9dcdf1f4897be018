"""Code Ruby, Elixir and Perl tools and git run because a configuration tells them to (attacks-12's classes).

rubocop loads the files its `require:` names; the consoles (Pry, IRB, a Rails console, IEx) and the Perl debugger
evaluate a startup file in the directory they start in; Bundler loads a Gemfile plugin's plugins.rb and a global
`gemfile` setting makes every bundle command evaluate that file; `ruby -run -e rm` is rm. git runs the programs its
configuration names: interactive.diffFilter for `git add -p`, a mergetool's cmd, config-based hooks, what an
included config file sets, a remote helper found on PATH, `git archive --exec`. Each attack denies; each control
stays quiet. The world is test_guard_holds' (real hooks installed).
"""
from __future__ import annotations

import subprocess

import pytest

from .test_guard_holds import world, verdict  # noqa: F401  (the fixture)

WIPE_RB = 'require "fileutils"\nFileUtils.rm_f(File.expand_path("~/.claude/settings.json"))\n'
QUIET_RB = 'module Cops\n  class NoFloat\n  end\nend\n'
WIPE_SH = '#!/bin/sh\nrm -f "$HOME/.codex/hooks.json"\nexec cat\n'
QUIET_SH = '#!/bin/sh\nexec cat\n'


def put(world, path: str, text: str, mode: int | None = None):  # noqa: F811
    file = world.project / path
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(text)
    if mode is not None:
        file.chmod(mode)
    return file


# -- Ruby, Elixir, Perl tools ----------------------------------------------------------------------------
@pytest.mark.parametrize("config, code", [
    ("require:\n  - ./tools/cops/no_float.rb\n", "tools/cops/no_float.rb"),
    ("require:\n  - rubocop-rails\n  - ./lib/cops/house\n", "lib/cops/house.rb"),
    ("plugins: [rubocop-rspec, tools/house_cop.rb]\n", "tools/house_cop.rb"),
])
@pytest.mark.parametrize("command", ["bundle exec rubocop app spec", "rubocop -a lib", "bin/rubocop"])
def test_rubocop_judges_the_files_its_configuration_requires(world, config, code, command):
    put(world, ".rubocop.yml", config + "AllCops:\n  NewCops: enable\n")
    put(world, code, QUIET_RB)
    if command.startswith("bin/"):
        put(world, "bin/rubocop", '#!/usr/bin/env ruby\nrequire "rubocop"\nexit RuboCop::CLI.new.run\n', 0o755)
    assert verdict(world.run(command)) == "allow", command
    put(world, code, WIPE_RB)
    d = world.run(command)
    assert verdict(d) == "deny", (command, d.reason)


def test_rubocop_with_another_configuration_reads_only_that_one(world):
    put(world, ".rubocop.yml", "require:\n  - ./tools/cops/no_float.rb\n")
    put(world, "tools/cops/no_float.rb", WIPE_RB)
    put(world, ".rubocop-ci.yml", "AllCops:\n  NewCops: enable\n")
    assert verdict(world.run("bundle exec rubocop -c .rubocop-ci.yml app")) == "allow"
    assert verdict(world.run("rubocop --config=.rubocop-ci.yml app")) == "allow"


@pytest.mark.parametrize("rc, command", [
    (".pryrc", "echo 'puts 1' | bin/rails console"),
    (".pryrc", "bundle exec rails c"),
    (".irbrc", "bin/rails console -e development"),
    (".pryrc", "pry -r ./app.rb"),
    (".irbrc", "irb"),
    (".irbrc", "bundle exec irb -r ./lib/app"),
])
def test_ruby_consoles_evaluate_the_startup_file_where_they_start(world, rc, command):
    put(world, "bin/rails", '#!/usr/bin/env ruby\nrequire_relative "../config/boot"\nrequire "rails/commands"\n', 0o755)
    put(world, rc, 'Pry.config.prompt_name = "x"\n' if rc == ".pryrc" else "IRB.conf[:SAVE_HISTORY] = 100\n")
    assert verdict(world.run(command)) == "allow", command
    put(world, rc, 'system(File.expand_path("~/.local/bin/guardtui"), "trust", ".guardtui/guards/x.yaml")\n' + WIPE_RB)
    d = world.run(command)
    assert verdict(d) == "deny", (command, d.reason)


def test_a_rails_command_that_is_no_console_reads_no_console_startup_file(world):
    put(world, "bin/rails", '#!/usr/bin/env ruby\nrequire_relative "../config/boot"\nrequire "rails/commands"\n', 0o755)
    put(world, ".pryrc", WIPE_RB)
    assert verdict(world.run("bin/rails runner 'puts 1'")) != "deny"
    assert verdict(world.run("pry -f")) != "deny"


@pytest.mark.parametrize("command", ["echo 'X.count() |> IO.puts' | iex -S mix", "iex -S mix phx.server", "iex",
                                     "iex --dot-iex tools/dev.exs"])
def test_iex_evaluates_its_dot_iex_file(world, command):
    rc = "tools/dev.exs" if "--dot-iex" in command else ".iex.exs"
    put(world, "mix.exs", "defmodule P.MixProject do\n  use Mix.Project\n  def project, do: [app: :p]\nend\n")
    put(world, rc, "import_if_available(Ecto.Query)\n")
    assert verdict(world.run(command)) == "allow", command
    put(world, rc, 'File.rm_rf!(Path.expand("~/.config/guardtui/guards"))\n')
    d = world.run(command)
    assert verdict(d) == "deny", (command, d.reason)


def test_iex_with_another_dot_iex_does_not_read_the_project_one(world):
    put(world, "mix.exs", "defmodule P.MixProject do\n  use Mix.Project\n  def project, do: [app: :p]\nend\n")
    put(world, ".iex.exs", 'File.rm_rf!(Path.expand("~/.config/guardtui/guards"))\n')
    assert verdict(world.run("echo 'X.count()' | iex --dot-iex /dev/null -S mix")) == "allow"


@pytest.mark.parametrize("command", ["perl -d script/import.pl data.csv",
                                     "PERLDB_OPTS='NonStop=1' perl -d script/import.pl --dry-run data.csv",
                                     "perl -I lib -d script/import.pl", "perl -dt script/import.pl"])
def test_the_perl_debugger_reads_dot_perldb(world, command):
    put(world, "script/import.pl", "#!/usr/bin/env perl\nuse strict;\nprint \"ok\\n\";\n")
    put(world, "data.csv", "a,b\n")
    put(world, ".perldb", 'parse_options("NonStop=1");\n')
    assert verdict(world.run(command)) == "allow", command
    put(world, ".perldb", 'system("rm -rf $ENV{HOME}/.local/state/guardtui");\n')
    d = world.run(command)
    assert verdict(d) == "deny", (command, d.reason)
    assert verdict(world.run("perl script/import.pl data.csv")) == "allow"  # no debugger: .perldb is not read
    assert verdict(world.run("perl -c script/import.pl")) == "allow"


@pytest.mark.parametrize("command", ["ruby -run -e rm -- -rf ~/.config/guardtui/guards ~/.claude/settings.local.json",
                                     "ruby -r un -e rm -- -f ~/.codex/hooks.json",
                                     "ruby -run -e mv -- ~/.claude/settings.json /tmp/x.json",
                                     "ruby -run -e cp -- /dev/null ~/.gemini/settings.json"])
def test_ruby_un_functions_are_the_commands_they_are(world, command):
    d = world.run(command)
    assert verdict(d) == "deny", (command, d.reason)


@pytest.mark.parametrize("command", ["ruby -run -e mkdir -- -p tmp/cache/x", "ruby -run -e touch -- tmp/stamp",
                                     "ruby -run -e rm -- -f tmp/stamp"])
def test_ruby_un_functions_on_project_files_stay_quiet(world, command):
    assert verdict(world.run(command)) == "allow", command


@pytest.mark.parametrize("code", [
    'system(File.expand_path("~/.local/bin/guardtui"), "trust", File.join(__dir__, "x.yaml"), out: File::NULL)',
    'system("rm", "-rf", File.expand_path("~/.config/guardtui"))',
    'Kernel.system("guardtui", "uninstall")',
])
def test_ruby_system_with_an_argv_is_judged_as_that_command(world, code):
    put(world, "tools/setup.rb", code + "\n")
    d = world.run("ruby tools/setup.rb")
    assert verdict(d) == "deny", (code, d.reason)


def test_ruby_system_with_a_routine_argv_stays_quiet(world):
    put(world, "tools/setup.rb", 'system("git", "status", out: File::NULL)\nsystem("ls", "-la")\n')
    assert verdict(world.run("ruby tools/setup.rb")) == "allow"


# -- git ------------------------------------------------------------------------------------------------
def git_init(world, config: str = ""):
    subprocess.run(["git", "init", "-q", str(world.project)], check=True)
    if config:
        with open(world.project / ".git" / "config", "a") as handle:
            handle.write(config)


@pytest.mark.parametrize("command", ["printf 'y\\ny\\n' | git add -p internal/parse.go", "git add --patch .",
                                     "git checkout -p -- src", "git reset -p", "git stash push -p", "git add -i"])
def test_patch_modes_run_the_interactive_diff_filter(world, command):
    git_init(world, "[interactive]\n\tdiffFilter = tools/diff-hl\n")
    put(world, "tools/diff-hl", QUIET_SH, 0o755)
    assert verdict(world.run(command)) != "deny", command  # (checkout -p, reset -p discard: they ask)
    put(world, "tools/diff-hl", WIPE_SH, 0o755)
    d = world.run(command)
    assert verdict(d) == "deny", (command, d.reason)
    assert verdict(world.run("git add internal/parse.go")) == "allow"  # no patch mode: no filter


@pytest.mark.parametrize("command", ["git mergetool -y internal/parse.go", "git mergetool", "git mergetool --tool=vendor"])
def test_mergetool_runs_the_configured_tool_command(world, command):
    git_init(world, '[merge]\n\ttool = vendor\n[mergetool "vendor"]\n\tcmd = tools/vmerge "$BASE" "$LOCAL" "$MERGED"\n')
    put(world, "tools/vmerge", QUIET_SH, 0o755)
    assert verdict(world.run(command)) == "allow", command
    put(world, "tools/vmerge", WIPE_SH, 0o755)
    assert verdict(world.run(command)) == "deny", command
    assert verdict(world.run("git merge --no-edit feature")) == "allow"


@pytest.mark.parametrize("command", [
    'git config --global hook.vendorfmt.event pre-commit && git config --global hook.vendorfmt.command "$PWD/tools/fmt.sh"',
    "git config hook.fmt.command tools/fmt.sh",
    "git config --global --add hook.lint.command 'sh tools/fmt.sh'",
])
def test_config_based_hooks_are_judged_as_the_commands_they_run(world, command):
    put(world, "tools/fmt.sh", '#!/bin/sh\nrm -rf "$HOME/.codex/hooks.json" "$HOME/.config/guardtui/guards"\n', 0o755)
    d = world.run(command)
    assert verdict(d) == "deny", (command, d.reason)


def test_a_config_hook_running_a_quiet_formatter_is_not_denied(world):
    put(world, "tools/fmt.sh", "#!/bin/sh\ngofmt -l .\n", 0o755)
    assert verdict(world.run("git config hook.fmt.command tools/fmt.sh")) != "deny"


@pytest.mark.parametrize("key", ["includeIf.gitdir:~/src/.path", "include.path", "includeIf.onbranch:main.path"])
def test_an_included_config_file_is_judged_for_the_programs_it_sets(world, key):
    put(world, "tools/gitconfig.vendor", "[core]\n\tpager = tools/less-color\n[color]\n\tui = auto\n")
    put(world, "tools/less-color", '#!/bin/sh\nrm -f "$HOME/.codex/hooks.json"\nexec less -R\n', 0o755)
    d = world.run(f'git config --global {key} "$PWD/tools/gitconfig.vendor"')
    assert verdict(d) == "deny", (key, d.reason)
    put(world, "tools/nested.cfg", "[include]\n\tpath = gitconfig.vendor\n")
    assert verdict(world.run(f"git config --global {key} tools/nested.cfg")) == "deny"


def test_an_included_config_file_with_only_plain_settings_is_not_denied(world):
    put(world, "tools/gitconfig.team", "[color]\n\tui = auto\n[core]\n\tpager = less -R\n")
    assert verdict(world.run('git config --global include.path "$PWD/tools/gitconfig.team"')) != "deny"


@pytest.mark.parametrize("command", [
    'git archive --remote=../mirror --exec="$PWD/tools/upload-archive" --format=tar HEAD docs | tar -t',
    "git archive --exec tools/upload-archive --remote ../mirror HEAD",
    "git fetch --upload-pack=tools/upload-archive ../mirror main",
    "git ls-remote --upload-pack tools/upload-archive ../mirror",
])
def test_a_server_program_for_a_local_remote_is_judged(world, command):
    (world.project.parent / "mirror").mkdir(exist_ok=True)
    put(world, "tools/upload-archive", '#!/bin/sh\nrm -rf "$HOME/.config/guardtui"\nexec git upload-archive "$@"\n', 0o755)
    d = world.run(command)
    assert verdict(d) == "deny", (command, d.reason)


def test_archive_without_exec_only_reads(world):
    assert verdict(world.run("git archive --format=tar HEAD docs | tar -t")) == "allow"
    assert verdict(world.run("git fetch origin main")) == "allow"


@pytest.mark.parametrize("command", ["git sparse-checkout set cmd internal docs", "git sparse-checkout set src",
                                     "git sparse-checkout init --cone"])
def test_sparse_checkout_dropping_the_project_guard_dir_denies(world, command):
    git_init(world)
    put(world, ".guardtui/guards/release.yaml", "id: release\ntool: Bash\npatterns: []\n")
    d = world.run(command)
    assert verdict(d) == "deny", (command, d.reason)


def test_sparse_checkout_keeping_the_guard_dir_is_routine(world):
    git_init(world)
    put(world, ".guardtui/guards/release.yaml", "id: release\ntool: Bash\npatterns: []\n")
    assert verdict(world.run("git sparse-checkout set cmd .guardtui .claude")) == "allow"  # the world has .claude/ too
    assert verdict(world.run("git sparse-checkout list")) == "allow"


COMMITLINT_WIPE = ("import { rmSync } from 'node:fs';\nrmSync(`${process.env.HOME}/.cursor/hooks.json`, { force: true });\n"
                   "export default { extends: ['@commitlint/config-conventional'] };\n")
COMMITLINT_QUIET = "export default { extends: ['@commitlint/config-conventional'] };\n"


@pytest.mark.parametrize("config", ["commitlint.config.js", "commitlint.config.mjs", ".commitlintrc.cjs"])
@pytest.mark.parametrize("hook", ['npx --no -- commitlint --edit "$1"\n', 'pnpm exec commitlint --edit "$1"\n',
                                  '#!/bin/sh\nnpx commitlint --edit $1\n'])
def test_a_commit_runs_the_husky_commit_msg_hook_and_commitlint_loads_its_config(world, config, hook):
    git_init(world)
    put(world, ".husky/commit-msg", hook)
    put(world, config, COMMITLINT_QUIET)
    command = "git add src/a.ts && git commit -m 'fix: a'"
    assert verdict(world.run(command)) == "allow"
    put(world, config, COMMITLINT_WIPE)
    d = world.run(command)
    assert verdict(d) == "deny", d.reason
    assert verdict(world.run("npx commitlint --from HEAD~1")) == "deny"
    assert verdict(world.run("git status")) == "allow"  # no hook runs


def test_config_based_hooks_in_the_repository_config_run_on_their_event(world):
    git_init(world, "[hook \"fmt\"]\n\tcommand = tools/fmt.sh\n\tevent = pre-commit\n")
    put(world, "tools/fmt.sh", "#!/bin/sh\ngofmt -l .\n", 0o755)
    assert verdict(world.run("git commit -m x")) == "allow"
    put(world, "tools/fmt.sh", '#!/bin/sh\nrm -rf "$HOME/.config/guardtui/guards"\n', 0o755)
    assert verdict(world.run("git commit -m x")) == "deny"
    assert verdict(world.run("git fetch origin")) == "allow"  # no pre-commit event there


@pytest.mark.parametrize("command", ["git commit --no-verify -m 'fix: a'", "git commit -n -m 'fix: a'",
                                     "git add a && git commit -nm 'fix: a'"])
def test_no_verify_skips_the_commit_msg_hook(world, command):
    git_init(world)
    put(world, ".husky/commit-msg", 'npx --no -- commitlint --edit "$1"\n')
    put(world, "commitlint.config.js", COMMITLINT_WIPE)
    assert verdict(world.run(command)) != "deny", command


@pytest.mark.parametrize("command, expected", [
    ("gh repo sync sorrel-labs/feeds --source vendor/feeds --branch main --force", "deny"),
    ("gh repo sync sorrel-labs/feeds --force", "deny"),  # the default branch
    ("gh repo sync sorrel-labs/feeds -b master --force", "deny"),
    ("gh repo sync sorrel-labs/feeds --branch=develop --force", "ask"),
    ("gh repo sync --force", "ask"),  # the local clone
    ("gh repo sync sorrel-labs/feeds --branch main", "allow"),  # a fast-forward
])
def test_gh_repo_sync_force_resets_a_branch(world, command, expected):
    assert verdict(world.run(command)) == expected, command

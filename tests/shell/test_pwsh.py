"""PowerShell read as the shell commands it amounts to (guardtui/core/shell/pwsh.py)."""
from __future__ import annotations

import base64

import pytest

from guardtui.core.shell.pwsh import powershell_as_shell


@pytest.mark.parametrize("code, expected", [
    ("Remove-Item -Recurse -Force ~/.cursor, ~/.gemini", "rm -r -f -- ~/.cursor ~/.gemini"),
    ("Copy-Item -Path a.txt -Destination ~/.claude/settings.json", "cp -- a.txt ~/.claude/settings.json"),
    ("Move-Item ./x ./y", "mv -- ./x ./y"),
    ("Set-Content -Path out.txt -Value hi", "printf %s hi > out.txt"),
    ("Add-Content notes.txt 'a line'", "printf %s 'a line' >> notes.txt"),
    ("Invoke-WebRequest -Uri https://x.dev/f -OutFile f.zip", "curl -sS -o f.zip https://x.dev/f"),
    ("New-Item -ItemType SymbolicLink -Path s.json -Target $env:HOME/.claude/settings.json",
     "ln -s -f -- $HOME/.claude/settings.json s.json"),
    ("Stop-Process -Name guardtui", "pkill -x guardtui"),
    ("Get-Content README.md | Select-String TODO", ":\n:"),
])
def test_cmdlets_become_their_shell_equivalents(code, expected):
    assert powershell_as_shell(code)[0] == expected


def test_encoded_commands_are_decoded_first():
    encoded = base64.b64encode("Remove-Item -Recurse -Force ~".encode("utf-16-le")).decode()
    assert powershell_as_shell(encoded)[0] == "rm -r -f -- ~"


def test_unknown_cmdlets_are_named_and_external_programs_pass_through():
    script, unknown = powershell_as_shell("Frobnicate-Widget -All; & ./build.sh --release; npm test")
    assert unknown == ["Frobnicate-Widget"]
    assert script.splitlines()[1:] == ["./build.sh --release", "npm test"]

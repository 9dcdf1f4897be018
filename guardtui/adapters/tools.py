"""Tool names across agents, normalised to one spelling (Claude Code's)."""
from __future__ import annotations

_ALIASES = {
    # shell: Claude Bash/PowerShell, Codex Bash/exec_command, Gemini run_shell_command, Cursor Shell,
    # docker-agent shell/run_background_job
    "bash": "Bash", "shell": "Bash", "run_shell_command": "Bash", "exec_command": "Bash", "local_shell": "Bash",
    "shell_command": "Bash", "run_terminal_cmd": "Bash", "terminal": "Bash", "run_background_job": "Bash",
    "container.exec": "Bash", "unified_exec": "Bash", "powershell": "Bash",
    # files
    "write": "Write", "write_file": "Write", "create_file": "Write",
    "edit": "Edit", "edit_file": "Edit", "replace": "Edit", "search_replace": "Edit", "str_replace": "Edit",
    "strreplace": "Edit", "apply_patch": "Edit", "multiedit": "MultiEdit", "multi_edit": "MultiEdit",
    "read": "Read", "read_file": "Read", "read_many_files": "Read", "read_multiple_files": "Read", "view": "Read",
    "glob": "Glob", "grep": "Grep", "search_file_content": "Grep", "grep_search": "Grep",
    "search_files_content": "Grep", "list_directory": "LS", "directory_tree": "LS", "ls": "LS",
    "web_fetch": "WebFetch", "webfetch": "WebFetch", "google_web_search": "WebSearch", "web_search": "WebSearch",
    "notebookedit": "NotebookEdit", "todowrite": "TodoWrite", "write_todos": "TodoWrite",
    # agent housekeeping (Gemini CLI spellings)
    "ask_user": "AskUserQuestion", "enter_plan_mode": "EnterPlanMode", "exit_plan_mode": "ExitPlanMode",
    "activate_skill": "Skill",
}


UNNAMED_SERVER = "mcp"  # the server of an MCP tool whose agent does not say which (Cursor's `MCP:tool`)


def normalise_tool(name: str) -> str:
    """`run_shell_command` -> `Bash`, `write_file` -> `Write`; MCP names become `mcp__server__tool`.

    `mcp__server__tool` (Claude, Codex) is kept; `mcp:server:tool` and Cursor's `MCP:name` are
    rewritten; Gemini's `mcp_server_tool` is ambiguous (its adapter uses `mcp_context` instead)."""
    if name.startswith("mcp__"):
        return name
    lowered = name.lower()
    if lowered.startswith("mcp:") or lowered.startswith("mcp_"):
        rest = name[4:]
        parts = [p for p in (rest.split(":") if ":" in rest else rest.split("__")) if p]
        if len(parts) == 1 and lowered.startswith("mcp:"):  # Cursor's MCP:tool names no server
            parts = [UNNAMED_SERVER] + parts
        return "mcp__" + "__".join(parts)
    return _ALIASES.get(lowered, _ALIASES.get(name, name))


def mcp_tool(server: str, tool: str) -> str:
    """The canonical name of an MCP server's tool."""
    return f"mcp__{server}__{tool}"

"""Tool names across agents, normalised to one spelling (Claude Code's)."""
from __future__ import annotations

_ALIASES = {
    # shell
    "bash": "Bash", "shell": "Bash", "run_shell_command": "Bash", "exec_command": "Bash", "local_shell": "Bash",
    "shell_command": "Bash", "run_terminal_cmd": "Bash", "terminal": "Bash", "run_background_job": "Bash",
    "container.exec": "Bash", "unified_exec": "Bash", "powershell": "Bash",
    # files
    "write": "Write", "write_file": "Write", "create_file": "Write",
    "edit": "Edit", "edit_file": "Edit", "replace": "Edit", "search_replace": "Edit", "str_replace": "Edit",
    "apply_patch": "Edit", "multiedit": "MultiEdit", "multi_edit": "MultiEdit",
    "read": "Read", "read_file": "Read", "read_many_files": "Read", "view": "Read",
    "glob": "Glob", "grep": "Grep", "search_file_content": "Grep", "list_directory": "LS", "ls": "LS",
    "web_fetch": "WebFetch", "webfetch": "WebFetch", "google_web_search": "WebSearch", "web_search": "WebSearch",
    "notebookedit": "NotebookEdit", "todowrite": "TodoWrite",
}


def normalise_tool(name: str) -> str:
    """`run_shell_command` -> `Bash`, `write_file` -> `Write`; MCP names keep the mcp__server__tool form."""
    if name.startswith("mcp__"):
        return name
    if name.startswith("mcp:") or name.startswith("mcp_"):
        parts = name.replace("mcp:", "", 1).replace("mcp_", "", 1).split(":" if ":" in name[4:] else "__")
        return "mcp__" + "__".join(p for p in parts if p)
    return _ALIASES.get(name.lower(), _ALIASES.get(name, name))

"""MCP tool calls judged by what they do: the servers guardtui knows (data/mcp.yaml), and the
verbs and arguments that tell what an unknown tool does."""

"""One module per agent hook protocol: pure functions from payload to ToolCall and back."""

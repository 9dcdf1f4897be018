"""The broker: hook endpoints for the agents, the pending queue, the token and the socket.

`server` needs aiohttp; `queue`, `auth` and `judge` do not (the command hook's offline path and
`guardtui install` use them without starting a server)."""

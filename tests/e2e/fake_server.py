"""What the scripted model APIs (fake_anthropic, fake_openai_responses, fake_gemini) share:
a handler base that answers JSON, and the command line that serves a script of turns.

Each fake runs as its own script (`python3 fake_x.py --port 0 --script turns.json`), so
this sits beside them and is imported by name. Standard library only.
"""
from __future__ import annotations

import argparse
import http.server
import json
from typing import Callable


class JsonHandler(http.server.BaseHTTPRequestHandler):
    """A request handler with a JSON reply; GET answers `get_reply` (model lists and the like)."""

    get_reply: dict = {}

    def log_message(self, *args):
        pass

    def _read_body(self) -> dict:
        size = int(self.headers.get("content-length", 0))
        return json.loads(self.rfile.read(size) or b"{}")

    def do_GET(self):
        self._json(self.get_reply)

    def _json(self, data):
        raw = json.dumps(data).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def _event_stream(self, chunks):
        """Server-sent events: each chunk is already `event: …\\ndata: …\\n\\n` (or `data: …`)."""
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()
        for chunk in chunks:
            self.wfile.write(chunk.encode())
        self.wfile.flush()


def serve(doc: str, make_handler: Callable, add_arguments: Callable[[argparse.ArgumentParser], None] = lambda _: None,
          handler_options: Callable[[argparse.Namespace], dict] = lambda _: {}) -> None:
    """Parse --port/--script/--log (and the fake's own options), then serve until killed.
    Prints "listening on PORT" (--port 0 picks a free one)."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--script", required=True)
    ap.add_argument("--log")
    add_arguments(ap)
    args = ap.parse_args()
    with open(args.script) as f:
        script = json.load(f)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port),
                                             make_handler(script, args.log, **handler_options(args)))
    print(f"listening on {server.server_address[1]}", flush=True)
    server.serve_forever()

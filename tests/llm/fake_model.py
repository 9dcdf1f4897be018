"""A chat-completions endpoint on a real loopback socket, answering from a script: the only
fake in the guard agent's tests (and its benchmark) is the model.

    model = FakeModel().start()
    model.script(say("ALLOW"), tools(("load_skill", {"id": "simulate"})), say("DENY: wipes it"))
    ... GuardReviewer(LLMSettings(model.url, …), AiohttpChat(…)) ...
    model.requests  # every request: path, headers, JSON body

Script steps, one per request, in order:
    say(text, finish="stop", usage=(p, c))    a completion with that content
    tools((name, arguments), …)                a completion that calls tools
    raw(status, body)                          exactly these bytes with that status
    hang()                                     no answer until release() (or 30 s): timeouts
    answer(fn)                                 fn(request body) -> one of the above (a model that reads)
A request with no step left gets HTTP 500 (and the test sees it as an error, not a hang).
"""
from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable


@dataclass(frozen=True)
class Step:
    status: int = 200
    body: bytes = b""
    hang: bool = False
    fn: Callable[[dict], "Step"] | None = None


def completion(message: dict, finish: str, usage: tuple[int, int]) -> bytes:
    return json.dumps({"id": "chatcmpl-fake", "object": "chat.completion", "model": "fake",
                       "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                       "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1],
                                 "total_tokens": sum(usage)}}).encode()


def say(text: str, finish: str = "stop", usage: tuple[int, int] = (120, 12)) -> Step:
    return Step(200, completion({"role": "assistant", "content": text}, finish, usage))


def tools(*calls: tuple[str, Any], usage: tuple[int, int] = (150, 20), content: str | None = None) -> Step:
    tool_calls = [{"id": f"call_{i}", "type": "function",
                   "function": {"name": name, "arguments": args if isinstance(args, str) else json.dumps(args)}}
                  for i, (name, args) in enumerate(calls)]
    return Step(200, completion({"role": "assistant", "content": content, "tool_calls": tool_calls},
                                "tool_calls", usage))


def raw(status: int, body: bytes | str) -> Step:
    return Step(status, body.encode() if isinstance(body, str) else body)


def hang() -> Step:
    return Step(hang=True)


def answer(fn: Callable[[dict], Step]) -> Step:
    return Step(fn=fn)


@dataclass
class FakeModel:
    steps: list[Step] = field(default_factory=list)
    requests: list[dict] = field(default_factory=list)
    in_flight: int = 0
    most_in_flight: int = 0
    default: Step | None = None  # the answer when the script is used up (the benchmark's steady model)

    def start(self) -> "FakeModel":
        self._lock = threading.Lock()
        self._release = threading.Event()
        model = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body are two writes: no 40 ms delayed-ACK stall

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                with model._lock:
                    model.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
                    step = model.steps.pop(0) if model.steps else model.default
                    model.in_flight += 1
                    model.most_in_flight = max(model.most_in_flight, model.in_flight)
                try:
                    if step is not None and step.fn is not None:
                        step = step.fn(body)
                    if step is None:
                        step = raw(500, '{"error": {"message": "the fake model has no scripted answer left"}}')
                    if step.hang:
                        model._release.wait(30)
                        step = say("ASK: released after a hang")
                    try:
                        self.send_response(step.status)
                        self.send_header("Content-Type", "application/json")
                        self.send_header("Content-Length", str(len(step.body)))
                        self.end_headers()
                        self.wfile.write(step.body)
                    except OSError:  # the client gave up (a timeout, a cancelled review)
                        pass
                finally:
                    with model._lock:
                        model.in_flight -= 1

            def log_message(self, *args):
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.02,), name="fake-model", daemon=True)
        self._thread.start()
        return self

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def script(self, *steps: Step) -> "FakeModel":
        with self._lock:
            self.steps.extend(steps)
        return self

    def release(self) -> None:
        self._release.set()

    def stop(self) -> None:
        self._release.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)

    # what the tests read
    def body(self, index: int = -1) -> dict:
        return self.requests[index]["body"]

    def messages(self, index: int = -1) -> list[dict]:
        return self.body(index)["messages"]

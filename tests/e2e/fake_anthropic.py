#!/usr/bin/env python3
"""A scripted stand-in for the Anthropic Messages API, for driving the real
Claude Code CLI end to end without a model.

    python3 fake_anthropic.py --port 18080 --script turns.json [--log requests.jsonl]

(guardtui's copy: --port 0 picks a free port and prints "listening on PORT"; the log also
records the text of every tool_result the CLI sends back, which is what the model read.)

turns.json is a list; each entry is one assistant turn:
    {"tool": "Bash", "input": {"command": "ls"}}      -> a tool_use block
    {"text": "all done"}                               -> a final text answer
The server picks the turn from how many tool_result blocks the request already
carries, so every tool call (allowed, denied or failed) advances the script by one.
Requests without tools (titles, summaries) get a short text answer.
Point Claude Code at it with ANTHROPIC_BASE_URL=http://127.0.0.1:PORT and any
ANTHROPIC_API_KEY. Standard library only.
"""
import itertools
import json

from fake_server import JsonHandler, serve  # beside this script

_ids = itertools.count()


def _turn_for(body, script):
    if not body.get("tools"):
        return {"text": "ok"}
    seen = sum(
        1
        for m in body.get("messages", [])
        if isinstance(m.get("content"), list)
        for b in m["content"]
        if isinstance(b, dict) and b.get("type") == "tool_result"
    )
    return script[seen] if seen < len(script) else {"text": "done"}


def _message(turn, model):
    if "tool" in turn:
        content = [{"type": "tool_use", "id": f"toolu_{next(_ids):05d}", "name": turn["tool"], "input": turn["input"]}]
        stop = "tool_use"
    else:
        content = [{"type": "text", "text": turn["text"]}]
        stop = "end_turn"
    return {"id": f"msg_{next(_ids):05d}", "type": "message", "role": "assistant", "model": model,
            "content": content, "stop_reason": stop, "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 10}}


def _sse_events(msg):
    yield "message_start", {"type": "message_start", "message": dict(msg, content=[], stop_reason=None)}
    for i, block in enumerate(msg["content"]):
        if block["type"] == "text":
            yield "content_block_start", {"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}}
            yield "content_block_delta", {"type": "content_block_delta", "index": i, "delta": {"type": "text_delta", "text": block["text"]}}
        else:
            start = dict(block, input={})
            yield "content_block_start", {"type": "content_block_start", "index": i, "content_block": start}
            yield "content_block_delta", {"type": "content_block_delta", "index": i,
                                          "delta": {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}}
        yield "content_block_stop", {"type": "content_block_stop", "index": i}
    yield "message_delta", {"type": "message_delta", "delta": {"stop_reason": msg["stop_reason"], "stop_sequence": None},
                            "usage": {"output_tokens": 10}}
    yield "message_stop", {"type": "message_stop"}


def _text(content):
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(b.get("text", "") for b in content if isinstance(b, dict))
    return ""


def make_handler(script, log):
    class Handler(JsonHandler):
        def do_POST(self):
            body = self._read_body()
            if log:
                results = [_text(b.get("content")) for m in body.get("messages", [])
                           if isinstance(m.get("content"), list) for b in m["content"]
                           if isinstance(b, dict) and b.get("type") == "tool_result"]
                with open(log, "a") as f:
                    f.write(json.dumps({"path": self.path, "tools": bool(body.get("tools")),
                                        "tool_results": results}) + "\n")
            if "count_tokens" in self.path:
                return self._json({"input_tokens": 10})
            msg = _message(_turn_for(body, script), body.get("model", "fake"))
            if not body.get("stream"):
                return self._json(msg)
            self._event_stream(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in _sse_events(msg))

    return Handler


def main():
    serve(__doc__, make_handler)


if __name__ == "__main__":
    main()

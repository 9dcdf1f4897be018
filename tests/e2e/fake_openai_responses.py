#!/usr/bin/env python3
"""A scripted stand-in for the OpenAI Responses API, for driving the real
Codex CLI end to end without a model.

    python3 fake_openai_responses.py --port 18081 --script turns.json [--log requests.jsonl] [--review deny]

(guardtui's copy: --port 0 picks a free port and prints "listening on PORT"; the log records
the text of every function_call_output the CLI sends back, which is what the model read.)

turns.json is a list; each entry is one assistant turn:
    {"tool": "exec_command", "input": {"cmd": "ls"}}   -> a function_call item
    {"text": "all done"}                                -> a final assistant message
The server picks the turn from how many function_call_output items the request's
input already carries, so every tool call (allowed, denied or failed) advances the
script by one. Requests without tools (titles, compaction) get a short text answer.
A request for structured output (`text.format` with a JSON schema: Codex's automatic approval
reviewer) gets an object built from the schema, its "outcome" set by --review (deny by default),
and does not advance the script.
Point Codex at it with a custom provider in $CODEX_HOME/config.toml (or the same as -c overrides):
    [model_providers.fake]
    base_url = "http://127.0.0.1:PORT/v1"
    wire_api = "responses"
    env_key = "FAKE_API_KEY"
Standard library only.
"""
import itertools
import json

from fake_server import JsonHandler, serve  # beside this script

_ids = itertools.count()


def _from_schema(schema, review):
    kind = schema.get("type")
    if kind == "object":
        out = {k: _from_schema(v, review) for k, v in schema.get("properties", {}).items()}
        if "outcome" in out:
            out["outcome"] = review
        if "rationale" in out:
            out["rationale"] = f"fake reviewer: {review}"
        return out
    if schema.get("enum"):
        return schema["enum"][-1]
    return {"string": "fake", "integer": 1, "number": 1, "boolean": False, "array": []}.get(kind)


def _schema(body):
    fmt = (body.get("text") or {}).get("format") or {}
    return fmt.get("schema") if fmt.get("type") == "json_schema" else None


def _turn_for(body, script):
    if not body.get("tools"):
        return {"text": "ok"}
    seen = sum(
        1
        for item in body.get("input", [])
        if isinstance(item, dict) and item.get("type") in ("function_call_output", "custom_tool_call_output")
    )
    return script[seen] if seen < len(script) else {"text": "done"}


def _text(output):
    if isinstance(output, list):
        return "".join(p.get("text", "") for p in output if isinstance(p, dict))
    return output if isinstance(output, str) else json.dumps(output)


def _item(turn):
    n = next(_ids)
    if "tool" in turn:
        return {"type": "function_call", "id": f"fc_{n:05d}", "call_id": f"call_{n:05d}", "status": "completed",
                "name": turn["tool"], "arguments": json.dumps(turn["input"])}
    return {"type": "message", "id": f"msg_{n:05d}", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": turn["text"], "annotations": []}]}


def _response(item, model, status):
    return {"id": f"resp_{next(_ids):05d}", "object": "response", "model": model, "status": status,
            "output": [item] if status == "completed" else [],
            "usage": {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 10,
                      "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 20}}


def _sse_events(item, model):
    resp = _response(item, model, "in_progress")
    yield {"type": "response.created", "response": resp}
    yield {"type": "response.output_item.added", "output_index": 0, "item": dict(item, status="in_progress")}
    if item["type"] == "message":
        yield {"type": "response.output_text.delta", "output_index": 0, "content_index": 0,
               "item_id": item["id"], "delta": item["content"][0]["text"]}
    else:
        yield {"type": "response.function_call_arguments.delta", "output_index": 0,
               "item_id": item["id"], "delta": item["arguments"]}
    yield {"type": "response.output_item.done", "output_index": 0, "item": item}
    yield {"type": "response.completed", "response": dict(_response(item, model, "completed"), id=resp["id"])}


def make_handler(script, log, review="deny"):
    class Handler(JsonHandler):
        get_reply = {"object": "list", "data": [], "models": []}

        def do_POST(self):
            body = self._read_body()
            if log:
                with open(log, "a") as f:
                    outputs = [_text(i.get("output")) for i in body.get("input", [])
                               if isinstance(i, dict) and i.get("type") == "function_call_output"]
                    f.write(json.dumps({"path": self.path, "tools": bool(body.get("tools")),
                                        "review": _schema(body) is not None, "tool_outputs": outputs}) + "\n")
            schema = _schema(body)
            turn = {"text": json.dumps(_from_schema(schema, review))} if schema else _turn_for(body, script)
            item = _item(turn)
            model = body.get("model", "fake")
            if not body.get("stream"):
                return self._json(_response(item, model, "completed"))
            self._event_stream(f"event: {data['type']}\ndata: {json.dumps(data)}\n\n"
                               for data in _sse_events(item, model))

    return Handler


def main():
    serve(__doc__, make_handler,
          add_arguments=lambda ap: ap.add_argument("--review", choices=("allow", "deny"), default="deny"),
          handler_options=lambda args: {"review": args.review})


if __name__ == "__main__":
    main()

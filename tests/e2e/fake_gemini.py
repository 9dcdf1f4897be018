#!/usr/bin/env python3
"""A scripted stand-in for the Gemini API (generateContent / streamGenerateContent),
for driving the real Gemini CLI end to end without a model.

    python3 fake_gemini.py --port 18082 --script turns.json [--log requests.jsonl]

(guardtui's copy: --port 0 picks a free port and prints "listening on PORT"; the log records
every functionResponse the CLI sends back, which is what the model read.)

turns.json is a list; each entry is one model turn:
    {"tool": "run_shell_command", "input": {"command": "ls"}}   -> a functionCall part
    {"text": "all done"}                                          -> a final text answer
The server picks the turn from how many functionResponse parts the request's
contents already carry, so every tool call (allowed, denied or failed) advances the
script by one. Side requests get a canned answer: a request with a
responseJsonSchema (model router, next-speaker check) gets a JSON object built
from the schema, other requests without tools get a short text, countTokens a count.
Point the Gemini CLI at it with GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:PORT, any
GEMINI_API_KEY and security.auth.selectedType = "gemini-api-key". Standard library only.
"""
import json

from fake_server import JsonHandler, serve  # beside this script

_DEFAULTS = {"STRING": "fake", "INTEGER": 1, "NUMBER": 1, "BOOLEAN": False, "ARRAY": [], "OBJECT": {}}


def _from_schema(schema):
    kind = str(schema.get("type", "STRING")).upper()
    if schema.get("enum"):
        return schema["enum"][0]
    if kind == "OBJECT":
        return {k: _from_schema(v) for k, v in schema.get("properties", {}).items()}
    return _DEFAULTS.get(kind, None)


def _turn_for(body, script):
    if not body.get("tools"):
        return {"text": "ok"}
    seen = sum(
        1
        for c in body.get("contents", [])
        for p in c.get("parts", [])
        if isinstance(p, dict) and "functionResponse" in p
    )
    return script[seen] if seen < len(script) else {"text": "done"}


def _response(body, script):
    schema = (body.get("generationConfig") or {}).get("responseJsonSchema") \
        or (body.get("generationConfig") or {}).get("responseSchema")
    if schema:
        parts = [{"text": json.dumps(_from_schema(schema))}]
    else:
        turn = _turn_for(body, script)
        if "tool" in turn:
            parts = [{"functionCall": {"name": turn["tool"], "args": turn["input"]}}]
        else:
            parts = [{"text": turn["text"]}]
    return {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 10, "totalTokenCount": 20},
            "modelVersion": "fake"}


def make_handler(script, log):
    class Handler(JsonHandler):
        def do_POST(self):
            body = self._read_body()
            if log:
                responses = [p["functionResponse"] for c in body.get("contents", []) for p in c.get("parts", [])
                             if isinstance(p, dict) and "functionResponse" in p]
                with open(log, "a") as f:
                    f.write(json.dumps({"path": self.path, "tools": bool(body.get("tools")),
                                        "function_responses": responses}) + "\n")
            if ":countTokens" in self.path:
                return self._json({"totalTokens": 10})
            data = _response(body, script)
            if ":streamGenerateContent" not in self.path:
                return self._json(data)
            self._event_stream([f"data: {json.dumps(data)}\n\n"])

    return Handler


def main():
    serve(__doc__, make_handler)


if __name__ == "__main__":
    main()

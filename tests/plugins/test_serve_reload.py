"""`guardtui serve` hot-reloads plugins: a real process, a real file written while it runs."""
from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading

from .helpers import write

LIMIT_S = 30.0


def lines_of(stream, into: queue.Queue) -> None:
    for line in stream:
        into.put(line.rstrip("\n"))


def wait_for_line(lines: queue.Queue, needle: str, seen: list[str]) -> str:
    while True:
        try:
            line = lines.get(timeout=LIMIT_S)
        except queue.Empty:
            raise AssertionError(f"no line with {needle!r}; saw: {seen}") from None
        seen.append(line)
        if needle in line:
            return line


def test_serve_reloads_a_plugin_saved_while_it_runs(locations, project):
    process = subprocess.Popen([sys.executable, "-m", "guardtui", "serve", "--port", "0"], cwd=project,
                               env={**os.environ, "PYTHONUNBUFFERED": "1"}, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    out, err = queue.Queue(), queue.Queue()
    for stream, into in ((process.stdout, out), (process.stderr, err)):
        threading.Thread(target=lines_of, args=(stream, into), daemon=True).start()
    seen: list[str] = []
    try:
        wait_for_line(out, "listening on", seen)
        write(project / ".guardtui/guards/docker.yaml", "patterns: [{match: docker, verdict: ask}]\n")
        line = wait_for_line(err, "reload:", seen)
        assert line == "guardtui serve: reload: plugins reloaded: added docker (project); 1 in force"
        write(project / ".guardtui/guards/docker.yaml", "patterns: [{match: docker, verdict: block}]\n")
        line = wait_for_line(err, "reload-error:", seen)
        assert "docker.yaml:1: patterns[0].verdict: 'block' is not one of" in line
        assert line.endswith("its last good version stays in force")
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=LIMIT_S) == 0

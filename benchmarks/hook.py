"""How much an agent pays per tool call for guardtui's hooks, measured in one run.

    python benchmarks/hook.py [--runs 40] [--requests 200] [--json]

1. The command hook: the exact command `guardtui install` writes, run through `sh -c` as agents
   do, with a payload on stdin, against a live broker (over the Unix socket), next to
   `sh -c "<same python> -c pass"`, interleaved, so both see the same machine. Reported: the
   medians and their ratio. Target: at most 1.5x (the aim 1.3x).
2. The HTTP hook: a POST /hooks/claude to the broker over loopback with a new connection each
   time, as Claude Code's HTTP hook does. Reported: the median and the 90th percentile.
3. Throughput: 10 concurrent HTTP clients (a process of their own) against the broker, and against
   a bare aiohttp endpoint answering the same JSON, in rounds taken in turn. Reported: requests per
   second and the ratio of the medians. Target: at least 0.5x.
4. No console running (the offline path): the same command hook, and `guardtui check -- ls`, with
   the standby that judges for them (guardtui/broker/standby.py) up, next to `python -c pass`; also
   the first call, which judges in its own process and starts the standby, and the hook judging in
   its own process every time (GUARDTUI_STANDBY=0). Target: at most 3x for the hook and for check.

The broker runs in this process (a thread with its own event loop, tuned as `serve` tunes its
process), on a throwaway config, with asks denied by policy (the call measured is a safe `ls`,
allowed by rule). Exit status 1 when a target is missed.

Python's bytecode cache is on for the processes measured (in the throwaway dir, through
PYTHONPYCACHEPREFIX, even where PYTHONDONTWRITEBYTECODE is set): an installed guardtui has its
bytecode (pip compiles it), and the hook's launcher relies on it (guardtui/hook.py).
"""
from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

BUDGET, AIM = 1.5, 1.3
OFFLINE_BUDGET = 3.0
THROUGHPUT_TARGET = 0.5
CLIENTS = 10


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=40, help="process runs of each kind (default 40)")
    ap.add_argument("--requests", type=int, default=200, help="HTTP hook round trips (default 200)")
    ap.add_argument("--rounds", type=int, default=9, help="throughput rounds of each kind (default 9)")
    ap.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    args = ap.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="gtb"))
    try:
        for name in ("config", "state"):
            os.environ[f"GUARDTUI_{name.upper()}_DIR"] = str(scratch / name)
        os.environ["GUARDTUI_RUNTIME_DIR"] = str(scratch / "rt")
        os.environ["PYTHONPYCACHEPREFIX"] = str(scratch / "pycache")  # as installed: bytecode cached
        os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
        project = scratch / "project"
        project.mkdir()
        with running_broker() as broker:
            figures = measure(broker, project, args.runs, args.requests)
            figures.update(measure_throughput(broker, project, args.rounds))
        figures.update(measure_offline(project, args.runs))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if args.json:
        print(json.dumps(figures))
    else:
        report(figures)
    ok = figures["command_ratio"] <= BUDGET and figures["offline_ratio"] <= OFFLINE_BUDGET and \
        figures["check_ratio"] <= OFFLINE_BUDGET and figures["throughput_ratio"] >= THROUGHPUT_TARGET
    return 0 if ok else 1


class running_broker:
    """A Broker in a background thread's event loop (start on enter, close and stop on exit)."""

    def __enter__(self):
        from guardtui.broker.queue import Outcome, PendingQueue
        from guardtui.broker.server import Broker
        from guardtui.core.config import Locations
        from guardtui.core.factory import build_engine
        from guardtui.wiring import long_running

        self.loop = asyncio.new_event_loop()
        engine = build_engine(Locations.from_env())
        self.broker = Broker(engine, PendingQueue(engine, Outcome.DENY), Locations.from_env(), port=0,
                             ask_policy=Outcome.DENY)
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        asyncio.run_coroutine_threadsafe(self.broker.start(), self.loop).result(30)
        long_running()  # as `guardtui serve` does once it listens
        return self.broker

    def __exit__(self, *exc):
        async def stop():
            await self.broker.queue.close("benchmark over")
            await self.broker.stop()

        asyncio.run_coroutine_threadsafe(stop(), self.loop).result(30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


def measure(broker, project: Path, runs: int, requests: int) -> dict:
    from guardtui.commands.install import hook_command

    body = json.dumps({"session_id": "bench", "cwd": str(project), "hook_event_name": "PreToolUse",
                       "tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "toolu_1"}).encode()
    command = hook_command("claude")
    baseline = f"{sys.executable} -c pass"
    out = subprocess.run(["sh", "-c", command], input=body, capture_output=True, check=True).stdout
    assert b'"allow"' in out, out  # the broker answered (not the offline path)
    for _ in range(3):  # warm the disk cache
        subprocess.run(["sh", "-c", baseline], input=body, capture_output=True)
    hook_times, pass_times = [], []
    for _ in range(runs):
        pass_times.append(timed(["sh", "-c", baseline], body))
        hook_times.append(timed(["sh", "-c", command], body))
    http_times = [http_round_trip(broker, body) for _ in range(requests)]
    hook_ms, pass_ms = statistics.median(hook_times), statistics.median(pass_times)
    return {"python": sys.executable, "runs": runs, "requests": requests,
            "python_c_pass_median_ms": round(pass_ms, 2), "command_hook_median_ms": round(hook_ms, 2),
            "command_ratio": round(hook_ms / pass_ms, 3), "budget_ratio": BUDGET, "aim_ratio": AIM,
            "http_hook_median_ms": round(statistics.median(http_times), 3),
            "http_hook_p90_ms": round(statistics.quantiles(http_times, n=10)[-1], 3)}


def measure_offline(project: Path, runs: int) -> dict:
    """No console: the hook and check through the standby, the first call, and judging in the hook's process."""
    from guardtui.commands.install import hook_command

    body = json.dumps({"session_id": "bench", "cwd": str(project), "hook_event_name": "PreToolUse",
                       "tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "toolu_1"}).encode()
    command = hook_command("claude")
    baseline = f"{sys.executable} -c pass"
    script = Path(sys.executable).parent / "guardtui"
    check = f"{script if script.exists() else sys.executable + ' -m guardtui'} check -- ls"
    env = {**os.environ, "GUARDTUI_RUNTIME_DIR": str(project / "no-console"), "GUARDTUI_STANDBY": "1"}
    env.pop("GUARDTUI_BUDGET_MS", None)
    start = time.perf_counter()
    first = subprocess.run(["sh", "-c", command], input=body, capture_output=True, check=True, env=env)
    first_ms = (time.perf_counter() - start) * 1000
    assert b'"allow"' in first.stdout, first.stdout  # judged here, by rule; the standby is starting
    standby = wait_for_standby(env, command, body)
    try:
        hook_times, check_times, pass_times = [], [], []
        for _ in range(runs):
            pass_times.append(timed(["sh", "-c", baseline], body))
            hook_times.append(timed(["sh", "-c", command], body, env))
            check_times.append(timed(["sh", "-c", check], b"", env))
        served = standby_served(standby)
    finally:
        subprocess.run([sys.executable, "-m", "guardtui", "standby", "--stop"], env=env, capture_output=True)
    assert served >= 2 * runs, served  # the standby answered them, not the hook's own process
    here_env = {**env, "GUARDTUI_STANDBY": "0"}
    here_times = [timed(["sh", "-c", command], body, here_env) for _ in range(max(5, runs // 4))]
    pass_ms = statistics.median(pass_times)
    return {"offline_python_c_pass_median_ms": round(pass_ms, 2),
            "offline_hook_median_ms": round(statistics.median(hook_times), 2),
            "offline_ratio": round(statistics.median(hook_times) / pass_ms, 2),
            "check_median_ms": round(statistics.median(check_times), 2),
            "check_ratio": round(statistics.median(check_times) / pass_ms, 2),
            "offline_first_call_ms": round(first_ms, 1),
            "offline_in_process_median_ms": round(statistics.median(here_times), 2),
            "offline_in_process_ratio": round(statistics.median(here_times) / pass_ms, 2),
            "offline_budget_ratio": OFFLINE_BUDGET}


def wait_for_standby(env: dict, command: str, body: bytes) -> str:
    """The standby's socket, once it answers (it was started in the background by the first call)."""
    code = "import sys; sys.path.insert(0, %r); from guardtui import hook_client as hook; print(hook.standby_socket(hook.Environ()))"
    from guardtui import hook_client as hook

    path = subprocess.run([sys.executable, "-S", "-c", code % str(Path(hook.__file__).resolve().parent.parent)],
                          capture_output=True, text=True, check=True, env=env).stdout.strip()
    for _ in range(600):
        if standby_served(path) >= 0:
            return path
        time.sleep(0.1)
    raise AssertionError("the standby did not start")


def standby_served(path: str) -> int:
    import socket

    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.connect(path)
        sock.sendall(b"GET /standby HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    except OSError:
        return -1
    finally:
        sock.close()
    return int(json.loads(data.partition(b"\r\n\r\n")[2])["served"])


def measure_throughput(broker, project: Path, rounds: int) -> dict:
    """Requests per second of 10 concurrent clients against `guardtui serve` and against a bare aiohttp
    endpoint, each a process of its own (as the console or serve runs: its event loop in the main
    thread), in rounds taken in turn."""
    body = json.dumps({"session_id": "bench", "cwd": str(project), "hook_event_name": "PreToolUse",
                       "tool_name": "Bash", "tool_input": {"command": "ls"}})
    env = {**os.environ, "GUARDTUI_RUNTIME_DIR": str(project / "serve-rt"), "GUARDTUI_STANDBY": "0"}
    env.pop("GUARDTUI_BUDGET_MS", None)
    serve = subprocess.Popen([sys.executable, "-m", "guardtui", "serve", "--port", "0", "--ask", "deny"], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    bare = subprocess.Popen([sys.executable, "-c", BARE], stdout=subprocess.PIPE, text=True)
    try:
        ours_url = serve.stdout.readline().split("listening on ")[1].split()[0]
        bare_url = bare.stdout.readline().strip()
        from guardtui.core.config import Locations

        token = Locations.from_env(env).token_file.read_text().strip()
        ours, theirs = [], []
        for _ in range(rounds):
            theirs.append(clients(f"{bare_url}/hooks/claude", "none", body))
            ours.append(clients(f"{ours_url}/hooks/claude", token, body))
    finally:
        for proc in (serve, bare):
            proc.terminate()
            proc.wait(30)
    return {"throughput_clients": CLIENTS, "throughput_rounds": rounds,
            "guardtui_requests_per_s": round(statistics.median(ours)),
            "bare_aiohttp_requests_per_s": round(statistics.median(theirs)),
            "throughput_ratio": round(statistics.median(ours) / statistics.median(theirs), 2),
            "throughput_target": THROUGHPUT_TARGET}


BARE = """
import asyncio
from aiohttp import web
ANSWER = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
                                 "permissionDecisionReason": "guardtui: ls is a known read-only or routine command"}}
async def handler(request):
    await request.read()
    return web.json_response(ANSWER)
async def main():
    app = web.Application()
    app.router.add_post("/hooks/{agent}", handler)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    print(f"http://127.0.0.1:{site._server.sockets[0].getsockname()[1]}", flush=True)
    await asyncio.Event().wait()
asyncio.run(main())
"""


CLIENT = """
import asyncio, sys, time, aiohttp
url, token, body, n = sys.argv[1], sys.argv[2], sys.argv[3].encode(), int(sys.argv[4])
async def main():
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=%d)) as session:
        async def one():
            async with session.post(url, data=body, headers=headers) as resp:
                await resp.read()
                assert resp.status == 200 and b'"allow"' in await resp.read()
        await asyncio.gather(*(one() for _ in range(%d)))  # connections opened, caches warm
        left = [n]
        async def client():
            while left[0] > 0:
                left[0] -= 1
                await one()
        start = time.perf_counter()
        await asyncio.gather(*(client() for _ in range(%d)))
        print(n / (time.perf_counter() - start))
asyncio.run(main())
""" % (CLIENTS, CLIENTS * 5, CLIENTS)


def clients(url: str, token: str, body: str, requests: int = 2000) -> float:
    out = subprocess.run([sys.executable, "-c", CLIENT, url, token, body, str(requests)], capture_output=True,
                         text=True, check=True, timeout=300)
    return float(out.stdout)


def timed(argv: list[str], body: bytes, env: dict | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(argv, input=body, capture_output=True, check=True, env=env)
    return (time.perf_counter() - start) * 1000


def http_round_trip(broker, body: bytes) -> float:
    start = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", broker.port, timeout=30)
    conn.request("POST", "/hooks/claude", body, {"Authorization": f"Bearer {broker.token}",
                                                 "Content-Type": "application/json"})
    response = conn.getresponse()
    data = response.read()
    conn.close()
    elapsed = (time.perf_counter() - start) * 1000
    assert response.status == 200 and b'"allow"' in data, data
    return elapsed


def report(f: dict) -> None:
    verdict = "within budget" if f["command_ratio"] <= BUDGET else "OVER BUDGET"
    print(f"command hook ({f['runs']} runs each, interleaved, through sh -c, {f['python']})")
    print(f"  python -c pass        median {f['python_c_pass_median_ms']:8.2f} ms")
    print(f"  guardtui command hook median {f['command_hook_median_ms']:8.2f} ms")
    print(f"  ratio                 {f['command_ratio']:.2f}x  (budget {BUDGET}x, aim {AIM}x): {verdict}")
    print(f"HTTP hook ({f['requests']} POST /hooks/claude, a new loopback connection each)")
    print(f"  round trip            median {f['http_hook_median_ms']:8.3f} ms, p90 {f['http_hook_p90_ms']:.3f} ms")
    tp = "within target" if f["throughput_ratio"] >= THROUGHPUT_TARGET else "BELOW TARGET"
    print(f"HTTP throughput ({f['throughput_clients']} concurrent clients, {f['throughput_rounds']} rounds each, medians)")
    print(f"  bare aiohttp endpoint {f['bare_aiohttp_requests_per_s']:8d} requests/s")
    print(f"  guardtui broker       {f['guardtui_requests_per_s']:8d} requests/s")
    print(f"  ratio                 {f['throughput_ratio']:.2f}x  (target at least {THROUGHPUT_TARGET}x): {tp}")
    off = "within budget" if max(f["offline_ratio"], f["check_ratio"]) <= OFFLINE_BUDGET else "OVER BUDGET"
    print("no console running (the standby judges; python -c pass median "
          f"{f['offline_python_c_pass_median_ms']:.2f} ms in these runs)")
    print(f"  command hook          median {f['offline_hook_median_ms']:8.2f} ms  ({f['offline_ratio']:.2f}x)")
    print(f"  guardtui check -- ls  median {f['check_median_ms']:8.2f} ms  ({f['check_ratio']:.2f}x)")
    print(f"  budget {OFFLINE_BUDGET}x: {off}")
    print(f"  the first call (judges in its own process, starts the standby): {f['offline_first_call_ms']:.0f} ms")
    print(f"  judged in the hook's own process every time (GUARDTUI_STANDBY=0): median "
          f"{f['offline_in_process_median_ms']:.2f} ms ({f['offline_in_process_ratio']:.1f}x)")


if __name__ == "__main__":
    sys.exit(main())

"""What judging the files a command runs costs: commands that run project scripts and tasks
(a monorepo's package scripts through turbo, Makefile goals, Python and shell scripts), judged
with their files on disk, next to the same commands where the files are absent (how they were
judged before: by the command alone), in the same run.

    python benchmarks/scripts.py [--rounds N]
"""
from __future__ import annotations

import argparse
import json
import shutil
import time
import uuid

from _common import ROOT, isolated_engine, percentile

from guardtui.core.model import ToolCall

COMMANDS = ["pnpm turbo run build", "pnpm -r test", "npm run lint", "make", "make test", "make build VERSION=1",
            "python3 tools/gen.py", "python -m tools.gen", "./scripts/release.sh 1.2.0", "bash scripts/ci.sh lint",
            "just test", "node scripts/icons.mjs"]

FILES = {
    "package.json": json.dumps({"name": "mono", "packageManager": "pnpm@9.1.0", "workspaces": ["packages/*"],
                                "scripts": {"build": "turbo run build", "lint": "eslint . && prettier --check .",
                                            "test": "turbo run test"}}),
    "turbo.json": json.dumps({"tasks": {"build": {"dependsOn": ["^build"]}, "test": {"dependsOn": ["build"]}}}),
    **{f"packages/p{i}/package.json": json.dumps({"name": f"p{i}", "scripts": {"build": "tsc -p .", "test": "vitest run",
                                                                             "clean": "rm -rf dist"}})
       for i in range(12)},
    "Makefile": "BIN := ./bin\nVERSION ?= $(shell git describe --tags --always)\n\nall: lint test build\n\n"
                "build:\n\t@mkdir -p $(BIN)\n\tgo build -ldflags \"-X main.v=$(VERSION)\" -o $(BIN)/app ./cmd/app\n\n"
                "test:\n\tgo test -race ./...\n\nlint:\n\tgolangci-lint run ./...\n\nclean:\n\trm -rf $(BIN)\n",
    "tools/__init__.py": "",
    "tools/gen.py": "import subprocess, sys\nfrom pathlib import Path\nROOT = Path(__file__).resolve().parents[1]\n\n"
                    "def run(*cmd):\n    subprocess.check_call(cmd, cwd=ROOT)\n\n"
                    "def main():\n    out = ROOT / 'src' / 'client'\n    out.mkdir(parents=True, exist_ok=True)\n"
                    "    run('openapi-python-client', 'generate', '--path', 'api.yaml')\n"
                    "    run(sys.executable, '-m', 'black', str(out))\n\nif __name__ == '__main__':\n    main()\n",
    "scripts/release.sh": "#!/usr/bin/env bash\nset -euo pipefail\n"
                          "ROOT=\"$(cd \"$(dirname \"${BASH_SOURCE[0]}\")/..\" && pwd)\"\ncd \"$ROOT\"\n"
                          "VERSION=\"${1:?}\"\nmake build\ntar -czf \"dist/app-$VERSION.tgz\" -C bin .\n"
                          "git tag -a \"v$VERSION\" -m \"release $VERSION\"\n",
    "scripts/ci.sh": "#!/usr/bin/env bash\nset -e\nlint() { npx eslint .; }\ntest() { go test ./...; }\n"
                     "case \"${1:-all}\" in\n  lint) lint ;;\n  test) test ;;\n  all) lint; test ;;\nesac\n",
    "justfile": "default: test\n\ntest *ARGS:\n    cargo test {{ARGS}}\n\nbuild: test\n    cargo build --release\n",
    "scripts/icons.mjs": "import { readdirSync, writeFileSync } from 'node:fs';\nimport path from 'node:path';\n"
                         "const dir = path.join(import.meta.dirname, '..', 'icons');\n"
                         "writeFileSync(path.join(import.meta.dirname, '..', 'src', 'icons.ts'), "
                         "readdirSync(dir).join('\\n'));\n",
}


def timings(engine, cwd: str, rounds: int) -> list[float]:
    out = []
    for r in range(rounds):
        for i, command in enumerate(COMMANDS):
            call = ToolCall("Bash", {"command": command}, cwd, agent="bench", session=f"s{r}-{i}")
            start = time.perf_counter()
            engine.evaluate(call, record=False)
            out.append((time.perf_counter() - start) * 1000)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    base = ROOT / ".worlds" / uuid.uuid4().hex[:12]
    project, empty = base / "project", base / "empty"
    empty.mkdir(parents=True)
    for name, text in FILES.items():
        path = project / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        if text.startswith("#!"):
            path.chmod(0o755)
    try:
        engine = isolated_engine()
        timings(engine, str(project), 2)  # warm up: parsers, caches
        with_files = timings(engine, str(project), args.rounds)
        without = timings(engine, str(empty), args.rounds)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    for label, values in (("files read and judged", with_files), ("files absent (before)", without)):
        print(f"{label:24}: p50 {percentile(values, 50):7.3f} ms   p99 {percentile(values, 99):7.3f} ms")
    print(f"ratio: p50 {percentile(with_files, 50) / percentile(without, 50):.1f}x   "
          f"p99 {percentile(with_files, 99) / percentile(without, 99):.1f}x "
          f"({len(COMMANDS)} commands x {args.rounds} rounds)")


if __name__ == "__main__":
    main()

"""A CI workflow file whose steps send the repository's secrets to an outside host.

    sends_secrets(".github/workflows/ci.yml", text, home, project) -> "secrets.DEPLOY_TOKEN to collector.example.net"

The CI service runs the file on its own machines with the repository's secrets in reach, the next push (or a
forge API commit) away: a step that sends them elsewhere is exfiltration the guard never sees run. A secret
is sent when it is the payload: in a URL (`?t=${{ secrets.X }}`, `https://u:${{ secrets.X }}@host`), in
data a request carries (`-d`, `--data*`, `-F`, `--upload-file`, piped into curl/wget/nc), or the whole set dumped
(`toJSON(secrets)`) in a step that reaches a URL. A secret in an Authorization header to the service it
authenticates with, or any use with a host the person's or project's configuration names, stays allowed.
"""
from __future__ import annotations

import posixpath
import re

from .infra import is_local, known_host

_WORKFLOW = re.compile(r"(?:^|/)(?:\.github/workflows/[^/]+|\.gitea/workflows/[^/]+|\.forgejo/workflows/[^/]+|"
                       r"\.gitlab-ci|\.gitlab/ci/[^/]+|\.circleci/config|bitbucket-pipelines|azure-pipelines|"
                       r"\.drone|\.woodpecker/[^/]+|\.buildkite/pipeline|\.travis)\.ya?ml$")
_SECRET_REF = (r"\$\{\{\s*(?:secrets\.[\w-]+|secrets\[[^\]]+\]|toJSON\(\s*secrets\s*\))\s*\}\}|"
               r"\$\{?(?:CI_JOB_TOKEN|CI_REGISTRY_PASSWORD|CI_DEPLOY_PASSWORD|GITHUB_TOKEN|ACTIONS_RUNTIME_TOKEN|"
               r"ACTIONS_ID_TOKEN_REQUEST_TOKEN)\}?")
_URL = re.compile(r"(?i)\b(?:https?|ftp|wss?)://(?:[^@/\s\"']*@)?(\[[0-9a-f:]+\]|[\w.-]+)")
_ENV_ENTRY = re.compile(r"(?m)^\s*([A-Za-z_]\w*)\s*:\s*[\"']?(.*)$")
_SENDERS = re.compile(r"\b(?:curl|wget|nc|ncat|http|https|xh|Invoke-WebRequest|Invoke-RestMethod|iwr|irm)\b")
_DATA_OPTION = re.compile(r"(?:^|\s)(?:-d|--data(?:-\w+)?|-F|--form|-T|--upload-file|--post-data|--body-data|"
                          r"-Body)(?:\s+|=)(\"[^\"]*\"|'[^']*'|\S+)")
MAX_TEXT = 256 * 1024


def is_workflow(path: str) -> bool:
    return bool(_WORKFLOW.search(path.replace("\\", "/")))


def sends_secrets(path: str, text: str | None, home: str, project: str | None) -> str | None:
    if not text or not is_workflow(path):
        return None
    text = text[:MAX_TEXT]
    # env entries that hold a secret (`TOKEN: ${{ secrets.DEPLOY_TOKEN }}`) are the secret under another name
    aliases = [m.group(1) for m in _ENV_ENTRY.finditer(text) if re.search(_SECRET_REF, m.group(2))]
    ref = _SECRET_REF + "".join(rf"|\$\{{?{re.escape(a)}\b\}}?|\$env:{re.escape(a)}\b" for a in aliases[:64])
    secret = re.compile(ref)
    for step in _steps(text):
        if not secret.search(step):
            continue
        hosts = [h for h in (m.group(1).lower() for m in _URL.finditer(step))
                 if not is_local(h) and not known_host(h, home, project)]
        if not hosts:
            continue
        found = _payload(step, secret)
        if found:
            return f"{found} to {hosts[0]}"
    return None


def _steps(text: str) -> list[str]:
    """The shell a workflow runs, one block per step: `run: |` blocks and their one-line form, GitLab's
    script lists (each `- ` line of a script, before_script or after_script)."""
    lines = text.splitlines()
    out, current, indent = [], None, -1
    for line in lines:
        stripped = line.lstrip()
        depth = len(line) - len(stripped)
        if current is not None:
            if stripped and depth <= indent:
                out.append("\n".join(current))
                current = None
            else:
                current.append(stripped)
                continue
        m = re.match(r"(?:-\s+)?(run|script|before_script|after_script|command|commands|inlineScript)\s*:\s*(.*)$",
                     stripped)
        if m:
            rest = m.group(2).strip()
            if rest and rest[0] not in "|>":
                out.append(rest)
            else:
                current, indent = [], depth
    if current:
        out.append("\n".join(current))
    return out


def _payload(step: str, secret: re.Pattern) -> str | None:
    """What secret the step sends as data (not as the credential of an Authorization header)."""
    if re.search(r"toJSON\(\s*secrets\s*\)", step):
        return "every repository secret (toJSON(secrets))"
    for url in re.finditer(r"(?i)\b(?:https?|ftp|wss?)://(?:\$\{\{[^}]*\}\}|[^\s\"'])+", step):
        m = secret.search(url.group(0))
        if m:
            return f"{m.group(0)} in a URL"
    for data in _DATA_OPTION.finditer(step):
        m = secret.search(data.group(1))
        if m:
            return f"{m.group(0)} as request data"
    for pipe in re.finditer(r"([^\n|]*)\|\s*([^\n|]*)", step):
        m = secret.search(pipe.group(1))
        if m and _SENDERS.search(pipe.group(2)):
            return f"{m.group(0)} piped into {pipe.group(2).split()[0]}"
    return None


def project_of(path: str) -> str:
    """The project root a workflow file belongs to (the directory holding .github, .gitlab-ci.yml…)."""
    m = re.search(r"/(?:\.github|\.gitea|\.forgejo|\.gitlab|\.circleci|\.woodpecker|\.buildkite)/", path)
    return path[:m.start()] if m else posixpath.dirname(path)

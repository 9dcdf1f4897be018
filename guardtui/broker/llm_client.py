"""The guard agent's HTTP client: chat-completions over aiohttp, in the caller's event loop, so a
slow model never blocks the broker, the console or another call. The reviewer itself (prompt,
loop, parser, skills, limits) is the core's (core/llm); this only moves bytes.

    guard_reviewer(locations, engine) -> GuardReviewer | None   (None: no LLM configured)
"""
from __future__ import annotations

import asyncio
import json
import urllib.request
from typing import Any
from urllib.parse import urlsplit

import aiohttp

from ..core.config import Locations
from ..core.engine import Engine
from ..core.llm import ChatError, GuardReviewer, LLMSettings, SkillLibrary
from ..core.llm.limits import guard_configuration
from ..wiring import llm_settings

MAX_REPLY_BYTES = 1 << 20  # a verdict is a line; a megabyte is a broken or hostile endpoint


class AiohttpChat:
    """POST {base_url}/chat/completions; the decoded JSON, or ChatError naming what went wrong."""

    def __init__(self, settings: LLMSettings):
        self.settings = settings
        self.proxy = env_proxy(settings.endpoint)  # read once: looking it up per request costs a millisecond
        self._session: aiohttp.ClientSession | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    async def complete(self, body: dict[str, Any], timeout_s: float) -> Any:
        headers = {"Content-Type": "application/json"}
        if self.settings.api_key:
            headers["Authorization"] = f"Bearer {self.settings.api_key}"
        try:
            async with self._client().post(self.settings.endpoint, data=json.dumps(body), headers=headers,
                                           proxy=self.proxy, timeout=aiohttp.ClientTimeout(total=timeout_s)) as response:
                data = await _read_capped(response)
                if response.status != 200:
                    text = " ".join(data[:300].decode("utf-8", "replace").split())
                    raise ChatError(f"HTTP {response.status} from {self.settings.endpoint}: {text}")
        except asyncio.TimeoutError:
            raise ChatError(f"no answer from {self.settings.endpoint} within {timeout_s:.1f} s") from None
        except aiohttp.ClientError as exc:
            raise ChatError(f"{self.settings.endpoint}: {type(exc).__name__}: {exc}") from None
        try:
            return json.loads(data)
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise ChatError(f"the answer from {self.settings.endpoint} is not JSON") from None

    async def close(self) -> None:
        session, self._session = self._session, None
        if session is not None and not session.closed:
            await session.close()

    def _client(self) -> aiohttp.ClientSession:
        loop = asyncio.get_running_loop()
        if self._session is None or self._session.closed or self._loop is not loop:
            # one connection pool per loop (the console's; `check --llm` runs its own)
            self._session = aiohttp.ClientSession()
            self._loop = loop
        return self._session


def env_proxy(url: str) -> str | None:
    """The proxy the environment names for this URL (http_proxy, https_proxy, no_proxy), if any."""
    parts = urlsplit(url)
    if urllib.request.proxy_bypass_environment(parts.hostname or ""):
        return None
    return urllib.request.getproxies_environment().get(parts.scheme) or None


async def _read_capped(response: aiohttp.ClientResponse) -> bytes:
    chunks, size = [], 0
    async for chunk in response.content.iter_chunked(65536):
        size += len(chunk)
        if size > MAX_REPLY_BYTES:
            raise ChatError(f"the answer is larger than {MAX_REPLY_BYTES // 1024} KiB")
        chunks.append(chunk)
    return b"".join(chunks)


def guard_reviewer(locations: Locations, engine: Engine, settings: LLMSettings | None = None) -> GuardReviewer | None:
    """The guard agent the person configured, with its HTTP client; None when no LLM is."""
    settings = settings if settings is not None else llm_settings(locations)
    if settings is None:
        return None
    return GuardReviewer(settings, AiohttpChat(settings), SkillLibrary(locations), home=engine.home,
                         protected=[*engine.protection.paths(), *guard_configuration(locations)])

"""The factory of provider adapters: ``create_provider`` turns a provider's kind,
name, base URL and key into the matching :class:`ChatProvider` (OpenAI-compatible,
Ollama or Anthropic) with normalised URL and default timeouts (connect 10 s,
read 300 s, no total limit); and ``probe_ollama``, the quick check the app runs
on first start to see whether a local Ollama server is answering.

httpx and the adapters are imported on the first call, not with this module:
the app imports the registry at start-up, and most launches open the window
long before (or without) talking to a model server."""

from __future__ import annotations

import importlib
import logging
from typing import TYPE_CHECKING

from mira_desktop.core.errors import ConfigError
from mira_desktop.core.models import ProviderKind

if TYPE_CHECKING:
    import httpx

    from mira_desktop.core.ports import ChatProvider

    from .base import HttpProvider

log = logging.getLogger(__name__)

#: kind → (module in this package, adapter class), imported on first use
_ADAPTERS: dict[ProviderKind, tuple[str, str]] = {
    ProviderKind.OPENAI: (".openai_compat", "OpenAIProvider"),
    ProviderKind.OLLAMA: (".ollama", "OllamaProvider"),
    ProviderKind.ANTHROPIC: (".anthropic", "AnthropicProvider"),
}


def adapter_class(kind: ProviderKind) -> type[HttpProvider]:
    """The adapter class for ``kind`` (importing its module, and httpx, once)."""
    module, name = _ADAPTERS[kind]
    adapter: type[HttpProvider] = getattr(importlib.import_module(module, __package__), name)
    return adapter


def normalize_base_url(base_url: str) -> str:
    """The base URL without surrounding spaces or trailing slashes."""
    return base_url.strip().rstrip("/")


def create_provider(
    kind: ProviderKind | str,
    name: str,
    base_url: str,
    api_key: str | None,
    *,
    client: httpx.AsyncClient | None = None,
    timeout: float | None = None,
) -> ChatProvider:
    """Build the adapter for ``kind``. Without ``client`` the adapter creates its
    own and closes it in ``aclose()``; ``timeout`` (seconds) replaces the defaults."""
    try:
        provider_kind = ProviderKind(kind)
    except ValueError:
        raise ConfigError(
            f"Unknown provider kind {kind!r}",
            hint="Use one of: " + ", ".join(k.value for k in ProviderKind) + ".",
        ) from None
    url = normalize_base_url(base_url)
    if not url.startswith(("http://", "https://")):
        raise ConfigError(
            f"Provider {name!r} has an invalid base URL {base_url!r}",
            hint="Use a full URL such as http://localhost:11434.",
        )
    log.debug("Creating %s provider %r for %s", kind, name, url)
    adapter = adapter_class(provider_kind)
    return adapter(name, url, api_key, client=client, timeout=timeout)


async def probe_ollama(base_url: str = "http://localhost:11434", timeout: float = 1.5) -> bool:
    """True when an Ollama server answers ``GET /api/tags`` at ``base_url``."""
    import httpx

    from .base import make_timeout, ssl_context

    url = normalize_base_url(base_url) + "/api/tags"
    try:
        async with httpx.AsyncClient(
            timeout=make_timeout(timeout), trust_env=False, verify=ssl_context()
        ) as client:
            response = await client.get(url)
            ok = response.status_code == 200 and isinstance(response.json(), dict)
    except (httpx.HTTPError, httpx.InvalidURL, ValueError) as exc:
        log.debug("No Ollama at %s: %s", url, exc)
        return False
    log.debug("Ollama probe of %s: %s", url, ok)
    return ok

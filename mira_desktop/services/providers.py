"""Configured providers: add / edit / remove, their API keys (through the secret
store, never the database), model lists fetched from the server, per-model
settings, connection tests, and the live adapter objects the chat service uses.
Listeners (:meth:`ProviderService.add_listener`) hear of every change — the
window reloads its model picker even when the dialog that started a model
fetch was closed before it ended.

Adapters are built by a factory injected by ``app.py`` (the providers package),
so this module stays free of HTTP code."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

from ..core.api_keys import clean_api_key
from ..core.errors import ConfigError, MiraError
from ..core.models import ModelInfo, ModelTier, ProviderConfig, ProviderKind, Reasoning
from ..core.ports import ChatProvider

if TYPE_CHECKING:
    from pathlib import Path

    from ..storage.store import Store

log = logging.getLogger(__name__)

ProviderFactory = Callable[[ProviderConfig, "str | None"], ChatProvider]


class SecretStoreLike(Protocol):
    def get(self, key_id: str) -> str | None: ...
    def set(self, key_id: str, secret: str) -> None: ...
    def delete(self, key_id: str) -> None: ...
    def describe(self) -> str: ...
    @property
    def file_in_use(self) -> Path | None: ...


#: endings pasted with a base URL that the adapters add themselves: an
#: endpoint copied from the server's documentation (OpenAI's
#: .../v1/chat/completions), or /v1 where the kind has none in its base URL
#: (Ollama's own API is at the root; Anthropic's adapter adds /v1/messages)
_EXTRA_ENDINGS = {
    ProviderKind.OPENAI: ("/chat/completions", "/completions", "/models"),
    ProviderKind.OLLAMA: ("/api/chat", "/api/tags", "/api", "/v1"),
    ProviderKind.ANTHROPIC: ("/v1/messages", "/v1/models", "/v1"),
}


def normalise_base_url(kind: ProviderKind, base_url: str) -> str:
    """``base_url`` as the adapter of ``kind`` wants it: no trailing slash,
    nor an ending the adapter adds itself."""
    url = base_url.strip().rstrip("/")
    if not url.startswith(("http://", "https://")):
        raise ConfigError(
            f"The base URL must start with http:// or https:// (got {base_url!r}).",
            hint="For example http://localhost:11434/v1 for an OpenAI-compatible server.",
        )
    for ending in _EXTRA_ENDINGS[kind]:
        if url.lower().endswith(ending) and "://" in url[: -len(ending)]:
            host_and_path = url[: -len(ending)].split("://", 1)[1]
            if host_and_path:  # never cut the address down to a bare scheme
                return url[: -len(ending)].rstrip("/")
    return url


class ProviderService:
    def __init__(
        self,
        store: Store,
        secrets: SecretStoreLike,
        factory: ProviderFactory,
        ollama_probe: Callable[[str], Awaitable[bool]] | None = None,
    ) -> None:
        self._store = store
        self._secrets = secrets
        self._factory = factory
        self._probe = ollama_probe
        #: built adapters by provider name, with the row they were built
        #: from: another process (the CLI on the same data folder) may have
        #: replaced the provider since (removed and added again, a new
        #: address or key), which changes the row (its id or ``updated_at``)
        self._live: dict[str, tuple[ProviderConfig, ChatProvider]] = {}
        self._building = asyncio.Lock()  # one adapter per provider, even when asked twice at once
        self._listeners: list[Callable[[], None]] = []
        self._adding_ollama = asyncio.Lock()

    @property
    def keyring_description(self) -> str:
        return self._secrets.describe()

    @property
    def secrets_file(self) -> Path | None:
        """Where keys go when the system has no keyring (None: the keyring)."""
        return self._secrets.file_in_use

    def add_listener(self, callback: Callable[[], None]) -> None:
        """Call ``callback()`` after each change of the providers or their
        models (added, edited, removed, a model list fetched, a model's
        settings saved)."""
        self._listeners.append(callback)

    def remove_listener(self, callback: Callable[[], None]) -> None:
        if callback in self._listeners:
            self._listeners.remove(callback)

    def _changed(self) -> None:
        for listener in list(self._listeners):
            try:
                listener()
            except Exception:
                log.exception("a provider listener failed")

    async def list_providers(self) -> list[ProviderConfig]:
        return await self._store.list_providers()

    async def get_provider(self, name: str) -> ProviderConfig:
        return await self._store.get_provider(name)

    async def add_provider(
        self, name: str, kind: str, base_url: str, api_key: str | None = None
    ) -> ProviderConfig:
        name = name.strip()
        if not name:
            raise ConfigError("A provider needs a name.")
        provider_kind = _kind(kind)
        url = normalise_base_url(provider_kind, base_url)
        api_key = clean_api_key(api_key) if api_key else None
        config = await self._store.add_provider(name, str(provider_kind), url, bool(api_key))
        if api_key:
            try:
                await asyncio.to_thread(self._secrets.set, config.id, api_key)
            except MiraError:
                # no provider that says it has a key it has not (and a name
                # left taken for the next try)
                await self._store.remove_provider(name)
                raise
        self._changed()
        return config

    async def ollama_provider(self, base_url: str) -> str:
        """The name of the Ollama provider at ``base_url`` ("Add Ollama" on the
        first-start screen): one of kind ollama already there (the command line
        may have added it meanwhile) is reused, else one is added as "Ollama"
        (or "Ollama (2)"… when the name is taken)."""
        url = normalise_base_url(ProviderKind.OLLAMA, base_url)
        async with self._adding_ollama:  # two clicks in a row add one
            configured = await self._store.list_providers()
            for config in configured:
                if config.kind == ProviderKind.OLLAMA and config.base_url == url:
                    return config.name
            # names differing only in case are refused (``add_provider``)
            taken = {config.name.casefold() for config in configured}
            names = ("Ollama", *(f"Ollama ({i})" for i in range(2, 100)))
            name = next(n for n in names if n.casefold() not in taken)
            await self.add_provider(name, str(ProviderKind.OLLAMA), url)
            return name

    async def update_provider(
        self,
        name: str,
        *,
        new_name: str | None = None,
        kind: str | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
    ) -> ProviderConfig:
        if api_key:  # only blank: the saved key is kept, as an empty field keeps it
            api_key = clean_api_key(api_key) or None
        current = await self._store.get_provider(name)
        fields: dict[str, Any] = {}
        provider_kind = _kind(kind) if kind else current.kind
        if kind:
            fields["kind"] = str(provider_kind)
        if base_url is not None:
            fields["base_url"] = normalise_base_url(provider_kind, base_url)
        if new_name is not None:
            if not new_name.strip():
                raise ConfigError("A provider needs a name.")
            fields["name"] = new_name.strip()
        previous: str | None = None
        if api_key is not None:
            fields["has_key"] = bool(api_key)
            if current.has_key:
                previous = await asyncio.to_thread(self._secrets.get, current.id)
            if api_key:
                await asyncio.to_thread(self._secrets.set, current.id, api_key)
            else:
                await asyncio.to_thread(self._secrets.delete, current.id)
        try:
            updated = await self._store.update_provider(name, **fields)
        except MiraError:
            if api_key is not None:  # the settings were refused: so is the key
                await asyncio.to_thread(self._put_back, current.id, previous)
            raise
        await self._forget(name)
        self._changed()
        return updated

    def _put_back(self, key_id: str, previous: str | None) -> None:
        if previous:
            self._secrets.set(key_id, previous)
        else:
            self._secrets.delete(key_id)

    async def remove_provider(self, name: str) -> None:
        current = await self._store.get_provider(name)
        await self._store.remove_provider(name)
        await asyncio.to_thread(self._secrets.delete, current.id)
        await self._forget(name)
        self._changed()

    async def chat_provider(self, name: str) -> tuple[ProviderConfig, ChatProvider]:
        """The live adapter for a configured provider: built once, reused
        while its row is unchanged (compared with the row read here anyway,
        once per request: no extra query), rebuilt when it changed."""
        config = await self._store.get_provider(name)
        stale: ChatProvider | None = None
        async with self._building:
            built = self._live.get(name)
            if built is not None and built[0] == config:
                live = built[1]
            else:
                stale = built[1] if built is not None else None
                key = (
                    await asyncio.to_thread(self._secrets.get, config.id)
                    if config.has_key
                    else None
                )
                # The first adapter imports httpx, its module and (for a local
                # server) builds an SSL context: 100-200 ms, in a worker thread
                # rather than on the loop's (the Qt) thread.
                live = await asyncio.to_thread(self._factory, config, key)
                self._live[name] = (config, live)
        if stale is not None:
            # changed by another process: answers streaming through the old
            # client finish there (``aclose`` waits for them)
            log.info("provider %r changed on disk: its client is rebuilt", name)
            await stale.aclose()
        return config, live

    async def fetch_models(self, name: str) -> list[ModelInfo]:
        """Ask the server for its models and remember the list."""
        _, provider = await self.chat_provider(name)
        listed = await provider.list_models()
        await self._store.save_listed_models(name, [m.name for m in listed])
        self._changed()
        return await self._store.list_models(name)

    async def test_connection(self, name: str) -> list[ModelInfo]:
        """Fetch the model list; raises the provider's typed error on failure."""
        return await self.fetch_models(name)

    async def list_models(self, name: str | None = None) -> list[ModelInfo]:
        return await self._store.list_models(name)

    async def get_model(self, provider_name: str, model: str) -> ModelInfo | None:
        return await self._store.get_model(provider_name, model)

    async def update_model_settings(
        self,
        provider_name: str,
        model: str,
        *,
        context_window: int | None,
        vision: bool,
        tier: str | None,
        compaction_threshold: float | None,
        reasoning: str | None = None,
    ) -> ModelInfo:
        """Save a model's settings (all of them: a caller changing one passes
        the others as read). ``reasoning``: off / low / medium / high, or
        None for the server's default."""
        if tier:
            ModelTier(tier)
        if compaction_threshold is not None and not 0 <= compaction_threshold <= 1:
            raise ConfigError("The compaction threshold is a share of the window, from 0 to 1.")
        if reasoning and reasoning not in set(Reasoning):
            raise ConfigError(
                "Reasoning is off, low, medium or high (or empty for the server's default)."
            )
        settings = {
            "context_window": context_window,
            "vision": vision,
            "tier": tier or None,
            "compaction_threshold": compaction_threshold or None,
            "reasoning": reasoning or None,
        }
        saved = await self._store.update_model_settings(provider_name, model, settings)
        self._changed()
        return saved

    async def detect_ollama(self, base_url: str | None = None) -> bool:
        """Whether Ollama answers at ``base_url`` (default: where it listens
        on this computer, ``ollama_host.ollama_url``)."""
        if self._probe is None:
            return False
        from .ollama_host import ollama_url

        return await self._probe(base_url or ollama_url())

    async def aclose(self) -> None:
        live, self._live = self._live, {}
        for _config, provider in live.values():
            await provider.aclose()

    async def _forget(self, name: str) -> None:
        async with self._building:
            built = self._live.pop(name, None)
        if built is not None:
            await built[1].aclose()


def _kind(kind: str | ProviderKind) -> ProviderKind:
    try:
        return ProviderKind(str(kind).lower())
    except ValueError:
        raise ConfigError(
            f"Unknown provider kind {kind!r}.", hint="Use openai, ollama or anthropic."
        ) from None

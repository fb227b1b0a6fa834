"""Building the Qt-free application: storage, secrets, provider adapters and the
services, wired together for one data folder. Both front ends (the window and
the CLI) start from ``build_services``; tests do too, with a temporary folder."""

from __future__ import annotations

import logging
import logging.handlers
from dataclasses import dataclass
from pathlib import Path

from .core.models import ProviderConfig
from .core.ports import ChatProvider
from .paths import resource_path
from .providers.registry import create_provider, probe_ollama
from .services.chat import ChatService
from .services.providers import ProviderService
from .services.settings import SettingsService
from .services.threads import ThreadService
from .services.tokens import TiktokenCounter
from .storage.secrets import SecretStore
from .storage.store import Store

log = logging.getLogger(__name__)


@dataclass
class Services:
    data_dir: Path
    store: Store
    secrets: SecretStore
    providers: ProviderService
    chat: ChatService
    threads: ThreadService
    settings: SettingsService
    tokens: TiktokenCounter

    async def aclose(self) -> None:
        await self.chat.stop_all()
        await self.providers.aclose()
        self.store.close()


def _factory(config: ProviderConfig, api_key: str | None) -> ChatProvider:
    return create_provider(config.kind, config.name, config.base_url, api_key)


def build_services(data_dir: Path, *, secrets: SecretStore | None = None) -> Services:
    """Open the data folder (migrating it) and build every service."""
    store = Store.open(data_dir)
    secret_store = secrets or SecretStore(data_dir)
    providers = ProviderService(store, secret_store, _factory, probe_ollama)
    tokens = TiktokenCounter(resource_path("tiktoken_cache"))
    return Services(
        data_dir=data_dir,
        store=store,
        secrets=secret_store,
        providers=providers,
        chat=ChatService(store, providers, tokens),
        threads=ThreadService(store),
        settings=SettingsService(store),
        tokens=tokens,
    )


def configure_logging(data_dir: Path, *, verbose: bool = False) -> Path:
    """Log to ``logs/mira.log`` in the data folder (rotated), warnings to stderr."""
    logs = data_dir / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    path = logs / "mira.log"
    root = logging.getLogger()
    if any(getattr(h, "_mira", False) for h in root.handlers):
        return path
    handler = logging.handlers.RotatingFileHandler(
        path, maxBytes=2_000_000, backupCount=3, encoding="utf-8"
    )
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler._mira = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    root.setLevel(logging.DEBUG if verbose else logging.INFO)
    return path

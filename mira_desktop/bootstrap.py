"""Building the Qt-free application: storage, secrets, provider adapters and the
services, wired together for one data folder. Both front ends (the window and
the CLI) start from ``build_services``; tests do too, with a temporary folder."""

from __future__ import annotations

import logging
import logging.handlers
from dataclasses import dataclass
from pathlib import Path

from .core.errors import MiraError
from .core.models import ProviderConfig
from .core.ports import ChatProvider
from .paths import resource_path
from .providers.registry import create_provider, probe_ollama
from .services.attachments import AttachmentService
from .services.chat import ChatService
from .services.compaction import CompactionService
from .services.conversation import ConversationService
from .services.doctor import DoctorService
from .services.export import ExportService
from .services.history import HistoryService
from .services.importers import ImportService
from .services.kb import KnowledgeBaseService, RagService
from .services.meter import ContextMeterService
from .services.providers import ProviderService
from .services.roles import RoleService
from .services.search import SearchService
from .services.settings import SettingsService
from .services.summary import SummaryService
from .services.threads import ThreadService
from .services.titles import TitleService
from .services.tokens import TiktokenCounter
from .services.workspaces import WorkspaceService
from .storage.export_store import ExportStore
from .storage.history_store import HistoryStore
from .storage.kb_store import KnowledgeStore
from .storage.media_store import MediaStore
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
    history: HistoryService
    workspaces: WorkspaceService
    search: SearchService
    titles: TitleService
    conversation: ConversationService
    doctor: DoctorService
    media: MediaStore
    attachments: AttachmentService
    roles: RoleService
    exports: ExportService
    imports: ImportService
    knowledge: KnowledgeBaseService
    rag: RagService
    compaction: CompactionService
    summaries: SummaryService
    meter: ContextMeterService

    async def startup_maintenance(self) -> None:
        """Start-up chores after ``chat.recover()``: the trash's automatic purge
        (``trash.purge_days``). Never fatal: a failure is logged, the app starts."""
        try:
            await self.history.purge_expired()
        except MiraError:
            log.warning("the automatic purge of the trash failed", exc_info=True)
        try:
            await self.attachments.collect()
        except MiraError:
            log.warning("the clean-up of unused attachments failed", exc_info=True)

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
    history_store = HistoryStore(store.worker)
    settings = SettingsService(store)
    media = MediaStore(store.worker, data_dir / "media")
    attachments = AttachmentService(media, settings)
    compaction = CompactionService(store, store.context, providers, tokens)
    summaries = SummaryService(store, store.context, providers, tokens, settings)
    kb_store = KnowledgeStore(store.worker)
    knowledge = KnowledgeBaseService(kb_store, providers)
    rag = RagService(kb_store, knowledge.retriever)
    chat = ChatService(
        store,
        providers,
        tokens,
        attachments=attachments,
        compaction=compaction,
        summaries=summaries,
        rag=rag,
    )
    export_store = ExportStore(store.worker)
    return Services(
        data_dir=data_dir,
        store=store,
        secrets=secret_store,
        providers=providers,
        chat=chat,
        threads=ThreadService(store),
        settings=settings,
        tokens=tokens,
        history=HistoryService(history_store, settings),
        workspaces=WorkspaceService(history_store, store),
        search=SearchService(history_store),
        titles=TitleService(store, history_store, providers),
        conversation=ConversationService(store, chat.is_running),
        doctor=DoctorService(store, data_dir / "media"),
        media=media,
        attachments=attachments,
        roles=RoleService(store),
        exports=ExportService(export_store),
        imports=ImportService(export_store),
        knowledge=knowledge,
        rag=rag,
        compaction=compaction,
        summaries=summaries,
        meter=ContextMeterService(store, store.context, tokens),
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

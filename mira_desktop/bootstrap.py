"""Building the Qt-free application: storage, secrets, provider adapters and the
services, wired together for one data folder. Both front ends (the window and
the CLI) start from ``build_services``; tests do too, with a temporary folder.

Only the database is opened here (and migrated, on the database thread). Every
service is built, and its module imported, on first access of its attribute of
:class:`Services`: the window's first frame does not wait for the export
renderer (markdown-it, pygments), the knowledge-base readers, the importers or
httpx, which a session may never use. Building a service does no I/O."""

from __future__ import annotations

import logging
import logging.handlers
import sys
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar, overload

from .core.errors import MiraError
from .gil import tune_thread_switching
from .storage.secrets import SecretStore
from .storage.store import Store

if TYPE_CHECKING:
    from .core.models import ProviderConfig
    from .core.ports import ChatProvider
    from .services.agent.service import AgentService
    from .services.attachments import AttachmentService
    from .services.chat import ChatService
    from .services.compaction import CompactionService
    from .services.conversation import ConversationService
    from .services.data_folder import CopyProgress, DataFolderService, FolderSwitch
    from .services.doctor import DoctorService
    from .services.export import ExportService
    from .services.history import HistoryService
    from .services.illustration import ImageService
    from .services.importers import ImportService
    from .services.kb import KnowledgeBaseService, RagService
    from .services.meter import ContextMeterService
    from .services.providers import ProviderService
    from .services.roles import RoleService
    from .services.search import SearchService
    from .services.settings import SettingsService
    from .services.speech import SpeechService
    from .services.summary import SummaryService
    from .services.threads import ThreadService
    from .services.titles import TitleService
    from .services.tokens import TiktokenCounter
    from .services.transcription import TranscriptionService
    from .services.workspaces import WorkspaceService
    from .storage.export_store import ExportStore
    from .storage.history_store import HistoryStore
    from .storage.kb_store import KnowledgeStore
    from .storage.media_store import MediaStore

log = logging.getLogger(__name__)

T = TypeVar("T")


class _service(Generic[T]):
    """A service of :class:`Services`: built by the decorated method on first
    access, then kept in ``Services.built`` (which ``dataclasses.replace``
    carries over, so a copy shares what was already built)."""

    def __init__(self, build: Callable[[Services], T]) -> None:
        self._build = build
        self.__doc__ = build.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> _service[T]: ...
    @overload
    def __get__(self, obj: Services, owner: type | None = None) -> T: ...
    def __get__(self, obj: Services | None, owner: type | None = None) -> T | _service[T]:
        if obj is None:
            return self
        built = obj.built
        if self._name not in built:
            self.__set__(obj, self._build(obj))
        value: T = built[self._name]
        return value

    def __set__(self, obj: Services, value: T) -> None:
        obj.built[self._name] = value
        for callback in obj.when_built.pop(self._name, ()):  # Services.on_built
            callback(value)


class _Deferred:
    """Stands in for a service that another object holds from the start but
    uses later (:meth:`Services.deferred`): the service is built, and its
    module imported, on the first attribute read."""

    def __init__(self, services: Services, name: str) -> None:
        self._services = services
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        return getattr(getattr(self._services, self._name), attr)

    def __repr__(self) -> str:
        return f"<deferred service {self._name!r}>"


@dataclass(init=False, eq=False, repr=False)
class Services:
    """Every service of one data folder, each built on first access (and then
    kept in ``built``); ``store`` and ``secrets`` exist from the start. Services
    given by name (tests: ``dataclasses.replace(services, history=...)``) are
    used as they are."""

    data_dir: Path
    store: Store
    secrets: SecretStore
    built: dict[str, Any]
    when_built: dict[str, list[Callable[[Any], None]]]

    def __init__(
        self,
        data_dir: Path,
        store: Store,
        secrets: SecretStore,
        built: dict[str, Any] | None = None,
        when_built: dict[str, list[Callable[[Any], None]]] | None = None,
        **services: Any,
    ) -> None:
        self.data_dir = data_dir
        self.store = store
        self.secrets = secrets
        self.built = dict(built or {})
        self.when_built = {name: list(calls) for name, calls in (when_built or {}).items()}
        for name, value in services.items():
            if not isinstance(getattr(type(self), name, None), _service):
                raise TypeError(f"Services has no service {name!r}")
            setattr(self, name, value)

    # ---- shared stores ------------------------------------------------------------
    @_service
    def history_store(self) -> HistoryStore:
        from .storage.history_store import HistoryStore

        return HistoryStore(self.store.worker)

    @_service
    def export_store(self) -> ExportStore:
        from .storage.export_store import ExportStore

        return ExportStore(self.store.worker)

    @_service
    def kb_store(self) -> KnowledgeStore:
        from .storage.kb_store import KnowledgeStore

        return KnowledgeStore(self.store.worker)

    # ---- services -------------------------------------------------------------------
    @_service
    def providers(self) -> ProviderService:
        from .providers.registry import probe_ollama
        from .services.providers import ProviderService

        return ProviderService(self.store, self.secrets, _factory, probe_ollama)

    @_service
    def tokens(self) -> TiktokenCounter:
        from .paths import resource_path
        from .services.tokens import TiktokenCounter

        return TiktokenCounter(resource_path("tiktoken_cache"))

    @_service
    def settings(self) -> SettingsService:
        from .services.settings import SettingsService

        return SettingsService(self.store)

    @_service
    def media(self) -> MediaStore:
        from .services.process_owner import current_owner
        from .storage.media_store import MediaStore

        return MediaStore(self.store.worker, self.data_dir / "media", owner=current_owner())

    @_service
    def attachments(self) -> AttachmentService:
        from .services.attachments import AttachmentService

        # an audio file is attached as its transcript: the speech-to-text model is asked
        return AttachmentService(
            self.media, self.settings, transcription=self.deferred("transcription")
        )

    @_service
    def compaction(self) -> CompactionService:
        from .services.compaction import CompactionService

        return CompactionService(self.store, self.store.context, self.providers, self.tokens)

    @_service
    def summaries(self) -> SummaryService:
        from .services.summary import SummaryService

        store = self.store
        return SummaryService(store, store.context, self.providers, self.tokens, self.settings)

    @_service
    def knowledge(self) -> KnowledgeBaseService:
        from .services.kb import KnowledgeBaseService

        transcription = self.deferred("transcription")

        async def transcribe(data: bytes, name: str) -> str:
            """An audio file named on its own is indexed as what is said in it."""
            return (await transcription.transcribe(data, name)).text

        return KnowledgeBaseService(self.kb_store, self.providers, transcriber=transcribe)

    @_service
    def rag(self) -> RagService:
        from .services.kb import RagService

        return RagService(self.kb_store, self.knowledge.retriever)

    @_service
    def chat(self) -> ChatService:
        from .services.chat import ChatService

        return ChatService(
            self.store,
            self.providers,
            self.tokens,
            attachments=self.attachments,
            compaction=self.compaction,
            summaries=self.summaries,
            rag=self.deferred("rag"),  # a send asking for sources imports the KB stack
            speech=self.deferred("speech"),  # built by the first answer read aloud
            images=self.deferred("images"),  # built by the first answer illustrated
            agent=self.deferred("agent"),  # built by the first answer of an agent
        )

    @_service
    def agent(self) -> AgentService:
        from .providers.web_search import SearchEndpoint
        from .services.agent.service import AgentService

        # a thread's knowledge base is searched through the KB stack, built on first use
        return AgentService(self.store, SearchEndpoint, rag=self.deferred("rag"))

    @_service
    def speech(self) -> SpeechService:
        from .services.speech import SpeechService

        return SpeechService(self.store, self.media)

    @_service
    def images(self) -> ImageService:
        from .services.illustration import ImageService

        return ImageService(self.store, self.media, self.providers, self.settings)

    @_service
    def transcription(self) -> TranscriptionService:
        """Speech to text (voice input); holds nothing to close."""
        from .services.transcription import TranscriptionService

        return TranscriptionService(self.providers, self.settings)

    @_service
    def threads(self) -> ThreadService:
        from .services.threads import ThreadService

        return ThreadService(self.store)

    @_service
    def history(self) -> HistoryService:
        from .services.history import HistoryService

        return HistoryService(self.history_store, self.settings, media=self.media)

    @_service
    def workspaces(self) -> WorkspaceService:
        from .services.workspaces import WorkspaceService

        return WorkspaceService(self.history_store, self.store)

    @_service
    def search(self) -> SearchService:
        from .services.search import SearchService

        return SearchService(self.history_store)

    @_service
    def titles(self) -> TitleService:
        from .services.titles import TitleService

        return TitleService(self.store, self.history_store, self.providers)

    @_service
    def conversation(self) -> ConversationService:
        from .services.conversation import ConversationService

        return ConversationService(self.store, self._is_running)

    @_service
    def data_folder(self) -> DataFolderService:
        from .services.data_folder import DataFolderService

        return DataFolderService(self.data_dir)

    @_service
    def doctor(self) -> DoctorService:
        from .services.doctor import DoctorService

        return DoctorService(self.store, self.data_dir / "media")

    @_service
    def roles(self) -> RoleService:
        from .services.roles import RoleService

        return RoleService(self.store)

    @_service
    def exports(self) -> ExportService:
        from .services.export import ExportService

        return ExportService(self.export_store)

    @_service
    def imports(self) -> ImportService:
        from .services.importers import ImportService

        return ImportService(self.export_store, media=self.media)

    @_service
    def meter(self) -> ContextMeterService:
        from .services.meter import ContextMeterService

        return ContextMeterService(self.store, self.store.context, self.tokens)

    # ---- helpers -----------------------------------------------------------------------
    def deferred(self, name: str) -> Any:
        """A stand-in for the service ``name`` that builds it on first use: for
        objects built at start-up that call it only on a user's action (the
        window's chat controller holds the chat service, which imports the
        whole chat stack)."""
        if not isinstance(getattr(type(self), name, None), _service):
            raise AttributeError(f"Services has no service {name!r}")
        return self.built[name] if name in self.built else _Deferred(self, name)

    def on_built(self, name: str, callback: Callable[[Any], None]) -> None:
        """Call ``callback(service)`` with the service ``name`` once it exists: now
        if it is built, else right after it is first built (listeners of a
        service that start-up does not need)."""
        if not isinstance(getattr(type(self), name, None), _service):
            raise AttributeError(f"Services has no service {name!r}")
        if name in self.built:
            callback(self.built[name])
        else:
            self.when_built.setdefault(name, []).append(callback)

    def _is_running(self, thread_id: str) -> bool:
        """Whether an answer runs in ``thread_id`` (none before the chat service exists)."""
        return "chat" in self.built and self.chat.is_running(thread_id)

    # ---- life cycle -------------------------------------------------------------------
    async def recover(self) -> int:
        """Start-up: answers left ``streaming`` by a dead process become
        ``stopped`` (``ChatService.recover``, without building the chat service
        and importing its stack before the window is up)."""
        if "chat" in self.built:
            return await self.chat.recover()
        from .services.process_owner import owner_alive

        count = await self.store.recover_streaming(owner_alive)
        if count:
            log.info("marked %d interrupted answer(s) as stopped", count)
        return count

    async def startup_maintenance(self) -> int:
        """Start-up chores after :meth:`recover`: the trash's automatic purge
        (``trash.purge_days``) and unused attachment files (their collection keeps
        files stored within its grace period, so it may run beside a window in
        use). Returns how many threads were purged. Never fatal: a failure is
        logged, the app starts."""
        purged = 0
        try:
            purged = await self.history.purge_expired()
        except MiraError:
            log.warning("the automatic purge of the trash failed", exc_info=True)
        try:
            await self.attachments.collect()
        except MiraError:
            log.warning("the clean-up of unused attachments failed", exc_info=True)
        return purged

    async def aclose(self) -> None:
        """Stop running answers and close providers (only those that were built)
        and the database."""
        built = self.built
        if "chat" in built:
            await self.chat.stop_all()
        if "speech" in built:
            await self.speech.aclose()
        if "images" in built:
            await self.images.aclose()
        if "providers" in built:
            await self.providers.aclose()
        self.store.close()


def _factory(config: ProviderConfig, api_key: str | None) -> ChatProvider:
    from .providers.registry import create_provider

    return create_provider(config.kind, config.name, config.base_url, api_key)


def build_services(data_dir: Path, *, secrets: SecretStore | None = None) -> Services:
    """Open the data folder (migrating it); the services follow on first use."""
    tune_thread_switching()
    store = Store.open(data_dir)
    return Services(data_dir, store, secrets or SecretStore(data_dir))


def switch_data_folder(data_dir: Path, progress: CopyProgress | None = None) -> FolderSwitch | None:
    """Make the data folder switch chosen in Settings, if one waits for this
    start (``services/data_folder.py``); before ``build_services``, with no
    other window on ``data_dir``. ``progress`` follows a copy."""
    from .paths import switch_file

    if not switch_file().exists():  # the usual start: no import, one stat
        return None
    from .services.data_folder import apply_switch
    from .storage.database import copy_file

    return apply_switch(data_dir, copy_file, progress)


#: the handlers ``configure_logging`` added to the root logger (a second call adds none)
_OUR_HANDLERS: weakref.WeakSet[logging.Handler] = weakref.WeakSet()


def configure_logging(data_dir: Path, *, verbose: bool = False) -> Path:
    """Log to ``logs/mira.log`` in the data folder (rotated), warnings to stderr.
    A folder where the log cannot be written (read-only, full) logs to stderr
    only: the data's own error, if any, is then said in words, not lost in
    a traceback about the log."""
    logs = data_dir / "logs"
    path = logs / "mira.log"
    root = logging.getLogger()
    if any(h in _OUR_HANDLERS for h in root.handlers):
        return path
    handler: logging.Handler
    try:
        logs.mkdir(parents=True, exist_ok=True)
        handler = logging.handlers.RotatingFileHandler(
            path, maxBytes=2_000_000, backupCount=3, encoding="utf-8"
        )
    except OSError as exc:
        handler = logging.StreamHandler()
        handler.setLevel(logging.WARNING)
        print(f"warning: cannot write the log in {logs}: {exc.strerror or exc}", file=sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    _OUR_HANDLERS.add(handler)
    root.addHandler(handler)
    root.setLevel(logging.DEBUG if verbose else logging.INFO)
    return path

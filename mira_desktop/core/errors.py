"""The error tree of Mira Desktop.

Every error the application raises on purpose is a :class:`MiraError`. Each one
carries a short message for people (``str(error)``) and a ``hint`` saying what
to do next. The user interface and the CLI show both; nothing else is needed to
explain a failure. The tree::

    MiraError
    ├── ConfigError                 bad settings, unknown provider, bad arguments
    ├── NotFoundError               a thread, message, provider… that does not exist
    ├── StorageError                the database or media folder failed (disk full…)
    ├── ReaderError                 a document cannot be read (attachments, KB)
    ├── InvalidImportError          an import file is malformed or of an unknown kind
    ├── SpeechError                 an answer could not be read aloud (no voice…)
    ├── TranscriptionError          a recording cannot be transcribed (empty, too large…)
    └── ProviderError               anything between us and a model server
        ├── AuthenticationError     401/403, wrong or missing API key
        ├── ModelNotFoundError      404 or "model not found"
        ├── RateLimitError          429; ``retry_after`` seconds when given
        ├── ContextOverflowError    the prompt does not fit the model's window
        ├── ServerError             5xx
        ├── BadRequestError         any other 4xx
        ├── NetworkError            connection refused, DNS, timeouts
        └── MalformedStreamError    garbage or a truncated stream

``code`` is a stable machine-readable name, used in JSON output and stored with
failed messages. A message written from a template (:func:`worded`) also
keeps the template and its fields, so the interface can show it in its own
language (``ui/error_texts.py``); everything else is English.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, TypeVar


class MiraError(Exception):
    """Base of every error Mira raises on purpose."""

    code = "error"
    default_hint = ""

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint if hint is not None else self.default_hint
        #: the English template ``message`` was written from, and its fields
        self.template: str | None = None
        self.params: dict[str, str] = {}
        #: the English template ``hint`` was written from (the same fields)
        self.hint_template: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.hint:
            data["hint"] = self.hint
        if self.template is not None:
            data["template"] = self.template
            data["params"] = dict(self.params)
        if self.hint_template is not None:
            data["hint_template"] = self.hint_template
        return data

    def __str__(self) -> str:
        return self.message


class ConfigError(MiraError):
    code = "config"


class NotFoundError(MiraError):
    code = "not_found"


class StorageError(MiraError):
    code = "storage"
    default_hint = "Check that the data folder is writable and the disk is not full."

    def __init__(
        self,
        message: str,
        *,
        hint: str | None = None,
        disk_full: bool = False,
        damaged: bool = False,
    ) -> None:
        super().__init__(message, hint=hint)
        #: the disk (or the database's size limit) is full: nothing could be written
        self.disk_full = disk_full
        #: the database file is damaged (``mira-desktop doctor --fix`` salvages it)
        self.damaged = damaged


class ReaderError(MiraError):
    code = "reader"


class InvalidImportError(MiraError):
    code = "invalid_import"
    default_hint = (
        "Choose a Mira JSON export (mira.thread) or ChatGPT's conversations.json "
        "(Settings → Data controls → Export data); nothing was imported."
    )


class SpeechError(MiraError):
    code = "speech"


class TranscriptionError(MiraError):
    code = "transcription"


class ProviderError(MiraError):
    code = "provider"

    def __init__(
        self,
        message: str,
        *,
        hint: str | None = None,
        status: int | None = None,
        provider: str | None = None,
    ) -> None:
        super().__init__(message, hint=hint)
        self.status = status
        self.provider = provider

    def to_dict(self) -> dict[str, Any]:
        data = super().to_dict()
        if self.status is not None:
            data["status"] = self.status
        return data


class AuthenticationError(ProviderError):
    code = "authentication"
    default_hint = "Check the provider's API key in Settings → Providers."


class ModelNotFoundError(ProviderError):
    code = "model_not_found"
    default_hint = "Pick another model, or pull it on the server (e.g. `ollama pull NAME`)."


class RateLimitError(ProviderError):
    code = "rate_limit"

    def __init__(
        self,
        message: str,
        *,
        retry_after: float | None = None,
        hint: str | None = None,
        status: int | None = 429,
        provider: str | None = None,
    ) -> None:
        if hint is None:
            hint = self.standard_hint(retry_after)
        super().__init__(message, hint=hint, status=status, provider=provider)
        self.retry_after = retry_after

    @staticmethod
    def wait_words(retry_after: float | None) -> tuple[str, dict[str, int]]:
        """The standard hint's template and its field: how long to wait,
        rounded up to whole seconds, minutes (from 2 minutes), hours (from
        2 hours) or days (from 2 days)."""
        if retry_after is None:
            return "Wait a moment and retry.", {}
        seconds = max(1, math.ceil(retry_after))
        if seconds < 120:
            return "Wait {seconds} s and retry.", {"seconds": seconds}
        if seconds < 2 * 3600:
            return "Wait {minutes} min and retry.", {"minutes": math.ceil(seconds / 60)}
        if seconds < 2 * 86400:
            return "Wait {hours} h and retry.", {"hours": math.ceil(seconds / 3600)}
        return "Wait {days} days and retry.", {"days": math.ceil(seconds / 86400)}

    @staticmethod
    def standard_hint(retry_after: float | None) -> str:
        """The hint when the raiser gives none: how long to wait, if known."""
        template, fields = RateLimitError.wait_words(retry_after)
        return template.format(**fields)

    def to_dict(self) -> dict[str, Any]:
        data = super().to_dict()
        if self.retry_after is not None:
            data["retry_after"] = self.retry_after
        return data


class ContextOverflowError(ProviderError):
    code = "context_overflow"
    default_hint = "Compact the conversation (/compact) or start a new thread."


class ServerError(ProviderError):
    code = "server"
    default_hint = "The model server had a problem; retry, or check its logs."


class BadRequestError(ProviderError):
    code = "bad_request"
    default_hint = "The server refused the request; check the model and settings."


class NetworkError(ProviderError):
    code = "network"
    default_hint = "Check that the server is running and the base URL is right (e.g. start Ollama)."


class MalformedStreamError(ProviderError):
    code = "malformed_stream"
    default_hint = "The server sent an invalid or incomplete answer; retry."


_BY_CODE: dict[str, type[MiraError]] = {
    cls.code: cls
    for cls in (
        MiraError,
        ConfigError,
        NotFoundError,
        StorageError,
        ReaderError,
        InvalidImportError,
        SpeechError,
        TranscriptionError,
        ProviderError,
        AuthenticationError,
        ModelNotFoundError,
        RateLimitError,
        ContextOverflowError,
        ServerError,
        BadRequestError,
        NetworkError,
        MalformedStreamError,
    )
}


E = TypeVar("E", bound=MiraError)


def worded(
    cls: type[E],
    template: str,
    fields: Mapping[str, object],
    /,
    *,
    hint_template: str | None = None,
    **options: Any,
) -> E:
    """``cls`` with the message ``template.format(**fields)``, remembering the
    template and the fields (as text) for the interface's translation;
    ``hint_template``: a hint written from the same fields, remembered too;
    ``options`` go to the constructor (``hint``, ``provider``…)."""
    params = {name: str(value) for name, value in fields.items()}
    if hint_template is not None:
        options["hint"] = hint_template.format(**params)
    error = cls(template.format(**params), **options)
    error.template, error.params = template, params
    error.hint_template = hint_template
    return error


def error_from_dict(data: dict[str, Any]) -> MiraError:
    """Rebuild an error stored with a message (for display after a reload)."""
    cls = _BY_CODE.get(str(data.get("code", "error")), MiraError)
    message = str(data.get("message", ""))
    hint = data.get("hint")
    error: MiraError
    if cls is RateLimitError:
        error = RateLimitError(message, retry_after=data.get("retry_after"), hint=hint)
    elif issubclass(cls, ProviderError):
        error = cls(message, hint=hint, status=data.get("status"))
    else:
        error = cls(message, hint=hint)
    template, params = data.get("template"), data.get("params")
    if isinstance(template, str) and isinstance(params, dict):
        error.template = template
        error.params = {str(k): str(v) for k, v in params.items()}
        hint_template = data.get("hint_template")
        if isinstance(hint_template, str):
            error.hint_template = hint_template
    return error

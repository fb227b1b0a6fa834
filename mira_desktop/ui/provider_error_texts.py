"""The providers' part of the catalogue of ``error_texts.known_texts``: what
the Qt-free layers say about model servers — their addresses, keys and
transport failures — in the interface's language (split from
``error_texts.py`` by area, to keep each module short)."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication


def _tr(text: str) -> str:
    return QCoreApplication.translate("ErrorTexts", text)


def provider_texts() -> tuple[str, ...]:
    """The messages, templates and hints about providers (literals, for
    ``packaging/extract_strings.py``)."""
    return (
        # providers/errormap.py
        _tr("Timed out connecting to {url}"),
        _tr("Timed out waiting for {url}"),
        _tr("Could not connect to {url}: {detail}"),
        _tr("Invalid server URL {url}: {detail}"),
        _tr("The connection to {url} failed: {detail}"),
        _tr("Could not decode the answer of {url}: {detail}"),
        _tr("The server at {address} does not speak HTTPS: it answers in plain HTTP."),
        _tr("Start the provider's base URL with http://{address} instead of https://{address}."),
        _tr("The stream ended before the answer was complete"),
        _tr(
            "The account's quota or credit is used up: check the plan and billing with the "
            "provider (waiting will not help)."
        ),
        _tr(
            "Check the provider's base URL: the server has no such address "
            "(OpenAI-compatible servers need /v1 at its end, e.g. http://localhost:11434/v1)."
        ),
        _tr(
            "Check the provider's base URL: the server has no such address (Ollama's own API "
            "is at the server's root, without /v1, e.g. http://localhost:11434)."
        ),
        _tr(
            "Check the provider's base URL: the server has no such address (Anthropic's API "
            "is at https://api.anthropic.com, without /v1)."
        ),
        _tr(
            "The server may not take a reasoning level for this model: set Reasoning effort to "
            "“Server's default” (the ⋯ menu, or Settings → Models)."
        ),
        # storage/providers_repo.py, services/providers.py
        _tr('No provider named "{name}".'),
        _tr("A provider needs a name."),
        _tr('A provider named "{name}" already exists.'),
        _tr(
            'A provider named "{existing}" already exists; names that differ only in upper '
            "and lower case would be mixed up."
        ),
        # core/api_keys.py
        _tr(
            "The API key contains characters a key cannot have (a line break, a space or an "
            "invisible character): paste it again."
        ),
        # storage/secrets.py
        _tr("Cannot read the API key file {file}: {reason}"),
        _tr("Could not read the API key from the system keyring ({reason})."),
        _tr("The system keyring did not take the API key ({reason})."),
        _tr("Unlock the system keyring (logging in again often does), then try again."),
    )

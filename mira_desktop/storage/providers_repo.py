"""SQL for configured providers, their models (with per-model settings) and the
key/value settings table. API keys never come here (see ``secrets.py``)."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from ..core.errors import ConfigError, NotFoundError, worded
from ..core.ids import new_id, utc_now
from ..core.models import ModelInfo, ProviderConfig
from . import rows
from .connection import Database
from .database import write
from .threads_repo import insert

#: the setting naming the model a new chat starts on (``services/chat_plan.py``)
LAST_MODEL_KEY = "chat.last_model"


def list_providers(db: Database) -> list[ProviderConfig]:
    return [rows.provider(r) for r in db.query("SELECT * FROM providers ORDER BY name")]


def get_provider(db: Database, name: str) -> ProviderConfig:
    row = next(db.query("SELECT * FROM providers WHERE name = ?", [name]), None)
    if row is None:
        raise worded(
            NotFoundError,
            'No provider named "{name}".',
            {"name": name},
            hint="List them with `mira-desktop provider list`.",
        )
    return rows.provider(row)


def get_provider_by_id(db: Database, provider_id: str) -> ProviderConfig | None:
    row = next(db.query("SELECT * FROM providers WHERE id = ?", [provider_id]), None)
    return rows.provider(row) if row else None


def _check_name_free(conn: sqlite3.Connection, name: str, own_name: str | None = None) -> None:
    """Refuse ``name`` when another provider has it, or has it but for upper
    and lower case ("Ollama" beside "ollama": which one ``--provider ollama``
    or a saved choice meant would be unclear). Checked in the write
    transaction, so another process cannot add the twin meanwhile; a database
    that already holds such a pair keeps it (lookups take exact names)."""
    folded = name.casefold()
    for (existing,) in conn.execute("SELECT name FROM providers"):
        if existing == own_name or existing.casefold() != folded:
            continue
        if existing == name:
            raise worded(
                ConfigError,
                'A provider named "{name}" already exists.',
                {"name": name},
                hint="Choose another name.",
            )
        raise worded(
            ConfigError,
            'A provider named "{existing}" already exists; names that differ only in upper '
            "and lower case would be mixed up.",
            {"existing": existing},
            hint="Choose another name.",
        )


def add_provider(
    db: Database, name: str, kind: str, base_url: str, has_key: bool
) -> ProviderConfig:
    now = utc_now()
    with write(db) as conn:
        _check_name_free(conn, name)
        insert(
            conn,
            "providers",
            {
                "id": new_id(),
                "name": name,
                "kind": kind,
                "base_url": base_url,
                "has_key": int(has_key),
                "created_at": now,
                "updated_at": now,
            },
        )
    return get_provider(db, name)


def update_provider(db: Database, name: str, /, **fields: Any) -> ProviderConfig:
    """Change a provider's fields (``name`` among them: a rename, which the
    choices naming it follow)."""
    allowed = {"name", "kind", "base_url", "has_key"}
    values = {k: (int(v) if isinstance(v, bool) else v) for k, v in fields.items() if k in allowed}
    values["updated_at"] = utc_now()
    assignments = ", ".join(f"{k} = ?" for k in values)
    with write(db) as conn:
        if "name" in values and values["name"] != name:
            _check_name_free(conn, str(values["name"]), own_name=name)
        cursor = conn.execute(
            f"UPDATE providers SET {assignments} WHERE name = ?", (*values.values(), name)
        )
        if cursor.rowcount == 0:
            raise NotFoundError(f'No provider named "{name}".')
        if "name" in values and values["name"] != name:
            _follow_rename(conn, name, str(values["name"]))
    return get_provider(db, str(values.get("name", name)))


def _follow_rename(conn: sqlite3.Connection, old: str, new: str) -> None:
    """Choices that name a provider by its name — the last model, the image
    and speech-to-text models (settings), a knowledge base's embedding and
    rerank models — name it by its new one."""
    conn.execute(
        "UPDATE settings SET value_json = json_set(value_json, '$.provider', ?)"
        " WHERE json_valid(value_json) AND json_extract(value_json, '$.provider') = ?",
        [new, old],
    )
    for path in ("$.embedding.provider", "$.rerank.provider"):
        conn.execute(
            f"UPDATE knowledge_bases SET settings_json = json_set(settings_json, '{path}', ?)"
            f" WHERE json_valid(settings_json) AND json_extract(settings_json, '{path}') = ?",
            [new, old],
        )


def remove_provider(db: Database, name: str) -> None:
    """Delete the provider (its models go with it) and forget it as the last
    chosen model, in one transaction: a new chat then starts on a model that
    exists. The image and speech-to-text choices stay, so those features say
    their provider is gone rather than that nothing was chosen."""
    with write(db) as conn:
        cursor = conn.execute("DELETE FROM providers WHERE name = ?", [name])
        if cursor.rowcount == 0:
            raise NotFoundError(f'No provider named "{name}".')
        conn.execute(
            "DELETE FROM settings WHERE key = ? AND json_valid(value_json)"
            " AND json_extract(value_json, '$.provider') = ?",
            [LAST_MODEL_KEY, name],
        )


_MODEL_SELECT = (
    "SELECT m.*, p.name AS provider_name FROM models m JOIN providers p ON p.id = m.provider_id"
)


def list_models(db: Database, provider_name: str | None = None) -> list[ModelInfo]:
    if provider_name is None:
        sql = f"{_MODEL_SELECT} WHERE m.listed = 1 ORDER BY p.name, m.name"
        return [rows.model(r) for r in db.query(sql)]
    sql = f"{_MODEL_SELECT} WHERE p.name = ? AND m.listed = 1 ORDER BY m.name"
    return [rows.model(r) for r in db.query(sql, [provider_name])]


def get_model(db: Database, provider_name: str, model: str) -> ModelInfo | None:
    sql = f"{_MODEL_SELECT} WHERE p.name = ? AND m.name = ?"
    row = next(db.query(sql, [provider_name, model]), None)
    return rows.model(row) if row else None


def save_listed_models(db: Database, provider_name: str, names: list[str]) -> None:
    """Record the models a server lists now; keep per-model settings of known ones."""
    provider = get_provider(db, provider_name)
    now = utc_now()
    with write(db) as conn:
        conn.execute("UPDATE models SET listed = 0 WHERE provider_id = ?", [provider.id])
        for name in names:
            conn.execute(
                "INSERT INTO models(id, provider_id, name, listed, updated_at) VALUES (?, ?, ?, 1, ?)"
                " ON CONFLICT(provider_id, name) DO UPDATE SET listed = 1, updated_at = excluded.updated_at",
                (new_id(), provider.id, name, now),
            )


def update_model_settings(
    db: Database, provider_name: str, model: str, settings: dict[str, Any]
) -> ModelInfo:
    provider = get_provider(db, provider_name)
    now = utc_now()
    with write(db) as conn:
        conn.execute(
            "INSERT INTO models(id, provider_id, name, listed, updated_at) VALUES (?, ?, ?, 1, ?)"
            " ON CONFLICT(provider_id, name) DO NOTHING",
            (new_id(), provider.id, model, now),
        )
        conn.execute(
            "UPDATE models SET context_window = ?, vision = ?, tier = ?, compaction_threshold = ?,"
            " reasoning = ?, updated_at = ? WHERE provider_id = ? AND name = ?",
            (
                settings.get("context_window"),
                int(bool(settings.get("vision"))),
                settings.get("tier"),
                settings.get("compaction_threshold"),
                settings.get("reasoning"),
                now,
                provider.id,
                model,
            ),
        )
    found = get_model(db, provider_name, model)
    assert found is not None
    return found


def get_setting(db: Database, key: str) -> Any:
    row = db.execute("SELECT value_json FROM settings WHERE key = ?", [key]).fetchone()
    return json.loads(row[0]) if row else None


def set_setting(db: Database, key: str, value: Any) -> None:
    with write(db) as conn:
        conn.execute(
            "INSERT INTO settings(key, value_json, updated_at) VALUES (?, ?, ?)"
            " ON CONFLICT(key) DO UPDATE SET value_json = excluded.value_json,"
            " updated_at = excluded.updated_at",
            (key, json.dumps(value, ensure_ascii=False), utc_now()),
        )

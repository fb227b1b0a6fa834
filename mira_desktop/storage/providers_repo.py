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


def add_provider(
    db: Database, name: str, kind: str, base_url: str, has_key: bool
) -> ProviderConfig:
    now = utc_now()
    with write(db) as conn:
        if conn.execute("SELECT 1 FROM providers WHERE name = ?", [name]).fetchone():
            raise ConfigError(f'A provider named "{name}" already exists.')
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
            if conn.execute("SELECT 1 FROM providers WHERE name = ?", [values["name"]]).fetchone():
                raise ConfigError(f'A provider named "{values["name"]}" already exists.')
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

"""Renaming a provider (Settings → Providers, the form's name): the provider
keeps its id, key and models, and every choice that names it by name — the
last model, the image and speech-to-text models, a knowledge base's
embedding and rerank models — follows the new name. A real data folder."""

from __future__ import annotations

import json

import pytest

from mira_desktop.bootstrap import Services
from mira_desktop.core.errors import ConfigError


async def test_a_renamed_provider_keeps_its_key_models_and_the_choices_naming_it(
    services: Services, loop_provider: str
) -> None:
    before = await services.providers.get_provider(loop_provider)
    await services.store.save_listed_models(loop_provider, ["m1", "pic-1", "whisper"])
    await services.settings.set("chat.last_model", {"provider": loop_provider, "model": "m1"})
    await services.images.set_image_model(loop_provider, "pic-1")
    await services.settings.set(
        "media.transcription_model", {"provider": loop_provider, "model": "whisper"}
    )
    await services.providers.add_provider("other", "openai", "http://127.0.0.1:9/v1")
    await services.settings.set("other.choice", {"provider": "other", "model": "x"})
    kb = await services.knowledge.create("Notes")
    await services.store.worker.run(
        lambda db: db.execute(
            "UPDATE knowledge_bases SET settings_json = ? WHERE id = ?",
            [
                json.dumps(
                    {
                        "embedding": {"provider": loop_provider, "model": "e"},
                        "rerank": {"provider": loop_provider, "model": "r"},
                    }
                ),
                kb.id,
            ],
        )
    )

    renamed = await services.providers.update_provider(loop_provider, new_name="Home server")

    assert (renamed.id, renamed.name, renamed.base_url) == (
        before.id,
        "Home server",
        before.base_url,
    )
    assert [m.name for m in await services.providers.list_models("Home server")] == [
        "m1",
        "pic-1",
        "whisper",
    ]
    assert await services.settings.get("chat.last_model") == {
        "provider": "Home server",
        "model": "m1",
    }
    assert await services.images.image_model() == ("Home server", "pic-1")
    assert (await services.settings.get("media.transcription_model"))["provider"] == "Home server"
    assert (await services.settings.get("other.choice"))["provider"] == "other"  # untouched
    reloaded = await services.knowledge.get(kb.id)
    assert reloaded.settings["embedding"]["provider"] == "Home server"
    assert reloaded.settings["rerank"]["provider"] == "Home server"
    with pytest.raises(ConfigError, match="already exists"):
        await services.providers.update_provider("Home server", new_name="other")

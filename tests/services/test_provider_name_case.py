"""Provider names that differ only in upper and lower case ("Ollama" and
"ollama") would leave it unclear which one `--provider ollama` or a saved
choice means: a new name or a rename onto another provider's name, ignoring
case, is refused in words. A database that already holds such a pair keeps
working: every lookup finds the exact name. A real data folder."""

from __future__ import annotations

import pytest

from mira_desktop.bootstrap import Services
from mira_desktop.core.errors import ConfigError
from mira_desktop.core.ids import new_id, utc_now

URL = "http://127.0.0.1:9/v1"


async def names(services: Services) -> list[str]:
    return [p.name for p in await services.providers.list_providers()]


async def test_a_new_name_differing_only_in_case_is_refused(services: Services) -> None:
    await services.providers.add_provider("Ollama", "ollama", "http://127.0.0.1:9")
    for taken in ("ollama", "OLLAMA", " oLLaMa "):
        with pytest.raises(ConfigError) as caught:
            await services.providers.add_provider(taken, "openai", URL, "sk-never-stored")
        error = caught.value
        assert error.message == (
            'A provider named "Ollama" already exists; names that differ only in upper '
            "and lower case would be mixed up."
        )
        assert error.hint == "Choose another name."
        assert error.template is not None  # translated in the window
    assert await names(services) == ["Ollama"]
    # the same name exactly keeps its own words
    with pytest.raises(ConfigError, match=r'A provider named "Ollama" already exists\.$'):
        await services.providers.add_provider("Ollama", "openai", URL)


async def test_a_rename_onto_another_name_in_other_case_is_refused(services: Services) -> None:
    await services.providers.add_provider("Ollama", "ollama", "http://127.0.0.1:9")
    await services.providers.add_provider("Work", "openai", URL, "sk-work")
    with pytest.raises(ConfigError, match='A provider named "Ollama" already exists;'):
        await services.providers.update_provider("Work", new_name="OLLAMA", api_key="sk-new")
    assert await names(services) == ["Ollama", "Work"]
    work = await services.providers.get_provider("Work")
    assert services.providers._secrets.get(work.id) == "sk-work"  # the refused key is not kept
    # a provider may change the case of its own name
    renamed = await services.providers.update_provider("Ollama", new_name="OLLAMA")
    assert renamed.name == "OLLAMA" and await names(services) == ["OLLAMA", "Work"]


async def test_a_database_holding_such_a_pair_finds_each_by_its_exact_name(
    services: Services,
) -> None:
    """Written before the refusal existed (straight into the table)."""
    now = utc_now()

    def legacy_pair(db) -> None:  # type: ignore[no-untyped-def]
        for name, port in (("Ollama", 9), ("ollama", 10)):
            db.execute(
                "INSERT INTO providers(id, name, kind, base_url, has_key, created_at, updated_at)"
                " VALUES (?, ?, 'ollama', ?, 0, ?, ?)",
                [new_id(), name, f"http://127.0.0.1:{port}", now, now],
            )

    await services.store.worker.run(legacy_pair)
    assert (await services.providers.get_provider("Ollama")).base_url == "http://127.0.0.1:9"
    assert (await services.providers.get_provider("ollama")).base_url == "http://127.0.0.1:10"
    config, live = await services.providers.chat_provider("ollama")
    assert config.name == "ollama" and live.base_url == "http://127.0.0.1:10"
    # either one can still be edited (its name unchanged) and renamed apart
    edited = await services.providers.update_provider(
        "ollama", new_name="ollama", base_url="http://127.0.0.1:11"
    )
    assert edited.base_url == "http://127.0.0.1:11"
    await services.providers.update_provider("ollama", new_name="Ollama (laptop)")
    assert await names(services) == ["Ollama", "Ollama (laptop)"]
    await services.providers.remove_provider("Ollama")
    assert await names(services) == ["Ollama (laptop)"]


async def test_first_start_ollama_takes_a_name_free_in_any_case(services: Services) -> None:
    await services.providers.add_provider("ollama", "openai", URL)
    name = await services.providers.ollama_provider("http://127.0.0.1:9")
    assert name == "Ollama (2)"
    assert await names(services) == ["Ollama (2)", "ollama"]

"""Removing a provider: the last chosen model stops naming it in the same
transaction (a new chat or a restart would otherwise start on a model that
cannot answer); another provider's removal keeps it, and the image and
speech-to-text choices (which then say their provider is gone) are kept. A
real data folder."""

from __future__ import annotations

from mira_desktop.bootstrap import Services


async def test_removing_the_last_models_provider_forgets_it_as_the_last_model(
    services: Services, loop_provider: str
) -> None:
    await services.providers.add_provider("other", "openai", "http://127.0.0.1:9/v1")
    last = {"provider": loop_provider, "model": "m1"}
    await services.settings.set("chat.last_model", last)
    await services.images.set_image_model(loop_provider, "pic-1")

    await services.providers.remove_provider("other")
    assert await services.settings.get("chat.last_model") == last

    await services.providers.remove_provider(loop_provider)
    assert await services.settings.get("chat.last_model") is None
    assert await services.images.image_model() == (loop_provider, "pic-1")

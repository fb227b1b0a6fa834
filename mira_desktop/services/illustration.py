"""``ImageService``: answers illustrated by the provider's image model
(PRODUCT.md §10).

A thread with its image switch on (``Thread.image_enabled``), a role and no
knowledge base has each non-empty completed answer turned into an image
prompt (the role's name and scenario, then the answer's words without code,
links or Markdown marks) and sent to the image model chosen in Settings
(``media.image_model``: an OpenAI-compatible provider and a model, e.g.
``gpt-image-1`` or a local server's). The picture is checked (Pillow, off the
event loop), kept in the media store as an ``image`` part of the answer with
a summary under ``data["image"]`` (``core/illustration.py``). A refusal, a dead
server or no image model leaves the answer as it is and records why on it
(the timeline shows the error on the image's card, with Try again). Any
answer can be illustrated on request (:meth:`illustrate`)."""

from __future__ import annotations

import asyncio
import io
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.answer_media import MadePart
from ..core.errors import ConfigError, MalformedStreamError, NotFoundError, worded
from ..core.illustration import ImageInfo
from ..core.media_keys import IMAGE_KEY, IMAGE_MODEL_KEY
from ..core.models import Message, Role, Thread
from ..core.ports import ImageProvider
from .answer_media import AnswerMediaMaker, Made, ended_answer
from .speech_text import speakable

if TYPE_CHECKING:
    from ..storage.media_store import MediaStore
    from ..storage.store import Store
    from .providers import ProviderService
    from .settings import SettingsService

log = logging.getLogger(__name__)

#: characters of the answer in a prompt (image models read ~1,000 well)
PROMPT_CHARS = 1000
_FORMATS = {"PNG": "image/png", "JPEG": "image/jpeg", "WEBP": "image/webp", "GIF": "image/gif"}
_NO_MODEL_HINT = "Choose an image model in Settings → Chat & data (an OpenAI-compatible provider)."


class ImageService(AnswerMediaMaker):
    key = IMAGE_KEY
    ended_only = "Only an answer that has ended can be illustrated."
    gone = "The image of this answer is gone from the data folder."
    gone_hint = "Make the image again."

    def __init__(
        self,
        store: Store,
        media: MediaStore,
        providers: ProviderService,
        settings: SettingsService,
    ) -> None:
        super().__init__(store, media)
        self._providers = providers
        self._settings = settings

    async def image_model(self) -> tuple[str, str] | None:
        """The (provider, model) images are asked of, None until chosen."""
        return await self._settings.model_choice(IMAGE_MODEL_KEY)

    async def set_image_model(self, provider: str | None, model: str | None) -> None:
        """Choose the image model (both empty: none). The provider must exist."""
        model = (model or "").strip()
        if not provider or not model:
            await self._settings.set(IMAGE_MODEL_KEY, None)
            return
        await self._providers.get_provider(provider)  # NotFoundError for an unknown one
        await self._settings.set(IMAGE_MODEL_KEY, {"provider": provider, "model": model})

    def after_answer(self, thread: Thread, message: Message | None) -> bool:
        """An answer ended: illustrate it in the background when the thread's
        switch is on, it has a role and no knowledge base. True if started."""
        if not wants_images(thread) or message is None or not ended_answer(message):
            return False
        self.start(message)
        return True

    async def illustrate(self, message_id: str) -> Message:
        """Illustrate one answer now (``AnswerMediaMaker.make_now``)."""
        return await self.make_now(message_id)

    async def copy_image(self, info: ImageInfo, target: Path) -> Path:
        return await self.copy_made(info.sha256, info.size, target)

    async def _make(self, message: Message) -> Made:
        chosen = await self.image_model()
        if chosen is None:
            raise ConfigError("No image model is chosen.", hint=_NO_MODEL_HINT)
        provider_name, model = chosen
        try:
            _config, provider = await self._providers.chat_provider(provider_name)
        except NotFoundError as exc:
            raise worded(
                ConfigError,
                'The image model\'s provider "{provider}" is gone.',
                {"provider": provider_name},
                hint=_NO_MODEL_HINT,
            ) from exc
        if not isinstance(provider, ImageProvider):
            raise worded(
                ConfigError,
                '"{provider}" cannot make images.',
                {"provider": provider_name},
                hint=_NO_MODEL_HINT,
            )
        prompt = await self._prompt(message)
        made = await provider.generate_image(prompt, model)
        mime, width, height = await asyncio.to_thread(_checked_image, made.data, provider_name)
        sha256 = await self._media.put(made.data, mime)
        extension = mime.split("/")[1].replace("jpeg", "jpg")
        info = ImageInfo(
            "ready",
            sha256=sha256,
            name=f"answer-{message.id[:8]}.{extension}",
            mime=mime,
            size=len(made.data),
            width=width,
            height=height,
            model=model,
            prompt=made.revised_prompt or prompt,
        )
        return info.to_dict(), MadePart("image", sha256, info.name, mime, info.size)

    async def _prompt(self, message: Message) -> str:
        thread = await self._store.get_thread(message.thread_id)
        role: Role | None = None
        if thread.role_id:
            try:
                role = await self._store.get_role(thread.role_id)
            except NotFoundError:
                log.info("role %s of thread %s is gone", thread.role_id, thread.id)
        return image_prompt(message.text, role)


def wants_images(thread: Thread) -> bool:
    """PRODUCT.md §10: the switch, a role, and no knowledge base."""
    return thread.image_enabled and bool(thread.role_id) and not thread.kb_id


def image_prompt(answer: str, role: Role | None) -> str:
    """The answer as an image prompt: who speaks and where, then its words."""
    words = speakable(answer, limit=PROMPT_CHARS).text
    if role is None:
        return f"An illustration of this scene: {words}"
    setting = " ".join(role.scenario.split())[:300]
    where = f" ({setting})" if setting else ""
    return f"An illustration for this reply of {role.name}{where}: {words}"


def _checked_image(data: bytes, provider: str) -> tuple[str, int, int]:
    """(mime, width, height) of a picture the server sent; anything else is
    refused in words (a page of HTML, a truncated file)."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data)) as picture:
            picture.verify()
            kind, (width, height) = picture.format or "", picture.size
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError) as exc:
        raise MalformedStreamError("The server's image cannot be read", provider=provider) from exc
    mime = _FORMATS.get(kind)
    if mime is None:
        raise worded(
            MalformedStreamError,
            "The server sent an image in a format Mira does not keep ({format})",
            {"format": kind or "unknown"},
            provider=provider,
        )
    return mime, width, height

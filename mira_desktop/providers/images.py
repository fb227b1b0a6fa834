"""Wire format of image generation (PRODUCT.md §10): OpenAI-compatible
``POST {base}/images/generations`` asking for base64 data, and the parsing of
its answer — ``data[0].b64_json`` (or ``data[0].url`` from servers that only
link, fetched by the adapter) — with anything else raised as
``MalformedStreamError``. Decoding checks the base64, not the picture: the
service verifies the image (Pillow) off the event loop."""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from typing import Any

from mira_desktop.core.errors import MalformedStreamError

#: image generation takes tens of seconds on real servers
IMAGE_TIMEOUT_S = 180.0
DEFAULT_SIZE = "1024x1024"


@dataclass(frozen=True, slots=True)
class ImageAnswer:
    """The server's first image: its bytes, or a link to fetch them."""

    data: bytes | None
    url: str | None
    revised_prompt: str | None


def image_body(prompt: str, model: str, size: str = DEFAULT_SIZE) -> dict[str, Any]:
    return {"model": model, "prompt": prompt, "n": 1, "size": size, "response_format": "b64_json"}


def parse_image_answer(data: Any, provider: str) -> ImageAnswer:
    items = data.get("data") if isinstance(data, dict) else None
    first = items[0] if isinstance(items, list) and items else None
    if not isinstance(first, dict):
        raise MalformedStreamError("The server sent no image", provider=provider)
    revised = first.get("revised_prompt")
    revised = revised if isinstance(revised, str) and revised.strip() else None
    encoded = first.get("b64_json")
    if isinstance(encoded, str) and encoded:
        try:
            return ImageAnswer(base64.b64decode(encoded, validate=True), None, revised)
        except (binascii.Error, ValueError):
            raise MalformedStreamError(
                "The server sent an image that is not valid base64", provider=provider
            ) from None
    url = first.get("url")
    if isinstance(url, str) and url.startswith(("http://", "https://")):
        return ImageAnswer(None, url, revised)
    raise MalformedStreamError("The server sent no image", provider=provider)

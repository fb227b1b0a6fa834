"""Illustrated answers from the command line, as a user runs them: the image
model (``provider image-model``), ``chat --image`` with a role (an ``image``
line before the terminal line), ``thread image``, ``thread illustrate
[--out]`` and a refusal."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path

from PIL import Image

from tests.support.loopback import LoopbackServer, json_reply, openai_json_error, openai_stream

from .test_cli import CHAT, cli, json_lines

IMAGES = "/v1/images/generations"


def png_reply(colour: str) -> object:
    out = io.BytesIO()
    Image.new("RGB", (64, 32), colour).save(out, "PNG")
    return json_reply({"data": [{"b64_json": base64.b64encode(out.getvalue()).decode()}]})


def test_the_image_model_is_shown_set_and_cleared(data_dir: Path, keyless_provider: str) -> None:
    assert cli(data_dir, "provider", "image-model").stdout.strip() == "No image model is chosen."
    assert (
        cli(
            data_dir,
            "provider",
            "add",
            "ol",
            "--kind",
            "ollama",
            "--base-url",
            "http://127.0.0.1:9",
        ).returncode
        == 0
    )
    refused = cli(data_dir, "provider", "image-model", "ol", "pic-1")
    assert refused.returncode == 1 and '"ol" cannot make images.' in refused.stderr
    chosen = cli(data_dir, "provider", "image-model", keyless_provider, "pic-1", "--json")
    assert json.loads(chosen.stdout) == {"provider": "loop", "model": "pic-1"}
    cleared = cli(data_dir, "provider", "image-model", "--clear", "--json")
    assert json.loads(cleared.stdout) is None


def test_chat_with_image_and_a_role_reports_the_picture_before_its_last_line(
    data_dir: Path, loopback: LoopbackServer, keyless_provider: str, tmp_path: Path
) -> None:
    assert cli(data_dir, "provider", "image-model", keyless_provider, "pic-1").returncode == 0
    assert cli(data_dir, "role", "add", "Guide", "--prompt", "Be vivid.").returncode == 0
    loopback.enqueue(CHAT, openai_stream(["A red gate in the snow."]))
    loopback.enqueue(IMAGES, png_reply("red"))
    args = [
        "chat",
        "--provider",
        keyless_provider,
        "--model",
        "m1",
        "--role",
        "Guide",
        "--image",
        "--json",
    ]
    result = cli(data_dir, *args, "Describe the temple")
    assert result.returncode == 0, result.stderr
    events = json_lines(result.stdout)
    assert [e["type"] for e in events[-2:]] == ["image", "completed"]
    image, final = events[-2], events[-1]
    assert image["status"] == "ready" and (image["width"], image["height"]) == (64, 32)
    assert image["mime"] == "image/png" and image["model"] == "pic-1"
    assert "A red gate in the snow." in image["prompt"]
    thread_id = final["thread_id"]
    # a refusal: the answer and its picture are kept, the command says why and exits 1
    loopback.enqueue(IMAGES, openai_json_error(400, "Rejected by the safety system"))
    refused = cli(data_dir, "thread", "illustrate", thread_id)
    assert refused.returncode == 1 and refused.stdout.startswith("Not drawn again: ")
    assert "safety system" in refused.stdout and "The earlier one is kept." in refused.stdout
    loopback.enqueue(IMAGES, openai_json_error(400, "Rejected by the safety system"))
    kept = cli(data_dir, "thread", "illustrate", thread_id, "--json")
    assert kept.returncode == 1
    kept_json = json.loads(kept.stdout)
    assert kept_json["status"] == "ready" and kept_json["sha256"] == image["sha256"]
    assert "safety system" in kept_json["error"]["message"]
    loopback.enqueue(IMAGES, png_reply("blue"))
    out = tmp_path / "temple.png"
    made = cli(data_dir, "thread", "illustrate", thread_id, "--out", str(out), "--json")
    assert made.returncode == 0, made.stderr
    assert json.loads(made.stdout)["out"] == str(out)
    with Image.open(out) as picture:
        assert picture.getpixel((0, 0)) == (0, 0, 255)
    off = cli(data_dir, "thread", "image", thread_id, "off", "--json")
    assert json.loads(off.stdout) == {"thread_id": thread_id, "image_enabled": False}
    loopback.enqueue(CHAT, openai_stream(["More snow."]))
    quiet = cli(data_dir, "chat", "--thread", thread_id, "--json", "And then?")
    assert [e["type"] for e in json_lines(quiet.stdout)][-2:] != ["image", "completed"]

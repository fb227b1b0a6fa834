"""Pictures of a ChatGPT export ZIP come in with their conversations: the
user's uploads and generated images, named in ``conversations.json`` by asset
pointers (``file-service://…``, ``sediment://…``) and held in the ZIP under
names that start with the pointer's id (``.dat`` too). Found ones become the
message's images and leave the text; a missing one, or a file that is not a
picture, keeps its placeholder. A real ZIP, real PNG/JPEG bytes, a real
library in a temp folder."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

from mira_desktop.bootstrap import Services
from mira_desktop.core.answer_media import MadePart
from mira_desktop.core.models import Message
from mira_desktop.services.importers.chatgpt_files import asset_id
from tests.support.documents import make_image

from .chatgpt_fixture import Conversation


def picture(pointer: str, width: int = 640, height: int = 480) -> dict[str, object]:
    return {
        "content_type": "image_asset_pointer",
        "asset_pointer": pointer,
        "width": width,
        "height": height,
    }


def test_an_asset_pointer_names_its_file_by_its_last_part() -> None:
    assert asset_id("file-service://file-AbC123") == "file-AbC123"
    assert asset_id("sediment://file_00000000abcd") == "file_00000000abcd"


async def test_the_pictures_of_a_chatgpt_zip_come_in_on_their_messages(
    services: Services, tmp_path: Path
) -> None:
    c = Conversation("conv-pics", "Cat pictures")
    c.say(
        "u1",
        "root",
        "user",
        picture("file-service://file-Cat1"),
        "What breed is this?",
        at=1,
        content_type="multimodal_text",
    )
    c.say("a1", "u1", "assistant", "A tabby.", at=2)
    c.say(
        "u2",
        "a1",
        "user",
        picture("sediment://file_0000abc"),
        at=3,
        content_type="multimodal_text",
    )  # a picture alone
    c.say(
        "a2",
        "u2",
        "assistant",
        picture("file-service://file-Cat1"),  # an answer's picture: shown as one Mira drew
        "Here is a drawing.",
        at=4,
        content_type="multimodal_text",
    )
    c.say(
        "u3",
        "a2",
        "user",
        picture("file-service://file-Gone"),
        picture("file-service://file-Text"),
        "Two more?",
        at=5,
        content_type="multimodal_text",
    )
    c.current("u3")
    cat = make_image(tmp_path / "cat.png", "PNG").read_bytes()
    photo = make_image(tmp_path / "photo.jpg", "JPEG").read_bytes()
    target = tmp_path / "chatgpt-export.zip"
    with zipfile.ZipFile(target, "w") as archive:
        archive.writestr("conversations.json", json.dumps([c.data]))
        archive.writestr("file-Cat1-IMG_1234.png", cat)
        archive.writestr("file-Cat10-other.png", photo)  # not file-Cat1's
        archive.writestr("dalle-generations/file_0000abc-5f1c.dat", photo)  # mislabelled
        archive.writestr("file-Text-notes.txt", b"not a picture\n")
        archive.writestr("user-1/notes.txt", b"same name twice\n")  # names repeat in folders
        archive.writestr("user-2/notes.txt", b"same name twice\n")

    report = await services.imports.import_file(target)

    assert report.format == "chatgpt" and len(report.imported) == 1
    assert (report.files_restored, report.files_missing) == (3, 2)
    branch = await services.conversation.active_branch(report.imported[0].id)
    u1, _, u2, a2, u3 = branch
    assert u1.text == "What breed is this?"  # the placeholder went with the picture
    assert u2.text == ""  # a picture alone
    assert a2.text == "Here is a drawing."
    assert "[Image not imported: file-service://file-Gone, 640×480]" in u3.text
    assert "[Image not imported: file-service://file-Text, 640×480]" in u3.text  # not a picture
    files = await services.media.attachments([u1.id, u2.id, a2.id, u3.id])
    [first] = files[u1.id]
    assert (first.name, first.mime, first.kind) == ("IMG_1234.png", "image/png", "image")
    assert services.media.path(first.sha256).read_bytes() == cat
    # the timeline shows a question's pictures from its data, as after a send
    assert (u1.data or {})["attachments"] == [
        {
            "name": "IMG_1234.png",
            "mime": "image/png",
            "size": len(cat),
            "kind": "image",
            "sha256": first.sha256,
        }
    ]
    [second] = files[u2.id]
    assert (second.name, second.mime) == ("5f1c.jpg", "image/jpeg")  # was .dat
    assert services.media.path(second.sha256).read_bytes() == photo
    assert u3.id not in files
    # the answer's picture: its part, and data["image"] as an illustrated answer has
    [drawn] = files[a2.id]
    assert drawn.sha256 == first.sha256 and "attachments" not in (a2.data or {})
    assert (a2.data or {})["image"] == {
        "status": "ready",
        "sha256": first.sha256,
        "name": "IMG_1234.png",
        "mime": "image/png",
        "size": len(cat),
        "width": 640,  # as the export says
        "height": 480,
        "model": "ChatGPT",
        "prompt": "",
    }
    assert await services.media.ref_count(first.sha256) == 2
    report_again = await services.imports.import_file(target)  # a duplicate: skipped
    assert [s.reason for s in report_again.skipped] and not report_again.imported
    assert await services.media.ref_count(first.sha256) == 2


async def test_conversations_json_alone_keeps_the_placeholders(
    services: Services, tmp_path: Path
) -> None:
    c = Conversation("conv-one", "One picture")
    c.say(
        "u1", "root", "user", picture("file-service://file-X"), "Look", at=1,
        content_type="multimodal_text",
    )  # fmt: skip
    c.say("a1", "u1", "assistant", "Nice.", at=2)
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps([c.current("a1").data]), "utf-8")
    report = await services.imports.import_file(path)
    assert (report.files_restored, report.files_missing) == (0, 1)
    u1 = (await services.conversation.active_branch(report.imported[0].id))[0]
    assert u1.text.startswith("[Image not imported: file-service://file-X")


def drawing(pointer: str, prompt: str) -> dict[str, object]:
    """A generated picture's part as ChatGPT exports it (no size given)."""
    return {
        "content_type": "image_asset_pointer",
        "asset_pointer": pointer,
        "metadata": {"dalle": {"gen_id": "g1", "prompt": f"  {prompt}\n", "seed": 7}},
    }


async def imported_drawing(
    services: Services, tmp_path: Path, name: str, picture: bytes | None
) -> Message:
    """A ChatGPT export ZIP of one question and its generated picture
    ``sediment://file_{name}`` (held in the ZIP when ``picture``), imported;
    the picture's tool message as it came in."""
    c = Conversation(f"conv-{name}", name)
    c.say("u1", "root", "user", "Draw", at=1)
    c.say(
        "t1", "u1", "tool", drawing(f"sediment://file_{name}", name), at=2,
        content_type="multimodal_text",
    )  # fmt: skip
    c.current("t1")
    target = tmp_path / f"export-{name}.zip"
    with zipfile.ZipFile(target, "w") as archive:
        archive.writestr("conversations.json", json.dumps([c.data]))
        if picture is not None:
            archive.writestr(f"file_{name}-x.png", picture)
    report = await services.imports.import_file(target)
    _, t1 = await services.conversation.active_branch(report.imported[0].id)
    return t1


async def test_generated_pictures_show_one_by_one_with_their_prompt(
    services: Services, tmp_path: Path
) -> None:
    """DALL·E's tool message with two pictures: each shown as an answer's
    picture (one per message, the second right below the first, the answer
    after them), with its prompt, its size read from its bytes, its model."""
    c = Conversation("conv-dalle", "Lighthouses")
    c.say("u1", "root", "user", "Draw two lighthouses", at=1)
    c.say(
        "t1", "u1", "tool",
        drawing("sediment://file_light1", "A lighthouse at dawn"),
        drawing("sediment://file_light2", "A lighthouse at night"),
        at=2, content_type="multimodal_text", model="gpt-4o",
    )  # fmt: skip
    c.say("a1", "t1", "assistant", "Here are two lighthouses.", at=3)
    c.current("a1")
    dawn = make_image(tmp_path / "dawn.png", "PNG", size=(96, 64)).read_bytes()
    night = make_image(tmp_path / "night.jpg", "JPEG", size=(80, 80)).read_bytes()
    target = tmp_path / "export.zip"
    with zipfile.ZipFile(target, "w") as archive:
        archive.writestr("conversations.json", json.dumps([c.data]))
        archive.writestr("file_light1-aaaa.png", dawn)
        archive.writestr("file_light2-bbbb.dat", night)
    report = await services.imports.import_file(target)
    assert (report.files_restored, report.files_missing) == (2, 0)
    u1, first, second, a1 = await services.conversation.active_branch(report.imported[0].id)
    assert (first.parent_id, second.parent_id, a1.parent_id) == (u1.id, first.id, second.id)
    assert first.text == second.text == ""
    one, two = (first.data or {})["image"], (second.data or {})["image"]
    assert (one["width"], one["height"], one["prompt"]) == (96, 64, "A lighthouse at dawn")
    assert (two["width"], two["height"], two["prompt"]) == (80, 80, "A lighthouse at night")
    assert one["model"] == two["model"] == "gpt-4o" and two["name"] == "bbbb.jpg"
    assert services.media.path(two["sha256"]).read_bytes() == night
    assert a1.text == "Here are two lighthouses."


async def test_a_generated_picture_not_in_the_export_keeps_its_note(
    services: Services, tmp_path: Path
) -> None:
    c = Conversation("conv-gone", "Gone")
    c.say("u1", "root", "user", "Draw", at=1)
    c.say(
        "t1", "u1", "tool", drawing("sediment://file_gone", "gone"), at=2,
        content_type="multimodal_text",
    )  # fmt: skip
    c.current("t1")
    target = tmp_path / "export.zip"
    with zipfile.ZipFile(target, "w") as archive:
        archive.writestr("conversations.json", json.dumps([c.data]))
    report = await services.imports.import_file(target)
    assert (report.files_restored, report.files_missing) == (0, 1)
    _, t1 = await services.conversation.active_branch(report.imported[0].id)
    assert t1.text == "[Image not imported: sediment://file_gone]" and "image" not in (
        t1.data or {}
    )


async def test_an_imported_pictures_part_is_replaced_when_the_answer_is_drawn_again(
    services: Services, tmp_path: Path
) -> None:
    """The imported picture is a plain part (no maker's mark): drawing the
    answer again replaces it like one Mira made, its reference released."""
    old = make_image(tmp_path / "old.png", "PNG", size=(32, 32)).read_bytes()
    t1 = await imported_drawing(services, tmp_path, "one", old)
    old_sha = (t1.data or {})["image"]["sha256"]
    new = make_image(tmp_path / "new.png", "PNG", size=(48, 48)).read_bytes()
    new_sha = await services.media.put(new, "image/png")
    part = MadePart("image", new_sha, "new.png", "image/png", len(new))
    await services.store.save_answer_media(
        t1.id, "image", {"status": "ready", "sha256": new_sha}, part
    )
    [only] = (await services.media.attachments([t1.id]))[t1.id]
    assert only.sha256 == new_sha
    assert await services.media.ref_count(old_sha) == 0
    report = await services.doctor.check()
    assert report.healthy, report


async def test_a_failed_redraw_keeps_the_imported_picture(
    services: Services, tmp_path: Path
) -> None:
    """Drawing again failed: the summary says so, and the imported picture
    (which cannot be made again) stays, with its reference."""
    kept = make_image(tmp_path / "kept.png", "PNG", size=(32, 32)).read_bytes()
    t1 = await imported_drawing(services, tmp_path, "keep", kept)
    sha = (t1.data or {})["image"]["sha256"]
    failed = {"status": "failed", "error": {"code": "server", "message": "boom"}}
    await services.store.save_answer_media(t1.id, "image", failed, None)
    [still] = (await services.media.attachments([t1.id]))[t1.id]
    assert still.sha256 == sha and await services.media.ref_count(sha) == 1

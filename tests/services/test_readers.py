"""Document readers on real files generated here (tests/support/documents.py):
each format with Chinese text, and the broken files people actually attach —
truncated, encrypted, empty, renamed binaries, oversized."""

from __future__ import annotations

import io
import random
import subprocess
import sys
from pathlib import Path

import pytest

from mira_desktop.core.errors import ReaderError
from mira_desktop.services.readers import (
    DEFAULT_MAX_BYTES,
    DocumentRefusedError,
    decode_text,
    read_document,
    read_document_async,
    read_document_bytes,
)
from mira_desktop.services.readers.xlsx_reader import MAX_ROWS_PER_SHEET
from tests.support.documents import (
    encrypt_pdf,
    make_docx,
    make_image,
    make_pdf,
    make_pptx,
    make_xlsx,
)

REPO = Path(__file__).resolve().parents[2]


def refused(path: Path, **kwargs: int) -> DocumentRefusedError:
    with pytest.raises(DocumentRefusedError) as info:
        read_document(path, **kwargs)
    assert isinstance(info.value, ReaderError)
    assert info.value.hint  # always says what to do
    return info.value


# text ----------------------------------------------------------------------


def test_markdown_in_utf8_is_split_at_headings(tmp_path: Path) -> None:
    path = tmp_path / "笔记.md"
    path.write_text("# 总览\n介绍文字\n\n## Details\nline a\nline b\n", encoding="utf-8")
    doc = read_document(path)
    assert (doc.kind, doc.mime, doc.name) == ("text", "text/markdown", "笔记.md")
    assert doc.text.startswith("# 总览")
    assert [s.location for s in doc.sections] == [
        {"line": 1, "heading": "总览"},
        {"line": 4, "heading": "Details"},
    ]
    assert doc.sections[1].text == "## Details\nline a\nline b"
    assert doc.summary()["lines"] == 7


def test_chinese_gbk_file_decodes(tmp_path: Path) -> None:
    text = "会议纪要：我们讨论了人工智能和机器学习的最新进展。\n下一步：整理数据。\n"
    path = tmp_path / "纪要.txt"
    path.write_bytes(text.encode("gbk"))
    assert read_document(path).text == text


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-8-sig", "utf-32"])
def test_unicode_encodings_with_and_without_bom(tmp_path: Path, encoding: str) -> None:
    text = "log line 1: 启动成功\nlog line 2: ok\n"
    path = tmp_path / "app.log"
    path.write_bytes(text.encode(encoding))
    assert read_document(path).text == text


def test_western_legacy_text_falls_back_to_cp1252(tmp_path: Path) -> None:
    text = "Café naïve résumé — “quoted”\n"
    path = tmp_path / "notes.txt"
    path.write_bytes(text.encode("cp1252"))
    assert read_document(path).text == text


def test_json_yaml_csv_and_code_are_text(tmp_path: Path) -> None:
    files = {
        "data.json": ('{"名字": "米拉"}', "application/json"),
        "conf.yaml": ("key: 值\n", "application/yaml"),
        "table.csv": ("城市,金额\n北京,1200\n", "text/csv"),
        "main.py": ("print('你好')\n", "text/plain"),
        "Makefile": ("all:\n\techo hi\n", "text/plain"),
    }
    for name, (content, mime) in files.items():
        (tmp_path / name).write_text(content, encoding="utf-8")
        doc = read_document(tmp_path / name)
        assert (doc.kind, doc.mime, doc.text) == ("text", mime, content), name


def test_long_text_gets_several_line_located_sections(tmp_path: Path) -> None:
    paragraphs = [f"第{n}段。" + "内容" * 600 for n in range(6)]
    path = tmp_path / "long.txt"
    path.write_text("\n\n".join(paragraphs), encoding="utf-8")
    doc = read_document(path)
    assert len(doc.sections) >= 3
    lines = [s.location["line"] for s in doc.sections]
    assert lines[0] == 1 and lines == sorted(lines)
    assert "".join(s.text for s in doc.sections).replace("\n", "") == "".join(paragraphs)


def test_renamed_binary_is_refused_as_binary(tmp_path: Path) -> None:
    path = tmp_path / "setup.txt"
    path.write_bytes(b"MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff\x00\x00" * 64)
    error = refused(path)
    assert error.reason == "binary"
    assert "binary" in str(error) and "setup.txt" in str(error)


def test_zero_byte_and_blank_files_are_refused_as_empty(tmp_path: Path) -> None:
    (tmp_path / "zero.txt").write_bytes(b"")
    (tmp_path / "blank.md").write_text(" \n\n\t\n")
    assert refused(tmp_path / "zero.txt").reason == "empty"
    assert "0 bytes" in str(refused(tmp_path / "zero.txt"))
    assert refused(tmp_path / "blank.md").reason == "empty"


def test_oversized_file_is_refused_before_reading_with_size_and_limit(tmp_path: Path) -> None:
    path = tmp_path / "big.log"
    path.write_bytes(b"x" * (DEFAULT_MAX_BYTES + 1024 * 1024))
    error = refused(path)
    assert error.reason == "oversized"
    assert str(error) == '"big.log" is 9 MB; the limit is 8 MB.'
    assert "Settings" in error.hint
    small = refused(tmp_path / "big.log", max_bytes=2 * 1024 * 1024)
    assert "the limit is 2 MB" in str(small)


def test_unsupported_and_old_formats_are_refused(tmp_path: Path) -> None:
    (tmp_path / "archive.bin").write_bytes(bytes(range(256)) * 4)
    (tmp_path / "report.doc").write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 512)
    error = refused(tmp_path / "archive.bin")
    assert error.reason == "unsupported" and ".bin" in str(error) and "PDF" in error.hint
    old = refused(tmp_path / "report.doc")
    assert old.reason == "unsupported" and ".docx" in old.hint


def test_missing_file_and_folder_are_refused(tmp_path: Path) -> None:
    assert refused(tmp_path / "gone.txt").reason == "unreadable"
    (tmp_path / "folder.txt").mkdir()
    assert refused(tmp_path / "folder.txt").reason == "unsupported"


def test_text_decoding_never_crashes_on_random_bytes() -> None:
    rng = random.Random(7)
    samples = [rng.randbytes(rng.randrange(0, 600)) for _ in range(300)]
    samples += [b"\xff\xfe" + rng.randbytes(9), b"\xef\xbb\xbf\xff", b"\x00a" * 50, b"\xa3"]
    for data in samples:
        try:
            text, _, _ = decode_text(data, "x.txt")
        except DocumentRefusedError as exc:
            assert exc.reason == "binary"
        else:
            assert isinstance(text, str)


# PDF -----------------------------------------------------------------------


def test_pdf_pages_are_located_and_scanned_pages_warned(tmp_path: Path) -> None:
    path = tmp_path / "论文.pdf"
    path.write_bytes(make_pdf([["Abstract", "机器学习的最新进展"], [], ["Results 第三页"]]))
    doc = read_document(path)
    assert (doc.kind, doc.mime) == ("pdf", "application/pdf")
    assert [s.location for s in doc.sections] == [{"page": 1}, {"page": 3}]
    assert doc.sections[0].text == "Abstract\n机器学习的最新进展"
    assert "[Page 3]\nResults 第三页" in doc.text
    assert doc.warnings == ("Page 2: no text, looks scanned (text in images is not read).",)
    assert doc.summary()["pages"] == [1, 3]


def test_pdf_without_any_text_is_refused_as_scanned(tmp_path: Path) -> None:
    path = tmp_path / "scan.pdf"
    path.write_bytes(make_pdf([[], []]))
    error = refused(path)
    assert error.reason == "empty" and "looks scanned" in str(error)


def test_password_protected_pdf_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "secret.pdf"
    path.write_bytes(encrypt_pdf(make_pdf([["classified 机密"]]), "hunter2"))
    error = refused(path)
    assert error.reason == "encrypted"
    assert str(error).startswith("This PDF is password-protected")
    assert "password" in error.hint


def test_pdf_with_only_an_owner_password_opens(tmp_path: Path) -> None:
    path = tmp_path / "locked-for-editing.pdf"
    path.write_bytes(encrypt_pdf(make_pdf([["可以阅读"]]), "", "owner-secret"))
    assert read_document(path).text == "[Page 1]\n可以阅读"


@pytest.mark.parametrize("cut", [0.5, 0.9])
def test_truncated_pdf_is_refused(tmp_path: Path, cut: float) -> None:
    data = make_pdf([["Hello 你好"]])
    path = tmp_path / "cut.pdf"
    path.write_bytes(data[: int(len(data) * cut)])
    assert refused(path).reason in ("unreadable", "empty")


def test_file_named_pdf_without_pdf_content_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "fake.pdf"
    path.write_text("just words", encoding="utf-8")
    error = refused(path)
    assert error.reason == "unreadable" and "not really a PDF" in str(error)


# Office --------------------------------------------------------------------


def test_docx_headings_become_sections_and_tables_rows(tmp_path: Path) -> None:
    doc = read_document(make_docx(tmp_path / "方案.docx"))
    assert doc.kind == "docx"
    assert [s.location for s in doc.sections] == [
        {"heading": "", "paragraph": 1},
        {"heading": "项目概述", "paragraph": 2},
        {"heading": "Budget", "paragraph": 4},
    ]
    assert doc.sections[1].text == "项目概述\n本项目研究人工智能在桌面应用中的使用。"
    assert "Item | 数量 | Price\nGPU | 2 | 3000" in doc.sections[2].text
    assert "# 项目概述" in doc.text and "## Budget" in doc.text
    assert doc.summary()["headings"] == ["项目概述", "Budget"]


def test_docx_that_is_not_a_zip_is_refused(tmp_path: Path) -> None:
    (tmp_path / "report.docx").write_text("I was renamed", encoding="utf-8")
    (tmp_path / "broken.docx").write_bytes(b"PK\x03\x04" + b"garbage" * 40)
    for name in ("report.docx", "broken.docx"):
        error = refused(tmp_path / name)
        assert error.reason == "unreadable" and "Word document" in str(error)


def test_encrypted_office_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "salaries.xlsx"
    path.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 2048)
    error = refused(path)
    assert error.reason == "encrypted" and "password-protected" in str(error)


def test_pptx_slides_then_notes(tmp_path: Path) -> None:
    doc = read_document(make_pptx(tmp_path / "deck.pptx"))
    assert [s.location for s in doc.sections] == [
        {"slide": 1, "notes": False},
        {"slide": 1, "notes": True},
        {"slide": 2, "notes": False},
    ]
    assert doc.sections[0].text == "季度报告\nRevenue grew 12%"
    assert doc.sections[1].text == "记得提到新客户"
    assert doc.text.index("[Slide 1 notes]") < doc.text.index("[Slide 2]")


def test_xlsx_sheets_rows_and_row_cap(tmp_path: Path) -> None:
    doc = read_document(make_xlsx(tmp_path / "sales.xlsx"))
    assert [s.location for s in doc.sections] == [{"sheet": "销售"}, {"sheet": "Notes"}]
    assert doc.sections[0].text == "城市 | 金额 | Ratio\n北京 | 1200 | 0.5\nShanghai | 800"
    assert doc.sections[1].text == "Checked by | Li Wei"
    assert doc.warnings == ()
    big = read_document(make_xlsx(tmp_path / "big.xlsx", extra_rows=MAX_ROWS_PER_SHEET + 7))
    rows = big.sections[0].text.splitlines()
    assert len(rows) == MAX_ROWS_PER_SHEET + 1  # the rows kept, then the note
    assert rows[-1] == "(… about 10 more rows not included)"
    assert big.warnings and "first 1000 rows" in big.warnings[0]


def test_workbook_with_only_empty_sheets_is_refused(tmp_path: Path) -> None:
    from openpyxl import Workbook

    Workbook().save(str(tmp_path / "empty.xlsx"))
    assert refused(tmp_path / "empty.xlsx").reason == "empty"


# images --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fmt", "suffix", "mime"),
    [
        ("PNG", "png", "image/png"),
        ("JPEG", "jpg", "image/jpeg"),
        ("WEBP", "webp", "image/webp"),
        ("GIF", "gif", "image/gif"),
    ],
)
def test_images_give_dimensions_and_a_small_png_thumbnail(
    tmp_path: Path, fmt: str, suffix: str, mime: str
) -> None:
    from PIL import Image

    doc = read_document(make_image(tmp_path / f"照片.{suffix}", fmt, (640, 480)))
    assert (doc.kind, doc.mime, doc.text, doc.sections) == ("image", mime, "", ())
    assert doc.image is not None
    assert (doc.image.width, doc.image.height, doc.image.format) == (640, 480, fmt)
    thumb = Image.open(io.BytesIO(doc.image.thumbnail_png))
    assert thumb.format == "PNG" and max(thumb.size) == 256 and thumb.size == (256, 192)
    assert doc.summary()["image"] == {"width": 640, "height": 480, "format": fmt}


def test_png_that_is_not_an_image_is_refused(tmp_path: Path) -> None:
    (tmp_path / "pic.png").write_text("not an image at all", encoding="utf-8")
    error = refused(tmp_path / "pic.png")
    assert error.reason == "unreadable" and "image" in str(error)


def test_truncated_image_is_refused(tmp_path: Path) -> None:
    data = make_image(tmp_path / "full.png", "PNG").read_bytes()
    (tmp_path / "half.png").write_bytes(data[: len(data) // 2])
    assert refused(tmp_path / "half.png").reason == "unreadable"


def test_image_in_another_format_than_its_name_uses_the_real_format(tmp_path: Path) -> None:
    jpeg = make_image(tmp_path / "a.jpg", "JPEG").read_bytes()
    (tmp_path / "really-a-jpeg.png").write_bytes(jpeg)
    doc = read_document(tmp_path / "really-a-jpeg.png")
    assert doc.mime == "image/jpeg" and doc.warnings
    bmp = tmp_path / "bitmap.png"
    from PIL import Image

    Image.new("RGB", (4, 4)).save(str(bmp), format="BMP")
    assert refused(bmp).reason == "unsupported"


# the registry ----------------------------------------------------------------


def test_bytes_without_a_telling_name_are_sniffed(tmp_path: Path) -> None:
    png = make_image(tmp_path / "x.png", "PNG").read_bytes()
    assert read_document_bytes(png, "clipboard").kind == "image"
    assert read_document_bytes(make_pdf([["hi"]]), "download").kind == "pdf"
    assert read_document_bytes("纯文本".encode(), "notes.weird").text == "纯文本"


def test_hash_and_size_describe_the_bytes(tmp_path: Path) -> None:
    import hashlib

    path = tmp_path / "a.txt"
    path.write_bytes(b"hello")
    doc = read_document(path)
    assert (doc.size, doc.sha256) == (5, hashlib.sha256(b"hello").hexdigest())


async def test_async_wrapper_reads_in_a_thread(tmp_path: Path) -> None:
    path = make_docx(tmp_path / "a.docx")
    doc = await read_document_async(path)
    assert doc.kind == "docx"
    with pytest.raises(DocumentRefusedError):
        await read_document_async(tmp_path / "missing.pdf")


def test_document_libraries_are_imported_lazily() -> None:
    code = (
        "import sys, mira_desktop.services.readers, mira_desktop.services.attachments\n"
        "heavy = {'pypdf', 'docx', 'pptx', 'openpyxl', 'PIL'}\n"
        "print(sorted(heavy & {m.split('.')[0] for m in sys.modules}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True
    )
    assert out.stdout.strip() == "[]"

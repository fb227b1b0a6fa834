"""Chinese text files in either script's legacy encoding: Traditional Chinese
saved as Big5 (Windows' cp950) is read as what it says, not misread as
GB18030, and the encodings that already worked still do."""

from __future__ import annotations

from pathlib import Path

import pytest

from mira_desktop.services.readers import decode_text, read_document

TRADITIONAL = [
    "繁體中文測試",
    "你好",
    "臺灣的「資訊」產業——刪節號……",
    "會議紀錄：我們討論了人工智慧與機器學習的最新進展。\n下一步：整理資料。\n",
    "Release notes 2.1\n修正：匯出 PDF 時標題遺失的問題。\n",
]


@pytest.mark.parametrize("text", TRADITIONAL)
def test_big5_traditional_chinese_is_read_as_written(tmp_path: Path, text: str) -> None:
    path = tmp_path / "說明.txt"
    path.write_bytes(text.encode("big5"))
    doc = read_document(path)
    assert doc.text == text and doc.warnings == ()
    assert decode_text(text.encode("big5"), "x.txt")[1] == "cp950"


def test_big5_from_windows_with_its_extensions_is_read(tmp_path: Path) -> None:
    text = "價格：€120（含稅）\n"  # the euro sign exists in cp950, not in plain Big5
    path = tmp_path / "price.txt"
    path.write_bytes(text.encode("cp950"))
    assert read_document(path).text == text


def test_hong_kong_big5_with_cantonese_characters_is_read() -> None:
    text = "香港的粵語字：冇、嘅、咗。\n"  # in HKSCS only
    assert decode_text(text.encode("big5hkscs"), "x.txt")[:2] == (text, "big5hkscs")


def test_traditional_characters_saved_as_gb18030_are_read(tmp_path: Path) -> None:
    text = "繁體中文的文件也可以存成 GB18030。\n"
    path = tmp_path / "mixed.txt"
    path.write_bytes(text.encode("gb18030"))
    assert read_document(path).text == text


@pytest.mark.parametrize(
    ("text", "encoding", "detected"),
    [
        ("会议纪要：我们讨论了人工智能。\n下一步：整理数据。\n", "gbk", "gb18030"),
        ("你好", "gbk", "gb18030"),
        ("“引号”——省略号……", "gbk", "gb18030"),
        ("镕𠀾 — 罕见字也能读。", "gb18030", "gb18030"),
        ("会议纪要 繁體", "utf-8", "utf-8"),
        ("会议纪要 繁體", "utf-8-sig", "utf-8-sig"),
        ("会议纪要 繁體", "utf-16", "utf-16"),
        ("Café naïve résumé — “quoted”\n", "cp1252", "cp1252"),
    ],
)
def test_simplified_chinese_and_the_other_encodings_read_as_written(
    text: str, encoding: str, detected: str
) -> None:
    """What worked still does; GB18030 with two characters outside GB2312
    and an em dash used to fall to cp1252 (an em dash is Chinese punctuation)."""
    got, used, warnings = decode_text(text.encode(encoding), "x.txt")
    assert (got, used, warnings) == (text, detected, [])

"""Real documents generated for tests: PDFs written by hand (text layer, CJK
via a Type0 font with a ToUnicode map, blank "scanned" pages), DOCX, PPTX and
XLSX through their libraries, images through Pillow, and text in various
encodings. Everything is built from scratch in ``tmp_path``; nothing is checked in.
"""

from __future__ import annotations

import io
from pathlib import Path

# A page is a list of lines; a line is drawn with Helvetica when it is ASCII,
# otherwise with the CJK font (each character one 2-byte code = its code point).
Page = list[str]


def _pdf_string(line: str) -> str:
    if line.isascii():
        escaped = line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        return f"/F1 12 Tf ({escaped}) Tj"
    codes = "".join(f"{ord(ch):04X}" for ch in line)
    return f"/F2 12 Tf <{codes}> Tj"


def _content_stream(lines: Page) -> bytes:
    ops = ["BT", "72 760 Td", "16 TL"]
    for line in lines:
        ops.append(_pdf_string(line))
        ops.append("T*")
    ops.append("ET")
    return "\n".join(ops).encode("latin-1")


_TO_UNICODE = """/CIDInit /ProcSet findresource begin
12 dict begin
begincmap
/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def
/CMapName /Adobe-Identity-UCS def
/CMapType 2 def
1 begincodespacerange
<0000> <FFFF>
endcodespacerange
{count} beginbfchar
{pairs}
endbfchar
endcmap
CMapName currentdict /CMap defineresource pop
end
end"""


def make_pdf(pages: list[Page]) -> bytes:
    """A valid PDF whose pages carry the given lines as real text (an empty
    page list entry gives a page with no text, like a scan)."""
    objects: list[bytes] = []

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)

    def stream(data: bytes, extra: str = "") -> bytes:
        return f"<< /Length {len(data)}{extra} >>\nstream\n".encode() + data + b"\nendstream"

    catalog = add(b"")  # filled in below
    pages_obj = add(b"")
    helv = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    used = sorted({ch for lines in pages for line in lines if not line.isascii() for ch in line})
    pairs = "\n".join(f"<{ord(ch):04X}> <{ord(ch):04X}>" for ch in used) or "<0020> <0020>"
    cmap = _TO_UNICODE.replace("{count}", str(max(len(used), 1))).replace("{pairs}", pairs)
    to_unicode = add(stream(cmap.encode("latin-1")))
    descendant = add(
        b"<< /Type /Font /Subtype /CIDFontType2 /BaseFont /MiraCJK"
        b" /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >>"
        b" /FontDescriptor << /Type /FontDescriptor /FontName /MiraCJK /Flags 4"
        b" /FontBBox [0 0 1000 1000] /ItalicAngle 0 /Ascent 880 /Descent -120"
        b" /CapHeight 700 /StemV 80 >> /DW 1000 >>"
    )
    cjk = add(
        f"<< /Type /Font /Subtype /Type0 /BaseFont /MiraCJK /Encoding /Identity-H"
        f" /DescendantFonts [{descendant} 0 R] /ToUnicode {to_unicode} 0 R >>".encode()
    )
    kids = []
    for lines in pages:
        content = add(stream(_content_stream(lines)))
        kids.append(
            add(
                f"<< /Type /Page /Parent {pages_obj} 0 R /MediaBox [0 0 612 792]"
                f" /Resources << /Font << /F1 {helv} 0 R /F2 {cjk} 0 R >> >>"
                f" /Contents {content} 0 R >>".encode()
            )
        )
    objects[catalog - 1] = f"<< /Type /Catalog /Pages {pages_obj} 0 R >>".encode()
    kid_refs = " ".join(f"{k} 0 R" for k in kids)
    objects[pages_obj - 1] = f"<< /Type /Pages /Kids [{kid_refs}] /Count {len(kids)} >>".encode()
    return pdf_file(objects, catalog, header=b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")


def pdf_file(objects: list[bytes], catalog: int, *, header: bytes = b"%PDF-1.7\n") -> bytes:
    """A PDF file of numbered ``objects`` (1-based) with its cross-reference
    table and trailer, ``catalog`` the root object's number."""
    out = io.BytesIO()
    out.write(header)
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(out.tell())
        out.write(f"{number} 0 obj\n".encode() + body + b"\nendobj\n")
    xref = out.tell()
    out.write(f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode())
    for offset in offsets:
        out.write(f"{offset:010d} 00000 n \n".encode())
    out.write(
        f"trailer\n<< /Size {len(objects) + 1} /Root {catalog} 0 R >>\n"
        f"startxref\n{xref}\n%%EOF\n".encode()
    )
    return out.getvalue()


def encrypt_pdf(data: bytes, user_password: str, owner_password: str | None = None) -> bytes:
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(data)))
    writer.encrypt(user_password, owner_password, algorithm="RC4-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def make_docx(path: Path) -> Path:
    """A Word file: a paragraph before any heading, two headings (one Chinese),
    a table with a Chinese cell."""
    from docx import Document

    doc = Document()
    doc.add_paragraph("Opening remarks before any heading.")
    doc.add_heading("项目概述", level=1)
    doc.add_paragraph("本项目研究人工智能在桌面应用中的使用。")
    doc.add_heading("Budget", level=2)
    doc.add_paragraph("The budget is shown below.")
    table = doc.add_table(rows=2, cols=3)
    for cell, text in zip(table.rows[0].cells, ["Item", "数量", "Price"], strict=True):
        cell.text = text
    for cell, text in zip(table.rows[1].cells, ["GPU", "2", "3000"], strict=True):
        cell.text = text
    doc.save(str(path))
    return path


def make_docx_merged_from_the_top(path: Path) -> Path:
    """A Word file whose table's first row is marked as continuing a vertical
    merge from a row above it (``<w:vMerge/>``): python-docx cannot lay out
    that table (``ValueError: no tr above topmost tr``)."""
    from docx import Document
    from docx.oxml import OxmlElement

    doc = Document()
    doc.add_paragraph("A table follows.")
    table = doc.add_table(rows=2, cols=2)
    table.rows[0].cells[0].text = "top"
    table.rows[1].cells[0].text = "below"
    table.rows[0].cells[0]._tc.get_or_add_tcPr().append(OxmlElement("w:vMerge"))
    doc.save(str(path))
    return path


def make_pptx(path: Path) -> Path:
    """Two slides with titles and bodies; the first has speaker notes."""
    from pptx import Presentation

    prs = Presentation()
    layout = prs.slide_layouts[1]  # title and content
    first = prs.slides.add_slide(layout)
    first.shapes.title.text = "季度报告"
    first.placeholders[1].text = "Revenue grew 12%"
    first.notes_slide.notes_text_frame.text = "记得提到新客户"
    second = prs.slides.add_slide(layout)
    second.shapes.title.text = "Next steps"
    second.placeholders[1].text = "Hire two engineers"
    prs.save(str(path))
    return path


def make_xlsx(path: Path, *, extra_rows: int = 0) -> Path:
    """Two sheets; the first with a header, a Chinese row and ``extra_rows`` more."""
    from openpyxl import Workbook

    wb = Workbook()
    sales = wb.active
    assert sales is not None
    sales.title = "销售"
    sales.append(["城市", "金额", "Ratio"])
    sales.append(["北京", 1200, 0.5])
    sales.append(["Shanghai", 800.0, None])
    for n in range(extra_rows):
        sales.append([f"row{n}", n, None])
    notes = wb.create_sheet("Notes")
    notes.append(["Checked by", "Li Wei"])
    wb.save(str(path))
    return path


def make_image(path: Path, fmt: str, size: tuple[int, int] = (640, 480)) -> Path:
    from PIL import Image

    mode = "RGBA" if fmt in ("PNG", "WEBP") else "RGB"
    image = Image.new(mode, size, (200, 30, 30) + ((255,) if mode == "RGBA" else ()))
    for x in range(0, size[0], 7):
        image.putpixel((x, x % size[1]), (0, 0, 255) + ((255,) if mode == "RGBA" else ()))
    if fmt == "GIF":
        image = image.convert("P")
    image.save(str(path), format=fmt)
    return path

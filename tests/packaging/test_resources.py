"""What the packages ship: the desktop entry and AppStream metainfo are well formed and
agree with each other and the code, the icon set matches its SVG, the PyInstaller spec
and the installer recipes are there. (Building the bundle itself is too slow for every
CI run: packaging/smoke_bundle.sh does it.)"""

from __future__ import annotations

import ast
import configparser
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from mira_desktop import __version__
from mira_desktop.desktop_entry import APP_ID, ICON_SIZES
from mira_desktop.paths import resource_path

ROOT = Path(__file__).resolve().parents[2]
DESKTOP = resource_path("desktop", f"{APP_ID}.desktop")
METAINFO = resource_path("desktop", f"{APP_ID}.metainfo.xml")


def test_desktop_entry_keys() -> None:
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read(DESKTOP, encoding="utf-8")
    entry = parser["Desktop Entry"]
    assert entry["Type"] == "Application"
    assert entry["Exec"] == "mira-desktop %F"  # files dropped on the icon reach the window
    assert entry["Icon"] == APP_ID
    assert entry["Terminal"] == "false"
    assert "Chat" in entry["Categories"].split(";")


def test_metainfo_describes_the_app() -> None:
    root = ET.parse(METAINFO).getroot()
    assert root.tag == "component" and root.get("type") == "desktop-application"
    assert root.findtext("id") == APP_ID
    assert root.findtext("name") == "Mira Desktop"
    assert root.findtext("summary")
    assert root.findtext("project_license") == "MIT"
    assert root.find("description/p") is not None
    launchable = root.find("launchable")
    assert launchable is not None and launchable.text == DESKTOP.name
    assert root.findtext("provides/binary") == "mira-desktop"
    assert root.find("content_rating") is not None
    releases = root.findall("releases/release")
    assert releases and releases[0].get("version") == __version__  # newest first


@pytest.mark.parametrize(
    ("tool", "args", "path"),
    [
        ("desktop-file-validate", [], DESKTOP),
        ("appstreamcli", ["validate", "--no-net"], METAINFO),
    ],
)
def test_linux_validators_accept_the_files(tool: str, args: list[str], path: Path) -> None:
    if not shutil.which(tool):
        pytest.skip(f"{tool} is not installed")
    result = subprocess.run([tool, *args, str(path)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_icon_set_matches_the_svg(qapp: object) -> None:
    from PySide6.QtSvg import QSvgRenderer

    assert QSvgRenderer(str(resource_path("icons", "mira.svg"))).isValid()
    for size in ICON_SIZES:
        image = QImage(str(resource_path("icons", f"mira-{size}.png")))
        assert (image.width(), image.height()) == (size, size), size
        assert image.hasAlphaChannel()
    # the committed PNGs were rendered from the current SVG (python packaging/build.py icons)
    icons = _load("icons")
    for size in (32, 256):
        fresh = QImage.fromData(icons.render_png(resource_path("icons", "mira.svg"), size))
        shipped = QImage(str(resource_path("icons", f"mira-{size}.png")))
        assert _mean_difference(fresh, shipped) < 2.0, f"mira-{size}.png is out of date"
    assert resource_path("icons", "mira.ico").read_bytes()[:4] == b"\0\0\1\0"


def test_packaging_recipes_are_present() -> None:
    spec = ROOT / "packaging" / "pyinstaller" / "mira.spec"
    tree = ast.parse(spec.read_text("utf-8"))  # a spec is Python
    assert "QtWebEngineCore" in spec.read_text("utf-8")
    assert any(
        isinstance(node, ast.Call) and getattr(node.func, "id", "") == "COLLECT"
        for node in ast.walk(tree)
    )
    for name in (
        "windows/mira.iss",
        "macos/Info.plist.in",
        "macos/build_dmg.sh",
        "smoke_bundle.sh",
    ):
        assert (ROOT / "packaging" / name).is_file(), name
    plist = (ROOT / "packaging" / "macos" / "Info.plist.in").read_text("utf-8")
    assert APP_ID in plist and "@VERSION@" in plist


def _mean_difference(a: QImage, b: QImage) -> float:
    total = 0
    for y in range(a.height()):
        for x in range(a.width()):
            pa, pb = a.pixelColor(x, y), b.pixelColor(x, y)
            total += sum(abs(u - v) for u, v in zip(pa.getRgb(), pb.getRgb(), strict=True))
    return total / (a.width() * a.height() * 4)


def _load(name: str):  # type: ignore[no-untyped-def]
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"mira_{name}", ROOT / "packaging" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

"""resource_path() finds resources in the three layouts Mira runs from: a source
checkout, an installed wheel (mira_desktop/_resources) and a PyInstaller bundle."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

import pytest

import mira_desktop.paths as paths

REPO = Path(__file__).resolve().parents[1]


def load_paths_module_from(package_dir: Path):
    """Import a copy of paths.py placed in ``package_dir`` (a fake install)."""
    package_dir.mkdir(parents=True, exist_ok=True)
    shutil.copy(paths.__file__, package_dir / "paths.py")
    spec = importlib.util.spec_from_file_location("fake_mira_paths", package_dir / "paths.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_checkout_layout_finds_repo_resources(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(sys, "_MEIPASS", raising=False)
    assert paths.resources_root() == REPO / "resources"
    assert paths.resource_path("qss", "light.qss").is_file()
    assert paths.resource_path("i18n", "mira_zh_CN.ts").is_file()


def test_wheel_layout_prefers_package_resources(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delattr(sys, "_MEIPASS", raising=False)
    site = tmp_path / "site-packages"
    (site / "mira_desktop" / "_resources" / "qss").mkdir(parents=True)
    (site / "mira_desktop" / "_resources" / "qss" / "dark.qss").write_text("/* wheel */")
    module = load_paths_module_from(site / "mira_desktop")
    assert module.resource_path("qss", "dark.qss").read_text() == "/* wheel */"


def test_checkout_layout_without_installed_resources(tmp_path: Path) -> None:
    module = load_paths_module_from(tmp_path / "repo" / "mira_desktop")
    assert module.resources_root() == tmp_path / "repo" / "resources"


def test_frozen_bundle_uses_meipass(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path), raising=False)
    assert paths.resource_path("i18n", "x.qm") == tmp_path / "resources" / "i18n" / "x.qm"

"""The wheel works once installed: built from a copy of the project, installed into a
fresh virtual environment, run from a folder outside the checkout, it finds all its
resources (window screenshot, icons for the desktop entry, shipped translations).

The fresh environment gets Mira from the wheel only (``pip install --no-deps
--no-index``); its dependencies (PySide6 alone is ~300 MB) are made visible through a
``.pth`` file naming this environment's site-packages, since CI has no business
downloading Qt again. A ``.pth`` *line* only adds a folder to ``sys.path`` — the
``.pth`` files inside that folder (such as this checkout's editable install) are not
processed — and the fresh site-packages comes first, so ``mira_desktop`` is the
wheel's. ``--system-site-packages`` would not do: this environment is not the system."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow
NO_DEPS = ("--no-deps", "--no-index")  # the dependencies come from this environment (.pth)
ZH = ("--lang", "zh_CN", "--screenshot")


def _load_build_script():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("mira_build", ROOT / "packaging" / "build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


build_script = _load_build_script()


def _copy_project(target: Path) -> Path:
    """The files a wheel is built from, without this checkout's build outputs."""
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, target / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.qm", "_resources")
    shutil.copytree(ROOT / "mira_desktop", target / "mira_desktop", ignore=ignore)
    shutil.copytree(ROOT / "resources", target / "resources", ignore=ignore)
    return target


def _fresh_venv(path: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True)
    python = path / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    ours = dict.fromkeys([sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]])
    Path(purelib, "_mira_test_dependencies.pth").write_text("\n".join(ours) + "\n")
    return python


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``bin/`` of a fresh environment with the wheel installed."""
    work = tmp_path_factory.mktemp("wheel")
    (work / "src").mkdir()
    source = _copy_project(work / "src")
    wheel = build_script.build_wheel(out_dir=work / "dist", source=source)
    python = _fresh_venv(work / "venv")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "-q",
            *NO_DEPS,
            str(wheel),
        ],
        check=True,
    )
    return python.parent


def _env(tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env.update(
        QT_QPA_PLATFORM="offscreen",
        PYTHON_KEYRING_BACKEND="keyring.backends.null.Keyring",
        HOME=str(tmp),
        XDG_DATA_HOME=str(tmp / "xdg"),
        XDG_CACHE_HOME=str(tmp / "cache"),
    )
    return env


def test_installed_package_uses_its_own_resources(installed: Path, tmp_path: Path) -> None:
    probe = "import mira_desktop.paths as p; print(p.resources_root()); print(p.__file__)"
    out = subprocess.run(
        [str(installed / "python"), "-c", probe],
        cwd=tmp_path,
        env=_env(tmp_path),
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    venv = installed.parent
    assert Path(out[0]).is_relative_to(venv) and out[0].endswith("_resources")
    assert Path(out[1]).is_relative_to(venv)
    for required in build_script.REQUIRED_RESOURCES:
        assert (Path(out[0]) / required).is_file(), required


def test_installed_app_takes_a_screenshot(installed: Path, tmp_path: Path) -> None:
    from PySide6.QtGui import QImage

    shot = tmp_path / "shot.png"
    result = subprocess.run(
        [str(installed / "mira-desktop"), "--data-dir", str(tmp_path / "data"), *ZH, str(shot)],
        cwd=tmp_path,  # outside the checkout: its resources/ cannot be found by accident
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    image = QImage(str(shot))
    assert (image.width(), image.height()) == (1280, 820)
    colours = {image.pixel(x, y) for x in range(0, 1280, 16) for y in range(0, 820, 16)}
    assert len(colours) > 8, "the screenshot is blank"


def test_installed_app_installs_its_desktop_entry(installed: Path, tmp_path: Path) -> None:
    result = subprocess.run(
        [str(installed / "mira-desktop"), "--install-desktop-entry"],
        cwd=tmp_path,
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    entry = (tmp_path / "xdg" / "applications" / "io.mira.Desktop.desktop").read_text()
    assert f"Exec={installed / 'mira-desktop'} %F" in entry.splitlines()
    icons = tmp_path / "xdg" / "icons" / "hicolor"
    assert (icons / "512x512" / "apps" / "io.mira.Desktop.png").is_file()
    assert (icons / "scalable" / "apps" / "io.mira.Desktop.svg").is_file()

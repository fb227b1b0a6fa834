"""One entry for every build of Mira Desktop (run from anywhere, with the project's Python):

    python packaging/build.py icons         # resources/icons/mira.svg -> mira-<N>.png, mira.ico
    python packaging/build.py translations  # resources/i18n/*.ts -> *.qm (git ignores them)
    python packaging/build.py wheel         # dist/mira_desktop-<version>-py3-none-any.whl
    python packaging/build.py pyinstaller   # dist/mira-desktop/ (one folder, windowed)
    python packaging/build.py tarball       # dist/mira-desktop-<version>-linux-<arch>.tar.gz
    python packaging/build.py all           # translations, wheel, pyinstaller, tarball

``wheel`` needs ``build`` (or falls back to ``pip wheel``); ``pyinstaller`` needs
PyInstaller: ``pip install -e ".[package]"``. See packaging/README.md.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import logging
import os
import platform
import re
import shutil
import subprocess
import sys
import tarfile
import time
import zipfile
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent

log = logging.getLogger("build")

DIST = ROOT / "dist"
WORK = ROOT / "build" / "pyinstaller"
SPEC = ROOT / "packaging" / "pyinstaller" / "mira.spec"
BUNDLE_NAME = "mira-desktop"
# Every wheel and bundle must carry these (relative to the resources folder).
REQUIRED_RESOURCES = (
    "icons/mira.svg",
    "icons/mira-256.png",
    "desktop/io.mira.Desktop.desktop",
    "desktop/io.mira.Desktop.metainfo.xml",
    "i18n/mira_zh_CN.qm",
    "qss/light.qss",
    "qss/dark.qss",
    "tiktoken_cache/9b5ad71b2ce5302211f9c61530b329a4922fc6a4",
    "tiktoken_cache/fb374d419588a4632f3f557e76b4b70aebbca790",
)


def version() -> str:
    text = (ROOT / "mira_desktop" / "__init__.py").read_text("utf-8")
    match = re.search(r'__version__ = "([^"]+)"', text)
    if not match:
        raise SystemExit("no __version__ in mira_desktop/__init__.py")
    return match.group(1)


def du(path: Path) -> int:
    """Bytes under ``path`` (symbolic links counted as links)."""
    if path.is_file():
        return path.stat().st_size
    return sum(p.lstat().st_size for p in path.rglob("*") if p.is_file() or p.is_symlink())


def mb(size: int) -> str:
    return f"{size / 1_000_000:.1f} MB"


def _sibling(name: str) -> ModuleType:
    """A script beside this one, imported by path (``packaging/`` is not a package, and
    putting it on ``sys.path`` would shadow PyPA's ``build``)."""
    path = ROOT / "packaging" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"_mira_packaging_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ---- steps -------------------------------------------------------------------------------
def build_icons() -> None:
    _sibling("icons").build_icons()


def build_translations(out_dir: Path | None = None, source: Path = ROOT) -> list[Path]:
    written = _sibling("build_translations").build(source / "resources" / "i18n", out_dir)
    if not written:
        raise SystemExit("no translations were built (resources/i18n/*.ts missing?)")
    return written


def build_wheel(out_dir: Path = DIST, source: Path = ROOT) -> Path:
    """The wheel of the project at ``source`` (this checkout, or a copy of it), with
    compiled translations; checks that it carries every resource and no tests."""
    build_translations(source=source)  # hatchling force-includes resources/ with the .qm
    out_dir.mkdir(parents=True, exist_ok=True)
    before = set(out_dir.glob("*.whl"))
    started = time.monotonic()
    try:
        importlib.metadata.distribution("build")  # PyPA's build (the "package" extra)
        command = [sys.executable, "-m", "build", "--wheel", "--outdir", str(out_dir)]
    except importlib.metadata.PackageNotFoundError:
        command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(out_dir)]
    command.append(str(source))
    log.info("+ %s", " ".join(command))
    subprocess.run(command, check=True, cwd=source)
    wheels = sorted(set(out_dir.glob("mira_desktop-*.whl")) - before) or sorted(
        out_dir.glob(f"mira_desktop-{version()}-*.whl")
    )
    if not wheels:
        raise SystemExit(f"no wheel appeared in {out_dir}")
    wheel = wheels[-1]
    check_wheel(wheel, source / "resources")
    log.info("wheel %s (%s, %.1f s)", wheel, mb(wheel.stat().st_size), time.monotonic() - started)
    return wheel


def shipped_resources(resources: Path) -> set[str]:
    """Every file of ``resources`` a package must carry (the export schema and whatever
    else is added later included), relative paths with ``/``."""
    found = {
        p.relative_to(resources).as_posix()
        for p in resources.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and not p.name.startswith(".")
    }
    return found | set(REQUIRED_RESOURCES)


def check_wheel(wheel: Path, resources: Path = ROOT / "resources") -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    expected = shipped_resources(resources)
    missing = sorted(r for r in expected if f"mira_desktop/_resources/{r}" not in names)
    stray = sorted(n for n in names if n.startswith("tests/") or "/tests/" in n)
    if missing or stray:
        raise SystemExit(f"bad wheel {wheel.name}: missing {missing}, unexpected {stray[:5]}")


def stage_resources(target: Path) -> Path:
    """A clean copy of resources/ for the bundle: compiled .qm files instead of the .ts
    sources (so the bundle never compiles at run time), no caches or dot files."""
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(
        ROOT / "resources",
        target,
        ignore=shutil.ignore_patterns("*.ts", "*.qm", "__pycache__", ".*"),
    )
    build_translations(target / "i18n")
    expected = {r for r in shipped_resources(ROOT / "resources") if not r.endswith(".ts")}
    missing = sorted(r for r in expected if not (target / r).is_file())
    if missing:
        raise SystemExit(f"resources missing for the bundle: {missing}")
    return target


def build_pyinstaller() -> Path:
    """``dist/mira-desktop/``: the one-folder bundle from packaging/pyinstaller/mira.spec."""
    try:
        import PyInstaller  # noqa: F401
    except ImportError:
        raise SystemExit('PyInstaller is not installed: pip install -e ".[package]"') from None
    resources = stage_resources(WORK / "resources")
    env = dict(os.environ, MIRA_BUNDLE_RESOURCES=str(resources))
    command = [
        sys.executable,
        "-m",
        "PyInstaller",
        "--noconfirm",
        "--clean",
        "--log-level",
        "WARN",
        "--distpath",
        str(DIST),
        "--workpath",
        str(WORK / "work"),
        str(SPEC),
    ]
    started = time.monotonic()
    log.info("+ %s", " ".join(command))
    subprocess.run(command, check=True, cwd=ROOT, env=env)
    bundle = DIST / BUNDLE_NAME
    log.info("bundle %s: %s in %.1f s", bundle, mb(du(bundle)), time.monotonic() - started)
    return bundle


def build_tarball(bundle: Path = DIST / BUNDLE_NAME) -> Path:
    """``dist/mira-desktop-<version>-linux-<arch>.tar.gz`` of the one-folder bundle.

    Unpack anywhere and run ``mira-desktop`` inside; ``mira-desktop --install-desktop-entry``
    adds it to the application menu."""
    if not (bundle / BUNDLE_NAME).is_file():
        raise SystemExit(f"no bundle at {bundle}: run 'python packaging/build.py pyinstaller'")
    top = f"{BUNDLE_NAME}-{version()}-{sys.platform.rstrip('0123456789')}-{platform.machine()}"
    tarball = DIST / f"{top}.tar.gz"
    started = time.monotonic()
    with tarfile.open(tarball, "w:gz", compresslevel=6) as archive:
        archive.add(bundle, arcname=top)
    log.info(
        "tarball %s: %s (bundle %s) in %.1f s",
        tarball,
        mb(tarball.stat().st_size),
        mb(du(bundle)),
        time.monotonic() - started,
    )
    return tarball


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Build Mira Desktop's packages.")
    parser.add_argument(
        "target", choices=["icons", "translations", "wheel", "pyinstaller", "tarball", "all"]
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    if args.target == "icons":
        build_icons()
    elif args.target == "translations":
        build_translations()
    elif args.target == "wheel":
        build_wheel()
    elif args.target == "pyinstaller":
        build_pyinstaller()
    elif args.target == "tarball":
        build_tarball()
    else:
        build_wheel()
        build_tarball(build_pyinstaller())
    return 0


if __name__ == "__main__":
    sys.exit(main())

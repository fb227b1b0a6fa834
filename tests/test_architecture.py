"""Layer rules (ARCHITECTURE.md): the Qt-free layers import no Qt, only
``providers`` speaks HTTP and only ``storage`` speaks SQL. Checked on the source
of every module, so a forbidden import anywhere in a file fails."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "mira_desktop"
QT = {"PySide6", "qasync", "shiboken6"}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text("utf-8"), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found


def _modules(*layers: str) -> list[Path]:
    return [p for layer in layers for p in sorted((PACKAGE / layer).rglob("*.py"))]


@pytest.mark.parametrize("path", _modules("core", "services", "storage", "providers"), ids=str)
def test_qt_free_layers_import_no_qt(path: Path) -> None:
    assert not (_imports(path) & QT), f"{path} imports Qt"


def test_only_providers_import_httpx() -> None:
    offenders = [
        p
        for p in PACKAGE.rglob("*.py")
        if "httpx" in _imports(p) and "providers" not in p.relative_to(PACKAGE).parts
    ]
    assert offenders == []


def test_only_storage_imports_sqlite() -> None:
    offenders = [
        p
        for p in PACKAGE.rglob("*.py")
        if _imports(p) & {"sqlite3", "sqlite_utils"}
        and p.relative_to(PACKAGE).parts[0] != "storage"
    ]
    assert offenders == []


def test_core_uses_the_standard_library_only() -> None:
    allowed_prefixes = {"__future__"}
    import sys

    for path in _modules("core"):
        for name in _imports(path):
            assert name in sys.stdlib_module_names or name in allowed_prefixes, f"{path}: {name}"


def test_the_rule_itself_can_fail(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("from PySide6.QtCore import QObject\nimport httpx\n")
    assert _imports(bad) == {"PySide6", "httpx"}

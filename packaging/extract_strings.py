"""Collect the translatable strings of the user interface into the ``.ts`` catalogues.

Scans ``mira_desktop/ui/**/*.py`` (and ``mira_desktop/app.py``) with :mod:`ast` for

* ``self.tr("…")`` — context: the name of the enclosing class;
* ``QCoreApplication.translate("Context", "…")`` or ``translate(NAME, "…")`` where
  ``NAME`` is a module-level string constant (the ``TR_CONTEXT = "…"`` convention of
  modules whose strings live outside a class); an optional third argument is the
  disambiguation comment;
* ``_tr("…")`` where ``_tr`` is a module-level one-parameter helper whose body is
  ``return QCoreApplication.translate("Context", text)``.

Only string literals are collected (implicit concatenation is fine; f-strings are not
translatable — use ``self.tr("… {name}").format(name=…)``). New strings are added as
unfinished; existing translations are kept untouched; strings no longer found are kept
too, or marked ``vanished`` with ``--prune``. Locations are not written, so the catalogue
only changes when the strings do. Standard library only::

    python packaging/extract_strings.py            # update resources/i18n/mira_zh_CN.ts
    python packaging/extract_strings.py --check    # exit 1 if strings are missing
"""

from __future__ import annotations

import argparse
import ast
import logging
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger("extract_strings")

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ("mira_desktop/ui", "mira_desktop/app.py")
CATALOGUES = ("resources/i18n/mira_zh_CN.ts",)


@dataclass(frozen=True, order=True, slots=True)
class Found:
    context: str
    source: str
    comment: str = ""


class _Collector(ast.NodeVisitor):
    def __init__(self, constants: dict[str, str], helpers: dict[str, str], path: Path) -> None:
        self.constants = constants
        self.helpers = helpers
        self.path = path
        self.classes: list[str] = []
        self.found: list[Found] = []

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.classes.append(node.name)
        self.generic_visit(node)
        self.classes.pop()

    def visit_Call(self, node: ast.Call) -> None:
        name = _callee_name(node.func)
        if name == "tr" and node.args:
            self._add_tr(node)
        elif name == "translate" and len(node.args) >= 2:
            self._add_translate(node)
        elif isinstance(node.func, ast.Name) and name in self.helpers and node.args:
            text = _literal(node.args[0], {})
            if text is not None:
                self.found.append(Found(self.helpers[name], text))
        self.generic_visit(node)

    def _add_tr(self, node: ast.Call) -> None:
        text = _literal(node.args[0], {})
        if text is None or not self.classes:
            log.warning("%s:%d: tr() without a literal or outside a class", self.path, node.lineno)
            return
        comment = _literal(node.args[1], {}) if len(node.args) > 1 else ""
        self.found.append(Found(self.classes[-1], text, comment or ""))

    def _add_translate(self, node: ast.Call) -> None:
        context = _literal(node.args[0], self.constants)
        text = _literal(node.args[1], {})
        if context is None or text is None:
            if not isinstance(node.args[1], ast.Name):  # a helper's own body is fine
                log.warning("%s:%d: translate() needs literal arguments", self.path, node.lineno)
            return
        comment = _literal(node.args[2], {}) if len(node.args) > 2 else ""
        self.found.append(Found(context, text, comment or ""))


def _callee_name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return None


def _literal(node: ast.expr, constants: dict[str, str]) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        return constants.get(node.id)
    return None


def _module_constants(tree: ast.Module) -> dict[str, str]:
    constants: dict[str, str] = {}
    for stmt in tree.body:
        if (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
            and isinstance(stmt.value, ast.Constant)
            and isinstance(stmt.value.value, str)
        ):
            constants[stmt.targets[0].id] = stmt.value.value
    return constants


def _translate_helpers(tree: ast.Module, constants: dict[str, str]) -> dict[str, str]:
    """Module-level ``def f(text): return ….translate(CONTEXT, text)`` → {f: CONTEXT}."""
    helpers: dict[str, str] = {}
    for stmt in tree.body:
        if not isinstance(stmt, ast.FunctionDef) or len(stmt.args.args) != 1:
            continue
        body = [b for b in stmt.body if not (isinstance(b, ast.Expr) and _literal(b.value, {}))]
        if len(body) != 1 or not isinstance(body[0], ast.Return):
            continue
        call = body[0].value
        param = stmt.args.args[0].arg
        if (
            isinstance(call, ast.Call)
            and _callee_name(call.func) == "translate"
            and len(call.args) == 2
            and isinstance(call.args[1], ast.Name)
            and call.args[1].id == param
        ):
            context = _literal(call.args[0], constants)
            if context is not None:
                helpers[stmt.name] = context
    return helpers


def scan_file(path: Path) -> list[Found]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    constants = _module_constants(tree)
    collector = _Collector(constants, _translate_helpers(tree, constants), path)
    collector.visit(tree)
    return collector.found


def scan(root: Path = ROOT, sources: tuple[str, ...] = SOURCES) -> list[Found]:
    """Every translatable string, in source order, without duplicates."""
    files: list[Path] = []
    for entry in sources:
        path = root / entry
        if path.is_dir():
            files.extend(sorted(path.rglob("*.py")))
        elif path.is_file():
            files.append(path)
    seen: dict[Found, None] = {}
    for file in files:
        try:
            strings = scan_file(file)
        except SyntaxError as exc:
            log.error("%s: cannot parse (%s); its strings are skipped", file, exc)
            continue
        for found in strings:
            seen.setdefault(found, None)
    return list(seen)


def update_catalogue(ts_path: Path, strings: list[Found], *, prune: bool = False) -> list[Found]:
    """Merge ``strings`` into ``ts_path``; return the ones that were added."""
    root = _load_or_create(ts_path)
    contexts = {c.findtext("name", ""): c for c in root.findall("context")}
    present: set[Found] = set()
    for name, context in contexts.items():
        for message in context.findall("message"):
            present.add(_found_of(name, message))
    added = [s for s in strings if s not in present]
    for found in added:
        context = contexts.get(found.context)
        if context is None:
            context = ET.SubElement(root, "context")
            ET.SubElement(context, "name").text = found.context
            contexts[found.context] = context
        _append_message(context, found)
    if prune:
        _mark_vanished(contexts, set(strings))
    _sort_contexts(root)
    _write(ts_path, root)
    return added


def _found_of(context: str, message: ET.Element) -> Found:
    return Found(context, message.findtext("source", ""), message.findtext("comment", ""))


def _append_message(context: ET.Element, found: Found) -> None:
    message = ET.SubElement(context, "message")
    ET.SubElement(message, "source").text = found.source
    if found.comment:
        ET.SubElement(message, "comment").text = found.comment
    ET.SubElement(message, "translation", type="unfinished")


def _mark_vanished(contexts: dict[str, ET.Element], wanted: set[Found]) -> None:
    for name, context in contexts.items():
        for message in context.findall("message"):
            translation = message.find("translation")
            if _found_of(name, message) not in wanted and translation is not None:
                translation.set("type", "vanished")


def _sort_contexts(root: ET.Element) -> None:
    contexts = sorted(root.findall("context"), key=lambda c: c.findtext("name", ""))
    for context in root.findall("context"):
        root.remove(context)
    root.extend(contexts)


def _load_or_create(ts_path: Path) -> ET.Element:
    if ts_path.is_file():
        return ET.parse(ts_path).getroot()
    language = ts_path.stem.split("_", 1)[1] if "_" in ts_path.stem else ""
    return ET.Element("TS", version="2.1", language=language, sourcelanguage="en")


def _write(ts_path: Path, root: ET.Element) -> None:
    ET.indent(root, space="    ")
    body = ET.tostring(root, encoding="unicode", short_empty_elements=False)
    text = '<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE TS>\n' + body + "\n"
    ts_path.parent.mkdir(parents=True, exist_ok=True)
    ts_path.write_text(text, encoding="utf-8")


def _messages(ts_path: Path) -> list[Found]:
    root = ET.parse(ts_path).getroot()
    return [
        _found_of(context.findtext("name", ""), message)
        for context in root.findall("context")
        for message in context.findall("message")
    ]


def untranslated(ts_path: Path) -> list[Found]:
    root = ET.parse(ts_path).getroot()
    missing = []
    for context in root.findall("context"):
        name = context.findtext("name", "")
        for message in context.findall("message"):
            translation = message.find("translation")
            if translation is None or translation.get("type") == "vanished":
                continue
            if translation.get("type") == "unfinished" or not (translation.text or "").strip():
                missing.append(_found_of(name, message))
    return missing


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="fail if strings are missing")
    parser.add_argument("--prune", action="store_true", help="mark strings no longer used")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    strings = scan()
    status = 0
    for catalogue in CATALOGUES:
        path = ROOT / catalogue
        if args.check:
            present = set(_messages(path))
            missing = [s for s in strings if s not in present]
        else:
            missing = update_catalogue(path, strings, prune=args.prune)
        todo = untranslated(path)
        log.info(
            "%s: %d strings, %d new, %d untranslated",
            catalogue,
            len(strings),
            len(missing),
            len(todo),
        )
        for found in missing:
            log.info("  new: [%s] %s", found.context, found.source)
        if args.check and (missing or todo):
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())

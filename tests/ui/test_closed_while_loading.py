"""Dialogs closed (and deleted: WA_DeleteOnClose) while their data is still
being read: what the read brings back has nowhere to go, and nothing else
happens — no error in the log, no "Internal C++ object already deleted" in the
window's notice bar, no crash (a widget touched after its deletion raises; a
signal blocker held on it across the await crashed a CI worker) — and a
change the user made still lands.

The real window, dialogs and services. The database thread is stopped before
the n-th statement of the dialog's work (``tests/support/held_database.py``),
the dialog closed there, the thread let go; n runs over every statement of
that work, so the dialog is closed at each of its awaits in turn."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
import shiboken6
from PySide6.QtWidgets import QWidget

from mira_desktop.bootstrap import Services
from mira_desktop.ui.dialogs.settings_dialog import SettingsDialog
from mira_desktop.ui.window.main_window import MainWindow
from tests.support.held_database import delete_now, other_tasks, settled, stopped_at
from tests.support.qt_async import until

EVERY = 10**6  # a stop never reached: the statements are only counted
DELETED = ("already deleted", "source has been deleted")  # shiboken's words


def errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    """Errors logged, and any record that met a deleted widget (a warning
    that says the load failed because of it, too)."""
    lines = [
        f"{r.name}: {r.getMessage()} {r.exc_info[1] if r.exc_info else ''}" for r in caplog.records
    ]
    return [
        line
        for line, r in zip(lines, caplog.records, strict=True)
        if r.levelno >= logging.ERROR or any(words in line for words in DELETED)
    ]


def close_and_delete(dialog: QWidget | None) -> None:
    assert dialog is not None
    dialog.close()
    delete_now()
    assert not shiboken6.isValid(dialog)


async def quiet(window: MainWindow) -> None:
    """The window's own reads after its start are over (the context meter's
    first measure comes from a timer): not counted among the dialog's."""
    await until(lambda: window.meter_actions.measured > 0)
    await settled(set())


async def close_at_each_statement(
    window: MainWindow,
    services: Services,
    caplog: pytest.LogCaptureFixture,
    act: Callable[[], object],
    dialog_of: Callable[[], QWidget | None],
    prepare: Callable[[], Awaitable[object]] | None = None,
) -> int:
    """``act()`` starts the dialog's work (``prepare()`` first, not counted);
    the dialog is closed before each statement of that work in turn. Returns
    how many statements the work runs."""
    caplog.set_level(logging.WARNING)
    await quiet(window)
    if prepare is not None:
        await prepare()
    before = other_tasks()
    async with stopped_at(services, EVERY) as counter:
        act()
        await settled(before)
    close_and_delete(dialog_of())
    total = len(counter.statements)
    assert total > 0, "the work read nothing: the test would prove nothing"
    for n in range(1, total + 1):
        if prepare is not None:
            await prepare()
        statement = await close_before_statement(services, n, act, dialog_of)
        where = f"closed before statement {n} of {total}: {statement}"
        assert errors(caplog) == [], where
        assert not any(words in window.notice_bar.text() for words in DELETED), where
    return total


async def close_before_statement(
    services: Services,
    n: int,
    act: Callable[[], object],
    dialog_of: Callable[[], QWidget | None],
) -> str:
    """``act()``, the dialog closed before the ``n``-th statement that
    follows, then everything it started run to its end; that statement."""
    before = other_tasks()
    async with stopped_at(services, n) as stop:
        act()
        statement = await stop.wait()
        close_and_delete(dialog_of())
        stop.release()
        await settled(before)
    return statement


def settings_dialog(window: MainWindow) -> SettingsDialog | None:
    return window.findChild(SettingsDialog)


async def open_settings(window: MainWindow) -> SettingsDialog:
    window.open_settings()
    dialog = settings_dialog(window)
    assert dialog is not None
    before = other_tasks()
    await settled(before)  # its first load
    await until(lambda: dialog.models_tab.model_list.count() > 0)
    return dialog


async def test_settings_closed_while_it_loads(
    window: MainWindow, services: Services, caplog: pytest.LogCaptureFixture
) -> None:
    await close_at_each_statement(
        window, services, caplog, window.open_settings, lambda: settings_dialog(window)
    )


async def test_settings_closed_while_it_reloads_after_a_provider_change(
    window: MainWindow, services: Services, caplog: pytest.LogCaptureFixture
) -> None:
    """The CI crash's path: the Models tab and the model rows of "Chat & data"
    read again after a change the Providers tab announced (a fetch that ended),
    and the dialog is closed during that read."""

    def announce() -> None:
        dialog = settings_dialog(window)
        assert dialog is not None
        dialog.providers_tab.providers_changed.emit()

    await close_at_each_statement(
        window,
        services,
        caplog,
        announce,
        lambda: settings_dialog(window),
        prepare=lambda: open_settings(window),
    )


async def test_settings_closed_while_a_provider_is_removed_still_removes_it(
    window: MainWindow, services: Services, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    await quiet(window)
    dialog = await open_settings(window)
    tab = dialog.providers_tab
    tab.provider_list.setCurrentRow(0)
    tab.remove_button.click()
    before = other_tasks()
    async with stopped_at(services, 1) as stop:
        tab.confirm_remove_button.click()
        await stop.wait()
        close_and_delete(dialog)
        stop.release()
        await settled(before)
    assert await services.providers.list_providers() == []
    assert errors(caplog) == []


async def test_knowledge_bases_closed_while_they_load(
    window: MainWindow, services: Services, caplog: pytest.LogCaptureFixture
) -> None:
    await services.knowledge.create("Farm")
    await close_at_each_statement(
        window,
        services,
        caplog,
        window.kb_actions.open_manager,
        lambda: window.kb_actions.dialog,
    )


async def test_roles_closed_while_they_load(
    window: MainWindow, services: Services, caplog: pytest.LogCaptureFixture
) -> None:
    await services.roles.create("Editor")
    await close_at_each_statement(
        window,
        services,
        caplog,
        window.context_actions.open_roles,
        lambda: window.context_actions.role_dialog,
    )


# ---- a change refused after its dialog was closed ----------------------------------
# The refusal (a MiraError from the service) has nowhere to be shown: it is
# logged, and the window shows no "Signal source has been deleted".


async def test_knowledge_bases_closed_while_a_name_taken_is_refused(
    window: MainWindow, services: Services, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    await services.knowledge.create("Farm")
    await quiet(window)
    window.kb_actions.open_manager()
    dialog = window.kb_actions.dialog
    assert dialog is not None
    await until(lambda: dialog.base_names() == ["Farm"])
    dialog.name_edit.setText("Farm")
    await close_before_statement(services, 1, dialog.create_button.click, lambda: dialog)
    assert errors(caplog) == []
    assert not any(words in window.notice_bar.text() for words in DELETED)
    assert any("already exists" in r.getMessage() for r in caplog.records)  # logged


async def test_knowledge_bases_closed_while_a_document_gone_is_refused(
    window: MainWindow, services: Services, caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    caplog.set_level(logging.WARNING)
    kb = await services.knowledge.create("Farm")
    notes = tmp_path / "notes.md"
    notes.write_text("# Plums\n\nThe cellar holds 300 jars of plum jam.\n", encoding="utf-8")
    await services.knowledge.add(kb.id, [notes])
    await quiet(window)
    window.kb_actions.open_manager()
    dialog = window.kb_actions.dialog
    assert dialog is not None
    documents = dialog.documents
    await until(lambda: documents.document_names() == ["notes.md"])
    row = documents.table.topLevelItem(0)
    assert row is not None
    row.setSelected(True)
    await services.knowledge.remove_document(kb.id, "notes.md")  # elsewhere (the CLI)
    await close_before_statement(services, 1, documents.remove_selected, lambda: dialog)
    assert errors(caplog) == []
    assert not any(words in window.notice_bar.text() for words in DELETED)


async def test_roles_closed_while_a_role_gone_is_refused(
    window: MainWindow, services: Services, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    role = await services.roles.create("Editor")
    await quiet(window)
    window.context_actions.open_roles()
    dialog = window.context_actions.role_dialog
    assert dialog is not None
    await until(lambda: dialog.form.name_edit.text() == "Editor")
    await services.roles.delete(role.id)  # elsewhere (the CLI)
    await close_before_statement(services, 1, dialog.duplicate_button.click, lambda: dialog)
    assert errors(caplog) == []
    assert not any(words in window.notice_bar.text() for words in DELETED)


async def test_knowledge_bases_closed_while_files_for_a_base_gone_are_refused(
    window: MainWindow, services: Services, caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    caplog.set_level(logging.WARNING)
    kb = await services.knowledge.create("Farm")
    notes = tmp_path / "notes.md"
    notes.write_text("# Plums\n", encoding="utf-8")
    await quiet(window)
    window.kb_actions.open_manager()
    dialog = window.kb_actions.dialog
    assert dialog is not None
    documents = dialog.documents
    await until(lambda: documents.kb_id == kb.id and documents.loads > 0)
    await services.knowledge.delete(kb.id)  # elsewhere (the CLI)
    await close_before_statement(services, 1, lambda: documents.add_paths([notes]), lambda: dialog)
    assert errors(caplog) == []
    assert not any(words in window.notice_bar.text() for words in DELETED)

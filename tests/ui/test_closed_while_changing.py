"""Dialogs closed (and deleted: WA_DeleteOnClose) while a change they started
is still being stored: the window still follows the change once it lands —
the header's pickers list the new base or role, the data view reloads after
a repair, the theme chosen is applied. The window hears of it from the
service (``services/listeners.py``), which outlives the dialog; before, it
waited for a signal of the dialog, which was gone.

The real window, dialogs and services: the database thread is stopped before
the first statement of the change (``tests/support/held_database.py``), the
dialog closed there, the thread let go."""

from __future__ import annotations

import pytest
import shiboken6

from mira_desktop.bootstrap import Services
from mira_desktop.core.ids import new_id
from mira_desktop.ui.dialogs.doctor_dialog import DoctorDialog
from mira_desktop.ui.window.main_window import MainWindow
from tests.support.loopback import LoopbackServer
from tests.support.qt_async import until
from tests.ui.test_closed_while_loading import (
    close_before_statement,
    errors,
    open_settings,
    quiet,
)
from tests.ui.test_tree_ui import OLD, ask


async def test_knowledge_base_created_as_its_dialog_closes_reaches_the_picker(
    window: MainWindow, services: Services, caplog: pytest.LogCaptureFixture
) -> None:
    await quiet(window)
    window.kb_actions.open_manager()
    dialog = window.kb_actions.dialog
    assert dialog is not None
    await until(lambda: dialog.base_names() == [])
    dialog.name_edit.setText("Orchard")
    await close_before_statement(services, 1, dialog.create_button.click, lambda: dialog)
    assert [s.kb.name for s in await services.knowledge.list_all()] == ["Orchard"]
    await until(lambda: [s.kb.name for s in window.header.kb_picker.bases()] == ["Orchard"])
    assert errors(caplog) == []


async def test_role_duplicated_as_its_dialog_closes_reaches_the_picker(
    window: MainWindow, services: Services, caplog: pytest.LogCaptureFixture
) -> None:
    await services.roles.create("Editor")
    await quiet(window)
    window.context_actions.open_roles()
    dialog = window.context_actions.role_dialog
    assert dialog is not None
    await until(lambda: dialog.form.name_edit.text() == "Editor")
    await close_before_statement(services, 1, dialog.duplicate_button.click, lambda: dialog)
    names = ["Copy of Editor", "Editor"]
    assert sorted(r.name for r in await services.roles.list()) == names
    await until(lambda: sorted(r.name for r in window.header.role_picker.roles()) == names)
    assert errors(caplog) == []


async def test_theme_chosen_as_settings_closes_is_applied(
    window: MainWindow, services: Services, caplog: pytest.LogCaptureFixture
) -> None:
    await quiet(window)
    dialog = await open_settings(window)
    applied: list[str] = []
    window.theme_requested.connect(applied.append)
    combo = dialog.appearance_tab.theme_combo
    row = combo.findData("dark")

    def choose() -> None:
        combo.setCurrentIndex(row)
        combo.activated.emit(row)

    await close_before_statement(services, 1, choose, lambda: dialog)
    assert await services.settings.get("ui.theme") == "dark"
    assert applied == ["dark"]
    assert errors(caplog) == []


async def test_repair_ended_after_check_data_closed_reloads_the_window(
    window: MainWindow,
    services: Services,
    loopback: LoopbackServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    await ask(window, loopback, "hello", "hi")
    thread_id = window.presenter.key

    def plant(db) -> None:  # type: ignore[no-untyped-def]
        conn = db.conn
        conn.execute("PRAGMA foreign_keys = OFF")
        try:
            conn.execute(
                "INSERT INTO messages (id, thread_id, parent_id, role, text, created_at, "
                "updated_at) VALUES (?, ?, 'parent-gone', 'user', 'orphan', ?, ?)",
                [new_id(), thread_id, OLD, OLD],
            )
        finally:
            conn.execute("PRAGMA foreign_keys = ON")

    await services.store.worker.run(plant)
    await quiet(window)
    window.open_doctor()
    dialog = window.doctor_dialog
    assert isinstance(dialog, DoctorDialog)
    await until(lambda: dialog.report is not None and not dialog.is_busy())
    assert dialog.problem_codes() == ["message_parent_missing"]
    reloads: list[bool] = []
    window.thread_model.modelReset.connect(lambda: reloads.append(True))
    await close_before_statement(services, 1, dialog.repair_button.click, lambda: dialog)
    assert not shiboken6.isValid(dialog)
    assert (await services.doctor.check()).healthy
    assert reloads, "the sidebar was not read again after the repair"
    assert errors(caplog) == []

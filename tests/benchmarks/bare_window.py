"""The start-up benchmark's floor: the least a PySide6 app does to show a
window and save a screenshot of it (a QApplication, a main window with a
splitter, a list, a text view and a line edit, offscreen), in a fresh
interpreter, with the same settling as ``mira-desktop --screenshot``
(``ui/launch.py``: five 50 ms sleeps during which Qt's events run, before
grabbing; here a sleep then ``processEvents`` each round, as the bare app has no
event loop of its own).

    python tests/benchmarks/bare_window.py OUT.png"""

from __future__ import annotations

import os
import sys
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import (
    QApplication,
    QLineEdit,
    QListWidget,
    QMainWindow,
    QSplitter,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)


def main() -> int:
    app = QApplication(sys.argv[:1])
    window = QMainWindow()
    splitter = QSplitter(Qt.Orientation.Horizontal)
    sidebar = QListWidget()
    sidebar.addItems([f"Thread {n}" for n in range(40)])
    right = QWidget()
    column = QVBoxLayout(right)
    column.addWidget(QTextEdit("Hello"), 1)
    column.addWidget(QLineEdit())
    splitter.addWidget(sidebar)
    splitter.addWidget(right)
    window.setCentralWidget(splitter)
    window.resize(1280, 820)
    window.show()
    for _ in range(5):
        time.sleep(0.05)
        QCoreApplication.processEvents()
    ok = window.grab().save(sys.argv[1])
    del app
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

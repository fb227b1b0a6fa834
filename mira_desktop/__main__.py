"""``python -m mira_desktop``: the same entry as the ``mira-desktop`` command."""

from mira_desktop.app import main

raise SystemExit(main())

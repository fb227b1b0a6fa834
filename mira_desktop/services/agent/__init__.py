"""The agent (PRODUCT.md §11), free of Qt.

Its tools: the workspace scope every path goes through (``scope``), the file
and search tools, bash, the check that tells a read-only shell command from
one that may change files (``commands``), previews with diffs, rollback of
the changes the agent made, ``web_search`` (with a configured endpoint) and
``update_progress`` (``progress``), all behind ``toolbox.Toolbox``.

Its runs: ``runner.AgentLoop`` asks the model with the tools and runs its
calls, asking the user first in manual mode (``approvals``);
``service.AgentService`` equips a chat run with it in the workspace's folder
(with ``.agent/memory.md`` and ``/skill:<name>``, ``workspace_notes``),
keeps the settings and rolls changes back."""

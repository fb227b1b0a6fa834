"""The agent (PRODUCT.md §11), free of Qt.

Its tools: the workspace scope every path goes through (``scope``), the file
and search tools, bash, the check that tells a read-only shell command from
one that may change files (``commands``), previews with diffs, rollback of
the changes the agent made, ``web_search`` (with a configured endpoint),
``search_knowledge_base`` (``knowledge``: the thread's knowledge base, its
passages numbered once per answer as the answer's sources), all behind
``toolbox.Toolbox`` (read-only in plan mode; without a project folder, the
searches alone).

Its runs: ``runner.AgentLoop`` asks the model with the tools and runs its
calls, asking the user first in manual mode (``approvals``); it runs three
tools itself: ``update_progress`` (``progress``), ``ask_user_question``
(``questions``) and ``subagent`` (``subagents``: a read-only loop of its
own). ``service.AgentService`` equips a chat run with it in the workspace's
folder (with ``.agent/memory.md`` and ``/skill:<name>``, ``workspace_notes``;
plan mode from the thread), keeps the settings and rolls changes back."""

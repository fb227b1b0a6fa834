"""The tools offered to the agent's model (PRODUCT.md §11) and the one
entry point the runner uses for them: their specs, which calls need the
user's approval in manual mode, the preview an approval shows, and running
a call. File tools run in a worker thread, never on the event loop; bash
runs as a subprocess. A call that cannot run comes back as a failed
:class:`ToolOutcome` whose message tells the model why, never as an
exception."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ...core.agent import ToolOutcome, ToolPreview, ToolRefused
from ...core.models import ToolCall, ToolSpec
from . import file_tools, folder_snapshot, search_tools, web_search
from .commands import mutation_reason
from .git_settings import programs_in_settings
from .knowledge import KnowledgeSearch
from .previews import preview
from .scope import WorkspaceScope
from .shell import run_bash
from .shell_syntax import command_words
from .web_search import WebSearch

log = logging.getLogger(__name__)

READ_ONLY_TOOLS = frozenset({"read", "find", "grep", "ls"})
WRITING_TOOLS = frozenset({"write", "edit"})
PLANNING_REFUSAL = "In plan mode nothing that may change files is run."
BASH_TIMEOUT = 120
_PATH = "Paths are relative to the workspace folder; anything outside it is refused."


def _schema(required: list[str], **properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


def _string(description: str) -> dict[str, Any]:
    return {"type": "string", "description": description}


TOOL_SPECS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "read",
        "Read a text file. Returns its lines numbered like '  12\\tline'; long files come "
        f"in parts (a note says which offset to read next). {_PATH}",
        _schema(
            ["path"],
            path=_string("The file to read, e.g. src/app.py."),
            offset={"type": "integer", "minimum": 1, "description": "First line (1 = start)."},
            limit={"type": "integer", "minimum": 1, "description": "Most lines to return (2000)."},
        ),
    ),
    ToolSpec(
        "find",
        "Find files and folders by glob pattern. '*.py' matches only in the folder itself, "
        "'**/*.py' at any depth. Skips .git, node_modules, __pycache__ and .venv. " + _PATH,
        _schema(
            ["pattern"],
            pattern=_string("The glob, e.g. **/*.py or docs/*.md."),
            path=_string("The folder to search (default: the workspace folder)."),
        ),
    ),
    ToolSpec(
        "grep",
        "Search file contents with a Python regular expression. Returns 'path:line: text'. "
        "Skips binary files, files over 2 MB, .git, node_modules, __pycache__ and .venv. " + _PATH,
        _schema(
            ["pattern"],
            pattern=_string("The regular expression (Python re syntax)."),
            path=_string("The folder or file to search (default: the workspace folder)."),
            glob=_string(
                "Only files whose name matches, e.g. *.py; with a '/' the glob matches the "
                "path from the searched folder, e.g. src/**/*.ts."
            ),
            ignore_case={"type": "boolean", "description": "Match without regard to case."},
        ),
    ),
    ToolSpec(
        "ls",
        f"List a folder: folders first (ending in /), then files with their size. {_PATH}",
        _schema([], path=_string("The folder to list (default: the workspace folder).")),
    ),
    ToolSpec(
        "bash",
        "Run a shell command in the workspace folder (sh -c) and return its output "
        "(stdout and stderr) and exit code. There is no input; commands must not wait for "
        "a keyboard. Prefer read, find, grep, ls, edit and write for files.",
        _schema(
            ["command"],
            command=_string("The command line, e.g. 'git status' or 'pytest -q tests'."),
            timeout={
                "type": "integer",
                "minimum": 1,
                "maximum": 600,
                "description": f"Seconds before the command is stopped ({BASH_TIMEOUT}).",
            },
        ),
    ),
    ToolSpec(
        "edit",
        "Replace exact text in a file. old_string must match the file exactly (spaces and "
        "indentation included) and occur once, unless replace_all is true; read the file "
        f"first. {_PATH}",
        _schema(
            ["path", "old_string", "new_string"],
            path=_string("The file to change."),
            old_string=_string("The exact text to replace, with enough lines to be unique."),
            new_string=_string("The text to put in its place."),
            replace_all={"type": "boolean", "description": "Replace every occurrence."},
        ),
    ),
    ToolSpec(
        "write",
        "Create a file, or replace a whole file, with the given text; missing folders are "
        f"created. Use edit for changes to part of an existing file. {_PATH}",
        _schema(
            ["path", "content"],
            path=_string("The file to write, e.g. notes/todo.md."),
            content=_string("The complete new text of the file."),
        ),
    ),
)
_SPECS = {spec.name: spec for spec in TOOL_SPECS}
_FILE_TOOLS: dict[str, Callable[..., ToolOutcome]] = {
    "read": file_tools.read,
    "ls": file_tools.ls,
    "write": file_tools.write,
    "edit": file_tools.edit,
    "find": search_tools.find,
    "grep": search_tools.grep,
}
_KINDS = {"string": "a string", "integer": "a whole number", "boolean": "true or false"}


class Toolbox:
    """The agent's tools bound to one workspace folder."""

    def __init__(
        self,
        scope: WorkspaceScope | None,
        web: WebSearch | None = None,
        *,
        read_only: bool = False,
        knowledge: KnowledgeSearch | None = None,
    ) -> None:
        """``web``: the configured search endpoint (``web_search`` is offered
        only with one); ``read_only`` (plan mode): no write or edit is
        offered, and bash runs only commands that change no file;
        ``knowledge``: the thread's knowledge base (``search_knowledge_base``
        is offered only with one). Without ``scope`` (a workspace with no
        folder) no file tool and no shell is offered."""
        self.scope = scope
        self.web = web
        self.knowledge = knowledge
        self.read_only = read_only
        specs = dict(_SPECS) if scope is not None else {}
        if web is not None:
            specs[web_search.NAME] = web_search.SPEC
        if knowledge is not None:
            specs[knowledge.spec.name] = knowledge.spec
        if read_only:
            specs = {name: spec for name, spec in specs.items() if name not in WRITING_TOOLS}
        self._specs = specs

    @property
    def root(self) -> Path | None:
        return self.scope.root if self.scope is not None else None

    @property
    def specs(self) -> tuple[ToolSpec, ...]:
        return tuple(self._specs.values())

    def needs_approval(self, call: ToolCall) -> bool:
        """Whether manual mode asks before ``call``: always for write and
        edit, for bash when the command may change files, never otherwise."""
        if call.name in ("write", "edit"):
            return True
        command = call.arguments.get("command")
        return call.name == "bash" and isinstance(command, str) and bool(mutation_reason(command))

    async def asks_first(self, call: ToolCall) -> bool:
        """``needs_approval``, and also a read-only command that runs ``git``
        in a repository whose own settings name a program git may run
        (``git_settings``): ``git status`` there runs it."""
        if self.needs_approval(call):
            return True
        command = call.arguments.get("command")
        if call.name != "bash" or not isinstance(command, str) or self.scope is None:
            return False
        if "git" not in {Path(word).name for word in command_words(command)}:
            return False
        programs = await asyncio.to_thread(programs_in_settings, self.scope.root)
        if programs:
            log.info("asking before %r: the repository's git settings run %s", command, programs)
        return bool(programs)

    def preview(self, call: ToolCall) -> ToolPreview:
        """What ``call`` would do; raises :class:`ToolRefused` when it cannot run."""
        args = arguments(call, self._specs)
        if self.web is not None and call.name == web_search.NAME:
            return self.web.preview(args)
        if self.knowledge is not None and call.name == self.knowledge.spec.name:
            return self.knowledge.preview(args)
        self._check_planning(call.name, args)
        return preview(call.name, args, self._scope())

    async def run(
        self, call: ToolCall, on_output: Callable[[str], None] | None = None
    ) -> ToolOutcome:
        """Run ``call``; a refusal or failure is a failed outcome saying why.
        ``on_output``: a command's output so far, while it runs."""
        try:
            args = arguments(call, self._specs)
            self._check_planning(call.name, args)
            if self.web is not None and call.name == web_search.NAME:
                return await self.web.run(args)
            if self.knowledge is not None and call.name == self.knowledge.spec.name:
                return await self.knowledge.run(args)
            if call.name == "bash":
                timeout = float(args.get("timeout", BASH_TIMEOUT))
                return await self._bash(args["command"], timeout, on_output)
            return await asyncio.to_thread(_FILE_TOOLS[call.name], self._scope(), **args)
        except ToolRefused as exc:
            return ToolOutcome(False, exc.message)
        except (OSError, ValueError) as exc:
            return ToolOutcome(False, f"{call.name} failed: {exc}")

    async def _bash(
        self, command: str, timeout: float, on_output: Callable[[str], None] | None
    ) -> ToolOutcome:
        """Run a command; one that may change files runs between two readings
        of the folder (``folder_snapshot``), and its outcome carries the
        changes, for the journal and a rollback, and says what was changed."""
        scope = self._scope()
        if not mutation_reason(command):
            return await run_bash(scope, command, timeout, on_output)
        named = command_words(command)
        before = await asyncio.to_thread(folder_snapshot.take, scope.root, named=named)
        try:
            outcome = await run_bash(scope, command, timeout, on_output)
        except asyncio.CancelledError:
            # stopped with the answer: the command is dead; what it changed so
            # far is still read, and the outcome is kept for the journal
            # (``_Running.stopped``) instead of the cancellation
            outcome = ToolOutcome(False, "Stopped with the answer.")
        after = await _finished(
            asyncio.ensure_future(asyncio.to_thread(folder_snapshot.take, scope.root, named=named))
        )
        found = folder_snapshot.compare(before, after)
        note = found.note()
        output = f"{outcome.output}\n{note}" if note else outcome.output
        return ToolOutcome(outcome.ok, output, found.changes)

    def _scope(self) -> WorkspaceScope:
        """The folder of a file tool or the shell (offered only with one)."""
        if self.scope is None:
            raise ToolRefused("This workspace has no project folder: there are no files here.")
        return self.scope

    def _check_planning(self, name: str, args: dict[str, Any]) -> None:
        """Plan mode runs no command that may change files (ToolRefused)."""
        if self.read_only and name == "bash":
            reason = mutation_reason(args["command"])
            if reason:
                raise ToolRefused(f"{PLANNING_REFUSAL} This command {reason}.")


async def _finished(
    reading: asyncio.Future[folder_snapshot.FolderSnapshot],
) -> folder_snapshot.FolderSnapshot:
    """The folder's reading after a command, even through a Stop (or a second
    one, quitting) that lands while it is made: a reading takes at most a few
    hundred milliseconds, and without it the command's changes are lost."""
    while True:
        try:
            return await asyncio.shield(reading)
        except asyncio.CancelledError:
            if reading.cancelled():
                raise
            continue


def arguments(call: ToolCall, specs: dict[str, ToolSpec] = _SPECS) -> dict[str, Any]:
    """The arguments of ``call`` checked against its tool's schema (unknown
    ones dropped, ``null`` ones left out); raises :class:`ToolRefused`."""
    spec = specs.get(call.name)
    if spec is None:
        known = ", ".join(specs)
        raise ToolRefused(f"There is no tool named {call.name!r}; the tools are {known}.")
    properties: dict[str, dict[str, Any]] = spec.parameters["properties"]
    given = {k: v for k, v in call.arguments.items() if k in properties and v is not None}
    missing = [name for name in spec.parameters["required"] if name not in given]
    if missing:
        raise ToolRefused(f"{call.name} needs the argument {' and '.join(missing)}.")
    return {name: _checked(call.name, name, properties[name], v) for name, v in given.items()}


def _checked(tool: str, name: str, schema: dict[str, Any], value: Any) -> Any:
    kind = schema["type"]
    if kind == "integer" and isinstance(value, float) and value.is_integer():
        value = int(value)
    expected = {"string": str, "integer": int, "boolean": bool}[kind]
    if not isinstance(value, expected) or (isinstance(value, bool) and kind != "boolean"):
        raise ToolRefused(f"The argument {name} of {tool} must be {_KINDS[kind]}.")
    low, high = schema.get("minimum"), schema.get("maximum")
    if (low is not None and value < low) or (high is not None and value > high):
        bounds = f"at least {low}" if high is None else f"from {low} to {high}"
        raise ToolRefused(f"The argument {name} of {tool} must be {bounds}.")
    return value

"""What an approval shows before a tool call runs (PRODUCT.md §11): one line
saying what the call will do and, for ``write`` and ``edit``, the unified
diff of the change, worked out without writing anything. A call that cannot
run (a path outside the workspace, an edit whose text is missing) raises
:class:`ToolRefused` here already, so the model can be answered without
asking the user."""

from __future__ import annotations

import difflib
from typing import Any

from ...core.agent import ToolPreview, ToolRefused
from .file_tools import Plan, plan_edit, plan_write, split_lines
from .scope import WorkspaceScope
from .search_tools import compile_pattern, glob_regex

READ_TOOLS = ("read", "ls", "find", "grep")


def preview(name: str, arguments: dict[str, Any], scope: WorkspaceScope) -> ToolPreview:
    """The preview of the call ``name(**arguments)``."""
    args = arguments
    if name == "write":
        plan = plan_write(scope, _text(args, "path"), _text(args, "content"))
        lines = len(split_lines(plan.after))
        if plan.before is None:
            template = "Create {path} (1 line)" if lines == 1 else "Create {path} ({n} lines)"
        else:
            template = "Overwrite {path} (1 line)" if lines == 1 else "Overwrite {path} ({n} lines)"
        return ToolPreview.worded(template, unified_diff(plan), path=plan.path, n=lines)
    if name == "edit":
        plan = plan_edit(
            scope,
            _text(args, "path"),
            _text(args, "old_string"),
            _text(args, "new_string"),
            bool(args.get("replace_all", False)),
        )
        count = plan.replacements
        template = "Edit {path}: 1 replacement" if count == 1 else "Edit {path}: {n} replacements"
        return ToolPreview.worded(template, unified_diff(plan), path=plan.path, n=count)
    if name == "bash":
        return ToolPreview(_text(args, "command"))
    if name not in READ_TOOLS:
        raise ToolRefused(f"There is no tool named {name!r}.")
    where = scope.relative(scope.resolve(str(args.get("path") or ".")))
    if name == "read":
        offset = args.get("offset") or 1
        if offset != 1:
            return ToolPreview.worded("Read {path} from line {n}", path=where, n=offset)
        return ToolPreview.worded("Read {path}", path=where)
    if name == "ls":
        return ToolPreview.worded("List {path}", path=where)
    pattern = _text(args, "pattern")
    if name == "find":
        glob_regex(pattern)
        return ToolPreview.worded("Find {pattern} in {path}", pattern=pattern, path=where)
    compile_pattern(pattern, bool(args.get("ignore_case")))
    glob = args.get("glob")
    if glob:
        glob_regex(str(glob))
        return ToolPreview.worded(
            "Search {path} ({glob}) for {pattern}", path=where, glob=glob, pattern=repr(pattern)
        )
    return ToolPreview.worded("Search {path} for {pattern}", path=where, pattern=repr(pattern))


def unified_diff(plan: Plan) -> str:
    """The unified diff of a plan (``a/path`` / ``b/path``, 3 lines of context)."""
    before, after = split_lines(plan.before or ""), split_lines(plan.after)
    out = []
    for line in difflib.unified_diff(before, after, f"a/{plan.path}", f"b/{plan.path}", n=3):
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def _text(args: dict[str, Any], key: str) -> str:
    value = args.get(key)
    if not isinstance(value, str):
        raise ToolRefused(f"The argument {key!r} is missing or is not a string.")
    return value

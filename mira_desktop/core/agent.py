"""Value types of the agent (PRODUCT.md §11): what a tool did, what an
approval shows, the states an approval goes through, and the agent's errors.
No I/O."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, ClassVar

from .agent_keys import AUTO, MANUAL
from .agent_keys import CHAT_MODE as CHAT_MODE
from .agent_keys import DEVELOPER_KEY as DEVELOPER_KEY
from .agent_keys import MODE_KEY as MODE_KEY
from .agent_keys import PLAN_MODE as PLAN_MODE
from .agent_keys import QUESTIONS_TOOL as QUESTIONS_TOOL
from .agent_keys import SEARCH_URL_KEY as SEARCH_URL_KEY
from .errors import MiraError


class AgentMode(StrEnum):
    """Manual (the default) asks before a change; auto runs every tool."""

    MANUAL = MANUAL
    AUTO = AUTO

    @classmethod
    def parse(cls, value: object) -> AgentMode:
        """A stored setting's mode (manual for anything unknown)."""
        return cls.AUTO if value == cls.AUTO.value else cls.MANUAL


def is_plan(data: dict[str, Any] | None) -> bool:
    """Whether an answer is a proposed plan (answered in plan mode)."""
    agent = (data or {}).get("agent")
    return isinstance(agent, dict) and bool(agent.get("plan"))


class ApprovalState(StrEnum):
    PENDING = "pending"
    APPROVED = "approved"
    DENIED = "denied"
    EXECUTED = "executed"
    #: the run ended (stopped, failed, the app closed) before anyone decided
    EXPIRED = "expired"


@dataclass(frozen=True, slots=True)
class FileChange:
    """One file a tool wrote: its path relative to the workspace root (``/``
    separators) and its text before and after; ``None`` before = the file did
    not exist, ``None`` after = the tool removed it. ``mode``: the file's
    permission bits before, when known (a removed script comes back
    executable)."""

    path: str
    before: str | None
    after: str | None
    mode: int | None = None

    def to_dict(self) -> dict[str, Any]:
        shape: dict[str, Any] = {"path": self.path, "before": self.before, "after": self.after}
        if self.mode is not None:
            shape["mode"] = self.mode
        return shape

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> FileChange:
        mode = data.get("mode")
        mode = mode if isinstance(mode, int) and not isinstance(mode, bool) else None
        return cls(str(data["path"]), data.get("before"), data.get("after"), mode)


@dataclass(frozen=True, slots=True)
class ToolPreview:
    """What an approval shows before a tool runs: one line saying what it
    will do, and for ``write`` / ``edit`` the unified diff of the change.
    ``template`` and ``params``: the English template the line was written
    from and its fields, for the interface's translation (none for a
    command, shown as it is)."""

    summary: str
    diff: str = ""
    template: str = ""
    params: dict[str, str] = field(default_factory=dict)

    @classmethod
    def worded(cls, template: str, diff: str = "", **params: object) -> ToolPreview:
        fields = {name: str(value) for name, value in params.items()}
        return cls(template.format(**fields), diff, template, fields)


@dataclass(frozen=True, slots=True)
class ToolOutcome:
    """What a tool did: ``output`` goes back to the model (and into the tool
    card); ``changes`` are the files it wrote, which a rollback can undo."""

    ok: bool
    output: str
    changes: tuple[FileChange, ...] = field(default=())


class ToolRefused(MiraError):
    """A tool call that cannot run as asked: a path outside the workspace, a
    protected file, a missing argument, an edit whose text is not there. The
    message goes back to the model as the tool's result."""

    code = "tool_refused"


class RollbackConflict(MiraError):
    """A rollback refused because files changed since the agent wrote them;
    ``files`` lists them (paths relative to the workspace root). Nothing was
    written."""

    code = "rollback_conflict"

    TEMPLATE = "Not rolled back: {files} changed since the agent wrote them."

    def __init__(self, files: list[str]) -> None:
        listed = ", ".join(files)
        super().__init__(
            self.TEMPLATE.format(files=listed),
            hint="Nothing was written. Undo those edits first, or leave the change as it is.",
        )
        self.template, self.params = self.TEMPLATE, {"files": listed}
        self.files = list(files)

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "files": list(self.files)}


class ToolStatus(StrEnum):
    """Where a tool card stands (PRODUCT.md §11's approval states are in
    ``ToolCard.approval``)."""

    #: waiting for the user's approval
    WAITING = "waiting"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    DENIED = "denied"
    #: the run ended before the user decided, or before the tool ran
    EXPIRED = "expired"


#: characters of a tool's output kept on its card, its beginning and its end
#: (the model gets all of it; cards are loaded with their thread, and the
#: card shows 40 lines)
CARD_OUTPUT_LIMIT = 4_000
#: characters of a change's diff kept on its card: the whole of nearly any
#: write or edit, which the card shows all of on request (its first 40
#: lines at once); past it the card says how many lines it could not keep
CARD_DIFF_LIMIT = 2_000_000


def cut_diff(diff: str, limit: int = CARD_DIFF_LIMIT) -> tuple[str, int]:
    """``diff`` cut after a whole line to at most ``limit`` characters, and
    how many lines that left out (0: all of it is kept)."""
    if len(diff) <= limit:
        return diff, 0
    end = diff.rfind("\n", 0, limit) + 1 or limit
    rest = diff[end:]
    return diff[:end], rest.count("\n") + (not rest.endswith("\n"))


@dataclass(frozen=True, slots=True)
class ToolCard:
    """One tool call of an agent's answer as the timeline shows it and the
    answer's ``data["agent"]["tools"]`` keeps it.

    ``approval`` is None when the call needed none (a read-only tool, or auto
    mode); ``at`` is the length of the answer's text when the call was made
    (where the card sits among the words); ``changed`` the files it wrote;
    ``rolled_back`` whether they were put back; ``imported`` that the card
    came in with an imported thread, whose journal stayed where it was made
    (nothing here can put its files back)."""

    call_id: str
    name: str
    arguments: dict[str, Any]
    summary: str
    status: ToolStatus
    approval: ApprovalState | None = None
    diff: str = ""
    output: str = ""
    ok: bool = True
    changed: tuple[str, ...] = ()
    rolled_back: bool = False
    at: int = 0
    #: the summary's English template and fields (``ToolPreview``)
    template: str = ""
    params: dict[str, str] = field(default_factory=dict)
    imported: bool = False
    #: lines of the diff not kept (``cut_diff``): the card must say so
    diff_cut: int = 0

    def to_dict(self) -> dict[str, Any]:
        shape = {
            "call_id": self.call_id,
            "name": self.name,
            "arguments": self.arguments,
            "summary": self.summary,
            "status": str(self.status),
            "approval": str(self.approval) if self.approval else None,
            "diff": self.diff,
            "output": self.output,
            "ok": self.ok,
            "changed": list(self.changed),
            "rolled_back": self.rolled_back,
            "at": self.at,
            "template": self.template,
            "params": dict(self.params),
        }
        if self.imported:
            shape["imported"] = True
        if self.diff_cut:
            shape["diff_cut"] = self.diff_cut
        return shape

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ToolCard:
        approval = data.get("approval")
        return cls(
            call_id=str(data.get("call_id", "")),
            name=str(data.get("name", "")),
            arguments=dict(data.get("arguments") or {}),
            summary=str(data.get("summary", "")),
            status=ToolStatus(data.get("status", ToolStatus.DONE)),
            approval=ApprovalState(approval) if approval else None,
            diff=str(data.get("diff") or ""),
            output=str(data.get("output") or ""),
            ok=bool(data.get("ok", True)),
            changed=tuple(data.get("changed") or ()),
            rolled_back=bool(data.get("rolled_back", False)),
            at=int(data.get("at") or 0),
            template=str(data.get("template") or ""),
            params={str(k): str(v) for k, v in (data.get("params") or {}).items()},
            imported=bool(data.get("imported", False)),
            diff_cut=int(data.get("diff_cut") or 0),
        )

    @property
    def can_roll_back(self) -> bool:
        """A step that changed files, also one that failed after changing
        some, or was stopped with the answer half-way (a command)."""
        finished = self.status in (ToolStatus.DONE, ToolStatus.FAILED, ToolStatus.EXPIRED)
        return bool(self.changed) and finished and not (self.rolled_back or self.imported)


def imported_cards(data: dict[str, Any] | None) -> dict[str, Any] | None:
    """``data`` with its tool cards marked ``imported`` (an imported answer)."""
    agent = (data or {}).get("agent")
    if not isinstance(agent, dict) or not isinstance(agent.get("tools"), list):
        return data
    tools = [{**c, "imported": True} if isinstance(c, dict) else c for c in agent["tools"]]
    return {**(data or {}), "agent": {**agent, "tools": tools}}


def answer_cards(data: dict[str, Any] | None) -> list[ToolCard]:
    """The tool cards kept on an answer (``Message.data``), in call order."""
    agent = (data or {}).get("agent")
    if not isinstance(agent, dict):
        return []
    return [ToolCard.from_dict(c) for c in agent.get("tools") or () if isinstance(c, dict)]


@dataclass(frozen=True, slots=True)
class ToolCardChanged:
    """A chat event: a tool card of the answer streaming in ``thread_id``
    appeared or changed (asked for approval, ran, finished)."""

    type: ClassVar[str] = "tool_card"
    thread_id: str
    message_id: str
    card: ToolCard

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "thread_id": self.thread_id,
            "message_id": self.message_id,
            "card": self.card.to_dict(),
        }


def expired(card: ToolCard) -> ToolCard:
    """``card`` as it stands once its run ended: a call still waiting for
    approval, or still running, expired."""
    if card.status not in (ToolStatus.WAITING, ToolStatus.RUNNING):
        return card
    approval = ApprovalState.EXPIRED if card.approval is ApprovalState.PENDING else card.approval
    return replace(card, status=ToolStatus.EXPIRED, approval=approval, ok=False)


class StepStatus(StrEnum):
    PENDING = "pending"
    IN_PROGRESS = "in_progress"
    COMPLETED = "completed"


@dataclass(frozen=True, slots=True)
class ProgressStep:
    """One step of the agent's plan of work (its ``update_progress`` tool)."""

    title: str
    status: StepStatus = StepStatus.PENDING

    def to_dict(self) -> dict[str, Any]:
        return {"title": self.title, "status": str(self.status)}


def answer_progress(data: dict[str, Any] | None) -> list[ProgressStep]:
    """The steps an answer's agent last reported (``data["agent"]["progress"]``)."""
    agent = (data or {}).get("agent")
    steps = agent.get("progress") if isinstance(agent, dict) else None
    out: list[ProgressStep] = []
    for step in steps or ():
        if isinstance(step, dict) and step.get("title"):
            status = str(step.get("status"))
            known = status in {s.value for s in StepStatus}
            out.append(
                ProgressStep(
                    str(step["title"]), StepStatus(status) if known else StepStatus.PENDING
                )
            )
    return out


@dataclass(frozen=True, slots=True)
class ProgressChanged:
    """A chat event: the agent of ``thread_id`` reported its steps (the whole
    list, each time)."""

    type: ClassVar[str] = "progress"
    thread_id: str
    message_id: str
    steps: tuple[ProgressStep, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "thread_id": self.thread_id,
            "message_id": self.message_id,
            "steps": [s.to_dict() for s in self.steps],
        }


@dataclass(frozen=True, slots=True)
class SourcesFound:
    """The agent searched the thread's knowledge base: ``data`` is what the
    answer's ``data`` records of it (``kb_path`` "agent", the numbered
    ``sources`` so far). Read by the run, not sent on to the window: the
    answer's Sources show once it has ended, as on the knowledge-base path."""

    thread_id: str
    message_id: str
    data: dict[str, Any]


@dataclass(frozen=True, slots=True)
class WebResult:
    """One result of the agent's web search: its title, address and snippet."""

    title: str
    url: str
    snippet: str = ""


@dataclass(frozen=True, slots=True)
class Question:
    """One question of the agent's ``ask_user_question``: the words, and the
    options offered (a free answer is always possible)."""

    text: str
    options: tuple[str, ...] = ()


def card_questions(card: ToolCard) -> list[Question]:
    """The questions an ``ask_user_question`` card asks (from its arguments)."""
    out = []
    for item in card.arguments.get("questions") or ():
        if isinstance(item, dict) and isinstance(item.get("question"), str):
            options = tuple(str(o) for o in item.get("options") or () if str(o).strip())
            out.append(Question(item["question"], options))
    return out

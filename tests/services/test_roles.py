"""Roles: the service's validation and lifecycle on a real database, and the
composed hidden system prompt with the role's numeric parameters."""

from __future__ import annotations

import pytest

from mira_desktop.bootstrap import Services
from mira_desktop.core.errors import ConfigError, NotFoundError
from mira_desktop.core.ids import new_id, utc_now
from mira_desktop.core.models import ChatMessage, ChatRequest, Role, Thread
from mira_desktop.services.roles import apply_role, role_system_prompt


async def test_create_list_get_edit(services: Services) -> None:
    roles = services.roles
    tutor = await roles.create(
        " 数学 老师 ", persona="你是一位耐心的数学老师。", temperature=0.3, max_tokens=800
    )
    assert tutor.name == "数学 老师" and tutor.id and tutor.top_p is None
    await roles.create("Alpha", description="first in the list")
    assert [r.name for r in await roles.list()] == ["Alpha", "数学 老师"]
    assert (await roles.get_by_name("alpha")).name == "Alpha"  # case does not matter
    edited = await roles.edit(tutor.id, style="简洁", temperature=None, top_p=0.9)
    assert (edited.style, edited.temperature, edited.top_p, edited.max_tokens) == (
        "简洁",
        None,
        0.9,
        800,
    )
    assert await roles.get(tutor.id) == edited


async def test_duplicate_names_copies(services: Services) -> None:
    original = await services.roles.create("Writer", persona="p", scenario="s", top_p=0.5)
    first = await services.roles.duplicate(original.id)
    second = await services.roles.duplicate(original.id)
    assert first.name == "Copy of Writer" and second.name == "Copy of Writer (2)"
    assert (first.persona, first.scenario, first.top_p) == ("p", "s", 0.5)
    assert first.id != original.id


async def test_delete_keeps_the_threads_that_used_the_role(services: Services) -> None:
    role = await services.roles.create("Pirate", persona="Arr.")
    workspace = await services.store.default_workspace()
    now = utc_now()
    thread = await services.store.create_thread(
        Thread(new_id(), "航海", workspace.id, now, now, role_id=role.id)
    )
    assert await services.roles.delete(role.id) == 1
    kept = await services.store.get_thread(thread.id)
    assert kept.title == "航海" and kept.role_id is None
    with pytest.raises(NotFoundError):
        await services.roles.get_by_name("Pirate")
    with pytest.raises(NotFoundError):
        await services.roles.delete(role.id)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"temperature": 2.5}, "Temperature must be between 0 and 2"),
        ({"temperature": -0.1}, "Temperature must be between 0 and 2"),
        ({"temperature": "hot"}, "Temperature must be a number"),
        ({"top_p": 1.01}, "Top-p must be between 0 and 1"),
        ({"top_p": float("nan")}, "Top-p must be between 0 and 1"),
        ({"max_tokens": 0}, "Max tokens must be a whole number above 0"),
        ({"max_tokens": 1.5}, "Max tokens must be a whole number above 0"),
        ({"colour": "red"}, "Unknown role field"),
    ],
)
async def test_invalid_fields_are_refused(
    services: Services, fields: dict[str, object], message: str
) -> None:
    with pytest.raises(ConfigError) as info:
        await services.roles.create("R", **fields)
    assert message in str(info.value)
    assert await services.roles.list() == []


async def test_names_must_be_present_and_unique(services: Services) -> None:
    with pytest.raises(ConfigError, match="needs a name"):
        await services.roles.create("   ")
    await services.roles.create("Editor")
    with pytest.raises(ConfigError, match="already exists"):
        await services.roles.create("editor")
    other = await services.roles.create("Other")
    with pytest.raises(ConfigError, match="already exists"):
        await services.roles.edit(other.id, name="EDITOR")
    assert (await services.roles.edit(other.id, temperature=2, top_p=0, max_tokens=1)).top_p == 0


def test_system_prompt_has_a_heading_per_filled_field_in_order() -> None:
    role = Role(
        id="r",
        name="侦探",
        description="A detective",
        persona="你是福尔摩斯。",
        constraints="Never reveal the culprit early.",
        examples="Q: Who? A: Elementary.",
        temperature=0.2,
    )
    prompt = role_system_prompt(role)
    assert prompt.startswith('You are playing the role "侦探".')
    headings = [line for line in prompt.splitlines() if line.startswith("## ")]
    assert headings == ["## Description", "## Persona", "## Examples", "## Constraints"]
    assert "## Persona\n你是福尔摩斯。" in prompt
    assert role_system_prompt(Role(id="e", name="Empty")) == ""


def test_apply_role_prepends_the_prompt_and_sets_parameters() -> None:
    role = Role(id="r", name="R", persona="Be brief.", temperature=0.2, top_p=0.8, max_tokens=64)
    request = ChatRequest(model="m", messages=(ChatMessage("user", "hi"),), top_p=0.5)
    applied = apply_role(request, role)
    assert applied.messages[0].role == "system" and "Be brief." in applied.messages[0].content
    assert applied.messages[1:] == request.messages
    assert (applied.temperature, applied.top_p, applied.max_tokens) == (0.2, 0.5, 64)
    assert apply_role(request, None) is request
    bare = apply_role(request, Role(id="n", name="Numbers only", temperature=1.0))
    assert bare.messages == request.messages and bare.temperature == 1.0

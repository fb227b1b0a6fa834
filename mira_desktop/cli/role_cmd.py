"""``mira-desktop role add|list|show|delete``: roles from the command line.

``role add NAME --prompt TEXT`` stores TEXT as the role's *persona* — the main
instructions ("You are a patient maths tutor…"); ``--description`` sets the
short description shown in lists. The other §1 fields (world view, scenario,
examples, style, constraints) are edited in the window."""

from __future__ import annotations

import argparse
from typing import Any

from ..bootstrap import Services
from ..core.models import Role
from ..services.roles import role_system_prompt
from .output import print_json, print_table

NAME = "role"


def register(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    role = commands.add_parser("role", help="create and manage roles (personas)")
    sub = role.add_subparsers(dest="role_command", metavar="ACTION", required=True)
    add = sub.add_parser("add", help="add a role")
    add.add_argument("name")
    add.add_argument("--prompt", required=True, help="the role's instructions (its persona)")
    add.add_argument("--description", default="", help="a short description for lists")
    add.add_argument("--temperature", type=float, help="0–2")
    add.add_argument("--top-p", dest="top_p", type=float, help="0–1")
    add.add_argument("--max-tokens", dest="max_tokens", type=int, help="above 0")
    add.add_argument("--json", action="store_true")
    lst = sub.add_parser("list", help="list roles")
    lst.add_argument("--json", action="store_true")
    show = sub.add_parser("show", help="show a role and the system prompt it gives")
    show.add_argument("name")
    show.add_argument("--json", action="store_true")
    delete = sub.add_parser("delete", help="delete a role (threads keep their history)")
    delete.add_argument("name")


def role_json(role: Role) -> dict[str, Any]:
    return {
        "id": role.id,
        "name": role.name,
        "description": role.description,
        "persona": role.persona,
        "world_view": role.world_view,
        "scenario": role.scenario,
        "examples": role.examples,
        "style": role.style,
        "constraints": role.constraints,
        "temperature": role.temperature,
        "top_p": role.top_p,
        "max_tokens": role.max_tokens,
    }


async def run(services: Services, args: argparse.Namespace) -> int:
    action = args.role_command
    if action == "add":
        return await _add(services, args)
    if action == "list":
        return await _list(services, args)
    if action == "show":
        return await _show(services, args)
    role = await services.roles.get_by_name(args.name)
    used = await services.roles.delete(role.id)
    kept = f"; {used} thread(s) that used it keep their history" if used else ""
    print(f"Deleted role {role.name}{kept}.")
    return 0


async def _add(services: Services, args: argparse.Namespace) -> int:
    role = await services.roles.create(
        args.name,
        persona=args.prompt,
        description=args.description,
        temperature=args.temperature,
        top_p=args.top_p,
        max_tokens=args.max_tokens,
    )
    if args.json:
        print_json(role_json(role))
    else:
        print(f"Added role {role.name}.")
    return 0


async def _list(services: Services, args: argparse.Namespace) -> int:
    roles = await services.roles.list()
    if args.json:
        print_json([role_json(r) for r in roles])
        return 0
    if not roles:
        print('No roles yet. Add one, e.g.: mira-desktop role add Tutor --prompt "You are …"')
        return 0
    rows = [[r.name, _params(r), _preview(r.description or r.persona)] for r in roles]
    print_table(["NAME", "PARAMETERS", "DESCRIPTION"], rows)
    return 0


async def _show(services: Services, args: argparse.Namespace) -> int:
    role = await services.roles.get_by_name(args.name)
    prompt = role_system_prompt(role)
    if args.json:
        print_json({**role_json(role), "system_prompt": prompt})
        return 0
    print(f"# {role.name}")
    print(f"Parameters: {_params(role) or 'model defaults'}")
    print()
    print(prompt or "(no instructions)")
    return 0


def _params(role: Role) -> str:
    parts = []
    if role.temperature is not None:
        parts.append(f"temperature={role.temperature:g}")
    if role.top_p is not None:
        parts.append(f"top_p={role.top_p:g}")
    if role.max_tokens is not None:
        parts.append(f"max_tokens={role.max_tokens}")
    return " ".join(parts)


def _preview(text: str, width: int = 60) -> str:
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"

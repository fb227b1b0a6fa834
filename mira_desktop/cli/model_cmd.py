"""``mira-desktop model list|set``: the per-model settings of PRODUCT.md §12,
as Settings → Models shows them.

``model list [PROVIDER] [--json]`` lists the saved models (no server is asked;
``provider models NAME`` fetches the list). ``model set PROVIDER MODEL`` changes
the settings named of a saved model and keeps the others: ``--reasoning
default|off|low|medium|high``, ``--context-window N`` (0: unknown),
``--vision/--no-vision``, ``--tier fast|standard|reasoning|none``,
``--compact-at SHARE|off``. ``--json`` prints the model as one object:
``{"provider", "name", "context_window", "vision", "tier",
"compaction_threshold", "reasoning"}`` (``reasoning`` ``null``: the server's
default)."""

from __future__ import annotations

import argparse
from typing import Any

from ..bootstrap import Services
from ..core.errors import ConfigError
from ..core.models import ModelInfo, ModelTier, Reasoning
from .output import print_json, print_table

NAME = "model"

DEFAULT = "default"


def register(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    model = commands.add_parser("model", help="per-model settings (reasoning, context window…)")
    sub = model.add_subparsers(dest="model_command", metavar="ACTION", required=True)
    lst = sub.add_parser("list", help="the saved models and their settings")
    lst.add_argument("provider", nargs="?", metavar="PROVIDER")
    lst.add_argument("--json", action="store_true")
    edit = sub.add_parser("set", help="change a model's settings (the others are kept)")
    edit.add_argument("provider", metavar="PROVIDER")
    edit.add_argument("model", metavar="MODEL")
    edit.add_argument(
        "--reasoning",
        choices=[DEFAULT, *(str(level) for level in Reasoning)],
        help="how hard it reasons; default: what the server does unasked",
    )
    edit.add_argument("--context-window", type=int, metavar="TOKENS", help="0: unknown")
    edit.add_argument("--vision", action=argparse.BooleanOptionalAction, default=None)
    edit.add_argument("--tier", choices=[*(str(t) for t in ModelTier), "none"])
    edit.add_argument(
        "--compact-at", metavar="SHARE", help="compact before sending past this share (0–1), or off"
    )
    edit.add_argument("--json", action="store_true")


async def run(services: Services, args: argparse.Namespace) -> int:
    if args.model_command == "list":
        return await _list(services, args)
    return await _set(services, args)


def model_dict(info: ModelInfo) -> dict[str, Any]:
    return {
        "provider": info.provider_name,
        "name": info.name,
        "context_window": info.context_window,
        "vision": info.vision,
        "tier": str(info.tier) if info.tier else None,
        "compaction_threshold": info.compaction_threshold,
        "reasoning": str(info.reasoning) if info.reasoning else None,
    }


async def _list(services: Services, args: argparse.Namespace) -> int:
    if args.provider:
        await services.providers.get_provider(args.provider)  # a clear error for a typo
    models = await services.providers.list_models(args.provider)
    if args.json:
        print_json({"models": [model_dict(m) for m in models]})
        return 0
    if not models:
        print("No saved models. Fetch a provider's list: mira-desktop provider models NAME")
        return 0
    rows = [
        [
            m.provider_name,
            m.name,
            f"{m.context_window:,}" if m.context_window else "-",
            "yes" if m.vision else "no",
            str(m.tier) if m.tier else "-",
            f"{m.compaction_threshold:g}" if m.compaction_threshold else "off",
            str(m.reasoning) if m.reasoning else DEFAULT,
        ]
        for m in models
    ]
    print_table(["PROVIDER", "MODEL", "WINDOW", "VISION", "TIER", "COMPACT AT", "REASONING"], rows)
    return 0


def _share(text: str) -> float | None:
    if text.strip().lower() == "off":
        return None
    try:
        value = float(text.strip().rstrip("%")) / (100 if text.strip().endswith("%") else 1)
    except ValueError:
        value = -1.0
    if not 0 < value <= 1:
        raise ConfigError(
            f"--compact-at takes a share of the window from 0 to 1 (e.g. 0.8) or off, not {text!r}."
        )
    return value


async def _set(services: Services, args: argparse.Namespace) -> int:
    await services.providers.get_provider(args.provider)  # a clear error for a typo
    if args.context_window is not None and args.context_window < 0:
        raise ConfigError("--context-window is a number of tokens (0: unknown).")
    info = await services.providers.get_model(args.provider, args.model)
    if info is None:  # a typo would become a model in every picker
        raise ConfigError(
            f'{args.provider} has no saved model "{args.model}".',
            hint=f"See `mira-desktop model list {args.provider}`, or fetch the server's list: "
            f"mira-desktop provider models {args.provider}",
        )
    reasoning = info.reasoning and str(info.reasoning)
    if args.reasoning is not None:
        reasoning = None if args.reasoning == DEFAULT else args.reasoning
    tier = str(info.tier) if info.tier else None
    if args.tier is not None:
        tier = None if args.tier == "none" else args.tier
    window = info.context_window if args.context_window is None else args.context_window or None
    saved = await services.providers.update_model_settings(
        args.provider,
        args.model,
        context_window=window,
        vision=info.vision if args.vision is None else args.vision,
        tier=tier,
        compaction_threshold=(
            info.compaction_threshold if args.compact_at is None else _share(args.compact_at)
        ),
        reasoning=reasoning,
    )
    if args.json:
        print_json(model_dict(saved))
    else:
        level = str(saved.reasoning) if saved.reasoning else "the server's default"
        print(f"Saved the settings of {saved.name} ({saved.provider_name}); reasoning: {level}.")
    return 0

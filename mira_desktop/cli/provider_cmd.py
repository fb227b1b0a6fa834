"""``mira-desktop provider add|list|models|remove|image-model|transcription-model``.

``provider image-model [PROVIDER MODEL | --clear] [--json]`` shows or sets the
image model that illustrates answers (PRODUCT.md §10; an OpenAI-compatible
provider: ``{"provider": …, "model": …}``, or ``null`` when none).
``provider transcription-model`` does the same for the speech-to-text model of
voice input and ``mira-desktop transcribe``."""

from __future__ import annotations

import argparse
import os
from dataclasses import asdict

from ..bootstrap import Services
from ..core.errors import ConfigError
from .output import print_json, print_table

NAME = "provider"


def register(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    provider = commands.add_parser("provider", help="configure model servers")
    sub = provider.add_subparsers(dest="provider_command", metavar="ACTION", required=True)
    add = sub.add_parser("add", help="add a provider")
    add.add_argument("name")
    add.add_argument("--kind", required=True, choices=["openai", "ollama", "anthropic"])
    add.add_argument(
        "--base-url", required=True, help="openai: include /v1; ollama/anthropic: the server root"
    )
    add.add_argument(
        "--api-key-env", metavar="VAR", help="read the API key once from this environment variable"
    )
    lst = sub.add_parser("list", help="list providers")
    lst.add_argument("--json", action="store_true")
    models = sub.add_parser("models", help="list a provider's models (asks the server)")
    models.add_argument("name")
    models.add_argument("--json", action="store_true")
    remove = sub.add_parser("remove", help="remove a provider (threads keep their history)")
    remove.add_argument("name")
    image = sub.add_parser("image-model", help="show or set the model that illustrates answers")
    image.add_argument("name", nargs="?", metavar="PROVIDER")
    image.add_argument("model", nargs="?", metavar="MODEL")
    image.add_argument("--clear", action="store_true", help="illustrate nothing")
    image.add_argument("--json", action="store_true")
    speech = sub.add_parser(
        "transcription-model", help="show or set the model that turns speech into text"
    )
    speech.add_argument("name", nargs="?", metavar="PROVIDER")
    speech.add_argument("model", nargs="?", metavar="MODEL")
    speech.add_argument("--clear", action="store_true", help="choose no speech-to-text model")
    speech.add_argument("--json", action="store_true")


async def run(services: Services, args: argparse.Namespace) -> int:
    action = args.provider_command
    if action == "add":
        return await _add(services, args)
    if action == "list":
        return await _list(services, args)
    if action == "models":
        return await _models(services, args)
    if action == "image-model":
        return await _image_model(services, args)
    if action == "transcription-model":
        return await _transcription_model(services, args)
    await services.providers.remove_provider(args.name)
    print(f"Removed provider {args.name}.")
    return 0


async def _add(services: Services, args: argparse.Namespace) -> int:
    api_key = None
    if args.api_key_env:
        api_key = os.environ.get(args.api_key_env)
        if not api_key:
            raise ConfigError(
                f"The environment variable {args.api_key_env} is empty or not set.",
                hint=f"export {args.api_key_env}=... and run the command again.",
            )
    config = await services.providers.add_provider(args.name, args.kind, args.base_url, api_key)
    where = f"; API key stored in the {services.providers.keyring_description}" if api_key else ""
    print(f"Added provider {config.name} ({config.kind}, {config.base_url}){where}.")
    return 0


async def _list(services: Services, args: argparse.Namespace) -> int:
    providers = await services.providers.list_providers()
    storage = services.providers.keyring_description
    if args.json:
        print_json(
            {
                "providers": [
                    {
                        "name": p.name,
                        "kind": str(p.kind),
                        "base_url": p.base_url,
                        "has_key": p.has_key,
                    }
                    for p in providers
                ],
                "key_storage": storage,
            }
        )
        return 0
    if not providers:
        print("No providers yet. Add one, e.g.:")
        print("  mira-desktop provider add local --kind ollama --base-url http://localhost:11434")
    else:
        rows = [[p.name, str(p.kind), p.base_url, "yes" if p.has_key else "no"] for p in providers]
        print_table(["NAME", "KIND", "BASE URL", "KEY"], rows)
    print(f"API keys are stored in: {storage}")
    return 0


async def _models(services: Services, args: argparse.Namespace) -> int:
    models = await services.providers.fetch_models(args.name)
    if args.json:
        print_json({"provider": args.name, "models": [asdict(m) for m in models]})
        return 0
    for model in models:
        print(model.name)
    if not models:
        print(f"{args.name} lists no models.")
    return 0


async def _image_model(services: Services, args: argparse.Namespace) -> int:
    images = services.images
    if args.clear:
        await images.set_image_model(None, None)
    elif args.name or args.model:
        if not (args.name and args.model):
            raise ConfigError(
                "Name the provider and the model.",
                hint="For example: mira-desktop provider image-model openai gpt-image-1",
            )
        config = await services.providers.get_provider(args.name)
        if config.kind.value != "openai":
            raise ConfigError(
                f'"{args.name}" cannot make images.',
                hint="Image models are reached through an OpenAI-compatible provider.",
            )
        await images.set_image_model(args.name, args.model)
    chosen = await images.image_model()
    if args.json:
        print_json({"provider": chosen[0], "model": chosen[1]} if chosen else None)
    elif chosen:
        print(f"Answers are illustrated with {chosen[1]} ({chosen[0]}).")
    else:
        print("No image model is chosen.")
    return 0


async def _transcription_model(services: Services, args: argparse.Namespace) -> int:
    transcription = services.transcription
    if args.clear:
        await transcription.set_transcription_model(None, None)
    elif args.name or args.model:
        if not (args.name and args.model):
            raise ConfigError(
                "Name the provider and the model.",
                hint="For example: mira-desktop provider transcription-model openai whisper-1",
            )
        await transcription.set_transcription_model(args.name, args.model)
    chosen = await transcription.transcription_model()
    if args.json:
        print_json({"provider": chosen[0], "model": chosen[1]} if chosen else None)
    elif chosen:
        print(f"Speech is transcribed with {chosen[1]} ({chosen[0]}).")
    else:
        print("No speech-to-text model is chosen.")
    return 0

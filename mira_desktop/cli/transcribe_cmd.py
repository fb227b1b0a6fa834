"""``mira-desktop transcribe FILE [--provider NAME --model MODEL] [--language
CODE] [--json]``: the words spoken in an audio file (flac, m4a, mp3, mp4,
mpeg, mpga, oga, ogg, wav, webm; at most 25 MB), heard by the speech-to-text
model chosen with ``provider transcription-model`` or the one named.

Prints the transcript; ``--json`` prints ``{"text", "provider", "model",
"file", "bytes"}`` (``file`` as given, ``bytes`` its size)."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..bootstrap import Services
from .output import print_json

NAME = "transcribe"


def register(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    transcribe = commands.add_parser("transcribe", help="turn the speech in an audio file to text")
    transcribe.add_argument("file", metavar="FILE", help="flac, m4a, mp3, mp4, ogg, wav, webm…")
    transcribe.add_argument("--provider", metavar="NAME", help="with --model: not the chosen one")
    transcribe.add_argument("--model", metavar="MODEL", help="with --provider")
    transcribe.add_argument(
        "--language", metavar="CODE", help="the language spoken (ISO-639-1, e.g. en)"
    )
    transcribe.add_argument("--json", action="store_true")


async def run(services: Services, args: argparse.Namespace) -> int:
    path = Path(args.file)
    transcript = await services.transcription.transcribe_file(
        path, language=args.language, provider=args.provider, model=args.model
    )
    if args.json:
        print_json(
            {
                "text": transcript.text,
                "provider": transcript.provider,
                "model": transcript.model,
                "file": args.file,
                "bytes": path.stat().st_size,
            }
        )
    else:
        print(transcript.text)
    return 0

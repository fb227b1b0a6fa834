"""The model server of the streaming benchmark, in its own process (as a real
one would be, so it does not share the client's GIL): the test suite's
loopback server answering every ``POST /v1/chat/completions`` with the same
OpenAI SSE stream of N content chunks, sent as fast as it can (one write and
flush per chunk, no pauses), no usage chunk (so Mira estimates usage itself,
the stricter case).

    python -m tests.benchmarks.stream_server N   # prints the base URL, serves until stdin
                                                 # closes, then prints the number of requests"""

from __future__ import annotations

import logging
import random
import sys

from tests.support.loopback import LoopbackServer, openai_stream

log = logging.getLogger(__name__)

CHAT = "/v1/chat/completions"


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


_WORDS = _words(
    "the model streams tokens as fast as the server can write them while the window keeps"
    " painting and the reader keeps scrolling through a long answer about databases search"
    " indexes and 数据 库 的 查询 优化 with `code` and **bold** words"
)


def tokens(count: int) -> list[str]:
    """``count`` text chunks of an answer in Markdown: words, a paragraph
    break every ~80 chunks, a short list and a code block now and then."""
    rng = random.Random(9)
    out: list[str] = []
    for n in range(count):
        if n and n % 80 == 0:
            out.append("\n\n")
        elif n % 400 == 200:
            out.append("\n\n- item one\n- item two\n\n")
        elif n % 1000 == 500:
            out.append("\n\n```python\nprint('hello')\n```\n\n")
        else:
            out.append(rng.choice(_WORDS) + " ")
    return out


def main() -> None:
    count = int(sys.argv[1])
    with LoopbackServer() as server:
        server.set_default(CHAT, openai_stream(tokens(count)))
        print(server.url, flush=True)
        sys.stdin.read()  # until the benchmark closes our stdin
        print(len(server.requests), flush=True)  # how many streams were asked for


if __name__ == "__main__":
    main()

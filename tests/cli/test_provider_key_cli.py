"""``provider add --api-key-env`` with a key pasted badly: the CLI refuses it
in plain words and never prints it; a key with only a line break at its end
(``export KEY=$(cat file)`` style) is taken without it."""

from __future__ import annotations

from pathlib import Path

from tests.support.loopback import LoopbackServer, openai_models

from .test_cli import cli


def test_a_key_with_a_line_break_inside_is_refused_and_never_printed(
    data_dir: Path, loopback: LoopbackServer
) -> None:
    url = loopback.url + "/v1"
    added = cli(
        data_dir, "provider", "add", "loop", "--kind", "openai", "--base-url", url,
        "--api-key-env", "LOOP_KEY", env={"LOOP_KEY": "sk-SECRET789\nsk-SECRET789"},
    )  # fmt: skip
    assert added.returncode != 0
    assert "paste it again" in added.stderr
    assert "SECRET" not in added.stdout + added.stderr
    assert "Traceback" not in added.stderr
    assert "No providers yet" in cli(data_dir, "provider", "list").stdout
    log = data_dir / "logs" / "mira.log"
    assert not log.exists() or "SECRET" not in log.read_text(encoding="utf-8")


def test_a_key_with_a_trailing_line_break_is_sent_without_it(
    data_dir: Path, loopback: LoopbackServer
) -> None:
    url = loopback.url + "/v1"
    added = cli(
        data_dir, "provider", "add", "loop", "--kind", "openai", "--base-url", url,
        "--api-key-env", "LOOP_KEY", env={"LOOP_KEY": "sk-SECRET789\n"},
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    loopback.enqueue("/v1/models", openai_models(["m1"]))
    listed = cli(data_dir, "provider", "models", "loop")
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.split() == ["m1"]
    assert loopback.requests[-1].headers["authorization"] == "Bearer sk-SECRET789"

"""`mira-desktop provider add/edit` with a name that differs from another
provider's only in case: refused in words, nothing changed. Real processes,
a real data folder."""

from __future__ import annotations

import json
from pathlib import Path

from .test_cli import cli


def test_the_cli_refuses_a_name_differing_only_in_case(data_dir: Path) -> None:
    url = "http://127.0.0.1:9"
    added = cli(data_dir, "provider", "add", "Ollama", "--kind", "ollama", "--base-url", url)
    assert added.returncode == 0, added.stderr
    again = cli(data_dir, "provider", "add", "ollama", "--kind", "ollama", "--base-url", url)
    assert again.returncode != 0
    assert 'A provider named "Ollama" already exists; names that differ only' in again.stderr
    assert "Choose another name." in again.stderr
    listed = json.loads(cli(data_dir, "provider", "list", "--json").stdout)
    assert [p["name"] for p in listed["providers"]] == ["Ollama"]

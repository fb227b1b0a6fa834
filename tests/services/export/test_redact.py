"""Secrets in exports (PRODUCT.md §9): a table of redaction cases, by name and
by shape, plus idempotency and what must stay untouched."""

from __future__ import annotations

from typing import Any

import pytest

from mira_desktop.services.export.diagnostics import tool_calls
from mira_desktop.services.export.redact import MASK, redact, redact_text

M = MASK

BY_NAME: list[tuple[str, Any, Any]] = [
    ("api key", {"api_key": "abc"}, {"api_key": M}),
    ("mixed case key", {"X-API-Key": "abc"}, {"X-API-Key": M}),
    ("camelCase key", {"openaiApiKey": "abc"}, {"openaiApiKey": M}),
    ("token", {"access_token": "abc"}, {"access_token": M}),
    ("TOKEN upper", {"GITHUB_TOKEN": "abc"}, {"GITHUB_TOKEN": M}),
    ("secret", {"client_secret": "abc"}, {"client_secret": M}),
    ("password", {"Password": "hunter2"}, {"Password": M}),
    ("passwd", {"db_passwd": "x"}, {"db_passwd": M}),
    ("numeric password", {"password": 123456}, {"password": M}),
    (
        "authorization header",
        {"headers": {"Authorization": "Bearer abc"}},
        {"headers": {"Authorization": M}},
    ),
    ("cookie", {"Cookie": "sid=1"}, {"Cookie": M}),
    (
        "credentials dict",
        {"credentials": {"user": "bob", "pin": 1}},
        {"credentials": {"user": M, "pin": M}},
    ),
    (
        "nested in list",
        {"items": [{"token": "t1"}, {"name": "ok"}]},
        {"items": [{"token": M}, {"name": "ok"}]},
    ),
    ("list under secret name", {"api_keys": ["a", "b"]}, {"api_keys": [M, M]}),
    ("passphrase", {"passphrase": "x"}, {"passphrase": M}),
    ("pwd", {"pwd": "x", "MYSQL_PWD": "y"}, {"pwd": M, "MYSQL_PWD": M}),
    ("one-word env name", {"PGPASSWORD": "x"}, {"PGPASSWORD": M}),
    ("env name ending in _KEY", {"OPENAI_KEY": "x"}, {"OPENAI_KEY": M}),
    ("private key", {"private_key": "x", "privateKey": "y"}, {"private_key": M, "privateKey": M}),
    ("auth", {"auth": {"user": "bob", "pass": "x"}}, {"auth": {"user": M, "pass": M}}),
    ("session", {"session_id": "abc", "sessionId": "d"}, {"session_id": M, "sessionId": M}),
    ("bare pass", {"user": "bob", "pass": "x"}, {"user": "bob", "pass": M}),
    (
        "headers as pairs",
        {"headers": [["X-Api-Key", "abc"], ["Accept", "text/html"]]},
        {"headers": [["X-Api-Key", M], ["Accept", "text/html"]]},
    ),
    (
        "headers as name and value",
        {"headers": [{"name": "X-Api-Key", "value": "abc"}, {"name": "Accept", "value": "*/*"}]},
        {"headers": [{"name": "X-Api-Key", "value": M}, {"name": "Accept", "value": "*/*"}]},
    ),
    (
        "variables as key and value",
        {"env": [{"key": "GITHUB_TOKEN", "value": "abc"}]},
        {"env": [{"key": "GITHUB_TOKEN", "value": M}]},
    ),
    (
        "pairs inside JSON text",
        {"arguments": '{"headers": [["Authorization", "Bearer abc"]], "url": "u"}'},
        {"arguments": '{"headers": [["Authorization", "***"]], "url": "u"}'},
    ),
    ("JSON text without secrets stays as written", {"a": '{"q":1}'}, {"a": '{"q":1}'}),
    (
        "null and bool stay",
        {"api_key": None, "use_token": True},
        {"api_key": None, "use_token": True},
    ),
    (
        "token counts stay",
        {"max_tokens": 512, "prompt_tokens": 3},
        {"max_tokens": 512, "prompt_tokens": 3},
    ),
    (
        "token counts stay, as strings too",
        {"max_tokens": "512", "reasoning_tokens": 9, "token_count": 4, "tokens": 7},
        {"max_tokens": "512", "reasoning_tokens": 9, "token_count": 4, "tokens": 7},
    ),
    (
        "usage stays",
        {"usage": {"prompt_tokens": 1, "completion_tokens": 2, "reasoning_tokens": 3}},
        {"usage": {"prompt_tokens": 1, "completion_tokens": 2, "reasoning_tokens": 3}},
    ),
    (
        "harmless names stay",
        {"path": "/tmp/a", "query": "python"},
        {"path": "/tmp/a", "query": "python"},
    ),
    (
        "words holding key or token stay",
        {"keyword": "py", "keys": ["a"], "monkey": 1, "key": "sort", "tokenizer": "o200k"},
        {"keyword": "py", "keys": ["a"], "monkey": 1, "key": "sort", "tokenizer": "o200k"},
    ),
    (
        "public and sort keys stay",
        {"public_key": "ssh-ed25519 AAAA", "sort_key": "date", "author": "me"},
        {"public_key": "ssh-ed25519 AAAA", "sort_key": "date", "author": "me"},
    ),
]

BY_SHAPE: list[tuple[str, str, str]] = [
    ("bearer", "Authorization: Bearer abc.def-ghi_jkl", "Authorization: ***"),
    ("bare bearer", "use Bearer eyJhbGciOiJIUzI1NiJ9xyz now", "use Bearer *** now"),
    ("basic", "curl -H 'X: Basic dXNlcjpwYXNzd29yZA=='", "curl -H 'X: Basic ***'"),
    ("token with digits", "send token abcd1234efgh now", "send token *** now"),
    ("lower-case bearer", "Bearer abcdefgh_ijklmnop", "Bearer ***"),
    ("prose at a sentence's end", "We set up token rotation.", "We set up token rotation."),
    # prose that happens to follow the words: a summary or an image prompt is kept
    (
        "prose after basic and token",
        "The user is setting up Basic authentication and token rotation for their blog.",
        "The user is setting up Basic authentication and token rotation for their blog.",
    ),
    (
        "prose after basic",
        "A basic watercolour of a session musician",
        "A basic watercolour of a session musician",
    ),
    (
        "capitalised prose",
        "Bearer Instruments and Token Economics",
        "Bearer Instruments and Token Economics",
    ),
    ("openai key", "key sk-abcdefghijklmnop1234 here", "key *** here"),
    ("openai project key", "sk-proj-AbCdEf0123456789_-xyz", M),
    ("anthropic key", "sk-ant-api03-AAAAAAAAAAAAAAAAAAAA", M),
    ("github token", "ghp_0123456789abcdefghijABCDEFGHIJ", M),
    ("github pat", "github_pat_11ABCDEFG0123456789_abcdefghijkl", M),
    ("hugging face", "hf_abcdefghijklmnopqrstu", M),
    ("slack", "xoxb-123456789012-abcdefghij", M),
    ("google", "AIzaSyA-1234567890abcdefghijklmnopqrstu", M),
    ("aws", "AKIAIOSFODNN7EXAMPLE", M),
    ("jwt", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NSJ9.abcdefghijklmnop", M),
    (
        "env assignment",
        "export OPENAI_API_KEY=sk-abc123456789xyz && run",
        "export OPENAI_API_KEY=*** && run",
    ),
    ("flag equals", "mysql --password=hunter2 db", "mysql --password=*** db"),
    ("flag space", "tool --api-key hunter2 --verbose", "tool --api-key *** --verbose"),
    (
        "json in string",
        '{"password": "hunter2", "user": "bob"}',
        '{"password": "***", "user": "bob"}',
    ),
    ("query parameter", "https://x.io/a?api_key=abc123&q=1", "https://x.io/a?api_key=***&q=1"),
    ("url credentials", "postgres://bob:s3cret@db:5432/x", "postgres://bob:***@db:5432/x"),
    ("private key", "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----", M),
    ("sshpass", "sshpass -p hunter2 ssh bob@host", "sshpass -p *** ssh bob@host"),
    ("sshpass joined", "sshpass -phunter2 scp a host:", "sshpass -p*** scp a host:"),
    ("mysql joined password", "mysql -u root -phunter2 shop", "mysql -u root -p*** shop"),
    ("mysql asks for it", "mysql -u root -p shop", "mysql -u root -p shop"),
    (
        "openssl pass",
        "openssl enc -aes-256-cbc -pass pass:hunter2 -in a.txt",
        "openssl enc -aes-256-cbc -pass pass:*** -in a.txt",
    ),
    ("openssl passin", "openssl rsa -passin pass:hunter2", "openssl rsa -passin pass:***"),
    ("openssl -k", "openssl enc -d -k hunter2 -in a", "openssl enc -d -k *** -in a"),
    ("curl user", "curl -u bob:hunter2 https://x.io", "curl -u bob:*** https://x.io"),
    ("curl --user=", "curl --user=bob:hunter2 https://x.io", "curl --user=bob:*** https://x.io"),
    ("docker user stays", "docker run -u 1000:1000 img", "docker run -u 1000:1000 img"),
    ("env pwd", "MYSQL_PWD=hunter2 mysql db", "MYSQL_PWD=*** mysql db"),
    ("env one word", "PGPASSWORD=hunter2 psql", "PGPASSWORD=*** psql"),
    ("header line", "curl -H 'X-Api-Key: abc123'", "curl -H 'X-Api-Key: ***'"),
    ("inside another value", "opts=a:password=hunter2", "opts=a:password=***"),
    (
        "counts and words stay",
        "?keyword=python&max_tokens=512 --max-tokens 5 --keyword x",
        "?keyword=python&max_tokens=512 --max-tokens 5 --keyword x",
    ),
    ("plain text stays", "list the files in /tmp please", "list the files in /tmp please"),
    ("short sk- words stay", "sk-ip this", "sk-ip this"),
]


@pytest.mark.parametrize(("case", "value", "expected"), BY_NAME, ids=[c[0] for c in BY_NAME])
def test_redaction_by_name(case: str, value: Any, expected: Any) -> None:
    assert redact(value) == expected


@pytest.mark.parametrize(("case", "text", "expected"), BY_SHAPE, ids=[c[0] for c in BY_SHAPE])
def test_redaction_by_shape(case: str, text: str, expected: str) -> None:
    assert redact_text(text) == expected
    assert redact({"arg": text}) == {"arg": expected}  # inside argument values too


@pytest.mark.parametrize("text", [c[1] for c in BY_SHAPE])
def test_redaction_is_idempotent(text: str) -> None:
    once = redact_text(text)
    assert redact_text(once) == once


def test_tool_call_shapes_are_read_and_redacted() -> None:
    data = {
        "tool_calls": [
            {
                "id": "c1",
                "function": {"name": "fetch", "arguments": '{"token": "abc", "url": "u"}'},
            },
            {
                "id": "c2",
                "name": "bash",
                "input": {"command": "curl -H 'Authorization: Bearer zzzzzzzzzz'"},
            },
            {
                "call_id": "c3",
                "name": "note",
                "arguments": "not json: password=letmein",
                "status": "denied",
            },
        ],
        "tool_cards": [{"name": "read", "args": {"path": "a.txt"}}],
        "tools": "not a list",
    }
    calls = tool_calls(data)
    assert [c["name"] for c in calls] == ["fetch", "bash", "note", "read"]
    assert calls[0]["arguments"] == {"token": M, "url": "u"}
    assert calls[1]["arguments"] == {"command": "curl -H 'Authorization: ***'"}
    assert calls[2]["arguments"] == "not json: password=***" and calls[2]["status"] == "denied"
    assert calls[3]["arguments"] == {"path": "a.txt"} and calls[3]["id"] is None
    assert tool_calls(None) == [] and tool_calls({"x": 1}) == []

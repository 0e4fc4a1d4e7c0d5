"""The wire protocol (tabletop/net/protocol.py): every message parses and round-trips, every bad
frame is a ProtocolError with a code (never another exception), and every example of
docs/protocol.md parses."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tabletop.net import protocol as p

DOC = Path(__file__).resolve().parents[1] / "docs" / "protocol.md"


def examples() -> list[dict]:
    return [json.loads(block) for block in re.findall(r"```json\n(.*?)\n```", DOC.read_text(), re.S)]


def sender(message: dict) -> str:
    return "client" if message["type"] in p.CLIENT_MESSAGES else "server"


@pytest.mark.parametrize("example", examples(), ids=lambda e: e["type"])
def test_every_example_of_the_document_parses(example):
    message = p.parse(json.dumps(example), sender(example))
    assert message.TYPE == example["type"]
    assert p.parse(p.encode(message), sender(example)) == message


def test_the_document_shows_every_message_and_every_error_code():
    assert {e["type"] for e in examples()} == set(p.MESSAGES)
    text = DOC.read_text()
    assert f"version {p.VERSION}" in text
    for code in p.ERRORS:
        assert f"| `{code}` |" in text, code


def test_a_message_round_trips():
    message = p.Act("t" * 32, 12, ("discard", (2, 20)))
    again = p.parse(p.encode(message))
    assert again == message and json.loads(p.encode(message))["action"] == ["discard", [2, 20]]
    assert p.action_key(["discard", [2, 20]]) == p.action_key(("discard", (2, 20)))


def refused(frame, side: str = "client") -> str:
    with pytest.raises(p.ProtocolError) as caught:
        p.parse(frame, side)
    assert "\n" not in caught.value.message and caught.value.code in p.ERRORS
    return caught.value.code


@pytest.mark.parametrize("frame,code", [
    (b'{"v": 2, "type": "join", "room": "x"}', "bad-message"),          # binary
    ("", "bad-message"),
    ("{", "bad-message"),
    ("[1, 2]", "bad-message"),
    ('{"type": "join", "room": "x"}', "bad-message"),                 # no version
    ('{"v": true, "type": "join", "room": "x"}', "bad-message"),
    ('{"v": 99, "type": "join", "room": "x"}', "version"),
    ('{"v": 2, "type": "shout"}', "unknown-type"),
    ('{"v": 2, "type": ["act"]}', "unknown-type"),
    ('{"v": 2, "type": {"a": 1}}', "unknown-type"),
    ('{"v": 2, "type": ""}', "unknown-type"),
    ('{"v": 2, "type": "created", "room": "x", "game": "g", "seats": []}', "unknown-type"),   # a server's
    ('{"v": 2, "type": "join"}', "bad-message"),                      # no room
    ('{"v": 2, "type": "join", "room": "x", "admin": true}', "bad-message"),
    ('{"v": 2, "type": "join", "room": 5}', "bad-message"),
    ('{"v": 2, "type": "join", "room": ""}', "bad-message"),
    ('{"v": 2, "type": "join", "room": "x", "spectate": 1}', "bad-message"),
    ('{"v": 2, "type": "act", "token": "t", "step": 1.0, "action": ["roll"]}', "bad-message"),
    ('{"v": 2, "type": "act", "token": "t", "step": true, "action": ["roll"]}', "bad-message"),
    ('{"v": 2, "type": "act", "token": "t", "step": -1, "action": ["roll"]}', "bad-message"),
    ('{"v": 2, "type": "act", "token": "t", "step": 1, "action": []}', "bad-message"),
    ('{"v": 2, "type": "act", "token": "t", "step": 1, "action": [3]}', "bad-message"),
    ('{"v": 2, "type": "act", "token": "t", "step": 1, "action": ["move", {"a": 1}]}', "bad-message"),
    ('{"v": 2, "type": "act", "token": "t", "step": 1, "action": ["move", 1e400]}', "bad-message"),
    ('{"v": 2, "type": "act", "token": "t", "step": 1, "action": ["move", NaN]}', "bad-message"),
    ('{"v": 2, "type": "act", "token": "t", "step": 99999999999999999999, "action": ["roll"]}', "bad-message"),
    ('{"v": 2, "type": "create", "game": "g", "seats": ["remote"], "seed": -3}', "bad-message"),
    ('{"v": 2, "type": "create", "game": "g", "seats": []}', "bad-message"),
    ('{"v": 2, "type": "create", "game": "g", "seats": ["a"], "options": {"x": [1]}}', "bad-message"),
    ("[" * 100_000 + "]" * 100_000, "too-large"),
    ('{"v": 2, "type": "join", "room": "' + "x" * 20_000 + '"}', "too-large"),
    ('{"v": 2, "type": "join", "room": "' + "é" * 9_000 + '"}', "too-large"),
    ("[" * 5000 + "]" * 5000, "bad-message"),
    ('"\\ud800"', "bad-message"),
])
def test_a_bad_frame_is_refused_with_a_code(frame, code):
    assert refused(frame) == code


def test_deep_nesting_under_the_size_limit_is_refused_not_raised():
    for depth in (1000, 3000, 8000):
        assert refused("[" * depth + "]" * depth) == "bad-message"
        assert refused('{"v": 2, "type": "act", "token": "t", "step": 1, "action": ["m", '
                       + "[" * depth + "]" * depth + "]}") in ("bad-message", "too-large")

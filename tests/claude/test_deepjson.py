"""A hook's JSON at any depth: the iterative parser reads what json.loads reads, the same way,
and goes on where json.loads runs out of stack (the real client's JSON.parse does)."""

from __future__ import annotations

import json
import random

import pytest

from harness.claude.deepjson import _parse, loads

SAMPLES = [
    "{}",
    "[]",
    ' { "a" : [1, 2.5, -3e2, true, false, null, "x\\u00e9\\n"], "b": {"c": {}} } ',
    '[[], [[]], {"k": []}]',
    '"just a string"',
    "0",
    '{"dup": 1, "dup": 2}',
]


@pytest.mark.parametrize("text", SAMPLES)
def test_the_stack_parser_reads_what_json_reads(text: str) -> None:
    assert _parse(text) == json.loads(text)


def test_random_documents_read_alike() -> None:
    rng = random.Random(18)

    def value(depth: int) -> object:
        pick = rng.randrange(6 if depth < 6 else 3)
        if pick == 0:
            return rng.choice([True, False, None, rng.randint(-99, 99), rng.random(), 's"\\é'])
        if pick in (1, 2):
            return str(rng.random())
        if pick == 3:
            return [value(depth + 1) for _ in range(rng.randrange(4))]
        return {f"k{i}": value(depth + 1) for i in range(rng.randrange(4))}

    docs = [json.dumps(value(0), indent=rng.choice([None, 2])) for _ in range(300)]
    assert [_parse(d) for d in docs] == [json.loads(d) for d in docs]


@pytest.mark.parametrize(
    "text", ["{", '{"a" 1}', '{"a": 1,}', "[1 2]", "[1] x", "", "{'a': 1}", "tru", "[-]"]
)
def test_broken_json_is_a_decode_error_on_both_paths(text: str) -> None:
    with pytest.raises(json.JSONDecodeError):
        json.loads(text)
    with pytest.raises(json.JSONDecodeError):
        _parse(text)


def test_a_hundred_thousand_levels_are_read() -> None:
    depth = 100_000
    text = '{"decision": "block", "x": ' + '{"a":' * depth + "1" + "}" * depth + "}"
    with pytest.raises(RecursionError):
        json.loads(text)
    data = loads(text)
    assert data["decision"] == "block"
    node, levels = data["x"], 0
    while isinstance(node, dict):
        node, levels = node["a"], levels + 1
    assert (levels, node) == (depth, 1)


def test_deep_and_broken_is_still_a_decode_error() -> None:
    with pytest.raises(json.JSONDecodeError):
        loads("[" * 50_000 + "]" * 49_999)

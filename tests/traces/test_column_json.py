"""The store's JSON text (traces/column_json.py): orjson's speed, json's text.

Differential: random values of every kind a trace holds are encoded by ``column_json.dumps`` and by the json module
with the integrity map's options; the two texts must be byte-identical, and decoding the text and encoding it
canonically must give it back (what the integrity map relies on)."""

from __future__ import annotations

import datetime as dt
import json
import math
import random
import struct
from dataclasses import dataclass
from enum import Enum

import numpy as np
import pytest

from controlplane.traces import column_json
from controlplane.traces.integrity import canonical_json


def reference(value):
    """What the store wrote before orjson: the json module with the integrity map's options, str() for the rest."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def random_text(rng: random.Random) -> str:
    out = []
    for _ in range(rng.randint(0, 10)):
        band = rng.random()
        code = (rng.randint(0, 0x7F) if band < 0.4 else rng.randint(0x80, 0x7FF) if band < 0.6
                else rng.randint(0x800, 0xFFFF) if band < 0.8 else rng.randint(0x10000, 0x10FFFF))
        out.append(chr(0x41 if 0xD800 <= code <= 0xDFFF else code))  # lone surrogates: see their own test
    if rng.random() < 0.05:
        out.append(rng.choice(["re-run", "2e-5", "0.00001", "pre-generation"]))  # text that looks like a small float
    return "".join(out)


def random_float(rng: random.Random) -> float:
    while True:
        band = rng.random()
        if band < 0.4:
            value = rng.uniform(-1, 1) * 10.0 ** rng.randint(-320, 307)
        elif band < 0.6:
            value = struct.unpack("d", struct.pack("Q", rng.getrandbits(64)))[0]  # any bit pattern
        else:
            value = round(rng.uniform(-1000, 1000), rng.randint(0, 8))  # latencies, scores
        if not (math.isnan(value) or math.isinf(value)):
            return value


def random_value(rng: random.Random, depth: int = 0):
    kind = rng.random()
    if depth < 3 and kind < 0.25:
        return {random_text(rng): random_value(rng, depth + 1) for _ in range(rng.randint(0, 5))}
    if depth < 3 and kind < 0.4:
        return [random_value(rng, depth + 1) for _ in range(rng.randint(0, 5))]
    return rng.choice([
        lambda: random_text(rng),
        lambda: random_float(rng),
        lambda: rng.randint(-(2**63), 2**63 - 1),
        lambda: rng.randint(2**64, 2**80),  # past 64 bits: orjson refuses, json writes it
        lambda: rng.choice([True, False, None]),
        lambda: np.float64(random_float(rng)),  # a float subclass: a number, as json writes it
        lambda: np.float32(0.25),  # not a float subclass: str(), as before
        lambda: dt.datetime(2026, 11, 27, 1, 2, 3, tzinfo=dt.UTC),  # str(), not orjson's own form
        lambda: (1, "two"),
    ])()


def test_the_text_is_the_json_modules_for_random_values():
    rng = random.Random(27)
    for _ in range(20_000):
        value = random_value(rng)
        text = column_json.dumps(value)
        assert text == reference(value), value
        if not isinstance(value, (dt.datetime, np.float32)):  # str() of those decodes as a string
            assert canonical_json(json.loads(text)) == text


@dataclass
class Point:
    x: int


class Plain(Enum):
    ONE = 1


class Named(str, Enum):
    PASS = "pass"


@pytest.mark.parametrize("value", [
    {"b": 1, "a": {"d": [1e-05, 2.5e-07, 0.0001, 1e16, -0.0]}},  # small floats: json's forms
    {1: "int key"},  # json writes it, orjson refuses
    {"s": "\ud800"},  # a lone surrogate: json writes it, orjson refuses
    {"p": Point(3)},  # str(), not orjson's dataclass form
    {"e": Named.PASS, "k": [Named.PASS]},
    "é\u2028\x00\x1f\x7f\"\\",
])
def test_the_values_orjson_would_write_otherwise_are_written_by_json(value):
    assert column_json.dumps(value) == reference(value)


def test_nan_and_plain_enums_are_written_as_json_can_read_them_back():
    """The two deliberate differences: NaN and infinities as null (json's NaN is not JSON), a plain Enum as its value.
    The text still decodes and re-encodes to itself, which is what the integrity map needs."""
    value = {"nan": float("nan"), "inf": float("-inf"), "enum": Plain.ONE}
    text = column_json.dumps(value)
    assert json.loads(text) == {"nan": None, "inf": None, "enum": 1}
    assert canonical_json(json.loads(text)) == text

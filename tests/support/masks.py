"""What the mask-store tests (in-process and in the child processes they start) walk: a set of
schemas, and every mask met on seeded random walks of an engine."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np

from gramwright.engine.matcher import GrammarEngine

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "schemas"
SCHEMAS = [
    "string_lengths.json",
    "number_positive_bounded.json",
    "nested_objects_arrays.json",
    "enum_mixed.json",
]


def store_schemas() -> list[dict[str, object]]:
    """The fixture schemas the store tests fill a store with, and one that always exists."""
    out = []
    for name in SCHEMAS:
        path = FIXTURES / name
        if path.exists():
            out.append(json.loads(path.read_text()))
    # always at least these: string bodies with and without bounds, numbers, literals, keys
    out.append(
        {
            "type": "object",
            "properties": {
                "name": {"type": "string", "maxLength": 12},
                "note": {"type": "string"},
                "n": {"type": "number"},
                "k": {"type": "integer", "minimum": 0},
                "ok": {"type": "boolean"},
                "tags": {"type": "array", "items": {"type": "string", "minLength": 2}},
            },
            "required": ["name", "n"],
        }
    )
    return out


def walk_masks(engine: GrammarEngine, seed: int, walks: int = 6, budget: int = 40) -> list[np.ndarray]:
    """Every mask met on ``walks`` random walks (tokens drawn uniformly from each mask)."""
    rng = random.Random(seed)
    out: list[np.ndarray] = []
    for _ in range(walks):
        matcher = engine.matcher()
        for _ in range(budget):
            if matcher.is_terminated():
                break
            bits = matcher.bitmask()
            out.append(bits.copy())
            ids = matcher.allowed_token_ids()
            matcher.consume(int(ids[rng.randrange(ids.size)]))
    return out

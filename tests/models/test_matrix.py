"""Each model of the matrix (the embedded SmolLM2-135M; Gemma 3 270M where installed, else skipped)
through what a user runs: ``generate``, ``extract`` and ``edit`` on the real CLI, and the TUI's
constrained sample; and the decode loop's shortcuts (``models/fast_paths``) taken exactly where
they give transformers' logits bit for bit, else transformers' own greedy outputs."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import torch
from typer.testing import CliRunner

from gramwright.cli.main import app
from gramwright.decode.batch import generate_batch
from gramwright.decode.generate import _cache_argument
from gramwright.decode.kv_rows import KVRows, growing_cache
from gramwright.decode.rows import BatchRequest
from gramwright.models.attention import NAME
from gramwright.models.fast_paths import fast_paths
from tests.support.models import MATRIX, model_arg

pytestmark = [pytest.mark.model, pytest.mark.parametrize("model_name", MATRIX)]

SCHEMA = {
    "type": "object",
    "properties": {
        "item": {"type": "string", "maxLength": 24},
        "quantity": {"type": "integer", "minimum": 1, "maximum": 99},
        "urgent": {"type": "boolean"},
    },
    "required": ["item", "quantity", "urgent"],
    "additionalProperties": False,
}


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def schema_file(tmp_path: Path) -> Path:
    path = tmp_path / "order.json"
    path.write_text(json.dumps(SCHEMA), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def loaded() -> Iterator[dict[str, Any]]:
    """Models loaded once per module, by matrix name."""
    models: dict[str, Any] = {}
    yield models
    models.clear()


def load(loaded: dict[str, Any], name: str) -> Any:
    if name not in loaded:
        from gramwright.models.loader import load_model

        loaded[name] = load_model(model_arg(name), device="cpu")
    return loaded[name]


def shortcut_logits(model: Any, grow: bool) -> list[torch.Tensor]:
    """The logits of the passes the loop makes with its shortcuts (``grow``: the in-place cache,
    rows sliced by ``KVRows``) or transformers' (its own cache, cropped by its own ``crop``):
    a prefill, a 5-position draft of which 3 are rejected, one-token steps."""
    arg = _cache_argument(model)
    prompt = list(range(1000, 1030))
    out: list[torch.Tensor] = []
    with torch.inference_mode():
        extra = {arg: growing_cache(model.config)} if grow else {}
        first = model(input_ids=torch.tensor([prompt]), use_cache=True, **extra)
        out.append(first.logits[:, -1])
        if grow:
            kv = KVRows()
            kv.join(getattr(first, arg), len(prompt))
            feeds: list[list[int]] = [[2000, 2001, 2002, 2003, 2004], [2005], [2006]]
            drops = [3, 0, 0]
            for feed, drop in zip(feeds, drops, strict=True):
                step = model(**kv.chunk([feed], 0), use_cache=True, **{arg: kv.cache})
                kv.cache = getattr(step, arg)
                out.append(step.logits)
                kv.reject([drop])
        else:
            cache = getattr(first, arg)
            length = len(prompt)
            for feed, drop in (([2000, 2001, 2002, 2003, 2004], 3), ([2005], 0), ([2006], 0)):
                ids = torch.tensor([feed])
                pos = torch.arange(length, length + len(feed)).unsqueeze(0)
                mask = torch.ones(1, length + len(feed), dtype=torch.long)
                step = model(
                    input_ids=ids, attention_mask=mask, position_ids=pos, use_cache=True, **{arg: cache}
                )
                cache = getattr(step, arg)
                out.append(step.logits)
                length += len(feed) - drop
                if drop:
                    cache.crop(-drop)  # transformers' own crop: a negative count removes that many
    return out


def test_the_shortcuts_are_taken_only_where_the_logits_are_transformers_bit_for_bit(
    model_name: str, loaded: dict[str, Any]
) -> None:
    lm = load(loaded, model_name)
    model = lm.model
    paths = fast_paths(model)
    attends = model.config._attn_implementation
    try:
        model.set_attn_implementation("sdpa")
        plain = shortcut_logits(model, grow=False)
        if attends == NAME:
            model.set_attn_implementation(NAME)
        try:
            mine = shortcut_logits(model, grow=True)
            same = all(torch.equal(a, b) for a, b in zip(plain, mine, strict=True))
        except RuntimeError:  # e.g. a mask one column per forgotten position too wide
            same = False
    finally:
        model.set_attn_implementation(attends)
    assert paths.cache == same, paths.reason
    assert paths.attention == (attends == NAME)
    if not paths.cache:
        # decoded as transformers does: its greedy tokens, alone and beside another request
        prompts = ["Write a haiku about the sea.", "List three colours:"]
        ids = [lm.tokenizer(p, return_tensors="pt", add_special_tokens=False).input_ids for p in prompts]
        with torch.inference_mode():
            want = [
                model.generate(i, attention_mask=torch.ones_like(i), do_sample=False, max_new_tokens=12)[
                    0, i.shape[-1] :
                ].tolist()
                for i in ids
            ]
        batch = generate_batch(model, lm.tokenizer, [BatchRequest(p, max_tokens=12) for p in prompts])
        got = [list(r.token_ids) for r in batch.results]
        assert got == [w[: len(g)] for w, g in zip(want, got, strict=True)]
        assert batch.transformers_path == paths.reason


def test_generate(model_name: str, schema_file: Path) -> None:
    model = model_arg(model_name)
    code, out, err = run(
        "generate", "--schema", str(schema_file), "--prompt", "Order: 3 office chairs, urgent.",
        "--max-tokens", "64", "--format", "json", *(["--model", model] if model else []),
    )  # fmt: skip
    assert code == 0, err
    data = json.loads(out)
    assert data["finish_reason"] == "stop", data
    jsonschema.validate(json.loads(data["text"]), SCHEMA)


def test_extract(model_name: str, schema_file: Path, tmp_path: Path) -> None:
    model = model_arg(model_name)
    rows = tmp_path / "in.jsonl"
    rows.write_text(
        "\n".join(
            json.dumps({"id": i, "prompt": p})
            for i, p in enumerate(["Order: 2 desks, not urgent.", "Order: 5 lamps, urgent!"])
        )
        + "\n",
        encoding="utf-8",
    )
    output = tmp_path / "out.jsonl"
    code, out, err = run(
        "extract", "--schema", str(schema_file), "--input", str(rows), "--output", str(output),
        "--max-tokens", "64", "--batch", "2", "--format", "json", *(["--model", model] if model else []),
    )  # fmt: skip
    assert code == 0, (out, err)
    results = [json.loads(line) for line in output.read_text(encoding="utf-8").splitlines()]
    assert len(results) == 2
    for row in results:
        assert row["status"] == "ok", row
        jsonschema.validate(row["value"], SCHEMA)


def test_edit_applies_and_keeps_the_other_lines(model_name: str, tmp_path: Path) -> None:
    model = model_arg(model_name)
    target = tmp_path / "config.py"
    original = 'NAME = "demo"\nPORT = 8000\nDEBUG = False\n'
    target.write_text(original, encoding="utf-8")
    code, out, err = run(
        "edit", str(target), "-i", "Change PORT to 9000.", "--root", str(tmp_path),
        "--max-tokens", "64", "--max-replace-lines", "2", "--apply", "--format", "json",
        *(["--model", model] if model else []),
    )  # fmt: skip
    data = json.loads(out)
    assert data["constrained"]
    if data["finish_reason"] != "stop":
        assert code == 1 and target.read_text(encoding="utf-8") == original
        pytest.skip(f"{model_name} did not close its block within 64 tokens")
    problems = (data.get("check") or {}).get("problems", [])
    if any(p["reason"] == "syntax" for p in problems):
        # the grammar guarantees the blocks match the file, not that the new lines are Python: the
        # syntax gate refused them, and nothing may have been written
        assert code == 1 and not data["applied"]
        assert target.read_text(encoding="utf-8") == original
        pytest.skip(f"{model_name} wrote new lines that do not parse (refused by the syntax gate)")
    # a finished constrained patch always matches: the grammar knows the file
    assert code == 0, (err, out)
    assert data["applicable"] and data["applied"]
    code, _out, err = run("undo", "--root", str(tmp_path))
    assert code == 0, err
    assert target.read_text(encoding="utf-8") == original


@pytest.mark.anyio
async def test_tui_sample(model_name: str, schema_file: Path) -> None:
    from gramwright.tui.app import GramwrightApp
    from tests.support.tui import static_text, wait_for

    model = model_arg(model_name)
    async with GramwrightApp(schema_file, model=model, max_tokens=64).run_test(size=(140, 44)) as pilot:
        await pilot.pause()
        panel = pilot.app.sample_panel
        await pilot.press("f8")
        await wait_for(pilot, lambda: panel.tokens >= 1 or not panel.running, 600.0)
        await wait_for(pilot, lambda: not panel.running, 600.0)
        result = static_text(pilot.app, "#sample-result")
        assert "finish: stop" in result, result
        jsonschema.validate(json.loads(panel.output_text), SCHEMA)

"""``bench/e2e.py --fresh-process``: ``gramwright generate --format json`` as a user runs it, then
the peers replaying the same tokens, each in its own new process.

For each schema (the purchase-order example and schemas of the conformance data that our
compiler takes): one ``gramwright generate`` process on the embedded model, with the mask store
built beforehand by ``gramwright warm`` (its own schemas only; the generations' schemas are new
to it), reports ``mask_us`` p50/p99/mean — the time from a new state to a mask ready to apply
to the logits, unpacked on the logits' device — and the masker's share of the token time. Then
llguidance and XGrammar, each in a new process, compile the same schema and replay the same
token ids (the generation's, plus the mask before its end-of-sequence token), timing each
``fill_next_token_bitmask`` alone and with the unpacking to a blocked-token tensor that our
``mask_us`` includes (ratios against both are reported).

Each peer replays twice: in a tight loop (masks only, one after another), and *in the decode
loop*: the same model's forward pass on the same prompt and tokens runs before each mask, as in
``gramwright generate``. The two differ by the caches: a forward pass of a 135M model streams
its weights, so whatever a masker touches next comes from memory, not from its caches (on a
replay of one purchase-order generation, copying 64 MB between masks took llguidance's p50 from
~7 to ~125 µs and ours from ~47 to ~280 µs). Our ``mask_us`` is always in the decode loop, so
the in-loop replay is the like-for-like comparison; the tight loop is reported beside it.

Form is guaranteed by the mask; the generated values are the tiny model's and are not judged
here.

    python bench/e2e.py --json --fresh-process [--schemas 6] [--max-tokens 96]
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench.masks import SPLITS, pick_cases
from gramwright.serving.engines import MaskEngine, mask_engine

ROOT = Path(__file__).resolve().parents[1]
PROMPT = "Write one example JSON document for this schema, with realistic values."


def peer_child(peer: str, case_file: str, in_loop: bool = False) -> None:
    """One fresh process: compile the schema with ``peer`` and replay the token ids; with
    ``in_loop``, the model's forward pass runs before each mask, as in ``gramwright generate``."""
    case = json.loads(Path(case_file).read_text())
    from gramwright.models.loader import load_tokenizer

    hf_tok = load_tokenizer()
    forward = _decode_loop(case) if in_loop else None
    engine: MaskEngine = mask_engine(peer, hf_tok, vocab_size=case["vocab_size"])
    t0 = time.perf_counter()
    compiled = engine.compile(case["schema"])
    compile_ms = (time.perf_counter() - t0) * 1000
    from gramwright.decode.masking import blocked_from_bitmask

    matcher = engine.matcher(compiled)
    words = engine.bitmask if isinstance(engine.bitmask, np.ndarray) else engine.bitmask.numpy()
    us: list[float] = []
    ready_us: list[float] = []
    rejected = 0
    for i, tid in enumerate([*case["token_ids"], None]):
        if tid is None and not case["stopped"]:
            break
        if forward is not None:
            forward(i)
        t1 = time.perf_counter()
        engine.mask(matcher)
        t2 = time.perf_counter()
        # what our mask_us also counts: the bitset unpacked to the blocked-token tensor
        blocked_from_bitmask(words[0], case["vocab_size"])
        t3 = time.perf_counter()
        us.append((t2 - t1) * 1e6)
        ready_us.append((t3 - t1) * 1e6)
        if tid is not None and not engine.consume(matcher, tid):
            rejected = len(case["token_ids"]) - i
            break
    print(json.dumps({"us": us, "ready_us": ready_us, "compile_ms": compile_ms, "rejected": rejected}))


def _decode_loop(case: dict[str, Any]) -> Any:
    """A function that runs the forward pass before mask ``i`` as ``gramwright generate`` does
    (the embedded model, the same prompt, the KV cache; token ``i - 1`` fed back): its logits are
    not used, only its effect on the caches is wanted."""
    import torch

    from gramwright.decode.generate import _cache_argument
    from gramwright.decode.prompt import system_prompt
    from gramwright.models.loader import apply_chat_template, load_model

    lm = load_model()
    text = apply_chat_template(lm.tokenizer, system_prompt(schema=case["schema"]), PROMPT)
    prompt = lm.tokenizer(text, return_tensors="pt", add_special_tokens=False).input_ids
    cache_arg = _cache_argument(lm.model)
    state: dict[str, Any] = {"past": None}

    @torch.inference_mode()
    def forward(i: int) -> None:
        ids = prompt if i == 0 else torch.tensor([[case["token_ids"][i - 1]]])
        out = lm.model(input_ids=ids, use_cache=True, **{cache_arg: state["past"]})
        state["past"] = getattr(out, cache_arg)

    return forward


def _stats(values: list[float]) -> dict[str, Any]:
    """The peer's per-mask µs summarised by the same percentile rule as our ``mask_us`` metrics."""
    from gramwright.decode.generate import _percentile

    if not values:
        return {"n": 0, "p50": None, "p99": None, "mean": None}
    return {
        "n": len(values),
        "p50": round(_percentile(values, 50), 1),
        "p99": round(_percentile(values, 99), 1),
        "mean": round(statistics.fmean(values), 1),
    }


def _schemas(count: int, work: Path) -> list[tuple[str, Path]]:
    """The purchase-order example, then one schema per data split that our compiler takes."""
    from gramwright.schema import compile_schema

    out = [("docs/examples/purchase_order.json", ROOT / "docs" / "examples" / "purchase_order.json")]
    for name, schema, _ in pick_cases(list(SPLITS), 1, 1):
        if len(out) >= count:
            break
        try:
            compile_schema(schema)
        except Exception:  # noqa: BLE001 - a schema we refuse is not generated for
            continue
        path = work / (name.replace("/", "__") + ".json")
        path.write_text(json.dumps(schema))
        out.append((name, path))
    return out


def run(count: int, max_tokens: int) -> dict[str, Any]:
    from gramwright.engine.vocab import TokenVocabulary
    from gramwright.models.loader import load_tokenizer

    vocab_size = TokenVocabulary.from_tokenizer(load_tokenizer()).size
    work = Path(tempfile.mkdtemp(prefix="gw-e2e-fresh-"))
    env = {**os.environ, "GRAMWRIGHT_CACHE": str(work / "store")}
    t0 = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "gramwright.cli.main", "warm"], env=env, check=True, capture_output=True
    )
    warm_s = time.perf_counter() - t0
    rows: list[dict[str, Any]] = []
    for i, (name, path) in enumerate(_schemas(count, work)):
        print(f"[{i + 1}/{count}] {name}", file=sys.stderr)
        t1 = time.perf_counter()
        argv = ["generate", "--schema", str(path), "--prompt", PROMPT, "--max-tokens", str(max_tokens)]
        gen = subprocess.run(
            [sys.executable, "-m", "gramwright.cli.main", *argv, "--format", "json"],
            env=env, capture_output=True, text=True, check=False,
        )  # fmt: skip
        wall = time.perf_counter() - t1
        if not gen.stdout.strip().startswith("{"):
            rows.append({"schema": name, "error": gen.stderr.strip().splitlines()[-1:]})
            continue
        out = json.loads(gen.stdout)
        m = out["metrics"]
        row: dict[str, Any] = {
            "schema": name,
            "finish_reason": out["finish_reason"],
            "tokens": out["tokens"],
            "process_s": round(wall, 1),
            "ours": {
                "engine_ms": m.get("engine_ms"),
                "p50": m.get("mask_us_p50"),
                "p99": m.get("mask_us_p99"),
                "mean": m.get("mask_us_mean"),
                "share_of_token": m.get("mask_share_of_token"),
                "ms_per_token": m.get("ms_per_token"),
                "forward_ms_median": m.get("forward_ms_median"),
            },
            # the budget's closing zone: steps where it refused the model's token, their masks apart
            "closed_by_budget": out.get("closed_by_budget"),
            "closing": {
                "steps": m.get("closing_steps"),
                "p50": m.get("mask_us_closing_p50"),
                "p99": m.get("mask_us_closing_p99"),
                "ample_p50": m.get("mask_us_ample_p50"),
                "ample_p99": m.get("mask_us_ample_p99"),
            },
        }
        case_file = work / "case.json"
        case_file.write_text(
            json.dumps(
                {
                    "schema": json.loads(path.read_text()),
                    "token_ids": out["token_ids"],
                    "stopped": out["finish_reason"] == "stop",
                    "vocab_size": vocab_size,
                }
            )
        )
        for peer in ("llguidance", "xgrammar"):
            for loop in ("tight", "in_loop"):
                proc = subprocess.run(
                    [sys.executable, "-m", "bench.e2e_fresh", "--peer-child", peer, str(case_file), loop],
                    cwd=ROOT, env=env, capture_output=True, text=True, check=False,
                )  # fmt: skip
                name = peer if loop == "tight" else f"{peer}_in_loop"
                if proc.returncode != 0:
                    row[name] = {"error": proc.stderr.strip().splitlines()[-1:]}
                    continue
                got = json.loads(proc.stdout.strip().splitlines()[-1])
                row[name] = {
                    "fill": _stats(got["us"]),
                    "fill_and_unpack": _stats(got["ready_us"]),
                    "compile_ms": round(got["compile_ms"], 1),
                    "rejected": got["rejected"],
                }
                if got["rejected"]:  # the peer refused our tokens part way: its times cover a prefix
                    continue
                for what in ("fill", "fill_and_unpack"):
                    theirs = row[name][what]
                    row[f"ratio_vs_{name}_{what}"] = {
                        k: round(row["ours"][k] / theirs[k], 2) if theirs[k] and row["ours"][k] else None
                        for k in ("p50", "p99", "mean")
                    }
        rows.append(row)

    def median_ratio(peer: str, what: str) -> dict[str, Any]:
        got = [r[f"ratio_vs_{peer}_{what}"] for r in rows if f"ratio_vs_{peer}_{what}" in r]
        out: dict[str, Any] = {"schemas": len(got)}
        for k in ("p50", "p99", "mean"):
            vals = [g[k] for g in got if g[k] is not None]
            out[k] = round(statistics.median(vals), 2) if vals else None
        return out

    shares = [
        r["ours"]["share_of_token"] for r in rows if "ours" in r and r["ours"]["share_of_token"] is not None
    ]
    return {
        "fresh_process": True,
        "store_warm_s": round(warm_s, 1),
        "max_tokens": max_tokens,
        "schemas": rows,
        "ratio_median": {
            f"{peer}_{what}": median_ratio(peer, what)
            for peer in ("llguidance", "llguidance_in_loop", "xgrammar", "xgrammar_in_loop")
            for what in ("fill", "fill_and_unpack")
        },
        "ours_share_of_token_median": round(statistics.median(shares), 4) if shares else None,
        "note": "peers: each in a new process replaying our generation's token ids, in a tight loop and"
        " '_in_loop' (the model's forward pass before each mask, as our mask_us is measured); 'fill' is"
        " the bitset only, 'fill_and_unpack' adds the unpacking to a blocked-token tensor that our"
        " mask_us counts",
    }


if __name__ == "__main__" and len(sys.argv) == 5 and sys.argv[1] == "--peer-child":
    peer_child(sys.argv[2], sys.argv[3], in_loop=sys.argv[4] == "in_loop")

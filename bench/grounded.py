"""Grounded extraction vs ungrounded, on the embedded model, greedy.

44 short extraction requests (Chinese and English, four schemas, some values absent from the text
where the schema allows null; ``bench/grounded_requests.py``) each run twice under the masks:
once with the schema as written without ``x-grounded`` (ungrounded), once grounded in the
request's text. Reported, per field and overall: exact-match accuracy against the gold record
with counts, the share of values found verbatim in the text (strings as substrings, numbers
among the text's numbers), ``ok`` (finished and valid), tokens, time, the time to build each
source's grammar, the engine build, and the masker's share of token time.

Before any model runs, completeness: every gold record, written as the grammar writes it, is
fed token by token (the real tokenizer's tokens) through the grounded grammar's masks, and must
end where end-of-sequence is allowed.

    python -m bench.grounded --json [--limit N] [--max-tokens 96]
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics
import sys
import time
from typing import Any

from bench.grounded_requests import REQUESTS, SCHEMAS

PROMPT = (
    "Extract the fields from the text below as JSON. Copy each value exactly as the text writes it; "
    "use null when the text does not say.\nText: {text}"
)


def strip_grounding(schema: Any) -> Any:
    out = copy.deepcopy(schema)
    stack = [out]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            node.pop("x-grounded", None)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return out


def gold_text(gold: dict[str, Any], text: str) -> str:
    """The gold record as the grounded grammar writes it: compact JSON, numbers as the text's
    normalised spelling (``45.90`` stays ``45.90``)."""
    from gramwright.schema.grounding import source_numbers

    numbers = source_numbers(text)

    def dump(value: Any) -> str:
        if isinstance(value, bool) or value is None or isinstance(value, str):
            return json.dumps(value, ensure_ascii=False)
        if isinstance(value, int | float):
            for n in numbers:
                if n.value == value:
                    return n.text
            return json.dumps(value)
        if isinstance(value, list):
            return "[" + ",".join(dump(v) for v in value) + "]"
        return (
            "{" + ",".join(f"{json.dumps(k, ensure_ascii=False)}:{dump(v)}" for k, v in value.items()) + "}"
        )

    return dump(gold)


def completeness(sources: dict[str, Any], vocab: Any, tokenizer: Any) -> dict[str, Any]:
    from gramwright.engine.matcher import GrammarEngine
    from gramwright.grammar.substrings import substring_rules, suffix_automaton

    accepted = 0
    failures: list[str] = []
    build_ms: list[float] = []
    rules: list[int] = []
    for name, text, gold in REQUESTS:
        # a cold build: no automaton, rules or grounded source of this text cached
        substring_rules.cache_clear()
        suffix_automaton.cache_clear()
        sources[name]._by_source.clear()
        grounded = sources[name].with_source(text)
        build_ms.append(grounded.ground_ms)
        rules.append(len(grounded.grammar.rules) - len(sources[name].grammar.rules))
        doc = gold_text(gold, text)
        matcher = GrammarEngine(grounded.grammar, vocab).matcher()
        ok = True
        for token in tokenizer(doc, add_special_tokens=False).input_ids:
            if token not in set(matcher.allowed_token_ids().tolist()):
                failures.append(
                    f"{doc}: token {tokenizer.decode([token])!r} refused after {matcher.output!r}"
                )
                ok = False
                break
            matcher.consume(token)
        if ok and not set(vocab.eos_ids) & set(matcher.allowed_token_ids().tolist()):
            failures.append(f"{doc}: end of sequence refused")
            ok = False
        accepted += ok
    build_ms.sort()
    return {
        "gold_records": len(REQUESTS),
        "accepted": accepted,
        "failures": failures,
        "build_ms_per_source": {
            "p50": round(build_ms[len(build_ms) // 2], 2),
            "max": round(build_ms[-1], 2),
            "mean": round(statistics.mean(build_ms), 2),
        },
        "rules_added_per_source": {"p50": sorted(rules)[len(rules) // 2], "max": max(rules)},
        "source_chars": {"max": max(len(t) for _, t, _ in REQUESTS)},
    }


def verbatim(value: Any, grounded_schema: Any, text: str) -> tuple[int, int]:
    """(values found in the text, grounded values) of a document, nulls and empty strings aside."""
    from gramwright.schema.grounding import grounded_values

    got = [g for g in grounded_values(value, grounded_schema, text) if g.value not in ("", None)]
    return sum(g.found for g in got), len(got)


def interleaved() -> list[tuple[int, tuple[str, str, dict[str, Any]]]]:
    """The requests round-robin over the schemas (a partial run still covers every schema)."""
    by_schema: dict[str, list[tuple[int, tuple[str, str, dict[str, Any]]]]] = {}
    for i, request in enumerate(REQUESTS):
        by_schema.setdefault(request[0], []).append((i, request))
    out: list[tuple[int, tuple[str, str, dict[str, Any]]]] = []
    queues = list(by_schema.values())
    while any(queues):
        for q in queues:
            if q:
                out.append(q.pop(0))
    return out


def read_runs(path: str | None) -> list[dict[str, Any]]:
    if not path:
        return []
    try:
        with open(path, encoding="utf-8") as fh:
            rows = [json.loads(line) for line in fh if line.endswith("\n")]
    except FileNotFoundError:
        return []
    # two processes meeting in the middle may both finish one request: the first row counts
    first: dict[tuple[int, str], dict[str, Any]] = {}
    for row in rows:
        first.setdefault((row["id"], row["variant"]), row)
    return list(first.values())


def run(
    limit: int | None, max_tokens: int, runs_path: str | None = None, reverse: bool = False
) -> dict[str, Any]:
    from gramwright.generation import Generator, SamplingOptions
    from gramwright.models.loader import load_tokenizer
    from gramwright.schema.grounding import ground_schema
    from gramwright.sources import load_for_generation

    order = interleaved()
    requests = order[:limit] if limit else order
    if reverse:  # a second process works from the other end of the same runs file
        requests = requests[::-1]
    grounded_src = {
        name: load_for_generation(f"{name}.json", text=json.dumps(schema)) for name, schema in SCHEMAS.items()
    }
    plain_src = {
        name: load_for_generation(f"{name}.json", text=json.dumps(strip_grounding(schema)))
        for name, schema in SCHEMAS.items()
    }
    grounded_schemas = {name: ground_schema(schema) for name, schema in SCHEMAS.items()}
    generator = Generator()
    generator.load_model()
    vocab = generator._vocab  # the loaded model's vocabulary (what the masks are built over)
    complete = completeness(grounded_src, vocab, load_tokenizer())
    print(f"completeness: {complete['accepted']}/{complete['gold_records']}", file=sys.stderr)
    runs: list[dict[str, Any]] = []
    for n, (i, (name, text, gold)) in enumerate(requests):
        finished = {(r["id"], r["variant"]) for r in read_runs(runs_path)}
        for variant in ("ungrounded", "grounded"):
            if (i, variant) in finished:
                continue
            source = plain_src[name]
            ground_ms = None
            if variant == "grounded":
                grounded_src[name]._by_source.pop(text, None)  # time a cold build for each source
                source = grounded_src[name].with_source(text)
                ground_ms = source.ground_ms
            t0 = time.perf_counter()
            result = generator.run(
                source, PROMPT.format(text=text), sampling=SamplingOptions(max_tokens=max_tokens)
            )
            seconds = time.perf_counter() - t0
            assert result.validation is not None
            value = result.validation.value if result.validation.parsed else None
            fields = {
                k: (isinstance(value, dict) and k in value and value[k] == g and type(value[k]) is not bool)
                for k, g in gold.items()
            }
            found, total = (
                verbatim(value, grounded_schemas[name], text) if isinstance(value, dict) else (0, 0)
            )
            row = {
                "id": i,
                "schema": name,
                "variant": variant,
                "text": text,
                "output": result.text,
                "ok": result.ok,
                "finish_reason": result.finish_reason,
                "fields": fields,
                "verbatim": [found, total],
                "tokens": result.tokens,
                "seconds": round(seconds, 2),
                "ms_per_token": result.metrics.get("ms_per_token"),
                "mask_share": result.metrics.get("mask_share_of_token"),
                "mask_us_p50": result.metrics.get("mask_us_p50"),
                "engine_ms": result.metrics.get("engine_ms"),
                "ground_ms": None if ground_ms is None else round(ground_ms, 2),
            }
            runs.append(row)
            if runs_path:  # one write per row: two processes may append to the same file
                with open(runs_path, "a", encoding="utf-8") as fh:
                    fh.write(json.dumps(row, ensure_ascii=False) + "\n")
            print(
                f"[{n + 1}/{len(requests)}] {variant:10} ok={result.ok} "
                f"match={sum(fields.values())}/{len(fields)} {result.text}",
                file=sys.stderr,
            )
    if runs_path:
        wanted = {i for i, _ in requests}
        runs = [r for r in read_runs(runs_path) if r["id"] in wanted]
    return {"completeness": complete, **summarize(runs), "runs": runs}


def summarize(runs: list[dict[str, Any]]) -> dict[str, Any]:
    per_field: dict[str, dict[str, list[int]]] = {}
    overall: dict[str, dict[str, Any]] = {}
    for variant in ("ungrounded", "grounded"):
        mine = [r for r in runs if r["variant"] == variant]
        for r in mine:
            for field, hit in r["fields"].items():
                key = f"{r['schema']}.{field}"
                counts = per_field.setdefault(key, {"ungrounded": [0, 0], "grounded": [0, 0]})[variant]
                counts[0] += hit
                counts[1] += 1
        found = sum(r["verbatim"][0] for r in mine)
        total = sum(r["verbatim"][1] for r in mine)
        hits = sum(sum(r["fields"].values()) for r in mine)
        n = sum(len(r["fields"]) for r in mine)
        overall[variant] = {
            "requests": len(mine),
            "ok": sum(r["ok"] for r in mine),
            "fields_exact": [hits, n],
            "verbatim": [found, total],
            "verbatim_share": round(found / total, 4) if total else None,
            "tokens": sum(r["tokens"] for r in mine),
            "seconds": round(sum(r["seconds"] for r in mine), 1),
            "ms_per_token_median": statistics.median(r["ms_per_token"] or 0 for r in mine) if mine else None,
            "mask_share_mean": round(statistics.mean(r["mask_share"] or 0 for r in mine), 4)
            if mine
            else None,
            "engine_ms_median": statistics.median(r["engine_ms"] or 0 for r in mine) if mine else None,
        }
    builds = sorted(r["ground_ms"] for r in runs if r["ground_ms"] is not None)
    if builds:
        overall["grounded"]["build_ms_per_source"] = {
            "p50": builds[len(builds) // 2],
            "max": builds[-1],
            "mean": round(statistics.mean(builds), 2),
        }
    not_worse = [k for k, v in per_field.items() if v["grounded"][0] >= v["ungrounded"][0]]
    return {
        "overall": overall,
        "per_field": per_field,
        "fields_grounded_not_worse": [len(not_worse), len(per_field)],
        "fields_grounded_worse": sorted(set(per_field) - set(not_worse)),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--limit", type=int, default=None, help="only the first N requests")
    parser.add_argument("--max-tokens", type=int, default=96)
    parser.add_argument("--threads", type=int, default=1, help="torch threads (0: torch's default)")
    parser.add_argument("--runs", default=None, help="JSONL of finished runs: appended to, and resumed from")
    parser.add_argument("--reverse", action="store_true", help="work through the requests last first")
    args = parser.parse_args(argv)
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    result = run(args.limit, args.max_tokens, args.runs, args.reverse)
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        print(json.dumps({k: v for k, v in result.items() if k != "runs"}, indent=2, ensure_ascii=False))
    return 0 if result["completeness"]["accepted"] == result["completeness"]["gold_records"] else 1


if __name__ == "__main__":
    sys.exit(main())

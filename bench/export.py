"""Export benchmark: every export of every grammar loaded in the real engines, and differential
acceptance of documents between our recognizer and each engine reading each export.

    python -m bench.export --json                # bundled + fixtures + 300 JSONSchemaBench schemas
    python -m bench.export --sample 50 --docs 20 # quicker

Grammars: the bundled grammars, the snapshot fixture schemas (``tests/fixtures/schemas``) and
``--sample`` schemas drawn from the JSONSchemaBench splits (``../shared/data/jsonschemabench``;
skipped when absent): the first that compile, in the order of the SHA-1 of their ids. Every
target is exported (the request bodies must be JSON holding the grammar text) and each text is
loaded where it is served: ``gbnf`` in XGrammar and llguidance, ``lark`` in both,
``llamacpp-lark`` in llguidance (:data:`gramwright.serving.differential.PAIRS`).

Documents, as our grammar writes them: for a JSONSchemaBench schema, each valid and invalid test
instance — the text our recognizer accepts (some member order, :func:`recorded_text`) or, when
it accepts none, the canonical text in the schema's member order; for the bundled grammars and
the fixtures (which carry no instances), ``--docs`` seeded random derivations, every second one
mutated by one character. Each document is judged by the recognizer and by every loaded pair;
every disagreement is listed with its cause.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "jsonschemabench"
FIXTURES = ROOT / "tests" / "fixtures" / "schemas"


def hinted_text(value: Any, key_order: Any, draft4: bool) -> str:
    """The canonical text with each object's members in the hint's order (schema order)."""
    from gramwright.schema.canonical import dumps

    if isinstance(value, list):
        return "[" + ",".join(hinted_text(v, key_order, draft4) for v in value) + "]"
    if isinstance(value, dict):
        keys = key_order.order(list(value))
        members = (
            json.dumps(k, ensure_ascii=False) + ":" + hinted_text(value[k], key_order, draft4) for k in keys
        )
        return "{" + ",".join(members) + "}"
    return dumps(value, draft4)


def instance_text(rec: Any, value: Any, key_order: Any, draft4: bool) -> bytes | None:
    from gramwright.schema.canonical import SearchBudgetExceeded, recorded_text

    try:
        found = recorded_text(rec, value, budget=20_000, key_order=key_order)
    except SearchBudgetExceeded:
        found = None
    except (ValueError, TypeError):
        return None  # no JSON text (a non-finite number): nothing to send to any engine
    rec.reset()
    return found if found is not None else hinted_text(value, key_order, draft4).encode("utf-8")


def sampled_documents(grammar: Any, seed: str, count: int) -> list[bytes]:
    from gramwright.serving.samples import mutate, sample_document

    rnd = random.Random(seed)

    def choose(n: int) -> int:
        return rnd.randrange(n)

    docs = []
    for i in range(count):
        doc = sample_document(grammar, choose)
        docs.append((mutate(doc, choose) if i % 2 else doc).encode("utf-8"))
    return docs


def bench_groups(sample: int) -> tuple[list[tuple[str, Any, list[bytes] | None, Any]], dict[str, int]]:
    """(id, prepared grammar, documents or None, compiled schema extras) for the sampled schemas."""
    from gramwright.grammar.analysis import prepare
    from gramwright.recognizer import Recognizer, clear_compile_cache, compile_grammar
    from gramwright.schema.api import compile_schema
    from gramwright.schema.canonical import KeyOrder
    from gramwright.schema.compiler.options import CompileOptions
    from gramwright.schema.conformance import discover
    from gramwright.schema.resolve import SchemaRegistry

    groups = sorted(discover(DATA), key=lambda g: hashlib.sha1(g.id.encode()).hexdigest())
    out: list[tuple[str, Any, list[bytes] | None, Any]] = []
    skipped: Counter[str] = Counter()
    for group in groups:
        if len(out) >= sample:
            break
        try:
            registry = SchemaRegistry(group.schema, default_draft=group.draft, remotes=group.remotes)
            options = CompileOptions(formats="assert", default_draft=group.draft, timeout_s=10.0)
            compiled = compile_schema(group.schema, options=options, registry=registry)
            grammar = prepare(compiled.grammar)
            rec = Recognizer(compile_grammar(grammar))
        except Exception as exc:  # noqa: BLE001 - a refused schema is skipped and counted
            skipped[type(exc).__name__] += 1
            continue
        key_order = KeyOrder(compiled.member_orders)
        docs = [instance_text(rec, t.data, key_order, registry.root_draft <= 4) for t in group.tests]
        out.append((group.id, grammar, [d for d in docs if d is not None], None))
        clear_compile_cache()
    return out, dict(skipped)


def run_grammar(gid: str, kind: str, grammar: Any, docs: list[bytes], report: dict[str, Any]) -> None:
    from gramwright.grammar.export import REQUEST_TARGETS, TARGETS, export_grammar
    from gramwright.recognizer import Recognizer, clear_compile_cache, compile_grammar
    from gramwright.serving.differential import PAIRS, load_exports

    t0 = time.perf_counter()
    for target in TARGETS:
        exported = export_grammar(grammar, target)
        if target in REQUEST_TARGETS:
            json.loads(exported.text)  # a body that is not JSON is a failure of the target
    report["export_ms"].append((time.perf_counter() - t0) * 1000)
    t1 = time.perf_counter()
    loaded = load_exports(grammar)
    report["load_ms"].append((time.perf_counter() - t1) * 1000)
    for pair in PAIRS:
        key = f"{pair[0]}@{pair[1]}"
        report["loads"][key]["tried"] += 1
        if pair in loaded.load_errors:
            report["load_failures"].append({"grammar": gid, "pair": key, "error": loaded.load_errors[pair]})
        else:
            report["loads"][key]["loaded"] += 1
    rec = Recognizer(compile_grammar(grammar))
    for doc in docs:
        case = loaded.judge(rec, doc)
        for pair, verdict in case.theirs.items():
            stats = report["agreement"][f"{pair[0]}@{pair[1]}"]
            stats["cases"] += 1
            stats[kind] += 1
            if verdict == case.ours:
                stats["agree"] += 1
            else:
                report["disagreements"].append(
                    {
                        "grammar": gid,
                        "pair": f"{pair[0]}@{pair[1]}",
                        "document": doc.decode("utf-8", "replace")[:300],
                        "recognizer": case.ours,
                        "engine": verdict,
                        "cause": loaded.cause(pair, case),
                    }
                )
    report["grammars"][kind] += 1
    report["documents"][kind] += len(docs)
    clear_compile_cache()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--sample", type=int, default=300, help="JSONSchemaBench schemas (default 300)")
    parser.add_argument("--docs", type=int, default=40, help="sampled documents per bundled/fixture grammar")
    args = parser.parse_args(argv)

    from gramwright.grammar.bundled import bundled_names, load_bundled
    from gramwright.serving.differential import PAIRS
    from gramwright.sources import load_source

    pairs = [f"{t}@{e}" for t, e in PAIRS]
    report: dict[str, Any] = {
        "grammars": Counter(),
        "documents": Counter(),
        "loads": {p: {"tried": 0, "loaded": 0} for p in pairs},
        "agreement": {
            p: {"cases": 0, "agree": 0, "bundled": 0, "fixture": 0, "jsonschemabench": 0} for p in pairs
        },
        "load_failures": [],
        "disagreements": [],
        "export_ms": [],
        "load_ms": [],
    }
    t0 = time.perf_counter()
    for name in bundled_names():
        from gramwright.grammar.analysis import prepare

        grammar = prepare(load_bundled(name))
        run_grammar(name, "bundled", grammar, sampled_documents(grammar, name, args.docs), report)
    for path in sorted(FIXTURES.glob("*.json")):
        grammar = load_source(str(path)).grammar
        run_grammar(path.stem, "fixture", grammar, sampled_documents(grammar, path.stem, args.docs), report)
    skipped: dict[str, int] = {}
    if DATA.is_dir() and args.sample > 0:
        groups, skipped = bench_groups(args.sample)
        for gid, grammar, docs, _ in groups:
            run_grammar(gid, "jsonschemabench", grammar, docs or [], report)
    else:
        print(f"note: {DATA} absent, JSONSchemaBench skipped", file=sys.stderr)
    for stats in report["agreement"].values():
        stats["rate"] = round(stats["agree"] / stats["cases"], 5) if stats["cases"] else None
    for key in ("export_ms", "load_ms"):
        v = sorted(report[key])
        report[key] = {"p50": round(v[len(v) // 2], 2), "max": round(v[-1], 2)} if v else {}
    report["jsonschemabench_skipped_uncompilable"] = skipped
    report["seconds"] = round(time.perf_counter() - t0, 1)
    total = sum(s["cases"] for s in report["agreement"].values())
    agree = sum(s["agree"] for s in report["agreement"].values())
    report["overall_rate"] = round(agree / total, 5) if total else None
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        for pair, stats in report["agreement"].items():
            load = report["loads"][pair]
            print(
                f"{pair:28} loaded {load['loaded']}/{load['tried']}  agree {stats['agree']}/{stats['cases']}"
            )
        print(f"disagreements: {len(report['disagreements'])}, load failures: {len(report['load_failures'])}")
    return 0 if not report["load_failures"] else 1


if __name__ == "__main__":
    sys.exit(main())

"""Completeness: every valid test instance of the JSONSchemaBench splits whose schema compiles is
accepted token by token, under the real SmolLM2 tokenizer and a SentencePiece-style tokenizer
(Metaspace + byte fallback, built with the `tokenizers` library as in the tests).

For each instance, the serialisation our grammar accepts (compact, schema member order) is encoded
by the tokenizer and every token is checked against the engine: the token must be consumable
(its whole byte string viable), and for the first instance of each schema it must also be inside
the computed mask (masks are exact, which tests/engine/test_engine.py checks against a full trie walk).
Text a tokenizer cannot spell (SmolLM2 has no token for some bytes) is counted, not hidden.

    python -m bench.completeness --json [--splits Github_easy,...] [--limit N]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from bench.masks import DATA, SPLITS, accepted_text


def tokenizers() -> dict[str, tuple[Any, Any]]:
    from bench.tokenizers_fixtures import sentencepiece_tokenizer
    from gramwright.engine.vocab import TokenVocabulary
    from gramwright.models.loader import load_tokenizer

    smol = load_tokenizer()
    sp = sentencepiece_tokenizer()
    return {
        "smollm2": (smol, TokenVocabulary.from_tokenizer(smol)),
        "sentencepiece": (sp, TokenVocabulary.from_tokenizer(sp)),
    }


def encode(tok: Any, text: str) -> list[int]:
    if hasattr(tok, "backend_tokenizer"):
        return list(tok.encode(text, add_special_tokens=False))
    return list(tok.encode(text, add_special_tokens=False).ids)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--splits", default=",".join(SPLITS))
    parser.add_argument("--limit", type=int, default=0, help="schemas per split (0 = all)")
    parser.add_argument("--every", type=int, default=1, help="every N-th schema of each split (a sample)")
    args = parser.parse_args()

    from gramwright.engine.matcher import GrammarEngine
    from gramwright.schema import compile_schema

    toks = tokenizers()
    result: dict[str, Any] = {}
    t0 = time.perf_counter()
    for split in args.splits.split(","):
        files = sorted((DATA / split).glob("*.json"))
        files = files[:: args.every]
        if args.limit:
            files = files[: args.limit]
        counts = {
            name: {"instances": 0, "tokens": 0, "rejected": 0, "not_in_mask": 0, "unspellable": 0}
            for name in toks
        }
        compiled_ok = 0
        refused = 0
        no_text = 0  # instances for which no accepted serialisation was found (search budget)
        for path in files:
            doc = json.loads(path.read_text())
            valid = [t["data"] for t in doc.get("tests", []) if t.get("valid")]
            if not valid:
                continue
            try:
                compiled = compile_schema(doc["schema"])
            except Exception:  # noqa: BLE001 - refused schemas are the compiler's count, not ours
                refused += 1
                continue
            compiled_ok += 1
            engines = {name: GrammarEngine(compiled.grammar, vocab) for name, (_, vocab) in toks.items()}
            for k, instance in enumerate(valid):
                text = accepted_text(engines["smollm2"], instance, compiled.member_orders)
                if text is None:
                    no_text += 1
                    continue
                for name, (tok, vocab) in toks.items():
                    c = counts[name]
                    ids = encode(tok, text)
                    if b"".join(vocab.token_bytes[i] for i in ids) != text.encode():
                        c["unspellable"] += 1
                        continue
                    c["instances"] += 1
                    c["tokens"] += len(ids)
                    m = engines[name].matcher()
                    for tid in ids:
                        if k == 0 and tid not in set(m.allowed_token_ids().tolist()):
                            c["not_in_mask"] += 1
                        if not m.try_consume(tid):
                            c["rejected"] += 1
                            break
        result[split] = {
            "schemas_compiled_with_valid_tests": compiled_ok,
            "schemas_refused": refused,
            "instances_without_accepted_text": no_text,
            **counts,
        }
        print(f"{split}: {result[split]}", file=sys.stderr)
    result["seconds"] = round(time.perf_counter() - t0, 1)
    print(json.dumps(result, indent=2) if args.json else result)
    bad = sum(
        v[n]["rejected"] + v[n]["not_in_mask"] for v in result.values() if isinstance(v, dict) for n in toks
    )
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()

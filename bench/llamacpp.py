"""`--backend llama-cpp` against the transformers backend on the embedded SmolLM2, the same prompts
under the same masks in one run: tokens/s of each, and whether the recognizer accepts every output.

    python -m bench.llamacpp --json [--max-tokens 64]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = ROOT / "tests/fixtures/serving/contact.json"
PROMPTS = [json.loads(line)["text"] for line in (ROOT / "tests/fixtures/serving/contacts.jsonl").open()][:4]


def main() -> None:
    from gramwright.api import check_document
    from gramwright.generation import Generator, SamplingOptions
    from gramwright.llamacpp_generation import LlamaCppGenerator
    from gramwright.sources import load_source

    parser = argparse.ArgumentParser()
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    source = load_source(str(SCHEMA)).for_generation()
    report: dict[str, Any] = {}
    for name, gen in (("transformers", Generator()), ("llama-cpp", LlamaCppGenerator())):
        gen.run(source, "warm up", sampling=SamplingOptions(max_tokens=40))  # model load, engine, masks
        tokens, seconds, accepted, texts = 0, 0.0, 0, []
        for prompt in PROMPTS:
            t0 = time.perf_counter()
            out = gen.run(
                source, f"Extract the person: {prompt}", sampling=SamplingOptions(max_tokens=args.max_tokens)
            )
            seconds += time.perf_counter() - t0
            tokens += out.tokens
            accepted += check_document(source, out.text, form="bytes").accepted  # the form the server wrote
            texts.append(out.text)
        report[name] = {
            "prompts": len(PROMPTS),
            "tokens": tokens,
            "seconds": round(seconds, 2),
            "tokens_per_s": round(tokens / seconds, 2),
            "recognizer_accepted": accepted,
            "outputs": texts,
        }
        print(json.dumps({name: report[name]}, ensure_ascii=False), flush=True)


if __name__ == "__main__":
    main()

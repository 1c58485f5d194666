"""The edit grammar's cold build, as `gramwright edit` pays it in a new process: grammar, engine and
first mask for the first N lines of this repository's own Python sources, one format per process.

`bench/edit_scale.py` times several sizes in one process (later sizes find some work done); this
times one size in a process of its own, the collector paused during the build as the CLI does.

    python -m bench.edit_build_cold --json [--format udiff|search-replace] [--lines 5000]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--format", default="udiff", choices=["udiff", "search-replace"])
    ap.add_argument("--lines", type=int, default=5000)
    args = ap.parse_args(argv)
    from gramwright.engine.collector import cold_work, freeze_after_cold_masks

    freeze_after_cold_masks()  # as the CLI's generation path does
    from gramwright.editors.generate.edit import build_edit_grammar
    from gramwright.editors.generate.grammar_search_replace import sr_head
    from gramwright.editors.generate.grammar_udiff import udiff_head
    from gramwright.editors.patch.model import EditFormat
    from gramwright.editors.patch.snapshot import decode_file
    from gramwright.engine.matcher import GrammarEngine
    from gramwright.engine.vocab import TokenVocabulary
    from gramwright.models.loader import load_tokenizer

    tokenizer = load_tokenizer()
    vocab = TokenVocabulary.from_tokenizer(tokenizer)
    vocab.tables.prepare()  # per tokenizer, as `generate` does with its engine
    sources = sorted((ROOT / "toolchain").rglob("*.py"))
    text = b"".join(p.read_bytes() for p in sources)
    data = b"".join(text.splitlines(keepends=True)[: args.lines])
    t0 = time.perf_counter()
    with cold_work():
        eg = build_edit_grammar([decode_file("big.py", data)], EditFormat(args.format))
        t1 = time.perf_counter()
        engine = GrammarEngine(eg.grammar, vocab)
        t2 = time.perf_counter()
        matcher = engine.matcher()
        matcher.bitmask()
    t3 = time.perf_counter()
    # the mask where a block's first line opens (every start line of the file is allowed there):
    # after the file's header, fed as the tokenizer would encode it
    head = udiff_head("big.py") if args.format == "udiff" else sr_head("big.py")
    for token in tokenizer.encode(head, add_special_tokens=False):
        matcher.consume(token)
    t4 = time.perf_counter()
    with cold_work():
        matcher.bitmask()
    t5 = time.perf_counter()
    out = {
        "format": args.format,
        "lines": data.count(b"\n"),
        "bytes": len(data),
        "rules": len(eg.grammar.rules),
        "grammar_s": round(t1 - t0, 3),
        "engine_s": round(t2 - t1, 3),
        "first_mask_s": round(t3 - t2, 3),
        "total_s": round(t3 - t0, 3),
        "block_start_mask_s": round(t5 - t4, 3),
    }
    print(json.dumps(out, indent=2) if args.json else out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

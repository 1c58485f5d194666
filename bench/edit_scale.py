"""How file-aware edit grammars scale with the file: build, engine, first mask, masks at SEARCH.

Two constructions over the same real text (this repository's Python files, concatenated and cut
to N lines), both run by the one engine with the SmolLM2 tokenizer:

* ``plain``: the issue's baseline — one GBNF rule per start line (``start{j}`` forcing its
  shortest unique run) and per continue line (``cont{j}``), a chain ``skip{j}`` for file order,
  written as GBNF text and loaded by ``load_source``;
* ``ours``: ``gramwright.editors.generate.grammar_search_replace``
  (the first block's starts as one line trie).

For each: grammar build (ours: from the snapshot; plain: text → ``load_source``), engine
construction, the first mask, then teacher-forcing one 4-line SEARCH block from the middle of the
file, timing every mask (the one at SEARCH's start is the wide one) and a second block after it.

    python -m bench.edit_scale --json [--lines 500,2000,5000] [--only plain|ours]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def corpus(lines: int) -> bytes:
    """``lines`` real lines of Python from this repository (files in sorted order, repeated)."""
    out: list[bytes] = []
    files = sorted((ROOT / "toolchain").rglob("*.py")) + sorted((ROOT / "editors").rglob("*.py"))
    while len(out) < lines:
        for path in files:
            out.extend(path.read_bytes().splitlines(keepends=True))
            if len(out) >= lines:
                break
    return b"".join(out[:lines])


def plain_gbnf(path: str, text: str) -> str:
    """The baseline construction as GBNF text (string literals, one rule per line)."""
    from gramwright.editors.generate.grammar_search_replace import DIVIDER, REPLACE, is_marker_line, sr_head
    from gramwright.editors.generate.lines import file_lines
    from gramwright.editors.patch.snapshot import decode_file
    from gramwright.grammar.gbnf import emit_gbnf
    from gramwright.grammar.ir import EMPTY, Grammar, Ref, alt, char_class, literal, repeat, seq

    fl = file_lines(decode_file(path, text.encode()), exact_eol=False, barrier=is_marker_line)
    n = fl.count
    rules: dict[str, Any] = {}
    free = seq(repeat(char_class([(10, 10)], negated=True), 0, None), literal("\n"))
    rules["root"] = seq(literal(sr_head(path)), Ref("skip0"))
    for j in range(n + 1):
        nxt = [Ref(f"skip{j + 1}")] if j < n else []
        if fl.run_ok(j) if j < n else False:
            u = fl.unique[j]
            rules[f"start{j}"] = seq(literal("".join(fl.written[j : j + u])), Ref(f"cont{j + u}"))
            rules[f"skip{j}"] = alt(Ref(f"start{j}"), *nxt)
        elif nxt:
            rules[f"skip{j}"] = nxt[0]
        else:
            rules[f"skip{j}"] = Ref("never")
        more = seq(literal(sr_head(path)), Ref(f"skip{j}"))
        tail = seq(literal(DIVIDER), repeat(Ref("free"), 0, None), literal(REPLACE), alt(more, EMPTY))
        rules[f"cont{j}"] = alt(tail, seq(literal(fl.written[j]), Ref(f"cont{j + 1}"))) if j < n else tail
    rules["free"] = free
    rules["never"] = seq(literal("x"), Ref("never"))
    return emit_gbnf(Grammar(rules, "root"))


def measure(kind: str, lines: int, vocab: Any) -> dict[str, Any]:
    from gramwright.editors.generate.grammar_search_replace import (
        DIVIDER,
        REPLACE,
        is_marker_line,
        search_replace_grammar,
        sr_head,
    )
    from gramwright.editors.generate.lines import file_lines
    from gramwright.editors.patch.snapshot import decode_file
    from gramwright.engine.collector import cold_work
    from gramwright.engine.matcher import GrammarEngine
    from gramwright.sources import load_source

    data = corpus(lines)
    path = "big.py"
    t0 = time.perf_counter()
    if kind == "plain":
        with tempfile.TemporaryDirectory() as tmp:
            gb = Path(tmp) / "plain.gbnf"
            gb.write_text(plain_gbnf(path, data.decode()))
            t_text = time.perf_counter()
            grammar = load_source(str(gb)).grammar
    else:
        fl = file_lines(decode_file(path, data), exact_eol=False, barrier=is_marker_line)
        grammar = search_replace_grammar([fl])
        t_text = t0
    t1 = time.perf_counter()
    with cold_work():
        engine = GrammarEngine(grammar, vocab)
    t2 = time.perf_counter()
    matcher = engine.matcher()
    matcher.bitmask()
    t3 = time.perf_counter()
    src = data.decode().splitlines(keepends=True)
    mid = len(src) // 2
    block = "".join(src[mid : mid + 4])
    later = "".join(src[mid + 10 : mid + 14])
    text = sr_head(path) + block + DIVIDER + "x = 1\n" + REPLACE + sr_head(path) + later + DIVIDER + REPLACE
    ids = vocab_encode(text)
    masks: list[float] = []
    where: list[tuple[float, int]] = []
    for tid in ids:
        s = time.perf_counter()
        matcher.bitmask()
        masks.append((time.perf_counter() - s) * 1000)
        where.append((masks[-1], len(matcher.output)))
        if not matcher.try_consume(tid):
            return {"kind": kind, "lines": lines, "error": f"rejected at {matcher.output[-80:]!r}"}
    masks.sort()
    return {
        "kind": kind,
        "lines": lines,
        "bytes": len(data),
        "rules": len(grammar.rules),
        "nfa_states_built": engine.compiled.nfa.num_states,  # rules are built when first entered
        "gbnf_text_s": round(t_text - t0, 3),
        "grammar_s": round(t1 - t0, 3),
        "engine_s": round(t2 - t1, 3),
        "first_mask_s": round(t3 - t2, 3),
        "build_plus_first_mask_s": round(t3 - t0, 3),
        "teacher_forced_tokens": len(ids),
        "mask_ms_max": round(masks[-1], 1),
        "mask_ms_top3": [round(m, 1) for m in masks[-3:]],
        "mask_ms_p50": round(masks[len(masks) // 2], 2),
        # where the slowest masks were: the output so far ends with …
        "slowest_at": [text[max(0, at - 24) : at] for _ms, at in sorted(where)[-3:]],
        "accepting_at_end": matcher.is_accepting(),
    }


_TOKENIZER: Any = None


def vocab_encode(text: str) -> list[int]:
    return list(_TOKENIZER.encode(text, add_special_tokens=False))


def main(argv: list[str] | None = None) -> int:
    global _TOKENIZER
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--lines", default="500,2000,5000")
    ap.add_argument("--only", choices=["plain", "ours"])
    ap.add_argument(
        "--no-freeze",
        action="store_true",
        help="leave the cyclic collector alone (the CLI's generation path pauses it during cold work)",
    )
    args = ap.parse_args(argv)
    from gramwright.engine.collector import freeze_after_cold_masks

    freeze_after_cold_masks(not args.no_freeze)
    from gramwright.engine.vocab import TokenVocabulary
    from gramwright.models.loader import load_tokenizer

    _TOKENIZER = load_tokenizer()
    t = time.perf_counter()
    vocab = TokenVocabulary.from_tokenizer(_TOKENIZER)
    vocab.tables.trie()
    vocab.tables.arrays()
    prep = round(time.perf_counter() - t, 3)
    results = []
    for n in [int(x) for x in args.lines.split(",")]:
        for kind in ("plain", "ours"):
            if args.only and kind != args.only:
                continue
            results.append(measure(kind, n, vocab))
            if not args.json:
                print(results[-1], file=sys.stderr)
    out = {"vocabulary_prep_s": prep, "collector_paused_in_cold_work": not args.no_freeze, "results": results}
    print(json.dumps(out, indent=2) if args.json else out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""How many prompt tokens the schema costs in each rendering (compact type definition vs JSON text).

For every schema given (files or folders), the whole chat prompt the generator builds — system
prompt with the schema, the embedded model's chat template, a short request — is counted with the
real tokenizer in the ``json`` and the ``compact`` rendering, and the result says which of them fit
the model's context beside ``--max-tokens`` of output (the generator leaves the schema out, with a
note, when the chosen rendering does not).

    python -m bench.prompt_sizes --json tests/fixtures/schemas ../shared/data/jsonschemabench/Kubernetes
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

REQUEST = "采购两台笔记本电脑，供应商是联想"


def _files(paths: list[str], limit: int) -> list[Path]:
    out: list[Path] = []
    for given in paths:
        p = Path(given)
        found = sorted(p.glob("*.json")) if p.is_dir() else [p]
        out.extend(found[:limit] if p.is_dir() else found)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", help="schema files or folders of them")
    parser.add_argument("--per-folder", type=int, default=40, help="schemas read from each folder")
    parser.add_argument("--max-tokens", type=int, default=256)
    parser.add_argument("--context", type=int, default=8192, help="the model's context (SmolLM2: 8192)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    from gramwright.decode.prompt import system_prompt
    from gramwright.models.loader import apply_chat_template, load_tokenizer

    tokenizer = load_tokenizer(None)

    def count(system: str | None) -> int:
        text = apply_chat_template(tokenizer, system, REQUEST)
        return len(tokenizer(text, add_special_tokens=False).input_ids)

    base = count(system_prompt({}, rendering="none"))
    rows: list[dict[str, Any]] = []
    for path in _files(args.paths, args.per_folder):
        try:
            schema = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(schema, dict) and "schema" in schema and "meta" in schema:
            schema = schema["schema"]  # a JSONSchemaBench sample: {description, meta, schema, tests}
        size = len(json.dumps(schema, ensure_ascii=False).encode("utf-8"))
        row: dict[str, Any] = {"schema": str(path), "bytes": size}
        for rendering in ("json", "compact"):
            tokens = count(system_prompt(schema, rendering=rendering))
            row[rendering] = tokens
            row[f"{rendering}_schema"] = tokens - base  # what the schema itself adds
            row[f"{rendering}_fits"] = tokens + args.max_tokens - 1 <= args.context
        row["ratio"] = round(row["compact_schema"] / max(1, row["json_schema"]), 3)
        rows.append(row)
    summary = {
        "schemas": len(rows),
        "prompt_without_schema": base,
        "json_tokens_median": statistics.median(r["json"] for r in rows) if rows else None,
        "compact_tokens_median": statistics.median(r["compact"] for r in rows) if rows else None,
        "json_schema_tokens_total": sum(r["json_schema"] for r in rows),
        "compact_schema_tokens_total": sum(r["compact_schema"] for r in rows),
        "schema_ratio_median": statistics.median(r["ratio"] for r in rows) if rows else None,
        "json_fits": sum(r["json_fits"] for r in rows),
        "compact_fits": sum(r["compact_fits"] for r in rows),
        "context": args.context,
        "max_tokens": args.max_tokens,
    }
    if args.json:
        json.dump({"summary": summary, "rows": rows}, sys.stdout, ensure_ascii=False, indent=1)
        sys.stdout.write("\n")
    else:
        for r in rows:
            print(f"{r['json']:>7} {r['compact']:>7} {r['ratio']:>6}  {r['schema']}")
        print(json.dumps(summary, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

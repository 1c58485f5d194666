"""``gramwright generate`` and ``gramwright extract`` on one model, as a user runs them: each a fresh
CLI process, greedy, over the benchmark's schemas (the purchase-order example, then one schema per
JSONSchemaBench split that our compiler takes: ``bench/e2e_fresh.py``'s list) and the seed's purchase
requests. Per output: did the process complete (exit 0/1, a result), the finish reason, and whether
the text parses and validates against its schema (jsonschema as the referee). The edit cases run on
a model with ``python -m bench.edits --model PATH``.

``--model`` takes ``gemma3-270m`` (found by ``bench/models.py``), ``smollm2-135m`` (the embedded
default), or a path. ``--pythonpath DIR`` runs another build of the package (a wheel installed with
``pip install --no-deps --target DIR``) with this interpreter's dependencies, and ``--compare A B``
counts the outputs of two ``--json`` runs that are byte for byte the same (greedy decoding is
deterministic, so a change that should not alter what the model writes shows as a difference here).

Form is guaranteed by the mask; the values are the small model's and are not judged here.

    python -m bench.model_runs --json --model gemma3-270m [--schemas 6] [--extract 4] [--max-tokens 160]
    python -m bench.model_runs --json --schemas 22 --per-split 3 --extract 0 > head.json
    python -m bench.model_runs --json --schemas 22 --per-split 3 --extract 0 --pythonpath /tmp/old > old.json
    python -m bench.model_runs --compare head.json old.json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.e2e_fresh import PROMPT, ROOT
from bench.masks import SPLITS, pick_cases
from bench.models import model_path

PO_SCHEMA = ROOT / "docs" / "examples" / "purchase_order.json"
REQUESTS = ROOT / "tests" / "data" / "purchase_requests.jsonl"


def schemas(count: int, per_split: int, work: Path) -> list[tuple[str, Path]]:
    """The purchase-order example, then ``per_split`` schemas of each data split that our compiler
    takes, the splits in turn (``per_split`` 1: ``bench/e2e_fresh.py``'s list), ``count`` in all."""
    from gramwright.schema import compile_schema

    out = [("docs/examples/purchase_order.json", PO_SCHEMA)]
    taken: dict[str, list[tuple[str, Path]]] = {}
    for name, schema, _ in pick_cases(list(SPLITS), per_split * 3, 1):
        split = name.partition("/")[0]
        if len(taken.setdefault(split, [])) >= per_split:
            continue
        try:
            compile_schema(schema)
        except Exception:  # noqa: BLE001 - a schema we refuse is not generated for
            continue
        path = work / (name.replace("/", "__") + ".json")
        path.write_text(json.dumps(schema), encoding="utf-8")
        taken[split].append((name, path))
    for rank in range(per_split):
        out += [found[rank] for found in taken.values() if rank < len(found)]
    return out[:count]


def _verdict(text: str, schema: dict[str, Any]) -> dict[str, bool]:
    import jsonschema

    try:
        value = json.loads(text)
    except ValueError:
        return {"json_valid": False, "schema_valid": False}
    # the schema's own draft ($schema), 2020-12 where it names none
    validator = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    return {"json_valid": True, "schema_valid": validator(schema).is_valid(value)}


class Cli:
    """``gramwright`` as a fresh process of this interpreter, optionally another build first on the path."""

    def __init__(self, model: str | None, pythonpath: Path | None, cache: Path) -> None:
        self.model = model
        self.env = {k: v for k, v in os.environ.items() if k not in ("CI", "PYTHONPATH")}
        self.env["GRAMWRIGHT_CACHE"] = str(cache)
        if pythonpath is not None:
            self.env["PYTHONPATH"] = str(pythonpath)

    def run(self, *args: str) -> tuple[float, subprocess.CompletedProcess[str]]:
        argv = [sys.executable, "-m", "gramwright.cli.main", *args]
        if self.model:
            argv += ["--model", self.model]
        started = time.perf_counter()
        proc = subprocess.run(argv, env=self.env, capture_output=True, text=True, check=False)
        return time.perf_counter() - started, proc

    def where(self) -> str:
        probe = "import gramwright, pathlib; print(pathlib.Path(gramwright.__file__).parent)"
        out = subprocess.run([sys.executable, "-c", probe], env=self.env, capture_output=True, text=True)
        return out.stdout.strip()


def generate(cli: Cli, count: int, per_split: int, max_tokens: int, work: Path) -> list[dict[str, Any]]:
    rows = []
    for i, (name, path) in enumerate(schemas(count, per_split, work)):
        print(f"[generate {i + 1}/{count}] {name}", file=sys.stderr)
        args = ["generate", "--schema", str(path), "--prompt", PROMPT, "--max-tokens", str(max_tokens)]
        took, proc = cli.run(*args, "--format", "json")
        row: dict[str, Any] = {"schema": name, "exit": proc.returncode, "process_s": round(took, 1)}
        if proc.returncode not in (0, 1) or not proc.stdout.strip().startswith("{"):
            rows.append({**row, "completed": False, "error": proc.stderr.strip().splitlines()[-1:]})
            continue
        out = json.loads(proc.stdout)
        schema = json.loads(path.read_text(encoding="utf-8"))
        row.update(completed=True, finish_reason=out["finish_reason"], tokens=out["tokens"])
        row.update(_verdict(out["text"], schema), text=out["text"])
        rows.append(row)
    return rows


def extract(cli: Cli, count: int, max_tokens: int, work: Path) -> dict[str, Any]:
    lines = [line for line in REQUESTS.read_text(encoding="utf-8").splitlines() if line.strip()][:count]
    requests = work / "requests.jsonl"
    requests.write_text("\n".join(lines) + "\n", encoding="utf-8")
    output = work / "extracted.jsonl"
    print(f"[extract {count} rows]", file=sys.stderr)
    args = ["extract", "--schema", str(PO_SCHEMA), "--input", str(requests), "--output", str(output)]
    took, proc = cli.run(*args, "--max-tokens", str(max_tokens), "--format", "json")
    schema = json.loads(PO_SCHEMA.read_text(encoding="utf-8"))
    results = [json.loads(line) for line in output.read_text("utf-8").splitlines()] if output.exists() else []
    rows = []
    for result in results:
        value = result.get("value")
        valid = value is not None and _verdict(json.dumps(value), schema)["schema_valid"]
        rows.append({"id": result.get("id"), "status": result.get("status"), "schema_valid": valid})
    return {
        "exit": proc.returncode,
        "process_s": round(took, 1),
        "rows_in": len(lines),
        "rows_out": len(rows),
        "schema_valid": sum(r["schema_valid"] for r in rows),
        "rows": rows,
        "error": proc.stderr.strip().splitlines()[-1:] if proc.returncode not in (0, 1) else [],
    }


def compare(a: Path, b: Path) -> dict[str, Any]:
    left, right = (json.loads(p.read_text(encoding="utf-8"))["generate"] for p in (a, b))
    pairs = list(zip(left, right, strict=True))
    differ = [x["schema"] for x, y in pairs if x.get("text") != y.get("text") or not x.get("completed")]
    return {"outputs": len(pairs), "byte_identical": len(pairs) - len(differ), "different": differ}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=None, help="gemma3-270m, smollm2-135m (default) or a path")
    parser.add_argument("--schemas", type=int, default=6, help="how many benchmark schemas to generate for")
    parser.add_argument("--per-split", type=int, default=1, help="schemas taken from each data split")
    parser.add_argument("--extract", type=int, default=4, help="purchase requests to extract (0: none)")
    parser.add_argument("--max-tokens", type=int, default=160)
    parser.add_argument("--pythonpath", type=Path, help="another build of the package, first on the path")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("A", "B"), help="two --json outputs")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.compare:
        print(json.dumps(compare(*args.compare), indent=2))
        return
    with tempfile.TemporaryDirectory(prefix="gw-model-runs-") as tmp:
        work = Path(tmp)
        cli = Cli(model_path(args.model), args.pythonpath, work / "cache")
        result: dict[str, Any] = {"model": args.model or "smollm2-135m", "package": cli.where()}
        result["generate"] = generate(cli, args.schemas, args.per_split, args.max_tokens, work)
        if args.extract:
            result["extract"] = extract(cli, args.extract, args.max_tokens, work)
    gen = result["generate"]
    result["summary"] = {
        "generate": len(gen),
        "completed": sum(r["completed"] for r in gen),
        "finish_stop": sum(r.get("finish_reason") == "stop" for r in gen),
        "json_valid": sum(r.get("json_valid", False) for r in gen),
        "schema_valid": sum(r.get("schema_valid", False) for r in gen),
    }
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
        return
    print(json.dumps(result["summary"]))
    if "extract" in result:
        ex = result["extract"]
        rows = f"{ex['rows_out']}/{ex['rows_in']} rows"
        print(f"extract: exit {ex['exit']}, {rows}, {ex['schema_valid']} schema-valid")


if __name__ == "__main__":
    main()

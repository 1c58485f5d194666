"""`extract --server` against a real llama.cpp server (llama-cpp-python's, the embedded SmolLM2
GGUF), as a user runs it: the CLI in its own process, the server in another.

1. 24 contacts (tests/fixtures/serving/contacts.jsonl) → contact.json + rules, `--concurrency 2`;
   the server is SIGKILLed once 12 rows are written; the batch must exit 2 without a torn or
   duplicated row; a new server on the same port; the same command again resumes: 24 ids once.
   Every ok row is validated again here (jsonschema + the rule), every completion's recognizer
   verdict is counted.
2. The same 24 rows from scratch with `--concurrency 1` and `--concurrency 4`: rows/s of each.

    python -m bench.serving --json [--rows 24]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests/fixtures/serving"
SCHEMA = FIXTURES / "contact.json"
RULES = FIXTURES / "contact.rules.json"
ROWS = FIXTURES / "contacts.jsonl"
TEMPLATE = "Extract the person: {text}"


def _extract(url: str, rows: Path, out: Path, concurrency: int) -> list[str]:
    return [
        sys.executable, "-m", "gramwright.cli.main", "extract", "--server", url,
        "--schema", str(SCHEMA), "--rules", str(RULES), "--input", str(rows), "--output", str(out),
        "--prompt-template", TEMPLATE, "--max-tokens", "64", "--concurrency", str(concurrency),
        "--format", "json",
    ]  # fmt: skip


def _lines(path: Path) -> list[dict[str, Any]]:
    return (
        [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()] if path.exists() else []
    )


def _verify(rows: list[dict[str, Any]]) -> dict[str, Any]:
    import jsonschema

    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    checks = [c for r in rows for c in r["metrics"].get("server_grammar_checks", [])]
    ok = [r for r in rows if r["status"] == "ok"]
    bad_ok = []
    for r in ok:
        try:
            jsonschema.validate(r["value"], schema)
            assert r["value"]["name"] != r["value"]["city"]
        except (jsonschema.ValidationError, AssertionError):
            bad_ok.append(r["id"])
    return {
        "rows": len(rows),
        "distinct_ids": len({r["id"] for r in rows}),
        "status": {s: sum(r["status"] == s for r in rows) for s in ("ok", "partial", "degraded", "failed")},
        "ok_rows_failing_revalidation": bad_ok,
        "completions": len(checks),
        "recognizer": {
            "accepted": sum(c == "accepted" for c in checks),
            "prefix_of_cut": sum(c == "prefix" for c in checks),
            "rejected": sum(c.startswith("rejected") for c in checks),
        },
    }


def main() -> None:
    from tests.support.llama_server import LlamaServer, free_port

    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=24)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    report: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        rows = tmp / "in.jsonl"
        rows.write_text(
            "".join(ROWS.read_text(encoding="utf-8").splitlines(True)[: args.rows]), encoding="utf-8"
        )
        port = free_port()
        out = tmp / "out.jsonl"
        server = LlamaServer(port, log=tmp / "server1.log").start()
        proc = subprocess.Popen(
            _extract(server.url, rows, out, 2), stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        while proc.poll() is None and len(_lines(out)) < args.rows // 2:
            time.sleep(0.05)
        server.kill()
        _, err = proc.communicate()
        server.stop()
        killed = _lines(out)
        report["killed"] = killed_report = {
            "exit": proc.returncode,
            "rows_written": len(killed),
            "last_stderr_line": err.decode().strip().splitlines()[-1] if err.strip() else "",
        }
        print(json.dumps({"killed": killed_report}, ensure_ascii=False), flush=True)
        with LlamaServer(port, log=tmp / "server2.log"):
            t0 = time.perf_counter()
            rerun = subprocess.run(
                _extract(f"http://127.0.0.1:{port}", rows, out, 2), capture_output=True, text=True
            )
            report["resumed"] = {
                "exit": rerun.returncode,
                "seconds": round(time.perf_counter() - t0, 1),
                "kept_unchanged": all(r in _lines(out) for r in killed),
                **_verify(_lines(out)),
            }
            print(json.dumps({"resumed": report["resumed"]}, ensure_ascii=False), flush=True)
            for n in (1, 4):
                fresh = tmp / f"c{n}.jsonl"
                done = subprocess.run(
                    _extract(f"http://127.0.0.1:{port}", rows, fresh, n), capture_output=True, text=True
                )
                summary = json.loads(done.stdout)
                report[f"concurrency_{n}"] = {
                    "exit": done.returncode,
                    "rows_per_s": summary["server"]["rows_per_s"],
                    "wall_s": summary["server"]["wall_s"],
                    **_verify(_lines(fresh)),
                }
                print(json.dumps({f"concurrency_{n}": report[f"concurrency_{n}"]}), flush=True)
    print(json.dumps(report, indent=2 if not args.json else None, ensure_ascii=False))


if __name__ == "__main__":
    main()

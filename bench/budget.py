"""Complete within the budget: random constrained walks under a token budget (SmolLM2 vocabulary).

Grammars: the fixture schemas, the bundled GBNF grammars, and the file-aware edit grammars (both
formats) of real files (``bench/edit_soundness.py``'s list). Each walk gets a random budget
between the grammar's shortest output (the closing zone's bound, EOS counted) and 3× it, and draws
tokens uniformly from each mask (EOS included when allowed) until EOS or the grammar's end.
Uniform draws never choose to finish, so nearly every walk is closed by the budget: the closing
zone is what is under test. Checked:

* no mask is ever empty, no walk runs past its budget, every walk ends accepting;
* every output parses: schemas and ``json.gbnf`` with ``json.loads``, edits after their ``@@``
  headers are numbered; outputs of exactly compiled schemas validate;
* edit outputs pass ``check_patch`` with every edit ``exact`` and apply in a temporary copy.

And along random walks with an ample budget (10× the shortest, at least 1,000 tokens), every mask
equals the unbudgeted matcher's, byte for byte (one sha256 over all of them, as the long replay's
digest).

    python -m bench.budget --json [--walks 2000] [--digest-walks 200] [--seed 0]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "schemas"
GRAMMARS = ROOT / "grammars"
EDIT_FILES = (
    "editors/patch/model.py",
    "editors/patch/recount.py",
    "editors/patch/paths.py",
    "editors/patch/undo.py",
    "editors/patch/splice.py",
    "toolchain/engine/walks.py",
    "toolchain/engine/bitset.py",
    "toolchain/grammar/utf8.py",
    "toolchain/errors.py",
    "toolchain/fsutil.py",
    "toolchain/pointer.py",
    "grammars/arithmetic.gbnf",
    "Makefile",
)


COUNTED = (
    "walks",
    "accepting",
    "not_accepting",
    "empty_masks",
    "parsed",
    "parse_failed",
    "validated",
    "invalid_exact",
    "edits_applied",
    "edit_failed",
)


def _grammars(vocab: Any, edit_files: int) -> list[dict[str, Any]]:
    """Every grammar walked: kind, name, engine, and what checks its outputs."""
    import jsonschema

    from gramwright.editors.generate.edit import build_edit_grammar
    from gramwright.editors.patch.model import EditFormat
    from gramwright.editors.patch.snapshot import decode_file
    from gramwright.engine.matcher import GrammarEngine
    from gramwright.schema import compile_schema
    from gramwright.sources import load_source

    out: list[dict[str, Any]] = []
    for path in sorted(FIXTURES.glob("*.json")):
        schema = json.loads(path.read_text())
        try:
            compiled = compile_schema(schema, base_uri=path.resolve().as_uri())
        except Exception:  # noqa: BLE001 - a refused fixture is simply not walked
            continue
        cls = jsonschema.validators.validator_for(schema)
        out.append(
            {
                "kind": "schema",
                "name": path.stem,
                "engine": GrammarEngine(compiled.grammar, vocab),
                "exact": all(e.status == "exact" for e in compiled.report.entries),
                "validator": cls(schema, format_checker=cls.FORMAT_CHECKER),
            }
        )
    for path in sorted(GRAMMARS.glob("*.gbnf")):
        source = load_source(str(path))
        out.append({"kind": "gbnf", "name": path.stem, "engine": GrammarEngine(source.grammar, vocab)})
    for name in EDIT_FILES[:edit_files]:
        snap = decode_file(name, (ROOT / name).read_bytes())
        for fmt in (EditFormat.SEARCH_REPLACE, EditFormat.UDIFF):
            eg = build_edit_grammar([snap], fmt)
            out.append(
                {
                    "kind": "edit",
                    "name": f"{name} {fmt.value}",
                    "engine": GrammarEngine(eg.grammar, vocab),
                    "edit": eg,
                    "file": name,
                }
            )
    return out


def _check_edit(item: dict[str, Any], text: str, tmp: Path, i: int) -> str | None:
    """None when the patch parses, checks exactly and applies; else what failed."""
    from gramwright.editors import apply_patch, check_patch, parse_patch
    from gramwright.editors.generate.grammar_udiff import number_hunks
    from gramwright.editors.patch.model import EditFormat

    eg = item["edit"]
    if eg.format is EditFormat.UDIFF:
        text = number_hunks(text, eg.lines)
    patch = parse_patch(text, eg.format.value)
    # random walks write random new text: the grammar guarantees a patch that applies, not code that
    # parses, so the language check (which a user's apply runs) is not what is measured here
    report = check_patch(patch, tmp / "tree", allow_broken_syntax=True)
    if not report.ok or any(e.status != "exact" for e in report.edits):
        return f"check failed: {report.feedback()}"
    copy = tmp / f"apply{i}"
    shutil.copytree(tmp / "tree", copy)
    result = apply_patch(patch, copy, allow_broken_syntax=True)
    if not result.applied:
        return "did not apply"
    return None


def run(
    walks: int, digest_walks: int = 0, seed: int = 0, edit_files: int = len(EDIT_FILES)
) -> dict[str, Any]:
    from gramwright.engine.matcher import EmptyMaskError
    from gramwright.engine.vocab import TokenVocabulary
    from gramwright.models.loader import load_tokenizer

    vocab = TokenVocabulary.from_tokenizer(load_tokenizer())
    rng = random.Random(seed)
    t0 = time.perf_counter()
    items = _grammars(vocab, edit_files)
    setup_s = time.perf_counter() - t0
    counts: Counter[str] = Counter()
    by_kind: Counter[str] = Counter()
    failures: list[str] = []
    t1 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        for name in EDIT_FILES[:edit_files]:
            (tmp / "tree" / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(ROOT / name, tmp / "tree" / name)
        for i in range(walks):
            item = items[rng.randrange(len(items))]
            engine = item["engine"]
            shortest = engine.shortest_output()
            budget = rng.randint(shortest, 3 * shortest)
            counts["walks"] += 1
            by_kind[item["kind"]] += 1
            matcher = engine.matcher(budget)
            try:
                while not matcher.is_terminated():
                    if matcher.consumed >= budget:
                        break
                    ids = matcher.allowed_token_ids()
                    matcher.consume(int(ids[rng.randrange(ids.size)]))
            except EmptyMaskError as exc:
                counts["empty_masks"] += 1
                failures.append(f"{item['name']} budget {budget}: {exc.one_line()}")
                continue
            if not matcher.is_terminated() or not matcher.is_accepting():
                counts["not_accepting"] += 1
                failures.append(
                    f"{item['name']} budget {budget}: ended not accepting {matcher.output[-80:]!r}"
                )
                continue
            counts["accepting"] += 1
            counts["closed_by_budget"] += matcher.closed_by_budget
            counts["tokens"] += matcher.consumed
            text = matcher.output.decode("utf-8")
            try:
                if item["kind"] == "schema" or item["name"] == "json":
                    value = json.loads(text)
                    counts["parsed"] += 1
                    if item.get("exact"):
                        errors = list(item["validator"].iter_errors(value))
                        if errors:
                            counts["invalid_exact"] += 1
                            failures.append(f"{item['name']}: invalid {errors[0].message}: {text[:120]!r}")
                        else:
                            counts["validated"] += 1
                elif item["kind"] == "edit":
                    problem = _check_edit(item, text, tmp, i)
                    if problem:
                        counts["edit_failed"] += 1
                        failures.append(f"{item['name']}: {problem}\n{text}")
                    else:
                        counts["parsed"] += 1
                        counts["edits_applied"] += 1
                else:
                    counts["parsed"] += 1  # accepted by the grammar is all a GBNF output promises
            except Exception as exc:  # noqa: BLE001 - every failure is counted and shown
                counts["parse_failed"] += 1
                failures.append(f"{item['name']}: not parsed: {exc}: {text[:120]!r}")
    walk_s = time.perf_counter() - t1
    digest = _digests(items, digest_walks, rng) if digest_walks else {}
    return {
        "grammars": Counter(it["kind"] for it in items),
        "walks_by_kind": dict(by_kind),
        **{k: counts[k] for k in COUNTED},
        "closed_by_budget": counts["closed_by_budget"],
        "tokens_mean": round(counts["tokens"] / max(counts["accepting"], 1), 1),
        "setup_s": round(setup_s, 1),
        "walk_s": round(walk_s, 1),
        **digest,
        "failures": failures[:20],
    }


def _digests(items: list[dict[str, Any]], walks: int, rng: random.Random) -> dict[str, Any]:
    """Masks with an ample budget against masks without one, along the same random walks."""
    plain, budgeted = hashlib.sha256(), hashlib.sha256()
    masks = same_object = 0
    for _ in range(walks):
        item = items[rng.randrange(len(items))]
        engine = item["engine"]
        length = rng.randint(5, 60)
        ample = max(1000, 10 * (engine.shortest_output() or 0))
        a, b = engine.matcher(), engine.matcher(ample)
        for _ in range(length):
            if a.is_terminated():
                break
            wa, wb = a.bitmask(), b.bitmask()
            plain.update(wa.tobytes())
            budgeted.update(wb.tobytes())
            masks += 1
            same_object += wa is wb
            ids = a.allowed_token_ids()
            token = int(ids[rng.randrange(ids.size)])
            a.consume(token)
            b.consume(token)
    return {
        "digest_walks": walks,
        "digest_masks": masks,
        "digest_plain": plain.hexdigest()[:16],
        "digest_ample": budgeted.hexdigest()[:16],
        "digest_equal": plain.digest() == budgeted.digest(),
        "digest_same_object": same_object,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--walks", type=int, default=2000)
    parser.add_argument("--digest-walks", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = run(args.walks, args.digest_walks, args.seed)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for key, value in result.items():
            print(f"{key}: {value}")
    bad = result["not_accepting"] + result["empty_masks"] + result["parse_failed"]
    bad += result["invalid_exact"] + result["edit_failed"] + (0 if result.get("digest_equal", True) else 1)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()

#!/usr/bin/env bash
# The main job, end to end on the embedded SmolLM2-135M-Instruct (CPU is fine): lint a schema,
# compile it to canonical GBNF, check documents, generate under token masks and validate, then edit
# a file under a grammar built from it (and undo).
# Run through `make demo` (it creates the virtualenv first). Exits 0 when every step behaved as the
# tool promises — a rejected document or an invalid generation is a result, not a failure; a usage
# or internal error (exit 2) fails the demo.
set -uo pipefail
cd "$(dirname "$0")/.."
GW=${GW:-.venv/bin/gramwright}
PY=${PY:-.venv/bin/python}
PO=docs/examples/purchase_order.json
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
say() { printf '\n\033[1m== %s\033[0m\n' "$*" >&2; }
# run CMD…: show it, run it, and fail the demo only on exit 2 (usage or internal error)
run() {
  printf '$ %s\n' "${*/#.venv\/bin\//}" >&2
  "$@"
  local rc=$?
  if [ "$rc" -ge 2 ]; then
    echo "demo: '$*' failed with exit $rc" >&2
    exit "$rc"
  fi
  return "$rc"
}
summary=()

say "1. lint the purchase-order schema for our engine (infos are advice; exit 1 only at --fail-on or above)"
run $GW lint "$PO" --format json >"$TMP/lint.json"
run $GW lint "$PO"
summary+=("lint: $($PY -c 'import collections, json, sys; c = collections.Counter(d["severity"] for d in json.load(open(sys.argv[1]))); print(", ".join(f"{n} {s}" for s, n in sorted(c.items())) or "no findings")' "$TMP/lint.json")")

say "2. compile it to canonical GBNF (first lines; the compile report of approximations on stderr)"
run $GW compile "$PO" -o "$TMP/po.gbnf"
head -n 8 "$TMP/po.gbnf"
summary+=("compile: $(wc -l <"$TMP/po.gbnf") lines of GBNF")

say "3. check documents against the grammar (as written; --form bytes: as a model under the mask writes)"
printf '%s' '{"supplier":"联想","total_amount":11998,"items":[{"name":"笔记本电脑","qty":2,"unit_price":5999}]}' >"$TMP/ok.json"
printf '%s' '{"supplier":"联想","total_amount":-1,"items":[]}' >"$TMP/bad.json"
printf '{\n  "supplier": "联想",\n  "total_amount": 11998,\n  "items": [{"name": "笔记本电脑", "qty": 2, "unit_price": 5999}]\n}\n' >"$TMP/pretty.json"
run $GW check "$PO" "$TMP/ok.json" && summary+=("check: the valid document is accepted")
echo "-- an invalid document (a negative total, no items):" >&2
run $GW check "$PO" "$TMP/bad.json" || summary+=("check: the invalid document is rejected, with where and which keyword")
echo "-- the valid document pretty-printed (judged as written; the grammar generates compact JSON):" >&2
run $GW check "$PO" "$TMP/pretty.json" && summary+=("check: the pretty-printed valid document is accepted as written")
run $GW check --form bytes "$PO" "$TMP/pretty.json" || true
run $GW check --form bytes --whitespace flexible "$PO" "$TMP/pretty.json" && summary+=("check: byte for byte, pretty-printed JSON passes with --whitespace flexible")

say "4. generate under masks with the embedded model (form guaranteed; content validated, not guaranteed)"
run $GW generate --schema "$PO" --max-tokens 200 \
  --prompt "请为行政部生成一份采购申请：向联想采购2台笔记本电脑，每台5999元，加急。" --format json >"$TMP/gen.json"
cat "$TMP/gen.json" | $PY -c '
import json, sys
d = json.load(sys.stdin)
print("output:", d["text"])
print("finish_reason:", d["finish_reason"], "| tokens:", d["tokens"], "| schema-valid:", d.get("valid"),
      "| mask p50/p99 µs:", d["metrics"].get("mask_us_p50"), "/", d["metrics"].get("mask_us_p99"))
if d.get("closed_by_budget"):
    print("closed by the budget: the values cut short:", d.get("cut"))
if d.get("errors"):
    print("validation errors:", d["errors"][:3])
' >&2
verdict=$($PY -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["finish_reason"], "valid" if d.get("valid") else "invalid")' "$TMP/gen.json")
summary+=("generate: $verdict (a 135M model: the JSON always parses, its values are often wrong — read them)")

say "5. a budget below the shortest output: refused in one line before the model loads (--max-tokens 24)"
printf '$ gramwright generate --schema %s --max-tokens 24 --prompt …\n' "$PO" >&2
$GW generate --schema "$PO" --max-tokens 24 --prompt "两台笔记本电脑" 2>"$TMP/small.err"
small=$?
cat "$TMP/small.err" >&2
if [ "$small" -eq 2 ] && grep -q "shortest output this grammar accepts" "$TMP/small.err"; then
  summary+=("generate: a budget below the shortest output is refused before the model loads; every other run ends complete")
else
  echo "demo: a 24-token budget was not refused as documented (exit $small)" >&2
  exit 2
fi

say "6. a constrained edit: SEARCH/REPLACE under a grammar built from the file (applies by construction), then undo"
mkdir -p "$TMP/proj"
printf 'NAME = "demo"\nPORT = 8000\nDEBUG = False\n' >"$TMP/proj/config.py"
cp "$TMP/proj/config.py" "$TMP/config.orig"
run $GW edit "$TMP/proj/config.py" --root "$TMP/proj" -i "Change PORT to 9000." \
  --max-tokens 64 --max-replace-lines 2 --apply >"$TMP/edit.out"
edited=$?
cat "$TMP/edit.out"
if [ "$edited" -eq 0 ]; then
  printf '$ cat config.py\n' >&2
  cat "$TMP/proj/config.py" >&2
  # what the edit did, line by line (the grammar guarantees the form; the content is the model's)
  did=$($PY - "$TMP/config.orig" "$TMP/proj/config.py" <<'EOF_PY'
import difflib, sys
old, new = (open(p, encoding="utf-8").read().splitlines() for p in sys.argv[1:3])
parts = []
for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new).get_opcodes():
    gone, came = ", ".join(map(repr, old[i1:i2])), ", ".join(map(repr, new[j1:j2]))
    if tag == "replace":
        parts.append(f"replaced {gone} with {came}")
    elif tag == "delete":
        parts.append(f"removed {gone}")
    elif tag == "insert":
        parts.append(f"added {came}")
asked = "PORT = 9000" in new
print("; ".join(parts) or "changed nothing",
      "— the asked change (PORT = 9000) is in the file" if asked else "— the asked change (PORT = 9000) is NOT in the file")
EOF_PY
)
  run $GW undo --root "$TMP/proj"
  if cmp -s "$TMP/proj/config.py" "$TMP/config.orig"; then
    summary+=("edit: the patch applied and config.py still parses: $did; undo restored the file byte for byte")
  else
    echo "demo: undo did not restore config.py" >&2
    exit 2
  fi
elif grep -q "no longer parse" "$TMP/edit.out"; then
  summary+=("edit: refused: the model's patch matched but would leave config.py unparseable; nothing written")
else
  summary+=("edit: not applied (the budget closed the patch early, or it did not apply): reported, nothing written")
fi

say "what this demo showed"
for line in "${summary[@]}"; do printf '  • %s\n' "$line" >&2; done
echo "demo finished: every step behaved as documented" >&2
exit 0

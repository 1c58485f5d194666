#!/usr/bin/env bash
# The main job, end to end on the embedded SmolLM2-135M-Instruct (CPU is fine): lint a schema,
# compile it to canonical GBNF, check documents, then generate under token masks and validate.
# Run through `make demo` (it creates the virtualenv first).
set -uo pipefail
cd "$(dirname "$0")/.."
GW=.venv/bin/gramwright
PO=docs/examples/purchase_order.json
say() { printf '\n\033[1m== %s\033[0m\n' "$*" >&2; }

say "lint the purchase-order schema for our engine"
$GW lint "$PO" || true

say "compile it to canonical GBNF (report of approximations on stderr)"
$GW compile "$PO" | head -n 12

say "check a valid and an invalid document"
printf '%s' '{"supplier":"联想","total_amount":11998,"items":[{"name":"笔记本电脑","qty":2,"unit_price":5999}]}' > /tmp/gw-ok.json
printf '%s' '{"supplier":"联想","items":[],"total_amount":-1}' > /tmp/gw-bad.json
printf '%s' '{"supplier":"联想","items":[{"name":"笔记本电脑","qty":2,"unit_price":5999}],"total_amount":11998}' > /tmp/gw-order.json
$GW check "$PO" /tmp/gw-ok.json && echo "ok document accepted" >&2
$GW check "$PO" /tmp/gw-bad.json || echo "(rejected as expected)" >&2
# the grammar writes members in schema order only; check says when a reordering would pass
$GW check "$PO" /tmp/gw-order.json || echo "(valid JSON value, but not in the grammar's member order)" >&2

say "generate under masks with the embedded model (form guaranteed; content validated, not guaranteed)"
$GW generate --schema "$PO" --max-tokens 160 \
  --prompt "请为行政部生成一份采购申请：向联想采购2台笔记本电脑，每台5999元，加急。" --json

"""The schema in the prompt: the compact type-definition rendering, and leaving it out when it
does not fit the model's context (real tokenizer, real chat template, real schemas)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from gramwright.decode.prompt import SYSTEM_NONE, fit_system_prompt, system_prompt
from gramwright.decode.schema_render import render_compact

FIXTURES = Path(__file__).parents[1] / "fixtures" / "schemas"
BENCH = Path(__file__).parents[2].parent / "shared" / "data" / "jsonschemabench"
PURCHASE_ORDER = Path(__file__).parents[2] / "docs" / "examples" / "purchase_order.json"


def _fixture(name: str) -> Any:
    return json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))


def test_nested_objects_arrays_enums_and_bounds() -> None:
    assert render_compact(json.loads(PURCHASE_ORDER.read_text(encoding="utf-8"))) == (
        "{\n"
        "  supplier: string (≤ 64 chars),\n"
        "  apply_dept?: string,\n"
        '  urgency?: "普通" | "加急" | "特急",\n'
        "  total_amount: number (≥ 0),\n"
        "  items: [\n"
        "    {\n"
        "      name: string,\n"
        "      spec?: string,\n"
        "      qty: integer (≥ 1),\n"
        "      unit_price: number (≥ 0),\n"
        "    }\n"
        "  ] (1..200 items),\n"
        "}"
    )


def test_recursive_refs_become_named_types() -> None:
    assert render_compact(_fixture("recursion_tree")) == (
        "type node = {\n  value: integer,\n  children?: node[],\n}\n\nanswer: node"
    )
    assert render_compact(_fixture("recursion_linked_list")) == (
        "type list = null | {\n  head: string,\n  tail: list,\n}\n\nanswer: list"
    )


def test_scalar_definitions_are_inlined_and_names_shortened() -> None:
    assert render_compact(_fixture("ref_defs_reuse")) == (
        "{\n  net?: number (≥ 0),\n  tax?: number (≥ 0),\n  gross?: number (≥ 0),\n}"
    )
    schema = {
        "definitions": {
            "https:__k8s_io_api_core_v1_PodSpec": {"type": "object", "properties": {"a": {"type": "string"}}},
            "io.k8s.api.apps.v1.PodSpec": {"title": "Other", "type": "object", "properties": {}},
        },
        "type": "object",
        "properties": {
            "spec": {"$ref": "#/definitions/https:__k8s_io_api_core_v1_PodSpec"},
            "other": {"$ref": "#/definitions/io.k8s.api.apps.v1.PodSpec"},
        },
    }
    text = render_compact(schema)
    assert text.startswith("type PodSpec = {\n  a?: string,\n}\n\ntype Other = object")
    assert text.endswith("answer: {\n  spec?: PodSpec,\n  other?: Other,\n}")


def test_combinators() -> None:
    assert render_compact(_fixture("one_of_discriminated")) == (
        '{\n  kind: "circle",\n  r: number,\n} | {\n  kind: "square",\n  side: number,\n}'
    )
    assert render_compact(_fixture("any_of")) == "string (≤ 5 chars) | integer (≥ 0)"
    # allOf parts merge into one object; a member two parts describe satisfies both
    assert render_compact(_fixture("all_of_merge")) == "{\n  a: integer (≤ 9),\n  b?: string,\n}"
    assert render_compact(_fixture("type_array_of_types")) == "string | integer | null"


def test_maps_tuples_patterns_descriptions_and_quoted_keys() -> None:
    schema = {
        "type": "object",
        "description": "An event, as the tracker records it.",
        "properties": {
            "tags": {"type": "object", "additionalProperties": {"type": "integer"}},
            "point": {"type": "array", "prefixItems": [{"type": "number"}] * 2, "items": False},
            "when": {
                "description": "When the customer placed it. More info: https://example.com/x. Then more.",
                "type": "string",
                "format": "date-time",
            },
            "a b": {"enum": ["x", 1, None]},
            "ids": {"type": "array", "items": {"type": "string"}, "uniqueItems": True, "maxItems": 3},
        },
        "patternProperties": {"^x-": {"type": "string"}},
        "required": ["tags", "missing"],
    }
    assert render_compact(schema) == (
        "// An event, as the tracker records it.\n"
        "{\n"
        "  tags: map<string, integer>,\n"
        "  point?: [number, number],\n"
        "  // When the customer placed it.\n"
        "  when?: string (date-time),\n"
        '  "a b"?: "x" | 1 | null,\n'
        "  ids?: string[] (≤ 3 items, unique),\n"
        "  missing: any JSON value,\n"
        "  [key matching /^x-/]: string,\n"
        "}"
    )


def test_boolean_and_empty_schemas() -> None:
    assert render_compact(True) == "any JSON value"
    assert render_compact({}) == "any JSON value"
    assert render_compact(False) == "nothing (no value is allowed)"
    assert render_compact({"$ref": "#/nowhere"}) == "any JSON value"
    assert render_compact({"$ref": "other.json#/x"}) == "x (defined elsewhere)"


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("*.json")), ids=lambda p: p.stem)
def test_every_fixture_renders_its_members(path: Path) -> None:
    schema = json.loads(path.read_text(encoding="utf-8"))
    text = render_compact(schema)
    assert text and "\n\n\n" not in text
    props = schema.get("properties", {}) if isinstance(schema, dict) else {}
    for name in props:
        assert name in text


@cache
def _tokenizer() -> Any:
    from gramwright.models.loader import load_tokenizer

    return load_tokenizer(None)


def _counter(request: str) -> Any:
    from gramwright.models.loader import apply_chat_template

    tok = _tokenizer()

    def count(system: str | None) -> int:
        return len(tok(apply_chat_template(tok, system, request), add_special_tokens=False).input_ids)

    return count


def test_compact_is_smaller_than_json_on_the_fixtures() -> None:
    count = _counter("x")
    base = count(system_prompt({}, rendering="none"))
    compact = json_text = 0
    for path in sorted(FIXTURES.glob("*.json")):
        schema = json.loads(path.read_text(encoding="utf-8"))
        compact += count(system_prompt(schema, rendering="compact")) - base
        json_text += count(system_prompt(schema, rendering="json")) - base
    assert compact < 0.6 * json_text, (compact, json_text)


def test_a_rendering_that_does_not_fit_is_left_out_with_a_note() -> None:
    schema = json.loads(PURCHASE_ORDER.read_text(encoding="utf-8"))
    count = _counter("两台笔记本电脑")
    fits = fit_system_prompt(schema, rendering="compact", count=count, context=8192, max_tokens=256)
    assert fits.rendering == "compact" and fits.note == "" and "supplier: string" in (fits.system or "")
    assert fits.metrics() == {"prompt_tokens": fits.prompt_tokens, "schema_in_prompt": "compact"}
    tight = fits.prompt_tokens + 100  # the prompt fits, the prompt and 256 output tokens do not
    left_out = fit_system_prompt(schema, rendering="compact", count=count, context=tight, max_tokens=256)
    assert left_out.rendering == "none" and left_out.system == SYSTEM_NONE
    assert left_out.prompt_tokens < fits.prompt_tokens
    assert left_out.note.startswith("the schema (compact rendering) was left out of the prompt")
    assert "the grammar still enforces the structure" in left_out.note
    assert left_out.metrics()["prompt_note"] == left_out.note
    unknown = fit_system_prompt(schema, rendering="json", count=count, context=None, max_tokens=256)
    assert unknown.rendering == "json"  # a model that does not say its context: nothing to fit


def _bench_schema(split: str, name: str) -> Any:
    path = BENCH / split / name
    if not path.exists():
        pytest.skip(f"{path} not present")
    return json.loads(path.read_text(encoding="utf-8"))["schema"]


def test_a_44kb_real_schema_is_no_longer_refused() -> None:
    """Kubernetes' PersistentVolumeSpec (44 KB of JSON text): about 12,600 prompt tokens as JSON,
    more than SmolLM2's 8,192; the compact rendering fits beside 256 output tokens."""
    schema = _bench_schema("Kubernetes", "kb_1113_Normalized.json")
    assert len(json.dumps(schema).encode()) > 38_000
    count = _counter("a volume of 10Gi")
    as_json = count(system_prompt(schema, rendering="json"))
    assert as_json > 8192
    plan = fit_system_prompt(schema, rendering="compact", count=count, context=8192, max_tokens=256)
    assert plan.rendering == "compact" and plan.prompt_tokens + 255 <= 8192
    assert plan.prompt_tokens < as_json / 2
    # asked for the JSON text, it is left out instead of refusing the request
    plan = fit_system_prompt(schema, rendering="json", count=count, context=8192, max_tokens=256)
    assert plan.rendering == "none" and f"{as_json:,} tokens" in plan.note


def test_a_schema_too_big_even_compact_is_left_out() -> None:
    schema = _bench_schema("Kubernetes", "kb_146_Normalized.json")  # CronJobList: ~28k compact tokens
    count = _counter("a nightly job")
    plan = fit_system_prompt(schema, rendering="compact", count=count, context=8192, max_tokens=256)
    assert plan.rendering == "none" and plan.prompt_tokens < 200
    assert "compact rendering" in plan.note


@pytest.mark.model
def test_the_generator_reports_the_rendering_and_the_closed_objects() -> None:
    from gramwright.generation import Generator, SamplingOptions
    from gramwright.sources import load_for_generation

    generator = Generator()
    source = load_for_generation(str(PURCHASE_ORDER))
    result = generator.run(source, "两台笔记本电脑，联想", sampling=SamplingOptions(max_tokens=80))
    assert result.metrics["schema_in_prompt"] == "compact" and "prompt_note" not in result.metrics
    assert result.metrics["closed_objects"] == 2
    _, plan = generator.prompt_for(source, "两台笔记本电脑，联想", max_tokens=80)
    assert result.metrics["prompt_tokens"] == plan.prompt_tokens
    # a JSON rendering that cannot fit is left out, with the note, instead of refusing the request
    big = Path(BENCH / "Kubernetes" / "kb_1113_Normalized.json")
    if not big.exists():
        pytest.skip(f"{big} not present")
    bench_source = load_for_generation("kb.json", text=json.dumps(_bench_schema("Kubernetes", big.name)))
    result = generator.run(  # (no mask: the prompt is what is tested; the engine build is slow)
        bench_source,
        "a volume of 10Gi",
        sampling=SamplingOptions(max_tokens=4),
        schema_prompt="json",
        constrain=False,
    )
    assert result.metrics["schema_in_prompt"] == "none"
    assert "left out of the prompt" in result.metrics["prompt_note"]


def test_a_named_type_in_all_of_stays_a_name() -> None:
    """JSONSchemaBench Github_easy/o17683: ``Foo.childFoos`` is ``allOf [$ref Foo, $ref ChildFoo]``
    (merged inline, it recursed without end)."""
    child = ("Foo", "ChildFoo")
    schema = {
        "definitions": {
            "ChildFoo": {"type": "object"},
            "Foo": {
                "properties": {"childFoos": {"allOf": [{"$ref": f"#/definitions/{n}"} for n in child]}},
                "required": ["childFoos"],
                "type": "object",
            },
        },
        "properties": {"Foo": {"$ref": "#/definitions/Foo"}},
        "required": ["Foo"],
    }
    text = render_compact(schema)
    assert text.startswith("type Foo = {\n  childFoos: Foo & object,\n}")
    base = {"$defs": {"B": {"type": "object", "properties": {"id": {"type": "integer"}}}}}
    extended = {"allOf": [{"$ref": "#/$defs/B"}, {"properties": {"x": {"type": "string"}}}], **base}
    assert render_compact(extended) == ("type B = {\n  id?: integer,\n}\n\nanswer: B & {\n  x?: string,\n}")
    described = {"description": "See [the spec](https://example.com/spec#x) for the rules.", "type": "string"}
    assert render_compact(described) == "// See the spec for the rules.\nstring"
    bare = {"description": "A region start (https://example.com/help.md#rules).", "type": "string"}
    assert render_compact(bare) == "// A region start.\nstring"
    titled = {"title": "Meta-schema for the security assessment", "properties": {"a": {"$ref": "#"}}}
    assert render_compact(titled) == "type Root = {\n  a?: Root,\n}\n\nanswer: Root"
    assert text.endswith("answer: {\n  Foo: Foo,\n}")


def test_a_sample_of_real_schemas_renders() -> None:
    if not BENCH.is_dir():
        pytest.skip(f"{BENCH} not present")
    count = 0
    for path in sorted(BENCH.glob("*/*.json"))[::25]:
        schema = json.loads(path.read_text(encoding="utf-8"))["schema"]
        text = render_compact(schema)
        props = schema.get("properties") if isinstance(schema, dict) else None
        for name in props if isinstance(props, dict) else ():
            assert name in text or json.dumps(name, ensure_ascii=False) in text, (path, name)
        count += 1
    assert count > 300

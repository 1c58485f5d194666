"""meta/*: is this a valid schema of its dialect, and does every keyword mean something to the target?"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

import jsonschema
import jsonschema.validators
from jsonschema_specifications import REGISTRY as SPECIFICATIONS

from gramwright.lint.context import LintContext
from gramwright.lint.diagnostic import Finding, Fix
from gramwright.lint.dialects import ALL_KEYWORDS, ANNOTATIONS, DRAFT_ORDER, introduced_in
from gramwright.lint.regex import regex_error
from gramwright.lint.registry import document_rule, node_rule
from gramwright.lint.walker import SINGLE, Node
from gramwright.pointer import join_pointer
from gramwright.schema.compiler.shapes import json_name

MAX_METASCHEMA_ERRORS = 20

# Keywords with a dedicated rule per concern; the generic "target does not implement it" check skips
# them so that one problem is reported once.
DEDICATED = frozenset(
    {
        "not",
        "if",
        "then",
        "else",
        "dependentRequired",
        "dependentSchemas",
        "dependencies",
        "allOf",
        "oneOf",
        "anyOf",
        "uniqueItems",
        "contains",
        "minContains",
        "maxContains",
        "minItems",
        "maxItems",
        "prefixItems",
        "minLength",
        "maxLength",
        "pattern",
        "format",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "patternProperties",
        "minProperties",
        "maxProperties",
        "additionalProperties",
        "enum",
        "const",
        "$ref",
        "items",
        "properties",
        "required",
        "type",
    }
)

_VALIDATOR_BY_DRAFT: dict[str, type[Any]] = {
    "draft-03": jsonschema.Draft3Validator,
    "draft-04": jsonschema.Draft4Validator,
    "draft-06": jsonschema.Draft6Validator,
    "draft-07": jsonschema.Draft7Validator,
    "2019-09": jsonschema.Draft201909Validator,
    "2020-12": jsonschema.Draft202012Validator,
}


def _is_regex(instance: object) -> bool:
    return not isinstance(instance, str) or regex_error(instance) is None


_SUBSCHEMA = {"type": ["object", "boolean"]}
_SELF_REFS = (("$ref", "#"), ("$dynamicRef", "#meta"), ("$recursiveRef", "#"))
_META_TOP_SKIP = frozenset(
    {"$id", "id", "$schema", "properties", "definitions", "$defs", "allOf", "$dynamicAnchor",
     "$recursiveAnchor", "title", "$vocabulary", "$comment", "default"}
)  # fmt: skip


def _shallow(value: Any) -> Any:
    """The metaschema with every "a subschema goes here" reference replaced by "an object or a boolean"."""
    if isinstance(value, list):
        return [_shallow(v) for v in value]
    if not isinstance(value, dict):
        return value
    if any(value.get(k) == target for k, target in _SELF_REFS):
        rest = {k: _shallow(v) for k, v in value.items() if k not in ("$ref", "$dynamicRef", "$recursiveRef")}
        return {**_SUBSCHEMA, **rest}
    ref = value.get("$ref")
    if isinstance(ref, str) and "#/" in ref and not ref.startswith("#"):
        value = {**value, "$ref": "#" + ref.split("#", 1)[1]}  # vocabularies' $defs are merged into one
    return {k: _shallow(v) for k, v in value.items()}


def _metaschema_parts(cls: type[Any]) -> list[dict[str, Any]]:
    meta: dict[str, Any] = cls.META_SCHEMA
    parts = [meta]
    base = str(meta.get("$id", "")).rsplit("/", 1)[0]
    for item in meta.get("allOf", ()):  # 2019-09/2020-12: one metaschema per vocabulary
        ref = item.get("$ref", "") if isinstance(item, dict) else ""
        if ref:
            parts.append(SPECIFICATIONS[ref if "://" in ref else f"{base}/{ref}"].contents)
    return parts


@lru_cache(maxsize=8)
def metaschema_validator(draft: str) -> Any:
    """A validator for *one subschema's own keywords* under ``draft``'s metaschema (vocabularies
    merged; subschema positions only checked to be objects or booleans, the walker visits them).
    Checking node by node is linear in the document and lets identical nodes share one result.
    Of the formats only ``regex`` is asserted (ECMA-aware)."""
    cls = _VALIDATOR_BY_DRAFT[draft]
    parts = _metaschema_parts(cls)
    props: dict[str, Any] = {}
    defs: dict[str, Any] = {}
    for part in parts:
        props.update(part.get("properties", {}))
        defs.update(part.get("$defs", {}))
        defs.update(part.get("definitions", {}))
    top = {k: v for k, v in parts[0].items() if k not in _META_TOP_SKIP}
    shallow = _shallow({**top, "properties": props, "$defs": defs, "definitions": defs})
    checker = jsonschema.FormatChecker(formats=())
    checker.checks("regex", raises=())(_is_regex)
    return cls(shallow, format_checker=checker)


# Keys whose value the walker already visits as subschemas: when that value has the right shape
# (an object/boolean, or a map/list of them) the metaschema has nothing more to say about it.
_CHILD_SINGLE = frozenset(SINGLE) - {"items"}
_CHILD_MAPS = frozenset({"properties", "$defs", "definitions", "dependentSchemas"})
_CHILD_LISTS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
_FREE_VALUES = frozenset({"default", "const", "description", "title", "$comment"})


def _own_keywords(schema: dict[str, Any], known: frozenset[str]) -> dict[str, Any]:
    """The part of a subschema its metaschema can still reject."""
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key not in known:
            continue  # unknown keywords: the metaschema allows anything
        if key in _FREE_VALUES and (
            key not in ("description", "title", "$comment") or isinstance(value, str)
        ):
            continue
        if key in _CHILD_SINGLE and isinstance(value, dict | bool):
            continue
        if (
            key in _CHILD_MAPS
            and isinstance(value, dict)
            and all(isinstance(v, dict | bool) for v in value.values())
        ):
            continue
        if (
            key in _CHILD_LISTS
            and isinstance(value, list)
            and value
            and all(isinstance(v, dict | bool) for v in value)
        ):
            continue
        if key == "items" and isinstance(value, dict | bool):
            continue
        if key == "patternProperties" and isinstance(value, dict):
            value = {k: {} for k in value}  # only the keys (regexes) are left to check
        out[key] = value
    return out


_ErrorTuple = tuple[tuple[str | int, ...], str, str]
_MEMO: dict[tuple[str, str], list[_ErrorTuple]] = {}
_MEMO_LIMIT = 20000
_MEMO_MAX_KEY = 400


def _node_errors(draft: str, schema: dict[str, Any]) -> list[_ErrorTuple]:
    validator = metaschema_validator(draft)
    own = _own_keywords(schema, _known_keywords(draft))
    if not own:
        return []
    key = json.dumps(own, sort_keys=True, default=str)
    small = len(key) <= _MEMO_MAX_KEY
    if small and (draft, key) in _MEMO:
        return _MEMO[(draft, key)]
    errors = [(tuple(e.absolute_path), str(e.message), str(e.validator)) for e in validator.iter_errors(own)]
    if small:
        if len(_MEMO) >= _MEMO_LIMIT:
            _MEMO.clear()
        _MEMO[(draft, key)] = errors
    return errors


@lru_cache(maxsize=8)
def _known_keywords(draft: str) -> frozenset[str]:
    return frozenset(metaschema_validator(draft).schema["properties"]) | frozenset(
        k for k in metaschema_validator(draft).schema if k in ("dependencies",)
    )


@document_rule(
    "meta/invalid-schema",
    what="The document fails its draft's metaschema (including patterns that are not valid regexes).",
    why="Nothing downstream is trustworthy: validators, compilers and providers each do something "
    "different with an invalid schema.",
    anchors="CJS --check-metaschema, JS check_schema",
    default="error",
)
def invalid_schema(ctx: LintContext) -> Iterator[Finding]:
    if not isinstance(ctx.schema, dict | bool):
        yield Finding(
            "",
            f"the document is {json_name(ctx.schema)}, not a schema: a schema is a JSON object or a boolean",
            'wrap the document in an object (a list of allowed values is {"enum": [...]})',
        )
        return
    assumed = "" if ctx.dialect.declared else f" (no known $schema: checked as {ctx.dialect.draft})"
    shown = 0
    for node in ctx.index.nodes:
        if not isinstance(node.schema, dict):
            continue
        for path, message, keyword in _node_errors(ctx.dialect.draft, node.schema):
            shown += 1
            if shown > MAX_METASCHEMA_ERRORS:
                continue
            text = message if len(message) <= 200 else message[:199] + "…"
            hint = (
                "fix the regular expression" if keyword == "format" else "fix the keyword's value" + assumed
            )
            yield Finding(
                join_pointer(node.pointer, *path), f"not a valid {ctx.dialect.draft} schema: {text}", hint
            )
    if shown > MAX_METASCHEMA_ERRORS:
        yield Finding("", f"{shown - MAX_METASCHEMA_ERRORS} more metaschema errors not shown")


_SCHEMA_VALUED = frozenset(SINGLE) | {"items"}
_MAP_VALUED = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas",
                         "dependentRequired", "dependencies"})  # fmt: skip
_LIST_VALUED = frozenset({"allOf", "anyOf", "oneOf", "prefixItems", "enum", "required", "examples"})
_NUMBER_VALUED = frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
                            "minLength", "maxLength", "minItems", "maxItems", "minProperties",
                            "maxProperties", "minContains", "maxContains"})  # fmt: skip
_BOOL_VALUED = frozenset({"uniqueItems", "readOnly", "writeOnly", "deprecated"})


def _value_fits(keyword: str, value: object) -> bool:
    """Whether ``value`` has the shape ``keyword`` takes: ``"note": "text"`` is not a typo of ``not``."""
    if keyword in _SCHEMA_VALUED and keyword != "items":
        return isinstance(value, dict | bool)
    if keyword == "items":
        return isinstance(value, dict | bool | list)
    if keyword in _MAP_VALUED:
        return isinstance(value, dict)
    if keyword in _LIST_VALUED:
        return isinstance(value, list) or (keyword == "required" and isinstance(value, bool))
    if keyword in _NUMBER_VALUED:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if keyword in _BOOL_VALUED:
        return isinstance(value, bool)
    if keyword == "type":
        return isinstance(value, str | list)
    return True


@lru_cache(maxsize=4096)
def suggest_keyword(key: str) -> str | None:
    """The keyword ``key`` is probably a typo of (``mininum`` → ``minimum``, ``maxlength`` →
    ``maxLength``), or ``None``. Close in spelling *and* in length, so that annotations such as
    ``enumDescriptions`` are not mistaken for ``description``."""
    lower = {k.lower(): k for k in ALL_KEYWORDS}
    if key.lower() in lower:
        return lower[key.lower()]
    for match in difflib.get_close_matches(key.lower(), list(lower), n=3, cutoff=0.8):
        if abs(len(match) - len(key)) <= 2:
            return lower[match]
    return None


@node_rule(
    "meta/unknown-keyword",
    on=None,
    what="A keyword that is not in any JSON Schema dialect (often a typo such as `mininum`), or a valid "
    "keyword the target does not implement.",
    why="Validators ignore unknown keywords and xgrammar, llama.cpp and Gemini drop them silently, so the "
    "constraint you wrote is not enforced; llguidance rejects the schema (`Unimplemented keys`).",
    anchors="SM unknown_keywords_prefix, JS #778, LLG schema.rs",
    default="info",
    variants={"typo": "warn", "unsupported": "warn"},
    fixable=True,
)
def unknown_keyword(node: Node, ctx: LintContext) -> Iterator[Finding]:
    profile = ctx.profile
    for key in node.obj:
        if key.startswith("x-") or key in profile.extra_keywords:
            continue
        pointer = join_pointer(node.pointer, key)
        if key in ALL_KEYWORDS:
            supported = profile.supported_keywords
            if supported is None or key in supported or key in DEDICATED:
                continue
            if key in ANNOTATIONS and key not in profile.unsupported_annotations:
                continue
            yield Finding(
                pointer,
                f"`{key}` is not implemented by {profile.name}",
                "remove it, or check the value after generation (the validation layer)",
                variant="unsupported",
            )
            continue
        # A leading underscore is the usual way to switch a keyword off on purpose: not a typo.
        guess = None if key.startswith("_") else suggest_keyword(key)
        if guess is not None and not _value_fits(guess, node.obj[key]):
            guess = None
        if guess is not None:
            fix = None
            if guess not in node.obj:
                fix = Fix(
                    f"rename `{key}` to `{guess}`",
                    ({"op": "move", "from": pointer, "path": join_pointer(node.pointer, guess)},),
                )
            yield Finding(
                pointer,
                f"unknown keyword `{key}`: did you mean `{guess}`? As written it constrains nothing",
                f"rename it to `{guess}`",
                variant="typo",
                fix=fix,
            )
        else:
            yield Finding(
                pointer,
                f"unknown keyword `{key}` is ignored by validators and grammar engines",
                "prefix extensions with `x-` (ignored by every tool), or remove it",
            )


_EXEMPT_FROM_DRAFT_CHECK = ANNOTATIONS | {"$defs", "definitions"}


@node_rule(
    "meta/keyword-draft-mismatch",
    on=None,
    what="A keyword that the declared `$schema` draft does not define (e.g. `const` in draft-04, "
    "`dependencies` in 2020-12).",
    why="Validators of the declared draft treat it as unknown and skip it: a silent no-op.",
    anchors="JS #778",
    default="warn",
)
def keyword_draft_mismatch(node: Node, ctx: LintContext) -> Iterator[Finding]:
    dialect = ctx.dialect
    if not dialect.declared:
        return
    vocabulary = dialect.keywords
    for key in node.obj:
        if key in vocabulary or key not in ALL_KEYWORDS or key in _EXEMPT_FROM_DRAFT_CHECK:
            continue
        first = introduced_in(key)
        if first is not None and DRAFT_ORDER.index(first) > DRAFT_ORDER.index(dialect.draft):
            message = f"`{key}` was introduced in {first}; {dialect.draft} validators ignore it"
            hint = f"declare a newer `$schema` (>= {first}) or express it with {dialect.draft} keywords"
        else:
            message = f"`{key}` is not a {dialect.draft} keyword (an older draft's); it is ignored"
            hint = "use this draft's equivalent keyword"
        yield Finding(join_pointer(node.pointer, key), message, hint)

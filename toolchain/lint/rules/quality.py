"""Rules about what the *model* is asked to do: exits, field order, free text, descriptions, secrets.

Form is guaranteed by the mask; these rules are about content quality, where a schema can force the
model to invent (no "cannot tell" exit), to answer before reasoning, or to write unconstrained text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from gramwright.lint.context import LintContext
from gramwright.lint.diagnostic import Finding
from gramwright.lint.facts import declared_types, is_nullable, required_names
from gramwright.lint.registry import document_rule, node_rule
from gramwright.lint.walker import Node
from gramwright.pointer import join_pointer
from gramwright.schema.exits import is_exit


def _is_free_leaf(schema: dict[str, Any]) -> bool:
    types = declared_types(schema)
    return (
        types is not None
        and bool(types - {"null"})
        and types - {"null"} <= {"string", "number", "integer"}
        and not any(k in schema for k in ("enum", "const"))
    )


@node_rule(
    "exit/missing-refusal",
    on=("properties",),
    what="A required classification enum without an exit value (`other`, `unknown`, `cannot_classify`, "
    "`insufficient_information`, null), or required, non-nullable extraction fields.",
    why="The mask forces a value: when the input does not contain the answer, the model must invent one. "
    'An explicit exit turns a confident wrong answer into a visible "cannot tell".',
    anchors="seed 003 §3.2, seed 000 §33.2",
    default="info",
    variants={"forced-extraction": "info"},
)
def missing_refusal(node: Node, ctx: LintContext) -> Iterator[Finding]:
    props = node.obj["properties"]
    if not isinstance(props, dict):
        return
    min_values = ctx.profile.int_limit("classification_enum_min") or 2
    children = {c.key: c for c in node.children if c.via == "properties"}
    forced: list[str] = []
    for name in required_names(node.obj):
        child = children.get(name)
        if child is None:
            continue
        schema = ctx.resolved_schema(child)
        enum = schema.get("enum")
        if isinstance(enum, list):
            strings = [v for v in enum if isinstance(v, str)]
            if len(strings) >= min_values and not any(is_exit(v) for v in enum) and not is_nullable(schema):
                yield Finding(
                    join_pointer(child.pointer, "enum"),
                    f"required classification `{name}` has no exit value",
                    'add a value such as "other"/"unknown"/"insufficient_information" (or allow null)',
                )
        elif _is_free_leaf(schema) and not is_nullable(schema):
            forced.append(name)
    if forced:
        shown = ", ".join(f"`{n}`" for n in forced[:5]) + (", …" if len(forced) > 5 else "")
        yield Finding(
            node.pointer or "",
            f"required non-nullable fields force a value: {shown}",
            'allow null (`"type": [T, "null"]`) where the source may not contain the value',
            variant="forced-extraction",
        )


_REASONING = {
    "reasoning",
    "reason",
    "reasons",
    "rationale",
    "explanation",
    "explain",
    "thoughts",
    "thought",
    "thinking",
    "analysis",
    "justification",
    "evidence",
    "scratchpad",
    "deliberation",
    "steps",
    "cot",
    "推理",
    "理由",
    "依据",
    "证据",
    "分析",
    "思考",
    "解释",
    "原因",
}
_ANSWER = {
    "answer",
    "result",
    "conclusion",
    "verdict",
    "decision",
    "label",
    "classification",
    "prediction",
    "score",
    "rating",
    "final",
    "sentiment",
    "outcome",
    "答案",
    "结论",
    "结果",
    "判断",
    "评分",
    "分类",
}


_CAMEL = re.compile(r"([a-z0-9])([A-Z])")
_SEPARATORS = re.compile(r"[^0-9A-Za-z\u4e00-\u9fff]+")
_CJK = re.compile(r"[\u4e00-\u9fff]")


@lru_cache(maxsize=8192)
def _role(name: str) -> str | None:
    """``reasoning``, ``answer`` or ``None``, decided by the key's head noun (its last word) in keys of at
    most three words: ``final_answer`` is an answer, ``checkStyleRunAnalysis`` is neither."""
    spaced = _CAMEL.sub(r"\1 \2", name)
    words = [w.lower() for w in _SEPARATORS.split(spaced) if w]
    if not words or len(words) > 3:
        return None
    head = words[-1]
    if _CJK.search(head):
        for role, vocabulary in (("reasoning", _REASONING), ("answer", _ANSWER)):
            if any(head.endswith(w) or head.startswith(w) for w in vocabulary if not w.isascii()):
                return role
        return None
    if head in _REASONING:
        return "reasoning"
    return "answer" if head in _ANSWER else None


@node_rule(
    "order/answer-before-reasoning",
    on=("properties",),
    what="A reasoning/evidence property ordered after the answer/conclusion property.",
    why="OpenAI, Gemini, llguidance, Anthropic and our engine emit keys in schema order: reasoning written "
    "after the answer cannot inform it (it becomes a justification of a guess).",
    anchors="OAI key ordering, GEM doc, LLG doc; seed 003 §3.1, seed 000 §16.2",
    default="info",
)
def answer_before_reasoning(node: Node, ctx: LintContext) -> Iterator[Finding]:
    props = node.obj["properties"]
    if not isinstance(props, dict):
        return
    first_answer: str | None = None
    for name in props:
        role = _role(name)
        if role == "reasoning":
            if first_answer is not None:
                yield Finding(
                    join_pointer(node.pointer, "properties", name),
                    f"`{name}` comes after `{first_answer}`: the answer is generated first",
                    f"move `{name}` before `{first_answer}` in `properties`",
                )
                return
        elif role == "answer" and first_answer is None:
            first_answer = name


@document_rule(
    "type/free-string-ratio",
    what="Most leaf fields are free strings (no `enum`, `const`, `pattern` or `format`).",
    why="The mask then constrains only the brackets and the key names; the content is as free as "
    "unconstrained generation.",
    anchors="seed 000 §19",
    default="info",
    limits=("free_string_ratio",),
)
def free_string_ratio(ctx: LintContext) -> Iterator[Finding]:
    ratio = ctx.profile.limit("free_string_ratio")
    min_leaves = ctx.profile.int_limit("free_string_min_leaves") or 1
    if ratio is None:
        return
    leaves = free = 0
    for n in ctx.index.nodes:
        if n.index not in ctx.reachable or not (n.via in ("properties", "items") or n.parent is None):
            continue
        schema = ctx.resolved_schema(n)
        types = declared_types(schema)
        if types is None or not types - {"null"} or (types - {"null"}) & {"object", "array"}:
            continue
        leaves += 1
        constrained = any(k in schema for k in ("enum", "const", "pattern", "format"))
        if "string" in types and not constrained:
            free += 1
    if leaves >= min_leaves and free >= ratio * leaves:
        yield Finding(
            "",
            f"{free} of {leaves} leaf fields are free strings",
            "use `enum`/`const`/`pattern`/`format` where the values are known",
        )


@node_rule(
    "doc/missing-description",
    on=("properties",),
    what="A property without a `description`.",
    why="Gemini calls clear descriptions crucial; with llama.cpp the schema is not shown to the model at "
    "all, so descriptions are what the prompt must carry.",
    anchors="GEM best practices, LCPP README",
    default="off",
)
def missing_description(node: Node, ctx: LintContext) -> Iterator[Finding]:
    for child in node.children:
        if child.via != "properties" or not isinstance(child.schema, dict):
            continue
        if "description" not in child.obj and "description" not in ctx.resolved_schema(child):
            yield Finding(
                child.pointer,
                f"property `{child.key}` has no description",
                "describe what the value means and where it comes from",
            )


_SECRET_PATTERNS = (
    (
        "an API key",
        re.compile(
            r"\b(?:sk-[A-Za-z0-9_-]{20,}|AKIA[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{36}"
            r"|xox[abpr]-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_-]{35})"
        ),
    ),
    ("a JSON Web Token", re.compile(r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.")),
    ("a private key", re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----")),
    (
        "an e-mail address",
        re.compile(
            r"\b[A-Za-z0-9._%+-]+@(?!example\.|test\.|localhost)[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b"
        ),
    ),
    ("a card number", re.compile(r"\b(?:\d[ -]?){13,19}\b")),
)


def _luhn(text: str) -> bool:
    digits = [int(c) for c in text if c.isdigit()]
    total = sum(d if i % 2 == 0 else (d * 2 - 9 if d > 4 else d * 2) for i, d in enumerate(reversed(digits)))
    return total % 10 == 0


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)


@node_rule(
    "privacy/literal-in-schema",
    on=("enum", "const", "default", "examples", "pattern"),
    what="Secrets or PII-like literals (API keys, tokens, private keys, e-mail addresses, card numbers) in "
    "`enum`, `const`, `default`, `examples` or `pattern`.",
    why="Schemas are logged, cached and shipped to providers: Anthropic caches compiled grammars outside "
    "its ZDR and PHI protections.",
    anchors="ANT doc",
    default="info",
)
def literal_in_schema(node: Node, ctx: LintContext) -> Iterator[Finding]:
    for key in ("enum", "const", "default", "examples", "pattern"):
        if key not in node.obj:
            continue
        for text in _strings(node.obj[key]):
            for label, rx in _SECRET_PATTERNS:
                m = rx.search(text)
                if m and (label != "a card number" or _luhn(m.group(0))):
                    yield Finding(
                        join_pointer(node.pointer, key),
                        f"`{key}` contains what looks like {label}",
                        "remove it; use a placeholder such as user@example.com",
                    )
                    return

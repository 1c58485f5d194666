"""Enum values that mean "cannot answer": the exits a schema offers a model that lacks the information.

A mask forces *some* value; without an exit a model must invent one. The linter asks for an exit
in a required classification enum (``exit/missing-refusal``), and the pipeline names the schema's
exits in its prompt: both decide what an exit is here.
"""

from __future__ import annotations

import re

__all__ = ["is_exit"]

EXIT_WORDS = (
    "other",
    "others",
    "unknown",
    "none",
    "n/a",
    "na",
    "not_applicable",
    "cannot_classify",
    "cannot_determine",
    "undetermined",
    "unclear",
    "uncertain",
    "insufficient_information",
    "insufficient_info",
    "not_enough_information",
    "no_answer",
    "unspecified",
    "not_specified",
    "not_sure",
    "unsure",
    "ambiguous",
    "unclassified",
    "null",
    "missing",
    "not_found",
    "refuse",
    "其他",
    "其它",
    "未知",
    "无法判断",
    "无法确定",
    "不确定",
    "信息不足",
    "无",
    "不适用",
    "未提及",
)
EXIT_FRAGMENTS = (
    "unknown",
    "other",
    "cannot",
    "insufficient",
    "unclear",
    "无法",
    "未知",
    "不确定",
    "其他",
    "不详",
)


def _normal(value: str) -> str:
    return re.sub(r"[\s\-]+", "_", value.strip().lower())


def is_exit(value: object) -> bool:
    """``None``, or a string that says "cannot tell" in English or Chinese (``unknown``,
    ``Not sure``, ``cannot-classify``, ``其他``…): a listed word or one holding a listed fragment,
    compared in lower case with spaces and hyphens as underscores."""
    if value is None:
        return True
    if not isinstance(value, str):
        return False
    v = _normal(value)
    return v in EXIT_WORDS or any(f in v for f in EXIT_FRAGMENTS)

"""Target profiles: what one engine or provider accepts, silently drops, or rejects.

Profiles are versioned JSON data files in ``toolchain/lint/profiles/`` (package data): limits,
supported keywords and formats, and per-rule severities. No provider limit lives in code. A file may
``extend`` another (``_base.json`` holds the decoding-risk thresholds every profile shares) and lists
dated ``versions`` whose ``limits``/``severity`` override the file's; ``name@version`` selects one
(a prefix is enough), plain ``name`` the newest.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any, cast

from gramwright.errors import SchemaError
from gramwright.lint.registry import Rule, SeveritySetting

DEFAULT_PROFILE = "gramwright"
_SETTINGS = ("error", "warn", "info", "off")


class ProfileError(SchemaError, ValueError):
    """An unknown profile or version, or a malformed profile file."""


@dataclass(frozen=True)
class Profile:
    name: str
    version: str
    title: str
    description: str
    date: str = ""
    note: str = ""
    sources: tuple[str, ...] = ()
    limits: Mapping[str, float] = field(default_factory=dict)
    formats: frozenset[str] | None = None
    supported_keywords: frozenset[str] | None = None
    unsupported_annotations: frozenset[str] = frozenset()
    extra_keywords: frozenset[str] = frozenset()
    severity: Mapping[str, SeveritySetting] = field(default_factory=dict)
    versions: tuple[str, ...] = ()
    compile_supersedes: frozenset[str] = frozenset()

    @property
    def label(self) -> str:
        return f"{self.name}@{self.version}"

    def limit(self, key: str) -> float | None:
        return self.limits.get(key)

    def int_limit(self, key: str) -> int | None:
        value = self.limits.get(key)
        return None if value is None else int(value)

    def severity_for(self, rule: Rule, variant: str = "") -> SeveritySetting:
        if variant and f"{rule.id}#{variant}" in self.severity:
            return self.severity[f"{rule.id}#{variant}"]
        if rule.id in self.severity:
            return self.severity[rule.id]
        return rule.default_for(variant)


def _read(name: str) -> dict[str, Any]:
    try:
        text = (resources.files("gramwright.lint") / "profiles" / f"{name}.json").read_text("utf-8")
    except FileNotFoundError:
        known = ", ".join(available_profiles())
        raise ProfileError(f"unknown profile {name!r} (known: {known})") from None
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ProfileError(f"profile {name}: expected a JSON object")
    return cast(dict[str, Any], data)


def _merged(name: str) -> dict[str, Any]:
    data = _read(name)
    parent = data.get("extends")
    if not parent:
        return data
    base = _merged(str(parent))
    out = {**base, **data}
    for key in ("limits", "severity"):
        out[key] = {**base.get(key, {}), **data.get(key, {})}
    return out


def available_profiles() -> list[str]:
    folder = resources.files("gramwright.lint") / "profiles"
    names = (p.name[: -len(".json")] for p in folder.iterdir() if p.name.endswith(".json"))
    return sorted(n for n in names if not n.startswith("_"))


@lru_cache(maxsize=64)
def load_profile(spec: str = DEFAULT_PROFILE) -> Profile:
    """``gramwright``, ``openai-strict``, ``openai-strict@2024-08`` (a version prefix), ``…@current``."""
    name, _, wanted = spec.partition("@")
    data = _merged(name.strip())
    versions: list[dict[str, Any]] = list(data.get("versions") or [{"version": "1"}])
    labels = tuple(str(v["version"]) for v in versions)
    if not wanted or wanted == "current":
        chosen = versions[-1]
    else:
        matches = [v for v in versions if str(v["version"]).startswith(wanted)]
        if not matches:
            raise ProfileError(f"profile {name!r} has no version {wanted!r} (versions: {', '.join(labels)})")
        chosen = matches[-1]
    limits = {**data.get("limits", {}), **chosen.get("limits", {})}
    severity = {**data.get("severity", {}), **chosen.get("severity", {})}
    for key, value in severity.items():
        if value not in _SETTINGS:
            raise ProfileError(f"profile {name}: severity of {key} is {value!r}, expected one of {_SETTINGS}")
    keywords = data.get("keywords", {})
    formats = data.get("formats")
    supported = keywords.get("supported")
    return Profile(
        name=str(data.get("name", name)),
        version=str(chosen["version"]),
        title=str(data.get("title", name)),
        description=str(data.get("description", "")),
        date=str(chosen.get("date", "")),
        note=str(chosen.get("note", "")),
        sources=tuple(data.get("sources", ())),
        limits={str(k): float(v) for k, v in limits.items()},
        formats=None if formats is None else frozenset(formats),
        supported_keywords=None if supported is None else frozenset(supported),
        unsupported_annotations=frozenset(keywords.get("unsupported_annotations", ())),
        extra_keywords=frozenset(keywords.get("extra", ())),
        severity=cast(dict[str, SeveritySetting], severity),
        versions=labels,
        compile_supersedes=frozenset(data.get("compile_supersedes", ())),
    )

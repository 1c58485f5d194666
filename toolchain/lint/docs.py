"""Rule documentation as data and as Markdown: `gramwright lint --list-rules` and docs/lint-rules.md
print the same text."""

from __future__ import annotations

from typing import Any

from gramwright.lint.profiles import Profile, available_profiles, load_profile
from gramwright.lint.registry import Rule, all_rules

_SHORT = {"error": "E", "warn": "W", "info": "I", "off": "–"}


def _variants(rule: Rule, profiles: list[Profile]) -> list[str]:
    names = set(rule.variants)
    for p in profiles:
        names |= {k.split("#", 1)[1] for k in p.severity if k.startswith(rule.id + "#")}
    return sorted(names)


def severity_cell(rule: Rule, profile: Profile) -> str:
    """``W``, or ``W (typo W, unsupported E)`` when variants differ from the rule's base severity."""
    if rule.limits and not any(profile.limit(k) is not None for k in rule.limits):
        return "–"
    base = profile.severity_for(rule, "")
    extra = [
        f"{v} {_SHORT[profile.severity_for(rule, v)]}"
        for v in _variants(rule, [profile])
        if profile.severity_for(rule, v) != base
    ]
    return _SHORT[base] + (f" ({', '.join(extra)})" if extra else "")


def rule_docs(profile_names: list[str] | None = None) -> list[dict[str, Any]]:
    profiles = [load_profile(n) for n in (profile_names or available_profiles())]
    return [
        {
            "id": r.id,
            "what": r.what,
            "why": r.why,
            "anchors": r.anchors,
            "fixable": r.fixable,
            "variants": _variants(r, profiles),
            "severity": {p.name: severity_cell(r, p) for p in profiles},
        }
        for r in all_rules().values()
    ]


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def rules_markdown(profile_names: list[str] | None = None) -> str:
    names = profile_names or available_profiles()
    names = sorted(names, key=lambda n: (n != "gramwright", n))
    docs = rule_docs(names)
    lines = [
        f"{len(docs)} rules. Severity per target profile: E = the target rejects the schema, W = it silently "
        "drops or changes a keyword, or decoding risk, I = quality, – = off. `(variant X)` marks sub-cases "
        "with their own severity (set in a profile as `rule#variant`).",
        "",
        "| rule | " + " | ".join(names) + " |",
        "|---|" + "---|" * len(names),
    ]
    for d in docs:
        lines.append(f"| `{d['id']}` | " + " | ".join(_cell(d["severity"][n]) for n in names) + " |")
    lines.append("")
    for d in docs:
        lines += [f"### `{d['id']}`", "", f"**Detects:** {d['what']}", "", f"**Why:** {d['why']}", ""]
        if d["fixable"]:
            lines += ["**Fix:** mechanical (JSON Patch in the diagnostic's `fix`).", ""]
    return "\n".join(lines)


def profiles_markdown() -> str:
    lines = ["| profile | versions | formats | description |", "|---|---|---|---|"]
    for name in sorted(available_profiles(), key=lambda n: (n != "gramwright", n)):
        p = load_profile(name)
        formats = "any" if p.formats is None else ", ".join(sorted(p.formats))
        versions = ", ".join(p.versions)
        lines.append(f"| `{name}` | {versions} | {_cell(formats)} | {_cell(p.description)} |")
    return "\n".join(lines) + "\n"

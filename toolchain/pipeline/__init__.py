"""The three-layer pipeline: constrain → validate, rules and budgeted retry → flagged salvage.

``run(source, prompt, *, model, policy, rules)`` → :class:`StructuredResult` (which layer made the
value, what each attempt cost and why it failed, with JSON Pointers, and a confidence);
``validate_text`` runs layers 2–3 on text made elsewhere; :mod:`.batch` runs a JSONL file
resumably and :mod:`.metrics` summarises the rows. See docs/pipeline.md.
"""

from gramwright.pipeline.backend import (
    AttemptOutput,
    AttemptRequest,
    Backend,
    GeneratorBackend,
    ScriptedBackend,
)
from gramwright.pipeline.outside import validate_text
from gramwright.pipeline.policy import Policy, parse_runtime
from gramwright.pipeline.result import Attempt, Dropped, ResultError, StructuredResult
from gramwright.pipeline.retry import run
from gramwright.pipeline.rules import RuleSet, RuleSpec, load_rules

__all__ = [
    "Attempt",
    "AttemptOutput",
    "AttemptRequest",
    "Backend",
    "Dropped",
    "GeneratorBackend",
    "Policy",
    "ResultError",
    "RuleSet",
    "RuleSpec",
    "ScriptedBackend",
    "StructuredResult",
    "load_rules",
    "parse_runtime",
    "run",
    "validate_text",
]

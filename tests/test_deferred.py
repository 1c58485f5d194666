"""The deferred rfc3987_syntax import: jsonschema loads without it, IRI checks still answer as the
real package does (each case in a fresh interpreter: the stand-in only works before jsonschema's
first import)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("rfc3987_syntax") is None, reason="rfc3987-syntax is not installed"
)

CASES = [
    ("iri", "http://example.com/ü/?q=1#frag"),
    ("iri", "not an iri"),
    ("iri", "http://[::1]/"),
    ("iri-reference", "//example.org/path"),
    ("iri-reference", "\\\\WINDOWS\\fileshare"),
]

PROBE = """
import json, sys
{first}
import jsonschema
loaded = "rfc3987_syntax.syntax_helpers" in sys.modules
checker = jsonschema.FormatChecker()
answers = [checker.conforms(value, fmt) for fmt, value in json.loads(sys.argv[1])]
print(json.dumps({{"loaded_at_import": loaded, "answers": answers,
                  "loaded_after": "rfc3987_syntax.syntax_helpers" in sys.modules}}))
"""


def _probe(first: str) -> dict[str, object]:
    out = subprocess.run(
        [sys.executable, "-c", PROBE.format(first=first), json.dumps(CASES)],
        capture_output=True,
        text=True,
        check=True,
    )
    got: dict[str, object] = json.loads(out.stdout)
    return got


def test_jsonschema_imports_without_rfc3987_and_checks_answer_as_the_real_package() -> None:
    deferred = _probe("import gramwright")
    real = _probe("import rfc3987_syntax")
    assert deferred["loaded_at_import"] is False
    assert real["loaded_at_import"] is True
    assert deferred["answers"] == real["answers"]
    assert deferred["answers"] == [True, False, False, True, False]  # the package lacks "::" IPv6
    assert deferred["loaded_after"] is True


def test_nothing_is_put_in_place_once_jsonschema_is_loaded() -> None:
    got = _probe(
        "import jsonschema\nfrom gramwright.deferred import defer_rfc3987_syntax\n"
        "assert defer_rfc3987_syntax() is False"
    )
    assert got["loaded_at_import"] is True


def test_other_names_of_the_package_load_it() -> None:
    """A caller that imports the package after gramwright gets the stand-in: its other names
    load the real package and answer as it does."""
    code = (
        "import gramwright, sys, rfc3987_syntax\n"
        "terms = rfc3987_syntax.RFC3987_SYNTAX_TERMS\n"
        "print(len(terms) > 0, 'rfc3987_syntax.syntax_helpers' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "True"]


def test_find_spec_still_answers_for_the_package() -> None:
    """importlib asks a module in sys.modules for its spec: the stand-in carries the real one."""
    code = (
        "import gramwright, importlib.util, sys\n"
        "spec = importlib.util.find_spec('rfc3987_syntax')\n"
        "print(spec is not None and spec.name, 'rfc3987_syntax.syntax_helpers' in sys.modules)\n"
        "from rfc3987_syntax.syntax_helpers import is_valid_syntax\n"
        "print(is_valid_syntax('iri', 'http://example.com/'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["rfc3987_syntax", "False", "True"]


def test_a_package_that_cannot_load_is_treated_as_no_checker() -> None:
    """Where rfc3987_syntax is installed but cannot import (its lark missing), jsonschema without
    gramwright registers no IRI checker and every string conforms: so with the stand-in."""
    code = (
        "import sys\n"
        "sys.modules['lark'] = None\n"
        "{first}\n"
        "import jsonschema\n"
        "print(jsonschema.FormatChecker().conforms('not an iri', 'iri'))"
    )
    for first in ("pass", "import gramwright"):
        out = subprocess.run(
            [sys.executable, "-c", code.format(first=first)], capture_output=True, text=True, check=True
        )
        assert out.stdout.split() == ["True"], first

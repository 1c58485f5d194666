"""The grammars shipped with gramwright (``grammars/*.gbnf``, package data), by name.

A bundled grammar's name is its file name without ``.gbnf`` (``json``, ``arithmetic``, ``kv-config``).
Files are read through :mod:`importlib.resources`, so they are found in a source checkout, an
editable install and an installed wheel alike.
"""

from __future__ import annotations

import re
from importlib import resources
from importlib.resources.abc import Traversable

from gramwright.grammar.errors import GrammarError
from gramwright.grammar.gbnf import parse_gbnf
from gramwright.grammar.ir import Grammar

__all__ = ["UnknownBundledGrammarError", "bundled_names", "bundled_path", "load_bundled"]

_PACKAGE = "gramwright.grammars"
_SUFFIX = ".gbnf"
# A name is a file stem, never a path: this keeps ``load_bundled("../x")`` out of the package.
_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")


class UnknownBundledGrammarError(GrammarError, LookupError):
    """No bundled grammar has that name."""

    def __init__(self, name: str, available: list[str]) -> None:
        self.name = name
        self.available = available
        self.hint = "bundled grammars: " + ", ".join(available)
        super().__init__(f"no bundled grammar named {name!r}")


def bundled_names() -> list[str]:
    """Names of the bundled grammars, sorted."""
    folder = resources.files(_PACKAGE)
    return sorted(
        entry.name[: -len(_SUFFIX)]
        for entry in folder.iterdir()
        if entry.name.endswith(_SUFFIX) and entry.is_file()
    )


def bundled_path(name: str) -> Traversable:
    """The bundled file for ``name`` (a real :class:`pathlib.Path` unless installed zipped)."""
    entry = resources.files(_PACKAGE).joinpath(name + _SUFFIX)
    if not _NAME_RE.fullmatch(name) or not entry.is_file():
        raise UnknownBundledGrammarError(name, bundled_names())
    return entry


def load_bundled(name: str) -> Grammar:
    """Parse the bundled grammar ``name`` (errors name the file as ``grammars/<name>.gbnf``)."""
    text = bundled_path(name).read_text(encoding="utf-8")
    return parse_gbnf(text, source=f"{_PACKAGE}/{name}{_SUFFIX}")

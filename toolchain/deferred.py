"""Import costs put off until they are needed: a fresh process pays only for what it uses.

``import jsonschema`` loads its format checkers, and with the ``format-nongpl`` extra that
includes ``rfc3987_syntax``, which builds 39 Lark parsers *at import* (~1.0 s of jsonschema's
~1.1 s on this project's machine). Every process that compiles a schema with members (the compiler
validates finite candidates) or validates an output paid it, though only a schema with an
``iri``/``iri-reference`` format ever calls that checker.

:func:`defer_rfc3987_syntax` puts a stand-in module in ``sys.modules`` before jsonschema is
imported. jsonschema binds ``rfc3987_syntax.is_valid_syntax`` when it loads; the stand-in's
function imports the real package on its first call and hands over to it, so every check gives
the real package's answer — only later. Where the package is not installed, nothing is put in
place (jsonschema then registers no IRI checker, as it would anyway); where it is already
imported, nothing changes.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
import types
from typing import Any

RFC3987 = "rfc3987_syntax"
_lock = threading.Lock()


class _Deferred(types.ModuleType):
    """Stands for ``rfc3987_syntax`` until its checker is first called."""

    real: Any = None

    def is_valid_syntax(self, rule: str, value: str) -> bool:
        try:
            real = _load_real(self)
        except ImportError:
            # a package that cannot load (a broken install): jsonschema would then have
            # registered no IRI checker, and a string with no checker conforms
            return True
        return bool(real.is_valid_syntax(rule, value))

    def __getattr__(self, name: str) -> Any:
        # anything else a caller reads (the package's other exports) loads the real package
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(_load_real(self), name)


def _load_real(shim: _Deferred) -> Any:
    if shim.real is not None:
        return shim.real  # every check after the first: no lock
    with _lock:
        if shim.real is None:
            if sys.modules.get(RFC3987) is shim:
                del sys.modules[RFC3987]  # so the import below runs the real package
            try:
                shim.real = importlib.import_module(RFC3987)
            except BaseException:
                sys.modules.setdefault(RFC3987, shim)
                raise
        return shim.real


def defer_rfc3987_syntax() -> bool:
    """Put the stand-in in place (once, before jsonschema's first import); True when it is."""
    current = sys.modules.get(RFC3987)
    if isinstance(current, _Deferred):
        return True
    if current is not None or "jsonschema._format" in sys.modules:
        return False  # too late: the real package is loaded (or jsonschema decided without it)
    spec = importlib.util.find_spec(RFC3987)
    if spec is None:
        return False
    shim = _Deferred(RFC3987, "stand-in for rfc3987_syntax, loaded on first use (gramwright.deferred)")
    # the real package's spec, file and loader: importlib.util.find_spec and introspection
    # answer as they would for it
    shim.__spec__ = spec
    shim.__file__ = spec.origin
    shim.__loader__ = spec.loader
    shim.__package__ = spec.parent or RFC3987
    if spec.submodule_search_locations is not None:
        shim.__path__ = list(spec.submodule_search_locations)  # its submodules import as before
    sys.modules[RFC3987] = shim
    return True

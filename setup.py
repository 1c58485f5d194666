"""The package list, computed from the folders, and the optional compiled mask core
(pyproject.toml holds everything else).

``toolchain/`` installs as ``gramwright``, ``editors/`` as ``gramwright.editors`` and ``grammars/`` as
``gramwright.grammars`` (``[tool.setuptools.package-dir]``); every folder below them is a subpackage
of that name (data folders such as ``lint/profiles`` too, as setuptools' namespace discovery would
count them; listing them keeps its "package would be ignored" warning away).
"""

from pathlib import Path

from setuptools import Extension, setup

ROOTS = {"gramwright": "toolchain", "gramwright.editors": "editors", "gramwright.grammars": "grammars"}


def _packages() -> list[str]:
    here = Path(__file__).parent
    found = []
    for name, folder in ROOTS.items():
        base = here / folder
        found.append(name)
        for folder_path in sorted(p for p in base.rglob("*") if p.is_dir() and p.name != "__pycache__"):
            found.append(".".join([name, *folder_path.relative_to(base).parts]))
    return found


# The compiled mask core (``toolchain/engine/_native.c``, read through ``gramwright.engine.native``):
# optional, so a machine without a C compiler still installs, and the pure-Python engine runs there.
# No numpy headers: the module reads arrays through the buffer protocol.
NATIVE = Extension(
    "gramwright.engine._native",
    sources=["toolchain/engine/_native.c"],
    extra_compile_args=["-O3", "-std=c11"],
    extra_link_args=["-pthread"],
    optional=True,
)

setup(packages=_packages(), ext_modules=[NATIVE])

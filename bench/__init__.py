"""Benchmarks: ours beside the peers (llguidance, XGrammar) on the shared data, each a module run
from the repository root with the dev virtualenv, e.g. ``python -m bench.masks --json``.

Each module's docstring says what it measures and how to run it; ``docs/dev/benchmarks.md`` holds
the methods and results. ``patch_cases`` and ``tokenizers_fixtures`` are shared with the tests.
"""

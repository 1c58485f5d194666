"""docs/streaming.md: the model-free Python example prints what the page says it prints."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_model_free_example_prints_what_the_page_shows() -> None:
    page = (ROOT / "docs" / "streaming.md").read_text(encoding="utf-8")
    found = re.search(r"```python\n(.*?)```\n\nprints[^\n]*\n\n```\n(.*?)```", page, flags=re.S)
    assert found is not None, "the example and its printed lines"
    code, shown = found.groups()
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout == shown

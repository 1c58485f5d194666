"""How vLLM and SGLang decide which dialect a grammar text is in — by looking at the text.

* vLLM (``structured_outputs.grammar``), both backends: XGrammar's backend calls
  ``grammar_is_likely_lark`` — after removing ``#``/``//`` comments, a text with ``::=`` on some
  line is GBNF (``compile_grammar``), anything else Lark (``compile_lark``); the guidance backend
  calls llguidance's ``grammar_from("grammar")``.
* llguidance's ``grammar_from`` (vLLM's guidance backend, SGLang's ``--grammar-backend
  llguidance``): Lark when some line starts with ``%llguidance`` or ``start:``, else GBNF,
  converted to Lark (where every regular rule becomes a greedy terminal).
* SGLang's XGrammar backend takes ``ebnf`` as GBNF, always (a Lark text does not load).

The rules are re-stated here from the servers' sources (vLLM 0.12, SGLang 0.4, llguidance 1.9),
not imported, so that a user can see the verdict without installing a server.
"""

from __future__ import annotations

import re

__all__ = ["detect_dialects", "llguidance_dialect", "vllm_dialect"]

_COMMENT = re.compile(r"(#|//).*$")
_LLG_LARK = re.compile(r"(?m)^\s*(%llguidance\b|start\s*:)")


def vllm_dialect(text: str) -> str:
    """``gbnf`` or ``lark``: what vLLM concludes (its ``grammar_is_likely_lark``)."""
    for line in text.split("\n"):
        line = _COMMENT.sub("", line).strip()
        if line and "::=" in line:
            return "gbnf"
    return "lark" if text else "gbnf"


def llguidance_dialect(text: str) -> str:
    """``gbnf`` or ``lark``: what llguidance's ``grammar_from("grammar"|"ebnf")`` concludes."""
    return "lark" if _LLG_LARK.search(text) else "gbnf"


def detect_dialects(text: str) -> dict[str, str]:
    """Each server backend → the dialect it will read ``text`` in (``error`` where it cannot)."""
    vllm = vllm_dialect(text)
    llg = llguidance_dialect(text)
    return {
        "vllm/xgrammar": vllm,
        # vLLM's guidance backend passes the text to llguidance, which looks for itself
        "vllm/guidance": llg,
        # SGLang's XGrammar backend takes `ebnf` as GBNF whatever it looks like
        "sglang/xgrammar": "gbnf" if vllm == "gbnf" else "gbnf (this Lark text will not load)",
        "sglang/llguidance": llg,
        "llama.cpp": "lark" if text.lstrip().startswith("%llguidance") else "gbnf",
    }

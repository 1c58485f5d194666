"""Bitsets → logits tensors (decode/masking.py) and the sampling helpers that take them: the tensor
says what the engine's token ids say, on either unpacking path, for wider heads too, cached per
state and device, bounded."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

from gramwright.decode import masking
from gramwright.decode.masking import TensorMasks, blocked_from_bitmask, tensor_masks
from gramwright.decode.sampling import MASK_VALUE, apply_mask, clipped_mass
from gramwright.engine import bitset
from gramwright.engine.matcher import EmptyMaskError, GrammarEngine
from gramwright.engine.vocab import TokenVocabulary
from gramwright.grammar.bundled import load_bundled
from gramwright.grammar.ir import Grammar, literal
from gramwright.recognizer import compile_grammar
from tests.support.tokens import encode


def _blocked_by_ids(ids: np.ndarray, width: int) -> torch.Tensor:
    """What the decode loop used to build each step: ids → scatter into a bool row → invert."""
    allowed = torch.zeros(width, dtype=torch.bool)
    allowed[torch.from_numpy(ids[ids < width].astype(np.int64))] = True
    return ~allowed


@pytest.mark.parametrize("size", [1, 31, 32, 33, 1000, 49_152])
def test_both_unpacking_paths_agree_with_the_ids(size: int) -> None:
    rng = np.random.default_rng(size)
    ids = np.flatnonzero(rng.random(size) < 0.3).astype(np.int32)
    words = bitset.pack(ids, size).view(np.int32)
    for width in (size, size + 64, max(size - 1, 1)):
        expected = _blocked_by_ids(ids, width)
        assert torch.equal(blocked_from_bitmask(words, width), expected)
        # the shift-and-and over int32 words (the GPU path), run here on the CPU
        cpu = torch.device("cpu")
        assert torch.equal(
            masking._unpack_on_device(words, min(width, words.size * 32), cpu),
            expected[: words.size * 32][:width],
        )
        # a batch's rows at once (``blocked_rows``), the same path
        two = np.stack([words, words])
        assert torch.equal(
            masking._unpack_on_device(two, min(width, words.size * 32), cpu),
            torch.stack([expected[: words.size * 32][:width]] * 2),
        )


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no GPU here")
def test_unpacking_on_a_gpu_matches_the_cpu() -> None:
    ids = np.arange(0, 49_152, 3, dtype=np.int32)
    words = bitset.pack(ids, 49_152).view(np.int32)
    on_gpu = blocked_from_bitmask(words, 49_216, "cuda")
    assert on_gpu.device.type == "cuda"
    assert torch.equal(on_gpu.cpu(), blocked_from_bitmask(words, 49_216))


def test_tensor_masks_follow_a_replay_and_are_reused(smol: tuple[Any, TokenVocabulary]) -> None:
    tok, vocab = smol
    engine = GrammarEngine(compile_grammar(load_bundled("json")), vocab)
    masks = TensorMasks()
    width = vocab.size + 40  # a head wider than the tokenizer: padding logits are always blocked
    matcher = engine.matcher()
    ids = encode(tok, '{"a":[1,2,3],"b":"text text text"}')
    for tid in ids:
        blocked = masks.blocked(matcher, width, torch.device("cpu"))
        assert torch.equal(blocked, _blocked_by_ids(matcher.allowed_token_ids(), width))
        assert blocked[vocab.size :].all()
        matcher.consume(tid)
    built = masks.builds
    assert built < len(ids)  # the repeated states of the string and the array came from the cache
    again = engine.matcher()
    for tid in ids:
        masks.blocked(again, width, "cpu")
        again.consume(tid)
    assert masks.builds == built
    assert tensor_masks(engine) is tensor_masks(engine)


def test_tensor_masks_are_bounded_and_stopped_matchers_allow_nothing() -> None:
    vocab = TokenVocabulary([b"a", b"b", b"ab", b"</s>"], eos_ids=[3])
    engine = GrammarEngine(compile_grammar(Grammar({"root": literal("ab")})), vocab)
    masks = TensorMasks(bytes_max=2 * vocab.size)
    matcher = engine.matcher()
    first = masks.blocked(matcher, vocab.size, "cpu")
    assert first.tolist() == [False, True, False, True]
    matcher.consume(0)
    assert masks.blocked(matcher, vocab.size, "cpu").tolist() == [True, False, True, True]
    matcher.consume(1)
    assert masks.blocked(matcher, vocab.size, "cpu").tolist() == [True, True, True, False]  # EOS only
    assert len(masks._tensors) == 2  # the first state's tensor was dropped
    matcher.consume(3)
    assert matcher.stopped and masks.blocked(matcher, vocab.size, "cpu").all()


def test_an_empty_mask_raises_before_any_tensor() -> None:
    vocab = TokenVocabulary([b"a"])  # no token can write "b"
    engine = GrammarEngine(compile_grammar(Grammar({"root": literal("b")})), vocab)
    with pytest.raises(EmptyMaskError):
        TensorMasks().blocked(engine.matcher(), vocab.size, "cpu")


def test_sampling_helpers_take_the_blocked_tensor() -> None:
    logits = torch.randn(1000, generator=torch.Generator().manual_seed(0))
    blocked = torch.rand(1000, generator=torch.Generator().manual_seed(1)) < 0.7
    probs = torch.softmax(logits, dim=-1)
    assert clipped_mass(logits, blocked) == pytest.approx(float(1 - probs[~blocked].sum()), abs=1e-6)
    masked = apply_mask(logits, blocked)
    assert torch.equal(masked[~blocked], logits[~blocked]) and (masked[blocked] == MASK_VALUE).all()


def test_the_engine_imports_neither_torch_nor_the_model_loader() -> None:
    """Masks are bitsets: computing them loads no torch (the decode layer makes tensors)."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "import gramwright.engine.cache, gramwright.engine.matcher, gramwright.engine.walks\n"
        "from gramwright.engine.matcher import GrammarEngine\n"
        "from gramwright.engine.vocab import TokenVocabulary\n"
        "from gramwright.grammar.ir import Grammar, literal\n"
        "engine = GrammarEngine(Grammar({'root': literal('ab')}), TokenVocabulary([b'a', b'b']))\n"
        "engine.matcher().bitmask()\n"
        "print(sorted(m for m in ('torch', 'transformers', 'gramwright.models') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"

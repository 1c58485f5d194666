"""UTF-8 range lowering: a code point is in the class iff its encoding matches one sequence."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from gramwright.grammar.utf8 import utf8_sequences

code_points = st.integers(0, 0x10FFFF).filter(lambda c: not 0xD800 <= c <= 0xDFFF)


def _matches(seqs: list[tuple[tuple[int, int], ...]], data: bytes) -> bool:
    return any(
        len(s) == len(data) and all(lo <= b <= hi for b, (lo, hi) in zip(data, s, strict=True)) for s in seqs
    )


@given(st.integers(0, 0x10FFFF), st.integers(0, 0x10FFFF), st.lists(code_points, max_size=30))
def test_sequences_match_exactly_the_range(a: int, b: int, probes: list[int]) -> None:
    lo, hi = min(a, b), max(a, b)
    seqs = utf8_sequences([(lo, hi)])
    for cp in [*probes, lo, hi, max(lo - 1, 0), min(hi + 1, 0x10FFFF)]:
        if 0xD800 <= cp <= 0xDFFF:
            continue
        assert _matches(seqs, chr(cp).encode()) == (lo <= cp <= hi), (lo, hi, cp)


def test_full_range_is_the_nine_utf8_shapes_and_skips_surrogates() -> None:
    seqs = utf8_sequences([(0, 0x10FFFF)])
    assert len(seqs) == 9
    assert not _matches(seqs, "\ud800".encode("utf-8", "surrogatepass"))


def test_surrogate_only_range_is_empty() -> None:
    assert utf8_sequences([(0xD800, 0xDFFF)]) == []

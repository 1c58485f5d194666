"""Code-point ranges → UTF-8 byte-range sequences.

The recognizer works on bytes, so a character class becomes a small set of byte-range sequences
(the construction Rust's regex-syntax calls Utf8Sequences, re-derived here): split a range where the
encoded length changes, then where a continuation byte would not cover its full 0x80–0xBF span, until
each piece is a product of per-byte ranges. Surrogates (U+D800–U+DFFF) are never encodable and are
skipped.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

ByteRanges = tuple[tuple[int, int], ...]  # one (lo, hi) per byte position

_LENGTH_LIMITS = (0x7F, 0x7FF, 0xFFFF)


def _encode(cp: int) -> bytes:
    return chr(cp).encode("utf-8", "surrogatepass")


def _split(lo: int, hi: int) -> Iterator[ByteRanges]:
    pending = [(lo, hi)]
    while pending:
        lo, hi = pending.pop()
        if lo > hi:
            continue
        if lo <= 0xDFFF and hi >= 0xD800:  # cut out the surrogates
            pending.append((0xE000, hi))
            pending.append((lo, 0xD7FF))
            continue
        for limit in _LENGTH_LIMITS:
            if lo <= limit < hi:
                pending.append((limit + 1, hi))
                pending.append((lo, limit))
                break
        else:
            if hi <= 0x7F:
                yield ((lo, hi),)
                continue
            for i in (1, 2, 3):
                mask = (1 << (6 * i)) - 1
                if lo & ~mask != hi & ~mask:
                    if lo & mask:
                        pending.append(((lo | mask) + 1, hi))
                        pending.append((lo, lo | mask))
                        break
                    if hi & mask != mask:
                        pending.append((hi & ~mask, hi))
                        pending.append((lo, (hi & ~mask) - 1))
                        break
            else:
                a, b = _encode(lo), _encode(hi)
                yield tuple(zip(a, b, strict=True))


def utf8_sequences(ranges: Iterable[tuple[int, int]]) -> list[ByteRanges]:
    """Byte-range sequences matching exactly the UTF-8 encodings of the code points in ``ranges``."""
    out: list[ByteRanges] = []
    for lo, hi in ranges:
        out.extend(_split(lo, hi))
    return out

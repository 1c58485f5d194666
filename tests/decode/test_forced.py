"""Fast-forward's forced tokens (``decode/forced.py``) and the engine's forced bytes, on the real
SmolLM2 tokenizer (no model)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from gramwright.decode.forced import forced_tokens
from gramwright.engine.matcher import GrammarEngine
from gramwright.engine.vocab import TokenVocabulary
from gramwright.grammar.ir import Grammar, Ref, alt, literal, repeat, seq
from gramwright.recognizer import compile_grammar


@lru_cache(maxsize=1)
def smol() -> tuple[Any, TokenVocabulary]:
    from gramwright.models.loader import load_tokenizer

    tok = load_tokenizer()
    return tok, TokenVocabulary.from_tokenizer(tok)


def engine_of(grammar: Grammar) -> GrammarEngine:
    return GrammarEngine(compile_grammar(grammar), smol()[1])


def test_forced_bytes_are_cached_per_configuration_and_stop_at_a_choice() -> None:
    engine = engine_of(
        Grammar({"root": seq(literal('{"quantity":'), alt(literal("1"), literal("2")), literal("}"))})
    )
    cg = engine.compiled
    assert engine.forced(cg.initial) == b'{"quantity":'
    assert engine.forced(cg.initial) is engine.forced(cg.initial)  # computed once
    after = cg.walk(cg.initial, b'{"quantity":1')
    assert engine.forced(after) == b"}"
    assert engine.forced(cg.walk(cg.initial, b'{"quantity":')) == b""  # a choice: nothing forced


def test_forced_tokens_are_the_tokenizers_own_less_the_last() -> None:
    tok, vocab = smol()
    engine = engine_of(
        Grammar(
            {
                "root": seq(literal('{"supplier_name":"'), repeat(Ref("c"), 1, 8), literal('"}')),
                "c": literal("x"),
            }
        )
    )
    ids = forced_tokens(engine, tok).tokens(engine.compiled.initial)
    natural = tok('{"supplier_name":"x', add_special_tokens=False).input_ids
    assert list(ids) == natural[:-1]  # the meeting with free text is left to the model
    assert len(ids) >= 2
    assert b"".join(vocab.token_bytes[i] for i in ids) == tok.decode(natural[:-1]).encode()


def test_a_forced_end_of_document_is_taken_whole() -> None:
    tok, vocab = smol()
    engine = engine_of(Grammar({"root": seq(alt(literal("a"), literal("b")), literal(" and that is all."))}))
    config = engine.compiled.walk(engine.compiled.initial, b"a")
    ids = forced_tokens(engine, tok).tokens(config)
    assert b"".join(vocab.token_bytes[i] for i in ids) == b" and that is all."  # nothing can follow


def test_forced_text_ending_inside_a_character_is_cut_before_it() -> None:
    tok, vocab = smol()
    # "é" is two bytes; the grammar forces the first and offers two second bytes ("é" or "è")
    engine = engine_of(Grammar({"root": seq(literal("caf"), alt(literal("é!"), literal("è!")))}))
    assert engine.forced(engine.compiled.initial) == b"caf\xc3"
    ids = forced_tokens(engine, tok).tokens(engine.compiled.initial)
    assert b"".join(vocab.token_bytes[i] for i in ids) in (b"", b"c", b"ca", b"caf")


def test_forced_tokens_fit_a_tight_budget() -> None:
    tok, _vocab = smol()
    grammar = Grammar(
        {"root": seq(literal('{"name":"'), repeat(Ref("c"), 1, 3), literal('"}')), "c": literal("x")}
    )
    engine = engine_of(grammar)
    shortest = engine.shortest_output()
    assert shortest is not None
    matcher = engine.matcher(shortest)  # the tightest budget the engine accepts
    for token in forced_tokens(engine, tok).tokens(matcher.config):
        assert matcher.try_consume(token)  # a forced token never breaks the budget
    while not matcher.is_terminated():
        ids = matcher.allowed_token_ids()
        assert ids.size  # never an empty mask
        matcher.consume(int(ids[0]))
    assert matcher.consumed <= shortest


def test_the_models_own_spelling_of_a_forced_run_is_remembered_most_recent_first() -> None:
    from gramwright.decode.forced import Spellings

    memory = Spellings(limit=2)
    assert memory.spelled((1, 2)) == (1, 2)  # nothing known: the tokenizer's spelling
    memory.learn((1, 2), (5, 6, 7))
    memory.learn((3,), (8, 9))
    assert memory.spelled((1, 2)) == (5, 6, 7)  # ... and (1, 2) is now the most recent
    memory.learn((4,), (10, 11))  # over the limit: the least recently used one goes
    assert memory.spelled((3,)) == (3,) and memory.spelled((1, 2)) == (5, 6, 7) and len(memory) == 2
    memory.learn((1, 2), (1, 2))  # the model wrote it as the tokenizer does: nothing to remember
    assert memory.spelled((1, 2)) == (1, 2) and len(memory) == 1

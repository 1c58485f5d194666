"""The edit grammars' masks as one digest: seeded random walks over file-aware grammars.

For each of a few files of this repository (``FILES``), in both edit formats, the grammar built
from the file is walked: from each mask a token is drawn with a seeded generator, and every mask
met (the int32 bitset rows, EOS included where allowed) goes into one sha256, in walk order —
the edit half's counterpart of the long replay's ``bench.masks --digest``. Two mask cores (or
two versions of the engine) compute the same masks exactly when their digests are equal; the
files are read as they are in the tree, so compare digests of one tree only.

    python -m bench.edit_digest --json [--walks 6] [--tokens 120] [--seed 0]
    GRAMWRIGHT_PURE_PYTHON=1 python -m bench.edit_digest --json   # the pure-Python core's
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
FILES = ("editors/patch/recount.py", "toolchain/grammar/utf8.py", "grammars/arithmetic.gbnf")


def digest(walks: int = 6, tokens: int = 120, seed: int = 0) -> dict[str, Any]:
    from gramwright.editors.generate.edit import build_edit_grammar
    from gramwright.editors.patch.model import EditFormat
    from gramwright.editors.patch.snapshot import decode_file
    from gramwright.engine.matcher import GrammarEngine
    from gramwright.engine.native import core_name
    from gramwright.engine.vocab import TokenVocabulary
    from gramwright.models.loader import load_tokenizer

    vocab = TokenVocabulary.from_tokenizer(load_tokenizer())
    rng = random.Random(seed)
    h = hashlib.sha256()
    masks = 0
    grammars = 0
    for name in FILES:
        snap = decode_file(name, (ROOT / name).read_bytes())
        for fmt in (EditFormat.SEARCH_REPLACE, EditFormat.UDIFF):
            engine = GrammarEngine(build_edit_grammar([snap], fmt).grammar, vocab)
            grammars += 1
            for _ in range(walks):
                matcher = engine.matcher()
                for _ in range(tokens):
                    if matcher.is_terminated():
                        break
                    h.update(np.asarray(matcher.bitmask()).tobytes())
                    masks += 1
                    ids = matcher.allowed_token_ids()
                    matcher.consume(int(ids[rng.randrange(ids.size)]))
    return {"core": core_name(), "grammars": grammars, "masks": masks, "digest": h.hexdigest()[:16]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--walks", type=int, default=6)
    parser.add_argument("--tokens", type=int, default=120)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    got = digest(args.walks, args.tokens, args.seed)
    print(json.dumps(got, indent=2) if args.json else got)


if __name__ == "__main__":
    main()

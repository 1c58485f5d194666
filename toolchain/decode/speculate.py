"""Copy speculation ("prompt lookup"): draft the tokens that followed the output's last tokens
where those occur in the prompt or earlier in the output.

Much of what a model writes is a copy of its prompt — a SEARCH block is the file's own lines, a
REPLACE block mostly the same lines changed in one place, an extraction repeats the document's
values. When the output's last few tokens occur in the prompt's token ids, the tokens that follow
them there are a cheap guess at what comes next. The output so far is searched too, after the
prompt: a REPLACE block repeats its SEARCH block's lines as the model tokenised them there, and
a format's markers recur the way the model wrote them the first time. The batched loop
(``batch.py``) feeds that guess (the draft) in the same forward pass as the token it chose,
verifies it position by position with the masked greedy choice, keeps the longest prefix that
greedy decoding would have chosen (plus the one token it chose where the draft went wrong) and
forgets the rest from the KV cache: a greedy output is the one decoding without a draft gives,
in fewer forward passes.

Here only the drafting: where to copy from, and how long a draft to risk. On a CPU a forward pass
over ``k`` tokens costs more than over one (on a GPU nearly the same), so the span adapts: it
grows while drafts are taken whole and shrinks when they are cut short. Where a draft is not
likely, one token is still guessed: a pass over two positions costs about what a pass over one
does (the matrix products read the same weights; ``bench/forward.py``), so a guess that is right
now and then is a gain.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt


class CopyDrafter:
    """Drafts for one request from its prompt's token ids."""

    def __init__(
        self,
        source: Sequence[int],
        *,
        ngram: int = 2,
        max_span: int = 16,
        min_span: int = 2,
        first_span: int = 4,
        context: int = 16,
        sure: int = 4,
        guess: int = 1,
    ) -> None:
        """``ngram``: how many of the output's last tokens must occur in the prompt (fewer match
        too often by chance) for a draft; ``context``: how far back the output is compared with
        each occurrence to choose between them; ``guess``: the tokens risked where a one-token
        pass would carry no likely draft (the continuation of the last token's latest
        occurrence, when even the ``ngram`` does not occur)."""
        self.source: npt.NDArray[np.int64] = np.asarray(list(source), dtype=np.int64)
        self.prompt_size = int(self.source.size)
        self.ngram = ngram
        self.max_span = max_span
        self.min_span = min_span
        self.span = max(min_span, min(first_span, max_span))
        self.context = context
        self.sure = sure
        self.guess = guess
        self.guessing = False  # the last proposal was a guess: its outcome leaves the span alone
        self.drafts = 0  # forward passes that carried a draft
        self.drafted = 0  # tokens drafted, all drafts
        self.accepted = 0  # … of which the verification kept
        self._start = -1  # where in ``source`` the last draft was copied from
        self._next = -1  # the source position that continues the last verified copy

    def extend(self, output: Sequence[int]) -> None:
        """Make the output so far (``output``: all of it, it only grows) searchable after the
        prompt."""
        seen = self.source.size - self.prompt_size
        if len(output) > seen:
            self.source = np.concatenate([self.source, np.asarray(output[seen:], dtype=np.int64)])

    def propose(self, tail: Sequence[int], limit: int, *, cheap: bool = True) -> list[int]:
        """Up to ``min(span, limit)`` tokens that followed ``tail``'s last ``ngram`` tokens in
        the prompt; empty when they do not occur there. ``tail``: the sequence so far (the
        prompt's ids and the output's), its last tokens are enough. ``cheap``: the forward pass
        reads several tokens anyway (forced ones); otherwise a draft makes a one-token pass a
        chunk, which costs more on a CPU, and a full span is risked only where it is likely:
        the copy that the last draft followed, or an occurrence that agrees with at least
        ``sure`` tokens of output. Elsewhere ``guess`` tokens are proposed (``guessing``), from
        that occurrence or from the latest one of the last token alone."""
        n = self.ngram
        self.guessing = False
        want = min(self.span, limit)
        if want < 1 or not tail or self.source.size <= 1:
            return []
        last = np.asarray(list(tail[-self.context :]), dtype=np.int64)
        start = self._continuation(last) if last.size >= n else -1
        if start < 0:
            start, agree = self._best_occurrence(last) if last.size >= n else (-1, 0)
            if not cheap and agree < self.sure:
                start = start if start >= 0 else self._latest(int(last[-1]))
                want = min(want, self.guess)
                self.guessing = True
        if start < 0 or start >= self.source.size or want < 1:
            self.guessing = False
            return []
        self._start = start
        return [int(t) for t in self.source[start : start + want]]

    def _latest(self, token: int) -> int:
        """The position after the latest occurrence of ``token`` that has a continuation; -1."""
        hits = np.flatnonzero(self.source[:-1] == token)
        return int(hits[-1]) + 1 if hits.size else -1

    def _continuation(self, last: npt.NDArray[np.int64]) -> int:
        """The source position after the last verified copy, when the output still follows it
        (a copied line goes on where it was, not at another line that shares two tokens)."""
        n, at = self.ngram, self._next
        if at < n or at > self.source.size:
            return -1
        return at if bool((self.source[at - n : at] == last[-n:]).all()) else -1

    def _best_occurrence(self, last: npt.NDArray[np.int64]) -> tuple[int, int]:
        """The position after the occurrence of the last ``ngram`` tokens whose preceding tokens
        agree longest with the output's (the first of equals), and how many tokens agree;
        (-1, 0) when they do not occur."""
        n, src = self.ngram, self.source
        # an occurrence ends at hit + n - 1 and must have a continuation (the output's own last
        # tokens, at the end of the source, have none)
        hits = np.flatnonzero(src[n - 1 : -1] == last[-1])
        if hits.size == 0:
            return -1, 0
        for back in range(1, n):
            hits = hits[src[hits + n - 1 - back] == last[-1 - back]]
            if hits.size == 0:
                return -1, 0
        best, best_len = int(hits[0]), -1
        for h in hits.tolist():
            agree = n
            while agree < last.size and h + n - 1 - agree >= 0 and src[h + n - 1 - agree] == last[-1 - agree]:
                agree += 1
            if agree > best_len:
                best, best_len = h, agree
        return best + n, best_len

    def verified(self, drafted: int, accepted: int) -> None:
        """The verification kept ``accepted`` of the ``drafted`` tokens: adapt the span and
        remember where the copy goes on."""
        if drafted <= 0:
            return
        self.drafts += 1
        self.drafted += drafted
        self.accepted += accepted
        # the token chosen after the kept ones stands for the source's next one when they agree
        self._next = self._start + accepted + 1
        if self.guessing:  # a guess says little about how long a likely copy runs
            self.guessing = False
            if not accepted:
                self._next = -1
            return
        if accepted == drafted:
            self.span = min(self.max_span, self.span * 2)
        else:
            self.span = max(self.min_span, min(self.span, accepted + 2))

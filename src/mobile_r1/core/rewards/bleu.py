"""Sentence BLEU for typed text and `call_user` questions, computed with sacrebleu under fixed settings.

The InquireMobile GRPO script scores `type` text and `call_user` content with
`_safe_bleu(pred, label)`: both strings are stripped and lower-cased, an empty one scores 0, otherwise
`BLEU(...).sentence_score(pred, [label]).score / 100`, with whitespace tokenisation ('none' tokenizer),
exponential smoothing and 4-grams (BIT-AQH/InquireMobile, R1-V/src/r1-v/src/open_r1/grpo_interactive.py).

Effective order decides what happens to short texts. Without it, a text of fewer than four whitespace
tokens has no 4-gram, its 4-gram precision is smoothed to a tiny value and the score is ~0 even when
it equals the label. With it, only the n-gram orders the text has are averaged, so identical texts
score 1. The reproduction preset keeps it off (FORMATS section 3); the `-fixed` preset turns it on.

Which sacrebleu ran the released script matters, because it builds the metric as
`BLEU(Namespace(tokenize='none', smooth_method='exp', lc=True, ...))`:
- sacrebleu 1.x reads that Namespace: 'none' tokenizer, and its `sentence_score` uses effective order.
  `inquire-mobile-fixed` reproduces it exactly (a test pins values computed with sacrebleu 1.5.1).
- sacrebleu 2.x takes the Namespace as its `lowercase` flag and falls back to the '13a' tokenizer
  (punctuation split off), without effective order: `sentence_bleu(..., tokenize="13a")`.
The released training logs show BLEU-valued rewards but none of the warning 2.x prints on every
sentence score without effective order, which points to 1.x. The `inquire-mobile` preset follows the
project's reference facts (whitespace tokens, no effective order) and differs from both only in how
short texts score.

We call `corpus_score([pred], [[label]])`, which for one sentence gives exactly `sentence_score`'s
number (a test checks this) without sacrebleu's per-call "enable effective_order" log warning.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

BLEU_TOKENIZER = "none"  # whitespace only: sacrebleu splits the (untouched) text on whitespace
BLEU_SMOOTH_METHOD = "exp"
BLEU_MAX_NGRAM_ORDER = 4


@lru_cache(maxsize=None)
def bleu_metric(effective_order: bool, tokenize: str = BLEU_TOKENIZER) -> Any:
    """The shared sacrebleu `BLEU` object for these settings (lower-cased, exp smoothing, 4-grams)."""
    from sacrebleu.metrics import BLEU  # imported on first use: sacrebleu takes a moment to import

    return BLEU(
        lowercase=True,
        tokenize=tokenize,
        smooth_method=BLEU_SMOOTH_METHOD,
        max_ngram_order=BLEU_MAX_NGRAM_ORDER,
        effective_order=effective_order,
    )


def sentence_bleu(prediction: str, reference: str, *, effective_order: bool, tokenize: str = BLEU_TOKENIZER) -> float:
    """BLEU of `prediction` against one `reference` in [0, 1]; 0 when either is empty after stripping."""
    prediction = prediction.strip().lower()
    reference = reference.strip().lower()
    if not prediction or not reference:
        return 0.0
    return bleu_metric(effective_order, tokenize).corpus_score([prediction], [[reference]]).score / 100

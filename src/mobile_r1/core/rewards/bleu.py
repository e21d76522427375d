"""Sentence BLEU for typed text and `call_user` questions, computed with sacrebleu under fixed settings.

The InquireMobile GRPO script scores `type` text and `call_user` content with `_safe_bleu(pred, label)`: both
strings are stripped and lower-cased, an empty one scores 0, otherwise `bleu_metric.sentence_score(pred,
[label]).score / 100` (BIT-AQH/InquireMobile, R1-V/src/r1-v/src/open_r1/grpo_interactive.py). It builds the metric as
`BLEU(Namespace(tokenize='none', smooth_method='exp', max_ngram_order=4, lc=True, ...))`, and what that computes
depends on the sacrebleu it runs under:

- sacrebleu 2.x (what `pip install sacrebleu` gives, and what this project depends on) takes the Namespace as its
  first keyword, `lowercase` (a truthy object: lower-casing on), and every other setting keeps its default: the
  '13a' tokeniser (punctuation and symbols split off words: `'happy new year'.` is six tokens, not three),
  exponential smoothing, 4-grams and no effective order. The `inquire-mobile` preset computes exactly that, so it
  gives the released script's numbers (a test reproduces one: 0.421 on a long question that whitespace tokens
  score 0.383).
- sacrebleu 1.x reads the Namespace: whitespace tokens ('none') and, in `sentence_score`, effective order.
  `inquire-mobile-fixed` computes that (a test pins values computed with sacrebleu 1.5.1): short identical texts
  score 1 there.

Without effective order a text of fewer than four tokens has no 4-gram, its 4-gram precision is smoothed to a tiny
value and it scores about 0 even when it equals the label (FORMATS section 3); with it, only the orders the text
has are averaged. The released training logs show BLEU-valued rewards but none of the warning 2.x prints on every
sentence score without effective order, which hints the authors ran 1.x; both readings are offered by name.

We call `corpus_score([pred], [[label]])`, which for one sentence gives exactly `sentence_score`'s number (a test
checks this) without sacrebleu's per-call "enable effective_order" log warning.

Memory is bounded by design: sacrebleu counts every n-gram of both texts (about 340 bytes a word: a 200 MB text
needed more than 22 GB), so each text is cut to its first `BLEU_MAX_CHARS` characters before it is scored. No model
reply reaches that length (it is the dialects' cap on a reply, `DEFAULT_MAX_CHARS`), so real scores are unchanged.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

BLEU_TOKENIZER = "none"  # whitespace only: sacrebleu splits the (untouched) text on whitespace
RELEASED_TOKENIZER = "13a"  # what the released script's BLEU(Namespace(...)) falls back to under sacrebleu 2.x
BLEU_SMOOTH_METHOD = "exp"
BLEU_MAX_NGRAM_ORDER = 4
BLEU_MAX_CHARS = 65_536  # longer texts are scored on their first BLEU_MAX_CHARS characters


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
    """BLEU of `prediction` against one `reference` in [0, 1]; 0 when either is empty after stripping.

    Each text is cut to its first `BLEU_MAX_CHARS` characters first, so memory stays bounded whatever it holds.
    """
    prediction = prediction[:BLEU_MAX_CHARS].strip().lower()
    reference = reference[:BLEU_MAX_CHARS].strip().lower()
    if not prediction or not reference:
        return 0.0
    return bleu_metric(effective_order, tokenize).corpus_score([prediction], [[reference]]).score / 100

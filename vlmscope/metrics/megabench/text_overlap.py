"""N-gram overlap metrics of MEGA-Bench, computed by the libraries the official scorer uses.

`bleu` is sacrebleu's corpus BLEU / 100 with the official role swap (QUIRK: the ground truth is the
hypothesis and the response the reference); no task uses it. `gleu_cn` is NLTK's sentence GLEU over
jieba search-mode tokens (again with the response as the reference). Neither is re-implemented here.
"""

from __future__ import annotations

import logging
from typing import Any

from vlmscope.metrics.megabench.nltk_parts import nltk_module


def bleu(response: Any, target: Any) -> float:
    """sacrebleu corpus BLEU / 100 with hypothesis = target and reference = response."""
    import sacrebleu

    if isinstance(response, str) and isinstance(target, str):
        references: Any = [response]
        hypotheses: Any = [target]
    elif isinstance(response, (list, tuple)) and isinstance(target, (list, tuple)):
        references, hypotheses = tuple(response), tuple(target)
    else:
        return 0
    return float(sacrebleu.corpus_bleu(hypotheses, [references]).score / 100)


def gleu_cn(response: Any, target: Any) -> float:
    """NLTK sentence GLEU (1-4-grams) of jieba `cut_for_search` tokens."""
    import jieba

    sentence_gleu = nltk_module("nltk.translate.gleu_score").sentence_gleu

    if not isinstance(response, str) or not isinstance(target, str):
        return 0
    jieba.setLogLevel(logging.WARNING)
    reference_tokens = list(jieba.cut_for_search(response))
    hypothesis_tokens = list(jieba.cut_for_search(target))
    return float(sentence_gleu([reference_tokens], hypothesis_tokens))

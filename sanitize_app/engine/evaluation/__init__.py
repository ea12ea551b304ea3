"""The TAB evaluation metrics (Pilán et al. 2022, section 6), with the semantics of the
official evaluation script: entity-level recall of direct and quasi identifiers
(ER_di, ER_qi), token-level recall and precision, weighted precision (WP) with uniform
or information-content weights, and per-type false negatives."""

from .corpus import GoldCorpus, GoldDocument, GoldEntity
from .metrics import EvaluationReport, evaluate
from .token_filter import SpacyTokenFilter, TokenFilter, WordListTokenFilter, official_token_filter

__all__ = [
    "EvaluationReport",
    "GoldCorpus",
    "GoldDocument",
    "GoldEntity",
    "SpacyTokenFilter",
    "TokenFilter",
    "WordListTokenFilter",
    "evaluate",
    "official_token_filter",
]

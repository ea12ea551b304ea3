"""Risk indicators: each judges entities (and combinations) with an explanation, or
says why it cannot run here. See ``combine`` for how their verdicts are put together."""

from .base import Combination, IndicatorOutput, IndicatorStatus, Judgement, RiskIndicator, status_of
from .classified import LMProbabilityIndicator, SpanClassificationIndicator
from .combination import CombinedRisk
from .perturbation import PerturbationIndicator
from .rules import GuidelineRules
from .sequence_labelling import SequenceLabellingIndicator
from .web_search import HttpSearchBackend, SearchBackend, WebSearchIndicator

__all__ = [
    "Combination",
    "CombinedRisk",
    "GuidelineRules",
    "HttpSearchBackend",
    "IndicatorOutput",
    "IndicatorStatus",
    "Judgement",
    "LMProbabilityIndicator",
    "PerturbationIndicator",
    "RiskIndicator",
    "SearchBackend",
    "SequenceLabellingIndicator",
    "SpanClassificationIndicator",
    "WebSearchIndicator",
    "status_of",
]

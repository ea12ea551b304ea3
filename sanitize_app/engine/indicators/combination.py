"""Putting the indicators' verdicts together: an entity is risky when at least ``k`` of
the available model-based indicators say so; risky combinations are collected from all.

When no model-based indicator is available, the guideline rules decide (and the
result says so): the engine never pretends a model judged what rules decided."""

from dataclasses import dataclass, field

from ..context import DocumentContext
from .base import Combination, IndicatorStatus, RiskIndicator, status_of
from .rules import GuidelineRules


@dataclass
class RiskAssessment:
    risky: dict[int, list[str]] = field(default_factory=dict)  # entity -> reasons
    # entity -> why indicators found it safe (or too few of them risky): shown with NO_MASK
    safe: dict[int, list[str]] = field(default_factory=dict)
    scores: dict[int, float] = field(default_factory=dict)  # entity -> highest score
    # entity -> P(mask) from each trained model that judged it (``probabilistic``
    # indicators). Unlike ``scores``, never a rule's 0 or 1: what active learning needs.
    probabilities: dict[int, list[float]] = field(default_factory=dict)
    combinations: list[Combination] = field(default_factory=list)
    statuses: list[IndicatorStatus] = field(default_factory=list)
    decided_by: str = ""

    def mask_probability(self, index: int) -> float | None:
        """The trained models' mean P(mask) for the entity; None when no model judged it."""
        values = self.probabilities.get(index)
        return sum(values) / len(values) if values else None


class CombinedRisk:
    def __init__(self, indicators: list[RiskIndicator], k: int = 1, fallback: RiskIndicator | None = None):
        if k < 1:
            raise ValueError("k must be at least 1")
        self.indicators, self.k = indicators, k
        self.fallback = fallback or GuidelineRules()

    @property
    def statuses(self) -> list[IndicatorStatus]:
        return [status_of(indicator) for indicator in self.indicators]

    def assess(self, context: DocumentContext) -> RiskAssessment:
        """Votes of the available indicators. When no indicator that may decide (see
        ``RiskIndicator.decides``) gave a verdict, because none is available or all failed
        on this document, the guideline rules decide (privacy first) and the others
        (web search) add the risks they found."""
        assessment = RiskAssessment(statuses=self.statuses)
        outputs = {}
        for indicator in (i for i in self.indicators if i.available):
            try:
                outputs[indicator.name] = (indicator, indicator.assess(context))
            except Exception as exc:  # a failing indicator is reported, never fatal
                assessment.statuses = [
                    IndicatorStatus(s.name, False, f"failed on this document: {exc}") if s.name == indicator.name else s
                    for s in assessment.statuses
                ]
        if any(getattr(indicator, "decides", True) for indicator, _ in outputs.values()):
            k = min(self.k, len(outputs))
            assessment.decided_by = f"at least {k} of: " + ", ".join(outputs)
        else:
            k = 1
            assessment.decided_by = f"{self.fallback.name} (no model-based indicator available)" + (
                f" + {', '.join(outputs)}" if outputs else ""
            )
            outputs = {self.fallback.name: (self.fallback, self.fallback.assess(context)), **outputs}
        votes: dict[int, list[str]] = {}
        for indicator, output in outputs.values():
            self._count(indicator, output, assessment, votes)
        assessment.risky = {index: reasons for index, reasons in votes.items() if len(reasons) >= k}
        for index, reasons in votes.items():
            if len(reasons) < k:
                assessment.safe.setdefault(index, []).append(
                    f"only {len(reasons)} of the {k} agreeing indicators needed: " + "; ".join(reasons)
                )
        return assessment

    @staticmethod
    def _count(indicator, output, assessment: RiskAssessment, votes: dict[int, list[str]]) -> None:
        for index, judgement in output.entities.items():
            assessment.scores[index] = max(assessment.scores.get(index, 0.0), judgement.score)
            if getattr(indicator, "probabilistic", False):
                assessment.probabilities.setdefault(index, []).append(judgement.score)
            if judgement.risky:
                votes.setdefault(index, []).append(judgement.explanation)
            elif judgement.explanation:
                named = judgement.explanation.startswith(indicator.name)
                explanation = judgement.explanation if named else f"{indicator.name}: {judgement.explanation}"
                assessment.safe.setdefault(index, []).append(explanation)
        assessment.combinations += output.combinations

"""The interface every risk indicator implements.

An indicator says whether it can run here (and why not), then judges entities (a score
in [0, 1], risky or not, and why) and, for those that look at several entities at once,
combinations of entities that are risky together. No indicator fakes a score: when its
model is missing it is unavailable and says so."""

from dataclasses import dataclass, field
from typing import Protocol

from ..context import DocumentContext


@dataclass
class Judgement:
    score: float
    risky: bool
    explanation: str


@dataclass
class Combination:
    entities: tuple[int, ...]
    score: float
    explanation: str


@dataclass
class IndicatorOutput:
    name: str
    entities: dict[int, Judgement] = field(default_factory=dict)
    combinations: list[Combination] = field(default_factory=list)


class RiskIndicator(Protocol):
    """``decides`` (optional, default True): whether the indicator may stand in for the
    guideline rules. One that can only add risk (web search) sets it to False.
    ``probabilistic`` (optional, default False): its score is a trained model's P(mask)."""

    name: str

    @property
    def available(self) -> bool: ...

    @property
    def unavailable_reason(self) -> str: ...

    def assess(self, context: DocumentContext) -> IndicatorOutput: ...


@dataclass
class IndicatorStatus:
    name: str
    available: bool
    reason: str = ""


def status_of(indicator: RiskIndicator) -> IndicatorStatus:
    return IndicatorStatus(
        indicator.name, indicator.available, "" if indicator.available else indicator.unavailable_reason
    )

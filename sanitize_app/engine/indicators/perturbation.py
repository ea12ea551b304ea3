"""Perturbation: how much masking one entity changes how predictable another is.

If the masked LM predicts entity B much worse once entity A is masked too, A gives B
away (and the other way round): the pair is a risky combination, at least one of them
must be masked. Only entities whose first mentions lie within one model window are
compared."""

from ..context import DocumentContext
from .base import Combination, IndicatorOutput

THRESHOLD_NATS = 2.0
MAX_DISTANCE_CHARS = 600


class PerturbationIndicator:
    name = "perturbation"
    # It finds entities that give each other away; it has no opinion on the others, so
    # it adds risk to whatever decides and never decides alone.
    decides = False

    def __init__(self, lm, lm_reason: str = "", threshold: float = THRESHOLD_NATS, max_entities: int = 30):
        self.lm, self._reason, self.threshold, self.max_entities = lm, lm_reason, threshold, max_entities

    @property
    def available(self) -> bool:
        return self.lm is not None

    @property
    def unavailable_reason(self) -> str:
        return "" if self.lm is not None else (self._reason or "no masked language model configured")

    def assess(self, context: DocumentContext) -> IndicatorOutput:
        output = IndicatorOutput(self.name)
        entities = context.entities[: self.max_entities]
        alone = {e.index: sum(self.lm.span_log_probs(context.text, e.mentions[0])) for e in entities}
        for target in entities:
            for other in entities:
                if other.index == target.index:
                    continue
                if abs(other.mentions[0][0] - target.mentions[0][0]) > MAX_DISTANCE_CHARS:
                    continue
                together = sum(self.lm.span_log_probs(context.text, target.mentions[0], [other.mentions[0]]))
                drop = alone[target.index] - together
                if drop >= self.threshold:
                    output.combinations.append(
                        Combination(
                            tuple(sorted((target.index, other.index))),
                            drop,
                            f"masking “{other.first_text(context.text)}” makes “{target.first_text(context.text)}” "
                            f"{drop:.1f} nats less predictable",
                        )
                    )
        return output

"""The two indicators that ask a trained masking classifier.

- LM probabilities: the span's subword log-probabilities under a masked LM (min, max,
  mean, median, sum) with the entity's features. Needs the LM and a classifier trained
  on those features.
- Span classification: a representation of the span's text (the masked LM's hidden
  states when one is there, hashed character trigrams otherwise) with the entity's
  features. Needs a classifier trained with the same representation.
"""

from ..classifier import MaskingClassifier
from ..context import DocumentContext
from ..features import entity_features, ngram_representation
from ..lm import aggregate
from .base import IndicatorOutput, Judgement

THRESHOLD = 0.5


def _judge(name: str, output: IndicatorOutput, indexes: list[int], probabilities: list[float], what: str) -> None:
    for index, probability in zip(indexes, probabilities, strict=True):
        risky = probability >= THRESHOLD
        output.entities[index] = Judgement(probability, risky, f"{name}: P(mask) = {probability:.2f} from {what}")


class LMProbabilityIndicator:
    name = "LM probabilities"
    probabilistic = True

    def __init__(self, lm, classifier: MaskingClassifier | None, lm_reason: str = "", ic=None):
        self.lm, self.classifier, self.ic = lm, classifier, ic
        self._reason = lm_reason

    @property
    def available(self) -> bool:
        return self.lm is not None and self.classifier is not None and self.classifier.meta.get("features") == "lm"

    @property
    def unavailable_reason(self) -> str:
        if self.lm is None:
            return self._reason or "no masked language model configured"
        if self.classifier is None or self.classifier.meta.get("features") != "lm":
            return "no masking classifier trained on LM features yet (train one from confirmed layers)"
        return ""

    def features(self, context: DocumentContext) -> list[dict]:
        rows = []
        for entity in context.entities:
            log_probs = self.lm.span_log_probs(context.text, entity.mentions[0])
            ic = self.ic.information_content(context.text, entity.mentions[0]) if self.ic else 0.0
            rows.append(entity_features(context, entity, information_content=ic, lm_aggregates=aggregate(log_probs)))
        return rows

    def assess(self, context: DocumentContext) -> IndicatorOutput:
        output = IndicatorOutput(self.name)
        rows = self.features(context)
        _judge(
            self.name,
            output,
            [e.index for e in context.entities],
            self.classifier.probabilities(rows),
            "subword log-probabilities and features",
        )
        return output


class SpanClassificationIndicator:
    name = "span classification"
    probabilistic = True

    def __init__(self, classifier: MaskingClassifier | None, lm=None, ic=None, encoder=None):
        self.classifier, self.lm, self.ic = classifier, lm, ic
        self.encoder = encoder  # a ContextualSpanEncoder (not used yet)

    @property
    def representation(self) -> str:
        return f"mlm:{self.lm.name}" if self.lm is not None else "ngrams"

    @property
    def available(self) -> bool:
        return self.classifier is not None and self.classifier.meta.get("representation") == self.representation

    @property
    def unavailable_reason(self) -> str:
        if self.classifier is None:
            return "no span classifier trained yet (train one from confirmed layers)"
        if self.classifier.meta.get("representation") != self.representation:
            return (
                f"the span classifier was trained with {self.classifier.meta.get('representation')!r} "
                f"but {self.representation!r} is configured"
            )
        return ""

    def features(self, context: DocumentContext) -> list[dict]:
        rows = []
        for entity in context.entities:
            span = entity.mentions[0]
            ic = self.ic.information_content(context.text, span) if self.ic else 0.0
            row = entity_features(context, entity, information_content=ic)
            if self.lm is not None:
                row.update({f"emb{i}": v for i, v in enumerate(self.lm.span_embedding(context.text, span))})
            else:
                row.update(ngram_representation(context.text[span[0] : span[1]]))
            rows.append(row)
        return rows

    def assess(self, context: DocumentContext) -> IndicatorOutput:
        output = IndicatorOutput(self.name)
        _judge(
            self.name,
            output,
            [e.index for e in context.entities],
            self.classifier.probabilities(self.features(context)),
            f"span representation ({self.representation}) and features",
        )
        return output

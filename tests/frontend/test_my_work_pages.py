"""My work: the "most uncertain first" order says what it rests on, and pages keep it."""

from annotation.models import AnnotationLayer, Document, PreannotationRun, Prediction, RunDocument

from .conftest import client_for


def _queue(corpus, people, count: int) -> list[Document]:
    documents = [Document.objects.create(corpus=corpus, doc_id=f"doc-{i:02}", text="x" * 20) for i in range(count)]
    for document in documents:
        AnnotationLayer.objects.create(document=document, annotator=people["ann"])
    return documents


def _scored(run, document, probability):
    RunDocument.objects.create(run=run, document=document, status=RunDocument.Status.DONE)
    Prediction.objects.create(
        run=run,
        document=document,
        entity_key=0,
        start_offset=0,
        end_offset=1,
        span_text="x",
        entity_type="MISC",
        identifier_type="QUASI",
        risk=1.0,
        mask_probability=probability,
    )


def test_scored_documents_come_first_and_pages_keep_the_order(corpus, people):
    documents = _queue(corpus, people, 52)
    _scored(PreannotationRun.objects.create(corpus=corpus), documents[51], 0.3)  # uncertainty min(0.3, 0.7) = 0.3
    ann = client_for(people["ann"])
    plain = ann.get("/work/").content.decode()
    assert plain.index("doc-00") < plain.index("doc-01") and "doc-51" not in plain  # 50 a page
    assert 'id="order-note"' not in plain
    ordered = ann.get("/work/", {"order": "uncertain"}).content.decode()
    assert ordered.index("doc-51") < ordered.index("doc-00") and ">0.30</td>" in ordered
    assert (
        "Most uncertain first: 1 of 52 documents scored by a trained model; "
        "the other 51, not pre-annotated with one, follow by document id."
    ) in ordered
    assert 'href="?order=uncertain&amp;page=2"' in ordered
    second = ann.get("/work/", {"order": "uncertain", "page": 2}).content.decode()
    assert "doc-49" in second and "doc-51" not in second  # doc-51 moved to the front: doc-49 is 51st


def test_without_a_trained_model_the_page_says_so_and_orders_by_document_id(corpus, people):
    documents = _queue(corpus, people, 3)
    run = PreannotationRun.objects.create(corpus=corpus)
    _scored(run, documents[2], None)  # pre-annotated by the rules only
    page = client_for(people["ann"]).get("/work/", {"order": "uncertain"}).content.decode()
    assert "No trained model yet: ordered by document id." in page
    assert page.index("doc-00") < page.index("doc-01") < page.index("doc-02")
    assert 'title="not pre-annotated with a trained model">—</span>' in page

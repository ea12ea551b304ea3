"""Active learning order, with uncertainties computed by hand from stored probabilities."""

import pytest

from annotation.models import AnnotationLayer, Document, PreannotationRun, Prediction, RunDocument, TrainedModel
from annotation.services.active_learning import document_uncertainty, entity_uncertainty, most_uncertain_first


def test_entity_uncertainty_is_the_models_own_chance_of_being_wrong():
    assert entity_uncertainty(0.5) == 0.5  # a coin toss
    assert entity_uncertainty(0.9) == pytest.approx(0.1)  # masks it, wrong one time in ten
    assert entity_uncertainty(0.1) == pytest.approx(0.1)  # leaves it, wrong one time in ten
    assert entity_uncertainty(0.0) == entity_uncertainty(1.0) == 0.0
    assert entity_uncertainty(1.7) == entity_uncertainty(-0.2) == 0.0  # clamped


def _predict(run, document, entities: list[list[float | None]], identifier_type="QUASI"):
    """One prediction per probability; each inner list is one entity (its mentions)."""
    RunDocument.objects.get_or_create(run=run, document=document, defaults={"status": RunDocument.Status.DONE})
    first_key = Prediction.objects.filter(run=run, document=document).count()
    for key, probabilities in enumerate(entities, start=first_key):
        for offset, probability in enumerate(probabilities):
            Prediction.objects.create(
                run=run,
                document=document,
                entity_key=key,
                start_offset=key * 10 + offset,
                end_offset=key * 10 + offset + 1,
                span_text="x",
                entity_type="MISC",
                identifier_type=identifier_type,
                risk=1.0,  # what the rules say: never an uncertainty
                mask_probability=probability,
            )


def _layers(corpus, people, doc_ids: list[str]) -> dict[str, AnnotationLayer]:
    layers = {}
    for doc_id in doc_ids:
        document = Document.objects.create(corpus=corpus, doc_id=doc_id, text="x" * 100)
        layers[doc_id] = AnnotationLayer.objects.create(document=document, annotator=people["ann"])
    return layers


def _order(layers: dict[str, AnnotationLayer]):
    fresh = list(
        AnnotationLayer.objects.filter(pk__in=[layer.pk for layer in layers.values()]).select_related(
            "document__corpus"
        )
    )
    return most_uncertain_first(fresh)


def test_scored_documents_come_first_most_uncertain_first_then_the_rest_by_document_id(corpus, people):
    layers = _layers(corpus, people, ["d20", "d4", "d0", "d1", "d10", "d3", "d2"])
    doc = {doc_id: layer.document for doc_id, layer in layers.items()}
    old, new = (PreannotationRun.objects.create(corpus=corpus) for _ in range(2))
    # d3: 0.5 and 0.9 -> 0.5 + 0.1 = 0.6
    _predict(new, doc["d3"], [[0.5], [0.9]])
    # d1: 0.9 and 0.1 -> 0.1 + 0.1 = 0.2; its direct identifier (masked by rule) does not count
    _predict(new, doc["d1"], [[0.9], [0.1]])
    _predict(new, doc["d1"], [[0.5]], identifier_type="DIRECT")
    # d2: an entity of two mentions counts once: 0.5; and 0.7 -> 0.3; 0.5 + 0.3 = 0.8
    _predict(new, doc["d2"], [[0.5, 0.5], [0.7]])
    # d10: a coin toss in the old run, but the newest is sure: 1 - 0.95 = 0.05
    _predict(old, doc["d10"], [[0.5]])
    _predict(new, doc["d10"], [[0.95]])
    # d4: pre-annotated by rules only (no probability); d0: never pre-annotated;
    # d20: scored by a model in the old run, rules only in the newest: not scored.
    _predict(new, doc["d4"], [[None], [None]])
    _predict(old, doc["d20"], [[0.5]])
    _predict(new, doc["d20"], [[None]])

    scores = document_uncertainty([document.pk for document in doc.values()])
    expected = {"d2": 0.8, "d3": 0.6, "d1": 0.2, "d10": 0.05}
    assert scores == pytest.approx({doc[doc_id].pk: value for doc_id, value in expected.items()})

    ordered = _order(layers)
    # the unscored ones in natural document id order: d4 before d20
    assert [layer.document.doc_id for layer in ordered.layers] == ["d2", "d3", "d1", "d10", "d0", "d4", "d20"]
    assert [layer.uncertainty for layer in ordered.layers[:4]] == pytest.approx([0.8, 0.6, 0.2, 0.05])
    assert [layer.uncertainty for layer in ordered.layers[4:]] == [None] * 3
    assert ordered.scored == 4
    assert ordered.message == (
        "Most uncertain first: 4 of 7 documents scored by a trained model; "
        "the other 3, not pre-annotated with one, follow by document id."
    )


def test_without_a_trained_model_the_order_is_by_document_id_and_says_so(corpus, people):
    layers = _layers(corpus, people, ["d10", "d9", "d2"])
    run = PreannotationRun.objects.create(corpus=corpus)
    # The rules' risks 1.0 and 0.0 give no probability: nothing to order by.
    _predict(run, layers["d10"].document, [[None], [None]])
    _predict(run, layers["d2"].document, [[None]])
    ordered = _order(layers)
    assert [layer.document.doc_id for layer in ordered.layers] == ["d2", "d9", "d10"]  # not "d10" < "d2"
    assert [layer.uncertainty for layer in ordered.layers] == [None, None, None]
    assert ordered.scored == 0
    assert ordered.message == "No trained model yet: ordered by document id."


def test_a_promoted_model_that_scored_nothing_yet_is_named(corpus, people):
    layers = _layers(corpus, people, ["d1", "d2"])
    _predict(PreannotationRun.objects.create(corpus=corpus), layers["d1"].document, [[None]])
    # A recognizer gives no probability: still no model to order by.
    TrainedModel.objects.create(corpus=corpus, kind="recognizer", version=1, status="succeeded", is_active=True)
    assert _order(layers).message == "No trained model yet: ordered by document id."
    TrainedModel.objects.create(corpus=corpus, kind="masking", version=1, status="succeeded", is_active=True)
    ordered = _order(layers)
    assert [layer.document.doc_id for layer in ordered.layers] == ["d1", "d2"]
    assert ordered.message == (
        "No document here was pre-annotated with the promoted trained model yet: ordered by document id "
        "(a new pre-annotation run scores them)."
    )


def test_when_every_document_is_scored_the_message_says_so(corpus, people):
    layers = _layers(corpus, people, ["d1", "d2"])
    run = PreannotationRun.objects.create(corpus=corpus)
    _predict(run, layers["d1"].document, [[0.99]])  # 0.01
    _predict(run, layers["d2"].document, [[0.6]])  # 0.4
    ordered = _order(layers)
    assert [layer.document.doc_id for layer in ordered.layers] == ["d2", "d1"]
    assert ordered.message == "Most uncertain first: all 2 documents scored by a trained model."


@pytest.mark.usefixtures("rules_only_engine")
def test_a_promoted_masking_classifier_gives_scores_that_order_the_documents(
    corpus, people, pick, import_documents, settings, tmp_path
):
    """A real (small) masking classifier trained through the service and promoted: the
    next pre-annotation stores its probabilities, and they tell the documents apart."""
    from annotation.services import training
    from annotation.services.preannotation import run_batch, start_run

    settings.SANITIZE_MODEL_ROOT = tmp_path / "models"
    import_documents(corpus, pick("001-79436", "001-83927", "001-95183"))
    documents = list(corpus.documents.values_list("pk", flat=True))
    layers = list(AnnotationLayer.objects.filter(document__corpus=corpus).select_related("document__corpus"))

    rules_run = start_run(corpus)
    run_batch(rules_run.pk, documents)
    assert not Prediction.objects.filter(run=rules_run, mask_probability__isnull=False).exists()
    assert document_uncertainty(documents) == {}
    assert most_uncertain_first(layers).message == "No trained model yet: ordered by document id."

    masking = training.run_training(training.start_training(corpus, "masking").pk)
    assert masking.status == "succeeded", masking.error
    # Two documents make a weak classifier: promoted anyway, with the reason the guard asks for.
    training.promote(masking, actor=people["manager"], reason="A two-document classifier, to test its scores.")
    model_run = start_run(corpus)
    run_batch(model_run.pk, documents)
    probabilities = list(Prediction.objects.filter(run=model_run).values_list("mask_probability", flat=True))
    assert probabilities and None not in probabilities  # the classifier judged every entity
    assert any(0.0 < p < 1.0 for p in probabilities)
    scores = document_uncertainty(documents)
    assert set(scores) == set(documents)
    assert len(set(scores.values())) > 1  # no longer all equal
    ordered = most_uncertain_first(layers)
    assert ordered.scored == len(layers)
    assert [layer.uncertainty for layer in ordered.layers] == sorted(
        (scores[layer.document_id] for layer in layers), reverse=True
    )

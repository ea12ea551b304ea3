"""Pre-annotation runs: predictions stored per run, open layers pre-annotated, re-runs
idempotent, an annotator's work never replaced."""

from datetime import timedelta

import pytest

from annotation.enums import EditType, LayerStatus, Origin
from annotation.models import AuditEvent, Mention, PreannotationRun, Prediction, RunDocument
from annotation.services import job_steps, jobs, preannotation
from annotation.services.decisions import set_entity_decision
from annotation.services.errors import DomainError
from annotation.services.layers import assign_layer
from annotation.services.mentions import create_mention, delete_mention
from annotation.services.preannotation import predicted_masked_spans, run_batch, start_run
from annotation.services.preannotation_apply import apply_predictions
from annotation.tasks import submit_preannotation
from sanitize_app.engine.preannotation import PreannotationEngine

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("rules_only_engine", "eager_tasks")]

CANPOLAT, POLAT = "001-79436", "001-83927"


@pytest.fixture
def documents(corpus, people, pick, import_documents):
    import_documents(corpus, pick(CANPOLAT, POLAT))
    return {d.doc_id: d for d in corpus.documents.all()}


@pytest.fixture
def run_engine(django_capture_on_commit_callbacks):
    """Submit a run as the manager's button does; its batches run once it is committed."""

    def submit(corpus, manager, documents=None) -> PreannotationRun:
        with django_capture_on_commit_callbacks(execute=True):
            run = submit_preannotation(corpus, documents=documents, actor=manager)
        run.refresh_from_db()
        return run

    return submit


def test_a_run_stores_predictions_and_preannotates_open_layers(corpus, people, documents, run_engine):
    layer = assign_layer(documents[CANPOLAT], people["ann"], actor=people["manager"])
    imported = documents[CANPOLAT].layers.exclude(pk=layer.pk).get()
    imported_before = list(imported.mentions.values_list("id", "identifier_type"))

    run = run_engine(corpus, people["manager"])

    assert run.status == PreannotationRun.Status.SUCCEEDED and run.finished_at
    assert run.total == 2
    assert set(run.run_documents.values_list("status", flat=True)) == {RunDocument.Status.DONE}
    assert run.engine["recognizer"].startswith("rules only")
    indicators = {i["name"]: i for i in run.engine["indicators"]}
    assert len(indicators) == 5 and not any(i["available"] for i in indicators.values())
    assert any("background corpus is empty" in i["reason"] for i in indicators.values())
    assert run.engine["information_content"] == "corpus statistics"

    predictions = Prediction.objects.filter(run=run, document=documents[CANPOLAT])
    text = documents[CANPOLAT].text
    assert all(text[p.start_offset : p.end_offset] == p.span_text for p in predictions)
    by_text = {p.span_text: p for p in predictions}
    # The guidelines: the applicant and the application number are direct identifiers;
    # the respondent state is public in every case.
    assert (
        by_text["Mr Aziz Canpolat"].identifier_type == "DIRECT" and by_text["Mr Aziz Canpolat"].entity_type == "PERSON"
    )
    assert by_text["63354/00"].identifier_type == "DIRECT" and by_text["63354/00"].entity_type == "CODE"
    assert by_text["Republic of Turkey"].identifier_type == "NO_MASK"
    assert all(p.reasons for p in predictions if p.identifier_type != "NO_MASK")

    mentions = list(layer.mentions.all())
    assert sorted((m.start_offset, m.end_offset, m.entity_type) for m in mentions) == sorted(
        (p.start_offset, p.end_offset, p.entity_type) for p in predictions
    )
    assert {(m.origin, m.edit_type, m.identifier_type) for m in mentions} == {
        (Origin.PREANNOTATION, EditType.CHECK, None)
    }
    assert all(m.prediction.run_id == run.pk for m in mentions)
    # Mentions of one proposed entity share one entity in the layer.
    courts = [m for m in mentions if m.span_text == "Court of Cassation"]
    assert len(courts) == 3 and len({m.entity_id for m in courts}) == 1
    layer.refresh_from_db()
    assert layer.status == LayerStatus.ASSIGNED  # the machine does not start anyone's work
    # Layers already confirmed or reviewed (the imported ones) are not changed.
    assert list(imported.mentions.values_list("id", "identifier_type")) == imported_before
    assert AuditEvent.objects.filter(action="preannotation.apply", layer=layer).count() == 1


def test_running_again_changes_nothing(corpus, people, documents, run_engine):
    layer = assign_layer(documents[CANPOLAT], people["ann"], actor=people["manager"])
    first = run_engine(corpus, people["manager"])
    layer.refresh_from_db()
    before = {m.pk: (m.start_offset, m.end_offset, m.entity_type, m.entity_id) for m in layer.mentions.all()}
    version = layer.version

    second = run_engine(corpus, people["manager"])

    layer.refresh_from_db()
    after = {m.pk: (m.start_offset, m.end_offset, m.entity_type, m.entity_id) for m in layer.mentions.all()}
    assert second.status == PreannotationRun.Status.SUCCEEDED and second.pk != first.pk
    assert after == before and layer.version == version
    # The mentions now point at the newest proposals.
    assert set(layer.mentions.values_list("prediction__run", flat=True)) == {second.pk}


def test_a_redelivered_batch_does_not_redo_finished_documents(corpus, people, documents, run_engine):
    run = run_engine(corpus, people["manager"])
    count = Prediction.objects.filter(run=run).count()
    assert run_batch(run.pk, [d.pk for d in documents.values()]) == {"run": run.pk, "done": 0, "failed": 0}
    assert Prediction.objects.filter(run=run).count() == count


def test_a_duplicate_batch_leaves_a_document_another_live_worker_holds_until_that_worker_stalls(
    corpus, people, documents
):
    run = start_run(corpus, actor=people["manager"])
    both = [documents[CANPOLAT].pk, documents[POLAT].pk]
    job_steps.start_batch(run)
    other_worker = job_steps.take_steps(RunDocument, "run", run, [documents[POLAT].pk])
    assert other_worker == [documents[POLAT].pk]

    assert run_batch(run.pk, both) == {"run": run.pk, "done": 1, "failed": 0}
    run.refresh_from_db()
    assert (run.status, run.done, run.total) == (PreannotationRun.Status.RUNNING, 1, 2)
    held = run.run_documents.get(document=documents[POLAT])
    assert held.status == RunDocument.Status.PENDING and not Prediction.objects.filter(document_id=held.document_id)

    # The other worker went silent: the batch sent again takes its document up.
    RunDocument.objects.filter(pk=held.pk).update(heartbeat_at=jobs.stall_cutoff() - timedelta(seconds=1))
    assert run_batch(run.pk, both) == {"run": run.pk, "done": 1, "failed": 0}
    run.refresh_from_db()
    assert (run.status, run.done) == (PreannotationRun.Status.SUCCEEDED, 2)
    assert run.run_documents.get(pk=held.pk).attempts == 2


def test_an_engine_that_cannot_be_built_fails_the_batch_naming_why(corpus, people, documents, monkeypatch):
    def broken(corpus):
        raise RuntimeError("model archive missing")

    monkeypatch.setattr(preannotation, "engine_for", broken)
    run = start_run(corpus, actor=people["manager"])
    assert run_batch(run.pk, [d.pk for d in documents.values()]) == {"run": run.pk, "done": 0, "failed": 2}
    run.refresh_from_db()
    assert run.status == PreannotationRun.Status.FAILED
    assert run.error == "No document could be pre-annotated (2 failed)."
    errors = set(run.run_documents.values_list("error", flat=True))
    assert errors == {"The engine could not be built: RuntimeError: model archive missing"}


def make_predictions(run, document, rows):
    """Hand-made proposals: (entity_key, text, occurrence, type, identifier_type)."""
    created = []
    for key, string, occurrence, entity_type, identifier in rows:
        start = -1
        for _ in range(occurrence + 1):
            start = document.text.index(string, start + 1)
        created.append(
            Prediction.objects.create(
                run=run,
                document=document,
                entity_key=key,
                start_offset=start,
                end_offset=start + len(string),
                span_text=string,
                entity_type=entity_type,
                identifier_type=identifier,
            )
        )
    return created


def test_what_an_annotator_changed_is_never_replaced(corpus, people, documents):
    document = documents[CANPOLAT]
    layer = assign_layer(document, people["ann"], actor=people["manager"])
    first = start_run(corpus, documents=[CANPOLAT])
    apply_predictions(
        layer,
        make_predictions(
            first,
            document,
            [
                (0, "Şanlıurfa", 0, "LOC", "QUASI"),
                (0, "Şanlıurfa", 1, "LOC", "QUASI"),
                (1, "63354/00", 0, "CODE", "DIRECT"),
                (2, "Turkey", 0, "LOC", "NO_MASK"),
                (3, "Republic", 0, "ORG", "QUASI"),
            ],
        ),
    )
    mentions = {(m.span_text, m.start_offset): m for m in layer.mentions.all()}
    assert len(mentions) == 5
    place = next(m for (t, _), m in mentions.items() if t == "Şanlıurfa")
    code = mentions[("63354/00", document.text.index("63354/00"))]
    republic = next(m for (t, _), m in mentions.items() if t == "Republic")
    # The annotator decides on the person, deletes the wrong ORG span and adds a span.
    set_entity_decision(place.entity, actor=people["ann"], identifier_type="QUASI")
    delete_mention(republic, actor=people["ann"])
    start = document.text.index("Court")
    manual = create_mention(layer, actor=people["ann"], start_offset=start, end_offset=start + 5, entity_type="ORG")

    second = start_run(corpus, documents=[CANPOLAT])
    result = apply_predictions(
        layer,
        make_predictions(
            second,
            document,
            [
                (0, "Şanlıurfa", 1, "ORG", "NO_MASK"),  # a span of the decided entity: skipped
                (1, "63354/00", 0, "CODE", "DIRECT"),  # as before: kept
                (3, "Republic", 0, "ORG", "QUASI"),  # deleted by the annotator, proposed again
                (4, "Court", 0, "ORG", "NO_MASK"),  # overlaps the manual span: skipped
                (5, "Convention", 0, "MISC", "NO_MASK"),  # new
            ],
        ),
    )

    assert (result.added, result.kept, result.skipped, result.removed) == (2, 1, 2, 1)  # Turkey went
    layer.refresh_from_db()
    spans = {(m.span_text, m.origin) for m in layer.mentions.all()}
    assert spans == {
        ("Şanlıurfa", Origin.PREANNOTATION),
        ("63354/00", Origin.PREANNOTATION),
        ("Republic", Origin.PREANNOTATION),
        ("Court", Origin.MANUAL),
        ("Convention", Origin.PREANNOTATION),
    }
    assert Mention.objects.get(pk=code.pk).prediction.run_id == second.pk  # same mention, newest proposal
    decided = layer.mentions.filter(span_text="Şanlıurfa")
    assert decided.count() == 2 and {(m.entity_type, m.identifier_type) for m in decided} == {("LOC", "QUASI")}
    assert Mention.objects.filter(pk=manual.pk).exists()


def test_a_layer_assigned_after_a_run_starts_from_its_predictions(corpus, people, documents, run_engine):
    run = run_engine(corpus, people["manager"], documents=[POLAT])
    layer = assign_layer(documents[POLAT], people["bob"], actor=people["manager"])
    assert layer.mentions.count() == Prediction.objects.filter(run=run).count() > 0
    empty = assign_layer(documents[CANPOLAT], people["bob"], actor=people["manager"])  # never pre-annotated
    assert empty.mentions.count() == 0


def test_confirmed_layers_are_left_alone(corpus, people, documents, run_engine):
    layer = assign_layer(documents[CANPOLAT], people["ann"], actor=people["manager"])
    layer.status = LayerStatus.CONFIRMED
    layer.save(update_fields=["status"])
    run_engine(corpus, people["manager"])
    assert layer.mentions.count() == 0


def test_a_failing_document_is_reported_and_the_others_are_done(corpus, people, documents, run_engine, monkeypatch):
    real = PreannotationEngine.annotate

    def annotate(self, text, person="", respondent_states=()):
        if person == "Cengiz Polat":
            raise ValueError("simulated engine fault")
        return real(self, text, person, respondent_states)

    monkeypatch.setattr(PreannotationEngine, "annotate", annotate)
    run = run_engine(corpus, people["manager"])
    assert run.status == PreannotationRun.Status.SUCCEEDED
    failed = run.run_documents.get(status=RunDocument.Status.FAILED)
    assert failed.document.doc_id == POLAT and failed.error == "ValueError: simulated engine fault"
    assert not Prediction.objects.filter(run=run, document=failed.document).exists()
    assert Prediction.objects.filter(run=run, document=documents[CANPOLAT]).exists()
    assert run.done == run.total == 2  # both documents are finished, one of them failed


def test_unknown_documents_are_named(corpus, people, documents):
    with pytest.raises(DomainError, match="has no document 001-nope"):
        start_run(corpus, documents=[CANPOLAT, "001-nope"])
    assert not PreannotationRun.objects.exists()


def test_masked_spans_come_from_the_newest_run_of_each_document(corpus, documents):
    canpolat, polat = documents[CANPOLAT], documents[POLAT]
    old = start_run(corpus)
    make_predictions(old, canpolat, [(0, "Turkey", 0, "LOC", "QUASI")])
    make_predictions(old, polat, [(0, "Turkey", 0, "LOC", "QUASI")])
    RunDocument.objects.filter(run=old).update(status=RunDocument.Status.DONE)
    new = start_run(corpus, documents=[CANPOLAT])
    make_predictions(
        new,
        canpolat,
        [
            (0, "63354/00", 0, "CODE", "DIRECT"),
            (1, "Aziz Canpolat", 0, "PERSON", "QUASI"),
            (2, "Turkey", 0, "LOC", "NO_MASK"),
        ],
    )
    RunDocument.objects.filter(run=new).update(status=RunDocument.Status.DONE)
    code = canpolat.text.index("63354/00")
    name = canpolat.text.index("Aziz Canpolat")
    turkey = polat.text.index("Turkey")
    assert predicted_masked_spans(corpus.documents.all()) == {
        CANPOLAT: sorted([[code, code + 8], [name, name + 13]]),
        POLAT: [[turkey, turkey + 6]],
    }


def test_a_background_corpus_makes_web_search_add_risk_to_the_rules(corpus, people, documents, run_engine, tmp_path):
    import json

    from annotation.services.background import import_background

    # A "web page" about the applicant that also names the police directorate: being
    # findable together makes that organisation risky, with the page as the reason.
    page = tmp_path / "pages.json"
    page.write_text(
        json.dumps(
            [
                {
                    "title": "Aziz Canpolat",
                    "url": "https://news.example/canpolat",
                    "text": "Aziz Canpolat was held at the Siverek Security Directorate in 1997.",
                },
                {"title": "Other", "url": "https://news.example/other", "text": "Ankara is the capital of Turkey."},
            ]
        ),
        encoding="utf-8",
    )
    import_background(page, "news")
    run = run_engine(corpus, people["manager"], documents=[CANPOLAT])
    indicators = {i["name"]: i for i in run.engine["indicators"]}
    assert indicators["web search"]["available"] and indicators["web search"]["reason"] == ""
    predictions = {p.span_text: p for p in Prediction.objects.filter(run=run)}
    directorate = predictions["Siverek Security Directorate"]
    assert directorate.identifier_type == "QUASI"
    assert any("https://news.example/canpolat" in reason for reason in directorate.reasons)
    # The rules still decide the rest: dates stay quasi identifiers, the state stays public.
    assert predictions["11 October 1997"].identifier_type == "QUASI"
    assert predictions["Republic of Turkey"].identifier_type == "NO_MASK"

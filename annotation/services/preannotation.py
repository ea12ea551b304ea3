"""Pre-annotation runs: the engine over a corpus's documents, its predictions stored and
put into the annotators' open layers.

A run is a batched job of the one job mechanism (``services.jobs``; its batches run by
``services.job_steps``): it is created with one ``RunDocument`` (a step) per document,
and Celery tasks process them in batches. Each document is done once (a redelivered
task skips it, and leaves one another live worker holds to it), and its predictions,
the layers' update and its status are written in one transaction, so a killed worker
leaves the document pending, never half done; the sweeper sends the documents of a
lost worker again. ``done`` counts the documents finished (done or failed)."""

import time
from collections.abc import Callable
from dataclasses import asdict

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from sanitize_app.engine.preannotation import Preannotation, PreannotationEngine

from ..enums import MASKED_IDENTIFIER_TYPES
from ..models import AnnotationLayer, Corpus, Document, PreannotationRun, Prediction, RunDocument
from . import job_steps, job_sweeper
from .audit import record_event
from .document_counts import document_counts
from .engine import engine_for, engine_version, respondent_states
from .errors import DomainError
from .preannotation_apply import OPEN_STATUSES, apply_predictions


def start_run(
    corpus: Corpus, *, documents: list[str] | None = None, actor: AbstractBaseUser | None = None
) -> PreannotationRun:
    """Create a run over ``documents`` (doc_ids; all of the corpus when None)."""
    selected = Document.objects.filter(corpus=corpus).order_by("position", "id")
    if documents:
        wanted = list(dict.fromkeys(documents))
        selected = selected.filter(doc_id__in=wanted)
        missing = sorted(set(wanted) - set(selected.values_list("doc_id", flat=True)))
        if missing:
            raise DomainError(f"Corpus {corpus.name} has no document {', '.join(missing[:10])}.", field="documents")
    ids = list(selected.values_list("pk", flat=True))
    if not ids:
        raise DomainError(f"Corpus {corpus.name} has no documents to pre-annotate.", field="documents")
    job_sweeper.recover_embedded("preannotation")  # embedded: runs whose thread died end failed
    with transaction.atomic():
        run = PreannotationRun.objects.create(
            corpus=corpus, created_by=actor, total=len(ids), model_version=engine_version(corpus)
        )
        RunDocument.objects.bulk_create(RunDocument(run=run, document_id=pk) for pk in ids)
        record_event(
            "preannotation.start", actor=actor, corpus=corpus, target=f"run {run.pk}", changes={"documents": len(ids)}
        )
    return run


def run_batch(run_id: int, document_ids: list[int]) -> dict:
    """Process one batch (the body of the Celery task; ``job_steps.run_steps``): only
    the documents still pending and held by no other live worker (a redelivered or
    duplicated batch skips the rest), their heartbeat kept fresh while it works."""
    run = PreannotationRun.objects.select_related("corpus").get(pk=run_id)
    return job_steps.run_steps(RunDocument, "run", run, document_ids, _preannotator, finish_if_complete)


def _preannotator(run: PreannotationRun) -> Callable[[RunDocument], str]:
    """The batch's engine, built once; an engine that cannot be built fails the batch,
    naming why. Returns what pre-annotates one document (and gives its status)."""
    try:
        engine = engine_for(run.corpus)
    except Exception as exc:  # noqa: BLE001 - a broken configuration fails the documents, naming why
        raise job_steps.CannotStart(f"The engine could not be built: {exc.__class__.__name__}: {exc}") from exc
    forget = getattr(engine.search_backend, "forget", None)
    if forget:
        forget()  # the background corpus may have changed since the last batch
    PreannotationRun.objects.filter(pk=run.pk).update(engine=engine_status(engine))
    return lambda item: preannotate_document(run, item, engine).status


def engine_status(engine: PreannotationEngine) -> dict:
    return {
        "recognizer": engine.recognizer.status,
        "information_content": engine.ic.source,
        "agreement": engine.config.agreement,
        "indicators": [asdict(status) for status in engine.indicator_statuses],
    }


def preannotate_document(run: PreannotationRun, item: RunDocument, engine: PreannotationEngine) -> RunDocument:
    document = item.document
    started = time.perf_counter()
    try:
        result = engine.annotate(document.text, document.person_to_protect, respondent_states(document))
    except Exception as exc:  # noqa: BLE001 - one bad document must not stop the run
        return job_steps.fail_step(item, exc)
    with transaction.atomic():
        # Locked: a redelivered task running at the same time waits, then sees it done.
        locked = RunDocument.objects.select_for_update().get(pk=item.pk)
        if locked.status != RunDocument.Status.PENDING:
            return locked
        predictions = store_predictions(run, document, result)
        for layer in AnnotationLayer.objects.filter(document=document, status__in=OPEN_STATUSES):
            apply_predictions(layer, predictions)
        locked.status = RunDocument.Status.DONE
        locked.seconds = time.perf_counter() - started
        locked.predictions = len(predictions)
        locked.save(update_fields=["status", "seconds", "predictions"])
    return locked


def store_predictions(run: PreannotationRun, document: Document, result: Preannotation) -> list[Prediction]:
    Prediction.objects.filter(run=run, document=document).delete()
    rows = [
        Prediction(
            run=run,
            document=document,
            entity_key=entity.key,
            start_offset=mention.start,
            end_offset=mention.end,
            span_text=mention.text,
            entity_type=mention.entity_type,
            identifier_type=entity.identifier_type,
            risk=round(entity.risk, 4),
            mask_probability=None if entity.mask_probability is None else round(entity.mask_probability, 4),
            information_content=round(entity.information_content, 4),
            reasons=entity.reasons[:20],
            confidential_status=entity.confidential,
            confidential_reason=entity.confidential_reason[:300],
            source=mention.source[:60],
        )
        for entity in result.entities
        for mention in entity.mentions
    ]
    return Prediction.objects.bulk_create(rows)


def finish_if_complete(run: PreannotationRun) -> None:
    """Count the run's finished documents into ``done``, and settle the run once no
    document is pending: succeeded when any document was pre-annotated (its failed
    documents listed with their errors), failed otherwise. Run at the end of every batch,
    and by the job sweeper after it failed lost documents."""
    counts = job_steps.count_steps(RunDocument, "run", run)
    if counts["pending"]:
        return
    status, error = PreannotationRun.Status.SUCCEEDED, ""
    if not counts["done"]:
        status = PreannotationRun.Status.FAILED
        error = f"No document could be pre-annotated ({counts['failed']} failed)."
    if job_steps.end(run, counts, status, error=error):
        record_event("preannotation.finish", actor=None, corpus=run.corpus, target=f"run {run.pk}", changes=counts)


def run_counts(run: PreannotationRun) -> dict:
    return document_counts(RunDocument.objects.filter(run=run))


def newest_runs(documents) -> dict[int, int]:
    """Document id -> the newest pre-annotation run that finished it (``documents``:
    documents, their ids or a queryset); documents never pre-annotated are left out."""
    newest: dict[int, int] = {}
    for document_id, run_id in (
        RunDocument.objects.filter(document__in=documents, status=RunDocument.Status.DONE)
        .order_by("run__created_at", "run_id")
        .values_list("document_id", "run_id")
    ):
        newest[document_id] = run_id  # the last one wins
    return newest


def predicted_masked_spans(documents) -> dict[str, list[list[int]]]:
    """The engine's masked spans (DIRECT and QUASI predictions of the newest run that
    finished each document), in the official evaluation format. Documents never
    pre-annotated are left out."""
    newest = newest_runs(documents)
    doc_ids = dict(Document.objects.filter(pk__in=newest).values_list("pk", "doc_id"))
    spans: dict[int, set[tuple[int, int]]] = {pk: set() for pk in newest}
    by_run: dict[int, list[int]] = {}
    for document_id, run_id in newest.items():
        by_run.setdefault(run_id, []).append(document_id)
    for run_id, document_ids in by_run.items():
        for document_id, start, end in Prediction.objects.filter(
            run_id=run_id, document_id__in=document_ids, identifier_type__in=MASKED_IDENTIFIER_TYPES
        ).values_list("document_id", "start_offset", "end_offset"):
            spans[document_id].add((start, end))
    order = dict(Document.objects.filter(pk__in=newest).values_list("pk", "position"))
    return {doc_ids[pk]: [list(s) for s in sorted(spans[pk])] for pk in sorted(newest, key=lambda pk: (order[pk], pk))}

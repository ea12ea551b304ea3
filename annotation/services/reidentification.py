"""Re-identification attacks (TRI) on sanitized releases, and on documents from files.

A run is started (``start_release_attack``: checks, then a pending run) and done by one
job (``run_attack``): the attacker is fitted on the corpus's background collection (its
pretreatment cached in the database), then asked who is behind each released document.
The stage and how far it is are written to the run as it goes; the outcomes, one per
document, and the results are written together in one transaction at the end, so a
failed run stores nothing but its error, and a redelivered job finds the run finished
and leaves it as it is.

Leaking terms are found in the sanitized text; each also gets its place in the
document's original text (``original_start``/``original_end``, through the release's
spans), so the report can open the workspace at it; null when the term lies inside a
replacement (it is then not in the original at all)."""

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models.functions import Length
from django.utils import timezone

from sanitize_app.engine.reidentification.attack import attack
from sanitize_app.engine.reidentification.types import ProtectedText, ReidentificationResult
from sanitize_app.engine.release import rendering

from ..models import Document, ReidentificationOutcome, ReidentificationRun, Release, ReleaseDocument
from .audit import record_event
from .background import background_state
from .errors import DomainError
from .reidentification_attackers import (
    FittedAttacker,
    StageProgress,
    attacker_name,
    attacker_settings,
    background_attacker,
    fitted_attacker,
)
from .reidentification_files import ProtectedFile

ATTACKING = "attacking"
NO_PERSON = "the document names no person to protect"
PROGRESS_EVERY_S = 0.5  # the run's progress is written at most this often within a stage


def start_release_attack(release: Release, *, attacker: str = "", user: AbstractBaseUser | None) -> ReidentificationRun:
    """A pending attack on ``release`` by ``attacker`` (default: the configured one).
    Refused, naming the field, when the release has not succeeded, when its corpus has
    no background collection or an empty one, or when the attacker is unknown."""
    if release.status != Release.Status.SUCCEEDED:
        raise DomainError(
            f"Release {release.pk} is {release.status}: only a succeeded release can be attacked.", field="release"
        )
    corpus = release.corpus
    collection = corpus.background_collection
    if not collection:
        raise DomainError(
            f"Corpus {corpus.name} has no background collection: choose one on the corpus page "
            "(import one with python manage.py import_background FILE --collection NAME).",
            field="background_collection",
        )
    background_state(collection)
    name = attacker_name(attacker)
    with transaction.atomic():
        _settle_earlier_runs(release)
        run = ReidentificationRun.objects.create(
            corpus=corpus,
            release=release,
            source=ReidentificationRun.Source.RELEASE,
            source_label=f"release {release.pk} ({release.strategy})",
            background_collection=collection,
            attacker=name,
            settings=attacker_settings(name),
            created_by=user,
        )
        record_event(
            "reidentification.start",
            actor=user,
            corpus=corpus,
            target=f"release {release.pk}",
            changes={"run": run.pk, "attacker": name, "background_collection": collection},
        )
    return run


def _settle_earlier_runs(release: Release) -> None:
    """One run of a release at a time: refused while one is under way; one abandoned
    (its worker lost) is marked failed, saying so."""
    unfinished = ReidentificationRun.objects.select_for_update().filter(
        release=release, status__in=[ReidentificationRun.Status.PENDING, ReidentificationRun.Status.RUNNING]
    )
    for run in unfinished:
        if run.under_way:
            raise DomainError(
                f"Run {run.pk} on release {release.pk} is still {run.status}: its result comes first.",
                field="release",
            )
        run.status, run.finished_at = ReidentificationRun.Status.FAILED, timezone.now()
        run.error = "Abandoned: no result long after it started (its worker was probably lost)."
        run.save(update_fields=["status", "finished_at", "error"])


@dataclass
class ReleasedText:
    """Where a protected text came from: its document, and the release's spans that
    map its offsets back to the original."""

    document_id: int
    spans: list[dict]
    fits: bool  # the spans rebuild the sanitized text's length (otherwise no mapping)


@dataclass
class ProtectedSet:
    texts: list[ProtectedText] = field(default_factory=list)
    skipped: list[dict] = field(default_factory=list)  # [{doc_id, reason}]
    sources: dict[str, ReleasedText] = field(default_factory=dict)  # by doc_id


def release_protected(release: Release) -> ProtectedSet:
    """The release's sanitized documents as texts to attack, each with its person to
    protect; documents that name no person are left out with the reason."""
    rows = (
        ReleaseDocument.objects.filter(release=release, status=ReleaseDocument.Status.DONE)
        .order_by("document__position", "document_id")
        .annotate(original_length=Length("document__text"))
        .values_list(
            "document_id", "document__doc_id", "document__person_to_protect", "document__task",
            "sanitized_text", "spans", "original_length",
        )
    )  # fmt: skip
    protected = ProtectedSet()
    for document_id, doc_id, person, task, text, spans, original_length in rows.iterator(chunk_size=100):
        # Document.protected_person's rule, from the row's values.
        person = person.strip() or Document.person_from_task(task).strip()
        if not person:
            protected.skipped.append({"doc_id": doc_id, "reason": NO_PERSON})
            continue
        protected.texts.append(ProtectedText(doc_id=doc_id, person=person, text=text))
        shift = sum(len(span["replacement"]) - (span["end"] - span["start"]) for span in spans)
        protected.sources[doc_id] = ReleasedText(document_id, spans, original_length + shift == len(text))
    return protected


def original_offsets(spans: Sequence[dict], start: int, end: int) -> tuple[int | None, int | None]:
    """Where [start, end) of the sanitized text is in the original (release ``spans``:
    offsets into the original); (None, None) when it touches a replacement."""
    ordered = sorted((span["start"], span["end"], span["replacement"]) for span in spans)
    return rendering.original_offsets(ordered, start, end) or (None, None)


class RunProgress:
    """Writes a run's stage and progress, at most every PROGRESS_EVERY_S within a stage."""

    def __init__(self, run_id: int):
        self.run_id = run_id
        self.stage = None
        self.written_at = 0.0

    def __call__(self, stage: str, done: int, total: int) -> None:
        now = time.monotonic()
        if stage == self.stage and 0 < done < total and now - self.written_at < PROGRESS_EVERY_S:
            return
        self.stage, self.written_at = stage, now
        ReidentificationRun.objects.filter(pk=self.run_id, status=ReidentificationRun.Status.RUNNING).update(
            stage=stage, done=done, total=total
        )

    def of(self, stage: str):
        return lambda done, total: self(stage, done, total)


def run_attack(run_id: int) -> dict:
    """The job: fit, attack, store. Safe to redeliver (a finished run is left as it is)."""
    run = ReidentificationRun.objects.select_related("release").get(pk=run_id)
    if run.finished:
        return {"run": run_id, "status": run.status}
    ReidentificationRun.objects.filter(pk=run_id, status__in=[run.Status.PENDING, run.Status.RUNNING]).update(
        status=run.Status.RUNNING, started_at=timezone.now(), error=""
    )
    progress = RunProgress(run_id)
    try:
        protected = release_protected(run.release)
        if not protected.texts:
            raise DomainError(f"No document of release {run.release_id} names a person to protect.", field="release")
        fitted = fitted_attacker(run.background_collection, run.attacker, progress=progress)
        result = attacked(fitted, protected.texts, progress.of(ATTACKING))
        result.skipped = protected.skipped + result.skipped
    except Exception as exc:  # noqa: BLE001 - the run fails, naming why, rather than the worker
        fail_run(run_id, exc)
        return {"run": run_id, "status": ReidentificationRun.Status.FAILED}
    store_results(run_id, result, fitted.description, protected.sources)
    return {"run": run_id, "status": ReidentificationRun.Status.SUCCEEDED, "TRIR": result.trir}


def attacked(
    fitted: FittedAttacker, texts: list[ProtectedText], progress=None, *, leaking_terms: int | None = None
) -> ReidentificationResult:
    leaking = settings.SANITIZE_REIDENTIFICATION.get("leaking_terms", 10) if leaking_terms is None else leaking_terms
    try:
        result = attack(fitted.attacker, fitted.pretreatment, texts, leaking_terms=leaking, progress=progress)
    except ValueError as exc:  # no document, or none about a person of the background
        collection = fitted.description.get("collection", "")
        raise DomainError(f"Background {collection}: {exc}.", field="background_collection") from exc
    result.fit_seconds = result.fit_seconds or fitted.description.get("fit_seconds", 0.0)
    return result


def fail_run(run_id: int, exc: Exception) -> None:
    message = exc.message if isinstance(exc, DomainError) else f"{exc.__class__.__name__}: {exc}"
    ReidentificationRun.objects.filter(
        pk=run_id, status__in=[ReidentificationRun.Status.PENDING, ReidentificationRun.Status.RUNNING]
    ).update(status=ReidentificationRun.Status.FAILED, error=message[:2000], finished_at=timezone.now())


def results_of(result: ReidentificationResult, description: dict) -> dict:
    """The run's results: the attack's summary and what the attacker was fitted on."""
    extra = {key: description[key] for key in ("collection", "background", "pretreatment") if key in description}
    return {**result.summary(), **extra}


def outcome_row(run_id: int, position: int, outcome, source: "ReleasedText | None") -> ReidentificationOutcome:
    terms = []
    for term in outcome.leaking_terms:
        start = end = None  # a file's document has no original here; see original_offsets
        if source is not None and source.fits:
            start, end = original_offsets(source.spans, term.start, term.end)
        terms.append({**term.as_dict(), "original_start": start, "original_end": end})
    return ReidentificationOutcome(
        run_id=run_id,
        document_id=source.document_id if source else None,
        doc_id=outcome.doc_id[:200],
        person=outcome.person[:300],
        rank=outcome.rank,
        guesses=[[name, float(score)] for name, score in outcome.guesses],
        leaking_terms=terms,
        position=position,
    )


def store_results(
    run_id: int, result: ReidentificationResult, description: dict, sources: dict[str, ReleasedText]
) -> None:
    """Outcomes, results and status in one transaction; a run another job finished first is kept."""
    with transaction.atomic():
        run = ReidentificationRun.objects.select_for_update().get(pk=run_id)
        if run.finished:
            return
        run.outcomes.all().delete()
        ReidentificationOutcome.objects.bulk_create(
            outcome_row(run_id, position, outcome, sources.get(outcome.doc_id))
            for position, outcome in enumerate(result.outcomes)
        )
        run.results = results_of(result, description)
        run.settings = {**run.settings, **result.settings}
        run.status, run.finished_at, run.error = run.Status.SUCCEEDED, timezone.now(), ""
        run.stage, run.done, run.total = ATTACKING, result.n, result.n
        run.save(update_fields=["results", "settings", "status", "finished_at", "error", "stage", "done", "total"])


def attack_file(
    protected: ProtectedFile,
    *,
    background: str,
    attacker: str = "",
    leaking_terms: int | None = None,
    progress: StageProgress | None = None,
    record: bool = False,
) -> tuple[ReidentificationResult, dict, ReidentificationRun | None]:
    """Attack documents read from a file (no corpus), in this process: the background is
    a collection in the database or a background file pretreated in memory. With
    ``record``, the run is kept too (source "file"). Returns (result, what the attacker
    was fitted on, the recorded run or None)."""
    fitted = background_attacker(background, attacker, progress=progress)
    started = timezone.now()
    result = attacked(
        fitted, protected.texts, (progress and (lambda done, total: progress(ATTACKING, done, total))),
        leaking_terms=leaking_terms,
    )  # fmt: skip
    result.skipped = protected.skipped + result.skipped
    run = None
    if record:
        with transaction.atomic():  # the run and its outcomes, or nothing
            run = _recorded_file_run(protected, fitted, background, started, result)
    return result, fitted.description, run


def _recorded_file_run(protected, fitted, background: str, started, result) -> ReidentificationRun:
    run = ReidentificationRun.objects.create(
        source=ReidentificationRun.Source.FILE,
        source_label=protected.label[:300],
        background_collection=fitted.description.get("collection", background)[:100],
        attacker=fitted.name,
        status=ReidentificationRun.Status.RUNNING,
        started_at=started,
    )
    store_results(run.pk, result, fitted.description, {})
    run.refresh_from_db()
    return run

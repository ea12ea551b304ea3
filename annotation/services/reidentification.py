"""Re-identification attacks (TRI) on sanitized releases, and on documents from files.

A run is started (``start_release_attack``: checks, then a pending run) and done by one
job (``run_attack``): the attacker is fitted on the corpus's background collection (its
pretreatment cached in the database), then asked who is behind each released document.
A run is a job of the one job mechanism (``services.jobs``): claimed by one worker, its
heartbeat kept fresh, its stage and how far it is reported as it goes; the outcomes, one
per document, and the results are written together with its end in one transaction, so
a failed run stores nothing but its error, a redelivered job finds the run finished (or
held by a live worker) and leaves it as it is, and a worker declared lost stores nothing.

Leaking terms are found in the sanitized text; each also gets its place in the
document's original text (``original_start``/``original_end``, through the release's
spans), so the report can open the workspace at it; null when the term lies inside a
replacement (it is then not in the original at all)."""

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
from ..models.job import ERROR_LIMIT
from . import job_sweeper, jobs
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
    job_sweeper.recover_embedded("reidentification")  # a run whose thread died frees its release
    with transaction.atomic():
        _refuse_a_second_run(release)
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


def _refuse_a_second_run(release: Release) -> None:
    """One run of a release at a time: refused while one is under way (a run whose worker
    was lost is sent again or failed by the job sweeper, which then lets the next start)."""
    under_way = (
        ReidentificationRun.objects.select_for_update()
        .filter(release=release, status__in=[ReidentificationRun.Status.PENDING, ReidentificationRun.Status.RUNNING])
        .first()
    )
    if under_way is not None:
        raise DomainError(
            f"Run {under_way.pk} on release {release.pk} is still {under_way.status}: its result comes first.",
            field="release",
        )


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


def run_attack(run_id: int) -> dict:
    """The job: fit, attack, store. Safe to redeliver: a finished run, or one another
    live worker holds, is left as it is."""
    run = jobs.claim(ReidentificationRun, run_id)
    if run is None:
        return {"run": run_id, "status": ReidentificationRun.objects.get(pk=run_id).status}
    with jobs.Heartbeat(run) as heartbeat:
        try:
            protected, fitted, result = _attack(run, heartbeat)
        except Exception as exc:  # noqa: BLE001 - the run fails, naming why, rather than the worker
            fail_run(run, exc)
            return {"run": run_id, "status": run.status}
        if not store_results(run, result, fitted.description, protected.sources):
            return {"run": run_id, "status": run.status, "lost": True}  # another worker took it over
    return {"run": run_id, "status": run.status, "TRIR": result.trir}


def _attack(run: ReidentificationRun, heartbeat: jobs.Heartbeat):
    """The release's texts, the fitted attacker and the attack's result; the stages'
    progress goes to the run through its heartbeat."""

    def progress(stage: str, done: int, total: int) -> None:
        heartbeat.report(stage=stage, done=done, total=total)

    protected = release_protected(run.release)
    if not protected.texts:
        raise DomainError(f"No document of release {run.release_id} names a person to protect.", field="release")
    fitted = fitted_attacker(run.background_collection, run.attacker, progress=progress)
    result = attacked(fitted, protected.texts, lambda done, total: progress(ATTACKING, done, total))
    result.skipped = protected.skipped + result.skipped
    return protected, fitted, result


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


def fail_run(run: ReidentificationRun, exc: Exception) -> None:
    """The run failed, naming why (if it is still this attempt's)."""
    message = exc.message if isinstance(exc, DomainError) else f"{exc.__class__.__name__}: {exc}"
    jobs.finish(run, ReidentificationRun.Status.FAILED, error=message[:ERROR_LIMIT])


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
    run: ReidentificationRun, result: ReidentificationResult, description: dict, sources: dict[str, ReleasedText]
) -> bool:
    """Outcomes, results and status in one transaction, only while the run is this
    attempt's (``jobs.finish``): a worker declared lost stores nothing over the run
    another worker took up or the sweeper failed. Returns whether they were stored."""
    with transaction.atomic():
        stored = jobs.finish(
            run,
            ReidentificationRun.Status.SUCCEEDED,
            results=results_of(result, description),
            settings={**run.settings, **result.settings},
            stage=ATTACKING,
            done=result.n,
            total=result.n,
        )
        if stored:
            ReidentificationOutcome.objects.filter(run_id=run.pk).delete()
            ReidentificationOutcome.objects.bulk_create(
                outcome_row(run.pk, position, outcome, sources.get(outcome.doc_id))
                for position, outcome in enumerate(result.outcomes)
            )
    return stored


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
    store_results(run, result, fitted.description, {})
    run.refresh_from_db()
    return run

"""Job rows for the job mechanism's tests (services.jobs, job_steps, job_sweeper): a
report job, a pre-annotation run over new documents, a worker gone silent, the row as
stored now, and the sweeper seeing only kinds whose resend records what was sent."""

from datetime import timedelta

import pytest
from django.utils import timezone

from annotation.models import Document, PreannotationRun, ReportJob, RunDocument
from annotation.services import job_sweeper, jobs, preannotation


def report_job(corpus, **fields) -> ReportJob:
    return ReportJob.objects.create(corpus=corpus, kind=ReportJob.Kind.EVALUATION, data_key="key", **fields)


def run_of(corpus, count: int, prefix: str = "d", **fields) -> tuple[PreannotationRun, list[int]]:
    """A run over ``count`` new documents, none taken up yet; with their ids."""
    documents = [
        Document.objects.create(corpus=corpus, doc_id=f"{prefix}{i}", text="Text.", position=i) for i in range(count)
    ]
    run = PreannotationRun.objects.create(corpus=corpus, total=count, **fields)
    RunDocument.objects.bulk_create(RunDocument(run=run, document=document) for document in documents)
    return run, [document.pk for document in documents]


def ago(seconds: float):
    return timezone.now() - timedelta(seconds=seconds)


def stall(job, seconds: float = 61) -> None:
    """Its worker went silent ``seconds`` ago (past the test settings' stall_s of 60)."""
    type(job).objects.filter(pk=job.pk).update(heartbeat_at=ago(seconds))


def fresh(job):
    return type(job).objects.get(pk=job.pk)


@pytest.fixture
def sent(monkeypatch) -> list:
    """The sweeper sees only a report kind and a pre-annotation kind whose resend records
    what was sent (the real registrations come back after the test)."""
    calls: list = []
    monkeypatch.setattr(jobs, "KINDS", {})
    monkeypatch.setattr(job_sweeper, "KINDS", jobs.KINDS)
    jobs.register(jobs.JobKind("report", ReportJob, lambda job: calls.append(job.pk)))
    jobs.register(
        jobs.JobKind(
            "preannotation",
            PreannotationRun,
            lambda run, ids: calls.append((run.pk, sorted(ids))),
            step_model=RunDocument,
            steps="run",
            settle=preannotation.finish_if_complete,
        )
    )
    return calls

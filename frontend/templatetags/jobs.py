"""``{% job_progress job %}``: the one progress display of every long task (an import, a
pre-annotation run, a training, a release, a re-identification run, a report).

While the job is unfinished the display polls ``job-progress`` (``frontend.job_views``)
and replaces itself. The poll that first finds the job finished answers with the
``job-finished`` event (``HX-Trigger``): a page whose result depends on the job reloads
that part on it (``hx-trigger="job-finished from:body"``), so the result shows without
a manual reload. That event is the one way a page learns that a job ended."""

from datetime import datetime
from urllib.parse import urlencode

from django import template
from django.urls import reverse
from django.utils import timezone

from annotation.models.job import Job
from annotation.services import job_steps, jobs

register = template.Library()

# What a kind's units read as after "N of M" (documents), for the kinds that count them.
# A batched job's ``done`` counts its failed documents too: once one failed, they read
# as "finished" (", K failed" follows), never as pre-annotated or sanitized.
DOCUMENT_VERBS = {"import": "read", "preannotation": "pre-annotated", "release": "sanitized"}
FINISHED_VERB = "finished"
# Kinds whose total is a hundred steps of a whole (a training's epochs and evaluation):
# shown in percent rather than "37 of 100".
IN_PERCENT = {"training"}


@register.inclusion_tag("frontend/partials/job_progress.html")
def job_progress(job: Job, poll: bool = True, label: str = "") -> dict:
    return progress_context(job, poll=poll, label=label)


def progress_context(job: Job, *, poll: bool = True, label: str = "", now: datetime | None = None) -> dict:
    kind = jobs.kind_of(type(job))
    done, total, failed = _counts(job, kind)
    poll_url = ""
    if poll and not job.finished:
        poll_url = reverse("job-progress", args=[kind.name, job.pk])
        if label:
            poll_url += "?" + urlencode({"label": label})
    return {
        "job": job,
        "kind": kind.name,
        "label": label,
        "done": done,
        "total": total,
        "failed": failed,
        "percent": round(100 * done / total) if total else (100 if job.finished else 0),
        "units": _units(kind.name, total if total else done, failed),
        "in_percent": kind.name in IN_PERCENT,
        "silent_s": jobs.silent_seconds(job, now or timezone.now()),
        "poll_url": poll_url,
    }


def _counts(job: Job, kind: jobs.JobKind) -> tuple[int, int, int]:
    """(done, total, failed): the row's counts (a batched job's ``done`` counts its
    finished steps, failed ones included); a batched job's failed steps counted live."""
    done = min(job.done, job.total) if job.total else job.done
    return done, job.total, job_steps.failed_count(kind, job)


def _units(kind: str, count: int, failed: int) -> str:
    verb = DOCUMENT_VERBS.get(kind)
    if verb is None:
        return ""
    return f"document{'' if count == 1 else 's'} {FINISHED_VERB if failed else verb}"

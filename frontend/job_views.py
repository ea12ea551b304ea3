"""The progress of any job, for the page that shows it (``{% job_progress job %}``
polls here). Only the managers of the job's corpus see it; others get a 404.

A poll that finds the job finished (the display only polls while it is unfinished, so
this is the moment it ended) triggers ``job-finished`` on the page: the parts of the
page that show the job's result reload on it."""

import json

from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from annotation.services import jobs

from .access import managed_jobs
from .templatetags.jobs import progress_context

FINISHED_EVENT = "job-finished"


@login_required
@require_GET
def job_progress(request, kind: str, pk: int):
    if kind not in jobs.KINDS:
        raise Http404(f"No kind of job {kind!r}.")
    model = jobs.KINDS[kind].model
    job = get_object_or_404(managed_jobs(request.user, model), pk=pk)
    context = progress_context(job, label=request.GET.get("label", "")[:100])
    response = render(request, "frontend/partials/job_progress.html", context)
    if job.finished and request.htmx:
        response["HX-Trigger"] = json.dumps({FINISHED_EVENT: {"kind": kind, "pk": job.pk, "status": job.status}})
    return response

"""``{% job_progress job %}``: the one progress display of every long task (an import, a
pre-annotation run, a training, a release, a re-identification run, a report), polling
``job-progress`` while the job is unfinished."""

from django import template
from django.urls import reverse

from annotation.services import jobs

register = template.Library()


@register.inclusion_tag("frontend/partials/job_progress.html")
def job_progress(job, poll: bool = True, label: str = "") -> dict:
    kind = jobs.kind_of(type(job)).name
    return {
        "job": job,
        "kind": kind,
        "label": label,
        "poll_url": reverse("job-progress", args=[kind, job.pk]) if poll and not job.finished else "",
    }

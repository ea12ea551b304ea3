"""The production path: the evaluation page starts a report that a real Celery worker
(real Redis broker, PostgreSQL) computes; the page answers before it and shows the
result after it."""

import time

import pytest
from celery.contrib.testing.worker import start_worker

from annotation.models import ReportJob
from sanitize_app.celery import app as celery_app

from ..conftest import client_for
from .conftest import metrics

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def test_a_real_worker_computes_the_report_the_page_started(two_layers):
    assert not celery_app.conf.task_always_eager, "set CELERY_BROKER_URL to a Redis server to run this test"
    celery_app.control.purge()
    client = client_for(two_layers["manager"])
    query = {"source": "annotator:a"}
    page = client.get(two_layers["url"], query).content.decode()  # no worker yet: nothing can compute it
    job = ReportJob.objects.get()
    assert 'id="metrics"' not in page and f'id="job-progress-report-{job.pk}"' in page
    assert job.status == "pending" and job.task_id  # sent to the broker
    with start_worker(celery_app, pool="solo", perform_ping_check=False, shutdown_timeout=30, queues=["default"]):
        deadline = time.monotonic() + 60
        while not job.finished and time.monotonic() < deadline:
            time.sleep(0.1)
            job.refresh_from_db()
    assert (job.status, job.attempts) == ("succeeded", 1)
    # a against b, as hand-computed in test_page.py.
    assert metrics(client.get(two_layers["url"], query).content.decode()) == (
        "1.000",
        "0.500",
        "0.750",
        "0.600",
        "0.600",
    )

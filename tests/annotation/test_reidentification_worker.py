"""A re-identification run started through the API is done by a real Celery worker (the
Redis broker, the real database): its outcomes and TRIR are written by the worker."""

import pytest

from annotation.models import ReidentificationRun
from tests.annotation.test_celery_worker import wait_until, worker  # noqa: F401 - the worker fixture
from tests.support.five_people import EXPECTED_TRIR
from tests.support.five_people_corpus import background_release

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def test_a_release_attack_is_done_by_a_real_worker(worker, corpus, people, api):  # noqa: F811
    release = background_release(corpus)
    response = api(people["manager"]).post("/api/reidentification-runs/", {"release": release.pk}, format="json")
    assert response.status_code == 202, response.content
    run_id = response.json()["id"]
    run = wait_until(lambda: ReidentificationRun.objects.filter(pk=run_id, finished_at__isnull=False).first(), 60)
    assert run is not None and run.status == "succeeded", run and run.error
    assert run.results["TRIR"] == pytest.approx(EXPECTED_TRIR) and run.outcomes.count() == 5
    assert run.stage == "attacking" and run.done == run.total == 5

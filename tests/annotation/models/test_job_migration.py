"""Migrations 0014-0015 (the job fields) on a database holding jobs: a queued training
becomes pending, its progress per cent, unfinished jobs get a heartbeat (so the sweeper
can find them), and going back restores what was there."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("annotation", "0013_background_fts_triggers")]
AFTER = [("annotation", "0015_job_mechanism")]


def migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@pytest.fixture
def old_apps():
    apps = migrate(BEFORE)
    yield apps
    migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())  # back to the newest for the other tests


def test_jobs_stored_before_the_job_fields_are_migrated_there_and_back(old_apps):
    corpus = old_apps.get_model("annotation", "Corpus").objects.create(name="c", guidelines_version="1")
    trained = old_apps.get_model("annotation", "TrainedModel")
    queued = trained.objects.create(corpus=corpus, kind="recognizer", version=1, status="queued", progress=0.0)
    running = trained.objects.create(corpus=corpus, kind="masking", version=1, status="running", progress=0.42)
    imports = old_apps.get_model("annotation", "ImportJob")
    job = imports.objects.create(
        corpus=corpus, file="x.json", original_name="x.json", status="running", documents_done=3
    )

    apps = migrate(AFTER)
    trained = apps.get_model("annotation", "TrainedModel")
    assert trained.objects.get(pk=queued.pk).status == "pending"
    assert (trained.objects.get(pk=running.pk).done, trained.objects.get(pk=running.pk).total) == (42, 100)
    migrated = apps.get_model("annotation", "ImportJob").objects.get(pk=job.pk)
    assert migrated.done == 3 and migrated.heartbeat_at is not None  # the sweeper can now see it
    assert all(row.heartbeat_at is not None for row in trained.objects.all())

    apps = migrate(BEFORE)
    trained = apps.get_model("annotation", "TrainedModel")
    assert trained.objects.get(pk=queued.pk).status == "queued"
    assert trained.objects.get(pk=running.pk).progress == pytest.approx(0.42)
    assert apps.get_model("annotation", "ImportJob").objects.get(pk=job.pk).documents_done == 3

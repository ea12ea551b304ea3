"""A release's re-identification risk on its page: the start button (or how to set a
background), the run's report (TRIR beside the baseline, ranks, guesses, leaking terms
linked to the workspace at the term), the TRIR column of the corpus's comparison, and
access for the corpus's managers only."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotation.enums import Role
from annotation.models import AnnotationLayer, CorpusMembership, ReidentificationRun, Release
from annotation.services.reidentification import run_attack, start_release_attack
from tests.conftest import make_user
from tests.frontend.conftest import client_for
from tests.support.five_people import PROTECTED
from tests.support.five_people_corpus import COLLECTION, background_release

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_tasks")]


@pytest.fixture
def release(corpus, people):
    return background_release(corpus, reviewer=people["rita"])


def attacked(release, user) -> ReidentificationRun:
    run = start_release_attack(release, attacker="tfidf-svc", user=user)
    run_attack(run.pk)
    return ReidentificationRun.objects.get(pk=run.pk)


def test_the_panel_offers_the_attack_when_the_corpus_has_a_background(release, people):
    page = client_for(people["manager"]).get(f"/releases/{release.pk}/").content.decode()
    assert 'id="reidentification"' in page and "Measure re-identification risk" in page
    assert 'name="csrfmiddlewaretoken"' in page and 'value="tfidf-svc" id="reid-attacker-tfidf-svc" checked' in page
    release.corpus.background_collection = ""
    release.corpus.save()
    page = client_for(people["manager"]).get(f"/releases/{release.pk}/").content.decode()
    assert "Measure re-identification risk" not in page
    assert 'id="reid-no-background"' in page and "import_background" in page


def test_the_button_starts_a_run_and_the_page_reports_it(release, people, django_capture_on_commit_callbacks):
    client = client_for(people["manager"])
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"/releases/{release.pk}/reidentification/", {"attacker": "tfidf-svc"})
    assert response.status_code == 302 and response["Location"] == f"/releases/{release.pk}/#reidentification"
    run = ReidentificationRun.objects.get()
    assert run.status == "succeeded" and run.created_by == people["manager"]
    page = client.get(f"/releases/{release.pk}/").content.decode()
    assert re.search(r'id="reid-trir">0\.800<', page) and re.search(r'id="reid-top5">1\.000<', page)
    assert re.search(r'id="reid-baseline">0\.200<', page) and "5 people of the background" in page
    assert "tfidf-svc (TF-IDF + linear SVM)" in page
    assert page.count('<tr id="reid-doc-') == 5
    # Ada's leaking terms open her reviewed layer at the term, in her original text.
    layer = AnnotationLayer.objects.get(document__doc_id="doc-ada")
    at = PROTECTED[0]["text"].index("glassblower") - 1  # "Ms Ada Quist" is one character shorter
    assert f'href="/layers/{layer.pk}/?at={at}"' in page


def test_the_panel_polls_while_a_run_is_under_way(release, people):
    run = start_release_attack(release, user=people["manager"])
    ReidentificationRun.objects.filter(pk=run.pk).update(status="running", stage="attacking", done=2, total=5)
    client = client_for(people["manager"])
    panel = client.get(f"/releases/{release.pk}/reidentification/").content.decode()
    assert f'hx-get="/jobs/reidentification/{run.pk}/progress/"' in panel
    assert '<span class="job-stage">Attacking</span>' in panel and "2 of 5" in panel
    assert '<progress max="5" value="2"' in panel and "disabled" in panel
    # On the release page, the part holding the panel reloads when the run ends.
    page = client.get(f"/releases/{release.pk}/").content.decode()
    assert 'id="release-live"' in page and 'hx-trigger="job-finished from:body"' in page


def test_a_refused_start_is_said_on_the_page(release, people):
    Release.objects.filter(pk=release.pk).update(status="failed")
    client = client_for(people["manager"])
    response = client.post(f"/releases/{release.pk}/reidentification/", {"attacker": "tfidf-svc"}, follow=True)
    assert "only a succeeded release can be attacked" in response.content.decode()
    assert not ReidentificationRun.objects.exists()


def test_the_comparison_shows_the_newest_trir_with_its_attacker_in_one_query(corpus, release, people):
    client = client_for(people["manager"])
    url = f"/corpora/{corpus.pk}/releases/"
    with CaptureQueriesContext(connection) as one_release:
        client.get(url)
    attacked(release, people["manager"])
    second = Release.objects.create(corpus=corpus, source="reviewed", strategy="suppress", status="succeeded")
    ReidentificationRun.objects.create(
        corpus=corpus, release=second, source="release", background_collection=COLLECTION,
        status="succeeded", results={"TRIR": 0.25, "n": 4},
    )  # fmt: skip
    with CaptureQueriesContext(connection) as two_releases:
        page = client.get(url).content.decode()
    assert len(two_releases) == len(one_release)
    row = page[page.index(f'id="release-row-{release.pk}"') :]
    assert re.search(r">0\.800</a> <span class=\"muted\">tfidf-svc</span>", row[: row.index("</tr>")])
    row = page[page.index(f'id="release-row-{second.pk}"') :]
    assert ">0.250</a>" in row[: row.index("</tr>")]


def test_only_the_corpus_managers_reach_the_panel_and_a_removed_one_loses_it(release, people):
    attacked(release, people["manager"])
    removed = make_user("rémi_removed")
    membership = CorpusMembership.objects.create(corpus=release.corpus, user=removed, role=Role.MANAGER)
    url = f"/releases/{release.pk}/reidentification/"
    assert client_for(removed).get(url).status_code == 200
    membership.delete()
    for user in (removed, people["ann"], people["rita"], people["outsider"]):
        client = client_for(user)
        assert client.get(url).status_code == 404, user
        assert client.post(url, {"attacker": "tfidf-svc"}).status_code == 404, user
    assert ReidentificationRun.objects.count() == 1

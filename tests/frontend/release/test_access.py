"""Every release URL is closed to annotators, reviewers, outsiders and removed
managers, and to anonymous visitors; the corpus page links to releases for managers only."""

import pytest

from annotation.enums import Role
from annotation.models import CorpusMembership, Release
from tests.conftest import make_user
from tests.frontend.conftest import client_for

from .conftest import post_start

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_tasks")]


def release_urls(corpus, release, document) -> list[str]:
    return [
        f"/corpora/{corpus.pk}/releases/",
        f"/releases/{release.pk}/",
        f"/releases/{release.pk}/download/json/",
        f"/releases/{release.pk}/documents/{document.pk}/",
    ]


def test_only_the_corpus_managers_reach_any_release_page(
    corpus, people, documents, release, django_capture_on_commit_callbacks
):
    removed = make_user("rémi_removed")
    membership = CorpusMembership.objects.create(corpus=corpus, user=removed, role=Role.MANAGER)
    assert client_for(removed).get(f"/releases/{release.pk}/").status_code == 200  # a manager, before removal
    membership.delete()
    refused = {"ann": people["ann"], "rita": people["rita"], "outsider": people["outsider"], "removed": removed}
    for name, user in refused.items():
        client = client_for(user)
        for url in release_urls(corpus, release, documents):
            status = client.get(url).status_code
            # The corpus page tells its members they may not (403); a release is not
            # theirs to know of (404).
            expected = (403,) if name in ("ann", "rita") and url.startswith("/corpora/") else (404,)
            assert status in expected, f"{name} {url}: {status}"
        response = post_start(client, corpus, django_capture_on_commit_callbacks, source="reviewed", strategy="label")
        assert response.status_code in (403, 404), name
    assert Release.objects.count() == 1
    assert client_for(people["manager"]).get(f"/releases/{release.pk}/").status_code == 200


def test_the_corpus_page_links_to_the_releases_for_managers_only(corpus, people, documents):
    link = f'href="/corpora/{corpus.pk}/releases/"'
    assert link in client_for(people["manager"]).get(f"/corpora/{corpus.pk}/").content.decode()
    assert link not in client_for(people["ann"]).get(f"/corpora/{corpus.pk}/").content.decode()


def test_an_anonymous_visitor_is_sent_to_log_in(corpus, release, documents):
    from django.test import Client

    for url in release_urls(corpus, release, documents):
        response = Client().get(url)
        assert response.status_code == 302 and response["Location"].startswith("/login/"), url

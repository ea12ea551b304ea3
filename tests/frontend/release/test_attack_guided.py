"""A release with attack-guided masking on its pages: the start form's field (a refusal
next to it), the release's before → after figures and an added mask's popover."""

import pytest

from annotation.models import Release
from tests.frontend.conftest import client_for
from tests.support.guided_corpus import five_people_corpus

from .conftest import post_start

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_tasks")]


def test_the_field_is_offered_and_a_corpus_without_background_is_refused_next_to_it(
    corpus, people, documents, django_capture_on_commit_callbacks
):
    manager = client_for(people["manager"])
    page = manager.get(f"/corpora/{corpus.pk}/releases/").content.decode()
    assert "Attack-guided masking: keep the protected person out of the attacker&#x27;s top k" in page
    assert 'name="attack_guided_top_k"' in page and "This corpus has no background collection yet." in page

    response = post_start(
        manager,
        corpus,
        django_capture_on_commit_callbacks,
        source="reviewed",
        strategy="label",
        attack_guided_top_k="2",
    )
    assert response.status_code == 400
    error = response.content.decode().split('id="release-attack-guided-error">')[1].split("</p>")[0]
    assert "needs a background collection" in error and f"corpus {corpus.name} has none" in error
    assert not Release.objects.exists()


def test_a_guided_release_shows_its_ranks_and_why_each_mask_was_added(
    corpus, people, settings, django_capture_on_commit_callbacks
):
    settings.SANITIZE_ENGINE = {**settings.SANITIZE_ENGINE, "encoder": ""}  # no TPS: not what is shown here
    five_people_corpus(corpus, people["ann"])
    manager = client_for(people["manager"])
    response = post_start(
        manager,
        corpus,
        django_capture_on_commit_callbacks,
        source="reviewed",
        strategy="label",
        attack_guided_top_k="1",
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    release = Release.objects.get()
    assert release.status == Release.Status.SUCCEEDED and release.attack_guided_top_k == 1

    page = manager.get(f"/releases/{release.pk}/").content.decode()
    assert "Entity type label + attack-guided masking (top 1)</h1>" in page
    listed = manager.get(f"/corpora/{corpus.pk}/releases/").content.decode()
    assert "+ attack-guided, top 1</span>" in listed
    row = page.split('id="metric-attack-guided"')[1].split("</tr>")[0]
    # 4 of the 5 people were named first before (the fixture's answer), none after.
    assert "0.80 → 0.00" in row and "first 1 guesses" in row and "over 5 documents" in row
    # What the engine used says it in one line: k, the attacker, what it learnt from.
    used = page.split("attack guided</dt>")[1].split("</dd>")[0]
    assert "keep the person out of the top 1 · attacker tfidf-svc (" in used
    assert "trained on five-people-guided, 5 people" in used
    ada = release.documents.get(document__doc_id="doc-ada")
    document_page = manager.get(f"/releases/{release.pk}/documents/{ada.document_id}/").content.decode()
    assert "Added by attack-guided masking" in document_page
    assert "added because it re-identified Ada Quist (rank 1 → " in document_page

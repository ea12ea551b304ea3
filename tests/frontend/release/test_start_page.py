"""Starting a release from the corpus's releases page (the service's refusals next to
their fields), and the comparison of the corpus's releases."""

import pytest

from annotation.models import Release
from tests.frontend.conftest import client_for

from .conftest import CANPOLAT, post_start

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_tasks")]


def test_the_form_offers_every_strategy_and_the_annotators_with_finished_layers(
    corpus, people, documents, settings, pick, import_documents
):
    import_documents(corpus, pick("001-83927"))  # annotator1 and annotator10 finished it
    settings.SANITIZE_RELEASE = {**settings.SANITIZE_RELEASE, "llm_base_url": ""}
    page = client_for(people["manager"]).get(f"/corpora/{corpus.pk}/releases/").content.decode()
    for strategy in ("suppress", "stars", "label", "placeholder", "rules", "intact"):
        assert f'value="{strategy}"' in page
    assert "keeps the first one an inference attacker cannot invert" in page
    # annotator1 and annotator10 finished their imported layers; ann has none.
    assert '<option value="annotator1">' in page and '<option value="annotator10">' in page
    assert '<option value="ann_annotator">' not in page
    assert "No LLM is configured" in page and "offline attacker" in page
    assert 'id="no-releases"' in page


def test_the_form_says_which_llm_is_configured_without_its_key(corpus, people, documents, settings):
    settings.SANITIZE_RELEASE = {
        **settings.SANITIZE_RELEASE,
        "llm_base_url": "http://llm-user:llm-password@127.0.0.1:8088/v1",
        "llm_model": "mistral-7b-instruct",
        "llm_api_key": "sk-very-secret",
    }
    page = client_for(people["manager"]).get(f"/corpora/{corpus.pk}/releases/").content.decode()
    assert "An LLM is configured (mistral-7b-instruct at http://127.0.0.1:8088/v1)" in page
    assert "sk-very-secret" not in page and "llm-password" not in page and "llm-user" not in page


def test_a_manager_starts_a_release_and_follows_it_to_its_page(corpus, people, documents, release):
    manager = client_for(people["manager"])
    assert release.status == Release.Status.SUCCEEDED and release.created_by == people["manager"]
    page = manager.get(f"/releases/{release.pk}/").content.decode()
    assert "Succeeded" in page and "1 of 1 document sanitized" in page
    assert page.count("<progress") == 1 and '<progress max="1" value="1"' in page  # full
    assert "hx-trigger" not in page  # a finished release stops polling
    item = release.documents.get()
    assert f'href="/releases/{release.pk}/documents/{documents.pk}/">{CANPOLAT}</a>' in page
    for fmt in ("json", "zip", "masks", "tri"):
        assert f'href="/releases/{release.pk}/download/{fmt}/"' in page
    assert 'id="release-metrics"' in page and 'id="release-paths"' in page
    # Every entity of a placeholder release is fixed by the strategy.
    fixed = item.decisions.count()
    assert (
        fixed > 0
        and f'<td class="num">0</td><td class="num">0</td><td class="num">0</td><td class="num">{fixed}</td>' in page
    )
    # The comparison lists it with its link.
    listing = manager.get(f"/corpora/{corpus.pk}/releases/").content.decode()
    assert f'href="/releases/{release.pk}/">Release {release.pk}</a>' in listing
    assert 'title="Numbered placeholders">Placeholders</td>' in listing and "<td>Reviewed layers</td>" in listing


def test_the_best_tps_is_marked_in_the_comparison(corpus, people, documents):
    def finished(strategy, tps):
        return Release.objects.create(
            corpus=corpus,
            source="reviewed",
            strategy=strategy,
            status="succeeded",
            metrics={
                "TPS": tps,
                "ER_di": 1.0,
                "ER_qi": 0.9,
                "paths": {"first": 1, "later": 2, "fallback": 3, "fixed": 0},
            },
        )

    low, high = finished("suppress", 0.777), finished("intact", 0.885)
    page = client_for(people["manager"]).get(f"/corpora/{corpus.pk}/releases/").content.decode()
    assert f'<tr id="release-row-{high.pk}" class="best-tps">' in page
    assert f'<tr id="release-row-{low.pk}">' in page
    assert page.count("★ best") == 1 and "0.885" in page and "0.777" in page


def test_a_refused_source_is_named_next_to_its_field(corpus, people, documents, django_capture_on_commit_callbacks):
    manager = client_for(people["manager"])
    # The corpus was never pre-annotated: the service refuses, naming the source.
    response = post_start(manager, corpus, django_capture_on_commit_callbacks, source="preannotation", strategy="rules")
    page = response.content.decode()
    assert response.status_code == 400
    assert 'id="release-source-error"' in page and "never pre-annotated" in page
    # An annotator's release without an annotator.
    response = post_start(manager, corpus, django_capture_on_commit_callbacks, source="annotator", strategy="rules")
    page = response.content.decode()
    assert response.status_code == 400 and 'id="release-annotator-error"' in page
    assert "needs an annotator" in page
    # A strategy that does not exist is the form's own refusal.
    response = post_start(manager, corpus, django_capture_on_commit_callbacks, source="reviewed", strategy="oracle")
    assert response.status_code == 400 and 'id="release-strategy-error"' in response.content.decode()
    # An annotator without a finished layer is not offered.
    response = post_start(
        manager,
        corpus,
        django_capture_on_commit_callbacks,
        source="annotator",
        annotator="ann_annotator",
        strategy="rules",
    )
    assert response.status_code == 400 and 'id="release-annotator-error"' in response.content.decode()
    assert not Release.objects.exists()


def test_an_annotators_release_uses_that_annotators_layer(
    corpus, people, documents, source, django_capture_on_commit_callbacks
):
    manager = client_for(people["manager"])
    response = post_start(
        manager,
        corpus,
        django_capture_on_commit_callbacks,
        source="annotator",
        annotator="annotator1",
        strategy="label",
    )
    release = Release.objects.get()
    assert response["Location"] == f"/releases/{release.pk}/"
    assert release.annotator.username == "annotator1"
    masked = {
        (m["start_offset"], m["end_offset"])
        for m in source["annotations"]["annotator1"]["entity_mentions"]
        if m["identifier_type"] in ("DIRECT", "QUASI")
    }  # from the source file
    released = {(span["start"], span["end"]) for span in release.documents.get().spans}
    assert released <= masked and len(released) > 0

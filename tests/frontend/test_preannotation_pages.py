"""The manager's pre-annotation pages, the masks download, and the engine's suggestion
in the workspace panel."""

import pytest

from annotation.models import PreannotationRun
from annotation.services.layers import assign_layer

from .conftest import client_for

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("rules_only_engine", "eager_tasks")]

CANPOLAT = "001-79436"


@pytest.fixture
def documents(corpus, pick, import_documents):
    import_documents(corpus, pick(CANPOLAT))
    return corpus.documents.get()


def start(client, corpus, django_capture_on_commit_callbacks, documents=""):
    with django_capture_on_commit_callbacks(execute=True):
        return client.post(f"/corpora/{corpus.pk}/preannotate/", {"documents": documents})


def test_a_manager_starts_a_run_and_watches_it(corpus, people, documents, django_capture_on_commit_callbacks):
    manager = client_for(people["manager"])
    assert "Pre-annotate" in manager.get(f"/corpora/{corpus.pk}/").content.decode()
    response = start(manager, corpus, django_capture_on_commit_callbacks)
    run = PreannotationRun.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/preannotation-runs/{run.pk}/"
    page = manager.get(response["Location"]).content.decode()
    assert "Succeeded" in page and "1 of 1 document pre-annotated" in page
    assert '<progress max="1" value="1"' in page  # the progress bar, full
    assert "rules only" in page and "web search" in page and "background corpus is empty" in page
    assert "hx-trigger" not in page  # a finished run stops polling, and nothing waits for it to end
    assert "source=preannotation" in page
    # The corpus page lists the run.
    assert f"/preannotation-runs/{run.pk}/" in manager.get(f"/corpora/{corpus.pk}/").content.decode()


def test_a_running_run_polls_for_its_progress_and_reloads_its_outcome_when_it_ends(corpus, people, documents):
    run = PreannotationRun.objects.create(corpus=corpus, total=1)
    manager = client_for(people["manager"])
    page = manager.get(f"/preannotation-runs/{run.pk}/").content.decode()
    assert f'hx-get="/jobs/preannotation/{run.pk}/progress/" hx-trigger="every 1s"' in page
    assert 'hx-trigger="job-finished from:body"' in page
    partial = manager.get(f"/preannotation-runs/{run.pk}/", headers={"HX-Request": "true"}).content.decode()
    assert partial.lstrip().startswith('<div id="run-live"') and "<html" not in partial
    assert partial.count('id="run-status"') == 1


def test_only_the_corpus_managers_start_and_see_runs(corpus, people, documents, django_capture_on_commit_callbacks):
    annotator = client_for(people["ann"])
    assert "Pre-annotate" not in annotator.get(f"/corpora/{corpus.pk}/").content.decode()
    assert start(annotator, corpus, django_capture_on_commit_callbacks).status_code == 403
    assert start(client_for(people["outsider"]), corpus, django_capture_on_commit_callbacks).status_code == 404
    assert not PreannotationRun.objects.exists()
    run = PreannotationRun.objects.create(corpus=corpus, total=1)
    assert annotator.get(f"/preannotation-runs/{run.pk}/").status_code == 404
    assert client_for(people["outsider"]).get(f"/preannotation-runs/{run.pk}/").status_code == 404


def test_an_unknown_document_is_named_on_the_corpus_page(corpus, people, documents, django_capture_on_commit_callbacks):
    manager = client_for(people["manager"])
    response = start(manager, corpus, django_capture_on_commit_callbacks, documents="001-00000")
    assert response.status_code == 302 and response["Location"] == f"/corpora/{corpus.pk}/"
    assert "has no document 001-00000" in manager.get(response["Location"]).content.decode()


def test_masks_download_through_the_api(corpus, people, documents, api, django_capture_on_commit_callbacks):
    start(client_for(people["manager"]), corpus, django_capture_on_commit_callbacks)
    url = f"/api/corpora/{corpus.pk}/export/masks/"
    spans = api(people["manager"]).get(url, {"source": "preannotation"}).json()
    code = documents.text.index("63354/00")
    assert list(spans) == [CANPOLAT] and [code, code + 8] in spans[CANPOLAT]
    assert api(people["manager"]).get(url, {"source": "oracle"}).status_code == 400
    assert api(people["ann"]).get(url, {"source": "preannotation"}).status_code in (403, 404)


def test_the_workspace_panel_shows_the_engines_suggestion(
    corpus, people, documents, django_capture_on_commit_callbacks
):
    layer = assign_layer(documents, people["ann"], actor=people["manager"])
    start(client_for(people["manager"]), corpus, django_capture_on_commit_callbacks)
    mention = layer.mentions.get(span_text="63354/00")
    annotator = client_for(people["ann"])
    panel = annotator.get(f"/layers/{layer.pk}/entities/{mention.entity_id}/").content.decode()
    assert "Engine suggests <strong" in panel and "Direct identifier" in panel
    assert 'id="accept-suggestion"' in panel and 'data-value="DIRECT"' in panel
    assert "dec-btn dec-DIRECT suggested" in panel
    assert "application number" in panel.lower() or "optimizer" in panel  # the reasons


def test_the_entity_list_hints_at_undecided_suggestions(corpus, people, documents, django_capture_on_commit_callbacks):
    layer = assign_layer(documents, people["ann"], actor=people["manager"])
    start(client_for(people["manager"]), corpus, django_capture_on_commit_callbacks)
    code = layer.mentions.get(span_text="63354/00")
    state = layer.mentions.get(span_text="Republic of Turkey")
    page = client_for(people["ann"]).get(f"/layers/{layer.pk}/").content.decode()
    row = page[page.index(f'id="ent-{code.entity_id}"') :].split("</li>")[0]
    assert 'class="suggests" title="the engine suggests direct">→ D<' in row and "undecided" in row
    row = page[page.index(f'id="ent-{state.entity_id}"') :].split("</li>")[0]
    assert "→ N<" in row

"""Pre-annotation end to end in a real Chromium: the manager starts a run from the
corpus page and watches it finish; the annotator's workspace shows the engine's
suggestion, and the g key takes it (with the confidential status it proposes)."""

import pytest

from annotation.enums import Role
from annotation.models import AnnotationLayer, Corpus, CorpusMembership, PreannotationRun
from annotation.services.layers import assign_layer
from tests.conftest import REPO, make_user

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("rules_only_engine", "eager_tasks"),
]
ARTIFACTS = REPO / "artifacts"


@pytest.fixture
def team(pick, import_documents):
    corpus = Corpus.objects.create(name="ECHR")
    import_documents(corpus, pick("001-83927", "001-79436"))
    mia, ann = make_user("mia"), make_user("ann")
    CorpusMembership.objects.create(corpus=corpus, user=mia, role=Role.MANAGER)
    CorpusMembership.objects.create(corpus=corpus, user=ann, role=Role.ANNOTATOR)
    layer = assign_layer(corpus.documents.get(doc_id="001-83927"), ann, actor=mia)
    return corpus, layer


def test_manager_runs_the_engine_and_the_annotator_takes_a_suggestion(login, live_server, team):
    corpus, layer = team
    ARTIFACTS.mkdir(exist_ok=True)
    manager = login("mia")
    manager.goto(f"{live_server.url}/corpora/{corpus.pk}/")
    manager.click("#preannotation button[type=submit]")
    manager.wait_for_selector("#run-status .status-succeeded", timeout=30_000)
    assert "2 of 2 documents pre-annotated" in manager.inner_text("#run-status")
    assert manager.locator("#run-engine tbody tr").count() == 5
    manager.screenshot(path=str(ARTIFACTS / "preannotation-run.png"), full_page=True)
    assert PreannotationRun.objects.get().status == PreannotationRun.Status.SUCCEEDED

    annotator = login("ann")
    annotator.goto(f"{live_server.url}/layers/{layer.pk}/")
    annotator.wait_for_selector("#workspace[aria-busy='false']")  # the page's script is running
    application = layer.mentions.get(span_text="40593/04")
    annotator.click(f'#doc-text [data-m="{application.pk}"]')
    annotator.wait_for_selector("#panel-decision .suggestion")
    assert "Engine suggests Direct identifier" in annotator.inner_text("#panel-decision .suggestion")
    annotator.screenshot(path=str(ARTIFACTS / "workspace-suggestion.png"))
    annotator.keyboard.press("g")
    annotator.wait_for_selector(f"#ent-{application.entity_id}:not(.undecided)")
    annotator.wait_for_selector("#workspace[aria-busy='false']")  # shown at the key press; now saved too
    assert set(layer.mentions.filter(entity_id=application.entity_id).values_list("identifier_type", flat=True)) == {
        "DIRECT"
    }
    assert "taken" in annotator.inner_text("#panel-decision .suggestion")
    refreshed = AnnotationLayer.objects.get(pk=layer.pk)
    assert refreshed.status == "in_progress"  # the annotator's first decision starts the work


def test_g_takes_the_confidential_proposal_with_the_decision(login, live_server, team):
    corpus, layer = team
    ARTIFACTS.mkdir(exist_ok=True)
    manager = login("mia")
    manager.goto(f"{live_server.url}/corpora/{corpus.pk}/")
    manager.click("#preannotation button[type=submit]")
    manager.wait_for_selector("#run-status .status-succeeded", timeout=30_000)

    annotator = login("ann")
    annotator.goto(f"{live_server.url}/layers/{layer.pk}/")
    annotator.wait_for_selector("#workspace[aria-busy='false']")
    party = layer.mentions.filter(span_text="TKP/ML-TIKKO").first()
    annotator.click(f'#doc-text [data-m="{party.pk}"]')
    annotator.wait_for_selector("#panel-decision .suggestion")
    shown = annotator.inner_text("#panel-decision .suggestion")
    assert "and confidential Political opinion or union membership" in shown
    annotator.click("#panel-decision .suggestion summary")  # open "Why"
    annotator.locator("#entity-panel").screenshot(path=str(ARTIFACTS / "workspace-confidential-proposal.png"))
    annotator.keyboard.press("g")
    annotator.wait_for_selector("#panel-decision .suggestion.accepted")
    annotator.wait_for_selector("#workspace[aria-busy='false']")
    assert set(layer.mentions.filter(entity_id=party.entity_id).values_list("confidential_status", flat=True)) == {
        "POLITICS"
    }
    assert annotator.locator("#panel-decision select[data-action='confidential']").input_value() == "POLITICS"

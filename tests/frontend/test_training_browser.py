"""The models page in a real Chromium, embedded: "Train now" trains in the background
while the page shows progress, then the new version beside the engine in use and the
zero-shot engine; the manager promotes it, giving a written reason when it is worse."""

import pytest

from annotation.enums import Role
from annotation.models import Corpus, CorpusMembership, TrainedModel
from tests.conftest import REPO, make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
ARTIFACTS = REPO / "artifacts"


@pytest.mark.usefixtures("rules_only_engine", "eager_tasks")  # embedded: the training runs in a thread
def test_a_manager_trains_and_promotes_a_model(login, live_server, pick, import_documents, settings, tmp_path):
    settings.SANITIZE_MODEL_ROOT = tmp_path / "models"
    settings.SANITIZE_TRAINING = {
        **settings.SANITIZE_TRAINING,
        "base_model": "blank",
        "max_epochs": 2,
        "in_thread": True,
    }
    corpus = Corpus.objects.create(name="ECHR models")
    CorpusMembership.objects.create(corpus=corpus, user=make_user("mia"), role=Role.MANAGER)
    import_documents(corpus, pick("001-79436", "001-83927", "001-95183"))

    page = login("mia")
    page.goto(f"{live_server.url}/corpora/{corpus.pk}/")
    page.click("a.btn:has-text('Models')")
    page.click("#models-recognizer button:has-text('Train now')")
    page.wait_for_selector("text=recognizer v1 is queued for training.")
    page.wait_for_selector("#models-recognizer .status-succeeded", timeout=60_000)  # its progress polls
    # The training's end reloads the table: its metrics show without a reload.
    page.wait_for_selector("#models-recognizer table.comparison", timeout=15_000)
    assert page.locator("#models-body[hx-trigger], #models-recognizer .job-progress[hx-get]").count() == 0
    model = TrainedModel.objects.get(corpus=corpus, kind="recognizer")
    assert model.status == "succeeded" and model.metrics["entity_type_f1"] >= 0
    row = page.locator("#models-recognizer tbody tr").first
    assert f"{model.metrics['entity_type_f1']:.3f}" in row.inner_text()
    comparison = page.locator("#models-recognizer table.comparison")
    assert comparison.locator("tbody tr").count() == 3  # the version, the engine in use, zero-shot
    assert f"{model.metrics['comparison']['in_use']['ER_qi']:.3f}" in comparison.locator(".engine-in_use").inner_text()
    # Numbers written by hand from here: a version that lost a direct identifier.
    model.metrics["comparison"]["candidate"].update(ER_di=0.75)
    model.metrics["comparison"]["in_use"].update(ER_di=1.0)
    TrainedModel.objects.filter(pk=model.pk).update(metrics=model.metrics)
    page.reload()
    assert page.locator("#models-recognizer .engine-candidate td.metric-drop").first.inner_text() == "0.750"
    page.click("#models-recognizer summary:has-text('Promote')")
    assert "ER_di 0.750 against 1.000 in use" in page.inner_text("#models-recognizer .override-why")
    page.fill("#models-recognizer textarea[name=reason]", "Codes are masked by the rules in this corpus.")
    page.screenshot(path=str(ARTIFACTS / "models-override.png"), full_page=True)
    page.click("#models-recognizer button:has-text('Promote anyway')")
    page.wait_for_selector("text=recognizer v1 is now used for pre-annotation.")
    assert "In use: recognizer v1" in page.inner_text("#models-recognizer")
    assert "with the reason: Codes are masked by the rules in this corpus." in page.inner_text("#models-recognizer")
    page.screenshot(path=str(ARTIFACTS / "models.png"), full_page=True)
    model.refresh_from_db()
    assert model.is_active and model.promotion_reason == "Codes are masked by the rules in this corpus."
    assert page.errors == []

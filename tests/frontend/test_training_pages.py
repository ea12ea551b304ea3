"""The manager's model registry page: only managers, versions side by side, each beside
the engine in use and the zero-shot engine (drops marked), and the buttons (train now,
promote, with a written reason when the version is worse; roll back) with their
refusals in words."""

import pytest
from django.utils import timezone

from annotation.models import TrainedModel

from .conftest import client_for

pytestmark = pytest.mark.django_db


def engine(er_di, er_qi, precision, **recall):
    """One engine's numbers in a stored comparison."""
    recall_by_type = {"CODE": 1.0, "PERSON": 1.0, "DATETIME": 0.9, **{k.upper(): v for k, v in recall.items()}}
    return {
        "ER_di": er_di,
        "ER_qi": er_qi,
        "token_precision": precision,
        "WP": precision,
        "recall_by_type": recall_by_type,
    }


@pytest.fixture
def registry(corpus, pick, import_documents):
    import_documents(corpus, pick("001-79436"))
    metrics = {"ER_di": 1.0, "ER_qi": 0.9123, "WP": 0.65, "token_recall": 0.9, "entity_type_f1": 0.777}
    metrics["comparison"] = {
        "candidate": engine(1.0, 0.9123, 0.6, code=1.0),
        "in_use": engine(1.0, 0.9, 0.55, code=1.0),
        "zero_shot": {**engine(1.0, 0.9, 0.55, code=1.0), "same_as": "in_use"},
        "in_use_model": "",
        "documents": 1,
    }
    v1 = TrainedModel.objects.create(
        corpus=corpus,
        kind="recognizer",
        version=1,
        status="succeeded",
        path="r/v1",
        metrics=metrics,
        train_documents=["a", "b"],
        heldout_documents=["c"],
        duration_s=12.4,
        is_active=True,
        activated_at=timezone.now(),
    )
    v2 = TrainedModel.objects.create(
        corpus=corpus, kind="recognizer", version=2, status="failed", error="TrainingError: no documents"
    )
    return corpus, v1, v2


def test_only_managers_see_the_registry(registry, people, settings):
    settings.SANITIZE_ENGINE = {**settings.SANITIZE_ENGINE, "encoder": ""}
    corpus = registry[0]
    url = f"/corpora/{corpus.pk}/models/"
    assert client_for(people["ann"]).get(url).status_code == 403
    assert client_for(people["outsider"]).get(url).status_code == 404
    assert client_for(people["ann"]).post(f"{url}train/", {"kind": "masking"}).status_code == 403
    page = client_for(people["manager"]).get(url).content.decode()
    assert "In use: <strong>recognizer v1</strong>" in page
    assert "0.912" in page and "0.777" in page and "2 / 1" in page and "12 s" in page
    assert "TrainingError: no documents" in page
    assert "No masking model trained yet." in page
    assert "A sequence labeller needs a transformer backbone: set SANITIZE_ENCODER" in page
    # v1 was compared while nothing was promoted: its zero-shot engine is the one in use.
    assert 'zero-shot <span class="muted">(the same engine: nothing was promoted)</span>' in page


def test_what_the_schedule_decided_is_shown_with_the_version(registry, people):
    corpus = registry[0]
    why = "not promoted automatically: recognizer v3 is worse than recognizer v1 on the same 1 held-out documents"
    TrainedModel.objects.create(
        corpus=corpus, kind="recognizer", version=3, status="succeeded", path="r/v3", trigger="schedule",
        metrics={"auto_promotion": {"promoted": False, "why": why}},
    )  # fmt: skip
    page = client_for(people["manager"]).get(f"/corpora/{corpus.pk}/models/").content.decode()
    assert "Not promoted automatically: recognizer v3 is worse than recognizer v1" in page


def test_train_now_promote_and_roll_back(registry, people, eager_tasks, settings, tmp_path):
    corpus, v1, v2 = registry
    settings.SANITIZE_MODEL_ROOT = tmp_path
    mia = client_for(people["manager"])
    url = f"/corpora/{corpus.pk}/models/"
    refused = mia.post(f"{url}{v2.pk}/promote/", follow=True).content.decode()
    assert "recognizer v2 is failed: only a trained model is used." in refused
    unknown = mia.post(f"{url}train/", {"kind": "ner"}, follow=True).content.decode()
    assert "Unknown model kind &#x27;ner&#x27;" in unknown
    back = mia.post(f"{url}rollback/", {"kind": "recognizer"}, follow=True).content.decode()
    assert "Rolled back: the configured default is used for pre-annotation." in back
    v1.refresh_from_db()
    assert not v1.is_active
    again = mia.post(f"{url}{v1.pk}/promote/", follow=True).content.decode()
    assert "recognizer v1 is now used for pre-annotation." in again


@pytest.fixture
def worse(registry):
    corpus = registry[0]
    comparison = {
        "candidate": {**engine(0.964, 0.95, 0.7, code=0.75, person=0.5), "engine": "recognizer v1 with recognizer v3"},
        "in_use": {**engine(1.0, 0.903, 0.55, code=1.0), "engine": "recognizer v1"},
        "zero_shot": {**engine(1.0, 0.88, 0.5, code=1.0), "engine": "rules"},
        "in_use_model": "recognizer v1",
        "documents": 14,
    }
    return TrainedModel.objects.create(
        corpus=corpus, kind="recognizer", version=3, status="succeeded", path="r/v3", metrics={"comparison": comparison}
    )


def test_each_version_is_shown_beside_the_engine_in_use_and_zero_shot_with_drops_marked(registry, worse, people):
    corpus = registry[0]
    page = client_for(people["manager"]).get(f"/corpora/{corpus.pk}/models/").content.decode()
    table = page[
        page.index('aria-label="v3 beside the engine in use') : page.index("</table>", page.index("v3 beside"))
    ]
    assert "On the same 14 held-out documents" in table
    assert '<span class="metric-drop">3 scores lower</span> than the engine in use when it was trained' in table
    for column in ("ER_di", "ER_qi", "Token precision", "WP", "CODE recall", "PERSON recall", "DATETIME recall"):
        assert f'<th class="num">{column}</th>' in table
    candidate = table[table.index('<tr class="engine-candidate">') : table.index('<tr class="engine-in_use">')]
    # ER_di, CODE and PERSON recall fell against the model in use; ER_qi and precision rose.
    assert '<td class="num metric-drop">0.964</td>' in candidate
    assert (
        '<td class="num metric-drop">0.750</td>' in candidate and '<td class="num metric-drop">0.500</td>' in candidate
    )
    assert '<td class="num">0.950</td>' in candidate and '<td class="num">0.700</td>' in candidate
    assert candidate.count("metric-drop") == 3
    in_use = table[table.index('<tr class="engine-in_use">') : table.index('<tr class="engine-zero_shot">')]
    assert "in use when trained (recognizer v1)" in in_use and "metric-drop" not in in_use
    assert "zero-shot" in table and '<td class="num">0.880</td>' in table
    # The worse version's promotion asks for a reason, saying why; the others do not.
    assert page.count('name="reason"') == 1
    assert "recognizer v3 is worse than recognizer v1 on the same 14 held-out documents: ER_di 0.964 against" in page
    assert "style=" not in page  # the site's CSP allows no inline styles


def test_a_worse_version_is_promoted_only_with_a_reason_which_the_page_shows(
    registry, worse, people, settings, tmp_path
):
    settings.SANITIZE_MODEL_ROOT = tmp_path
    corpus = registry[0]
    mia = client_for(people["manager"])
    url = f"/corpora/{corpus.pk}/models/"
    refused = mia.post(f"{url}{worse.pk}/promote/", {"reason": " "}, follow=True).content.decode()
    assert "ER_di 0.964 against 1.000 in use. Give a written reason to promote it anyway." in refused
    worse.refresh_from_db()
    assert not worse.is_active
    reason = "PERSON misses are initials the rules mask anyway; checked on 14 documents."
    page = mia.post(f"{url}{worse.pk}/promote/", {"reason": reason}, follow=True).content.decode()
    assert "recognizer v3 is now used for pre-annotation." in page
    assert f"Promoted by mia_manager with the reason: <q>{reason}</q>" in page
    worse.refresh_from_db()
    assert worse.is_active and worse.promotion_reason == reason and worse.promoted_by == people["manager"]

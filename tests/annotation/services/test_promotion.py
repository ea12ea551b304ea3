"""Guarded promotion: a model worse than the one in use on ER_di or ER_qi (held-out
documents, like for like) is promoted only with a written reason, which is stored and
audited; a model no worse needs none; no evidence counts as none; roll back is the way
out and is not guarded. The comparisons are written by hand (no training here)."""

import pytest
from django.utils import timezone

from annotation.models import AuditEvent, TrainedModel
from annotation.services import promotion_guard, training
from annotation.services.errors import DomainError

pytestmark = pytest.mark.django_db


def comparison(candidate, in_use, *, zero_shot=(1.0, 0.85), in_use_model="recognizer v1", documents=14, **extra):
    """Metrics as a training stores them: (ER_di, ER_qi) of each engine."""

    def engine(values, precision):
        return {"ER_di": values[0], "ER_qi": values[1], "token_precision": precision, "documents": documents}

    return {
        "comparison": {
            "candidate": {**engine(candidate, 0.7), **extra},
            "in_use": engine(in_use, 0.6),
            "zero_shot": engine(zero_shot, 0.5),
            "in_use_model": in_use_model,
            "documents": documents,
        }
    }


def model(corpus, version, metrics=None, **fields):
    return TrainedModel.objects.create(
        corpus=corpus,
        kind="recognizer",
        version=version,
        status="succeeded",
        path=f"r/v{version}",
        metrics=metrics or {},
        **fields,
    )


@pytest.fixture
def in_use(corpus):
    return model(corpus, 1, is_active=True, activated_at=timezone.now())


def test_a_drop_on_er_di_and_er_qi_is_refused_without_a_reason_naming_both_metrics_and_values(corpus, people, in_use):
    worse = model(corpus, 2, comparison(candidate=(0.964, 0.893), in_use=(1.0, 0.903)))
    for missing in ("", "   \n\t"):
        with pytest.raises(DomainError) as refused:
            training.promote(worse, actor=people["manager"], reason=missing)
        assert refused.value.field == "reason"
        assert refused.value.message == (
            "recognizer v2 is worse than recognizer v1 on the same 14 held-out documents: "
            "ER_di 0.964 against 1.000 in use, ER_qi 0.893 against 0.903 in use. "
            "Give a written reason to promote it anyway."
        )
    assert list(TrainedModel.objects.filter(is_active=True)) == [in_use]
    assert not AuditEvent.objects.filter(action="model.promote").exists()


def test_a_drop_on_er_qi_alone_is_enough_to_need_a_reason(corpus, people, in_use):
    worse = model(corpus, 2, comparison(candidate=(1.0, 0.85), in_use=(1.0, 0.86)))
    with pytest.raises(DomainError, match=r": ER_qi 0\.850 against 0\.860 in use\. Give a written reason"):
        training.promote(worse, actor=people["manager"])


def test_with_a_written_reason_the_worse_model_is_promoted_and_the_reason_stored_and_audited(corpus, people, in_use):
    worse = model(corpus, 2, comparison(candidate=(0.964, 0.95), in_use=(1.0, 0.903)))
    training.promote(worse, actor=people["manager"], reason="  The missed code was a typo in the gold layer.  ")
    worse.refresh_from_db()
    in_use.refresh_from_db()
    assert worse.is_active and not in_use.is_active
    assert worse.promotion_reason == "The missed code was a typo in the gold layer."
    assert worse.promoted_by == people["manager"]
    event = AuditEvent.objects.get(action="model.promote")
    assert event.actor == people["manager"] and event.target == "recognizer v2"
    assert event.changes["reason"] == "The missed code was a typo in the gold layer."
    assert event.changes["before"] == ["recognizer v1"]
    assert "ER_di 0.964 against 1.000 in use" in event.changes["overrides"]


def test_a_model_no_worse_on_er_di_and_er_qi_is_promoted_without_a_reason(corpus, people, in_use):
    # Equal ER_di, better ER_qi; a lower precision is not guarded (privacy first).
    better = model(corpus, 2, comparison(candidate=(1.0, 0.91), in_use=(1.0, 0.903)))
    better.metrics["comparison"]["candidate"]["token_precision"] = 0.1
    assert promotion_guard.objection(better) == ""
    training.promote(better, actor=people["manager"])
    better.refresh_from_db()
    assert better.is_active and better.promotion_reason == ""
    assert AuditEvent.objects.get(action="model.promote").changes["overrides"] == ""


@pytest.mark.parametrize(
    ("metrics", "why"),
    [
        ({}, "recognizer v2 was not compared with the model in use on held-out documents"),
        (
            {"comparison": {"skipped": "no held-out documents to compare on", "documents": 0}},
            "recognizer v2 was not compared with the model in use: no held-out documents to compare on",
        ),
        (
            comparison(candidate=(1.0, 0.9), in_use=(None, None)),
            "the model in use could not be scored on the held-out documents (no score)",
        ),
    ],
)
def test_without_a_comparison_a_reason_is_needed(corpus, people, in_use, metrics, why):
    unproven = model(corpus, 2, metrics)
    with pytest.raises(DomainError) as refused:
        training.promote(unproven, actor=people["manager"])
    assert refused.value.message == f"{why}. Give a written reason to promote it anyway."
    training.promote(unproven, actor=people["manager"], reason="Too few documents to hold any out.")
    assert TrainedModel.objects.get(is_active=True) == unproven


def test_a_comparison_with_a_model_no_longer_in_use_needs_a_reason(corpus, people):
    # v2 was compared with the default; v1 was promoted since: nothing says v2 beats v1.
    v2 = model(corpus, 2, comparison(candidate=(1.0, 0.95), in_use=(1.0, 0.9), in_use_model=""))
    model(corpus, 1, is_active=True, activated_at=timezone.now())
    with pytest.raises(DomainError) as refused:
        training.promote(v2, actor=people["manager"])
    assert refused.value.message == (
        "recognizer v2 has no comparison with the model in use; it was compared with the configured default, "
        "and recognizer v1 is in use now. Give a written reason to promote it anyway."
    )


def test_roll_back_returns_to_the_earlier_model_without_a_reason(corpus, people, in_use):
    worse = model(corpus, 2, comparison(candidate=(0.9, 0.8), in_use=(1.0, 0.9)))
    training.promote(worse, actor=people["manager"], reason="Trying it on the next batch.")
    assert training.roll_back(corpus, "recognizer", actor=people["manager"]) == in_use
    in_use.refresh_from_db()
    assert in_use.is_active and in_use.promotion_reason == ""
    event = AuditEvent.objects.filter(action="model.promote").latest("pk")
    assert event.changes["rollback_from"] == "recognizer v2"


def test_a_model_whose_archive_is_missing_is_not_promoted(corpus, people, in_use):
    from django.core.files.storage import default_storage

    from tests.support.archived_models import archived_model

    gone = archived_model(corpus, "recognizer", 2, metrics=comparison(candidate=(1.0, 0.95), in_use=(1.0, 0.9)))
    default_storage.delete(gone.archive)
    with pytest.raises(DomainError, match=f"recognizer v2 cannot be used: its archive {gone.archive} is missing"):
        training.promote(gone, actor=people["manager"])
    assert list(TrainedModel.objects.filter(is_active=True)) == [in_use]

"""``train --promote``: the new model beside the engine in use and the zero-shot one in
the report; promoted at once when it is no worse on ER_di and ER_qi, refused (the model
kept, not in use) when it is worse and no --reason is given, promoted with the reason
stored when one is. The trainer and the comparison are stand-ins with hand-written
numbers (no real training here)."""

import io

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from annotation.models import TrainedModel
from annotation.services import training
from sanitize_app.engine.training import TrainingResult

# Committed transactions: the command queues the training once its row is committed.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("eager_tasks")]


def _comparison(candidate, in_use, in_use_model):
    return {
        "candidate": {"ER_di": candidate[0], "ER_qi": candidate[1], "token_precision": 0.8, "WP": 0.7},
        "in_use": {"ER_di": in_use[0], "ER_qi": in_use[1], "token_precision": 0.6, "WP": 0.5},
        "zero_shot": {"ER_di": 1.0, "ER_qi": 0.8, "token_precision": 0.55, "WP": 0.45},
        "in_use_model": in_use_model,
        "documents": 2,
    }


@pytest.fixture
def stand_ins(corpus, pick, import_documents, monkeypatch, settings, tmp_path):
    settings.SANITIZE_MODEL_ROOT = tmp_path
    settings.SANITIZE_TRAINING = {**settings.SANITIZE_TRAINING, "in_thread": False}
    import_documents(corpus, pick("001-79436", "001-83927", "001-95183"))
    TrainedModel.objects.create(
        corpus=corpus, kind="recognizer", version=1, status="succeeded", path="r/v1", is_active=True,
        activated_at=timezone.now(),
    )  # fmt: skip
    comparisons = []

    def train(model, train, heldout, target, progress):
        target.mkdir(parents=True)
        return TrainingResult(kind=model.kind, path=target, metrics={"ER_di": 1.0}, config={}, duration_s=0.1)

    monkeypatch.setattr(training, "_train", train)
    monkeypatch.setattr(training, "compare_engines", lambda model, path, heldout, progress: comparisons.pop(0))
    return comparisons


def run_train(corpus, *args):
    out, err = io.StringIO(), io.StringIO()
    call_command("train", "--corpus", corpus.name, "--what", "recognizer", *args, stdout=out, stderr=err)
    return out.getvalue()


def test_a_no_worse_model_is_promoted_and_the_comparison_printed(corpus, stand_ins):
    stand_ins.append(_comparison((1.0, 0.93), (1.0, 0.91), "recognizer v1"))
    out = run_train(corpus, "--promote")
    assert "compared on 2 held-out documents:" in out
    assert "  ER_di                 1.000      1.000      1.000" in out
    assert "  ER_qi                 0.930      0.910      0.800" in out
    assert "recognizer v2 is now used for pre-annotation." in out
    assert TrainedModel.objects.get(is_active=True).version == 2


def test_a_worse_model_is_refused_without_reason_and_promoted_with_one(corpus, stand_ins):
    stand_ins.append(_comparison((0.75, 0.93), (1.0, 0.91), "recognizer v1"))
    with pytest.raises(CommandError) as refused:
        run_train(corpus, "--promote")
    assert str(refused.value) == (
        "recognizer v2 is worse than recognizer v1 on the same 2 held-out documents: ER_di 0.750 against 1.000 in use. "
        "Give a written reason to promote it anyway. (recognizer v2 stays in the registry, unused: promote it with "
        "--reason TEXT or on the models page.)"
    )
    assert TrainedModel.objects.get(is_active=True).version == 1
    assert TrainedModel.objects.get(version=2).status == "succeeded"

    stand_ins.append(_comparison((0.75, 0.93), (1.0, 0.91), "recognizer v1"))
    run_train(corpus, "--promote", "--reason", "Codes are found by the rules anyway.")
    v3 = TrainedModel.objects.get(is_active=True)
    assert v3.version == 3 and v3.promotion_reason == "Codes are found by the rules anyway."


def test_a_reason_without_promote_is_refused_before_training(corpus, stand_ins):
    with pytest.raises(CommandError, match="--reason goes with --promote"):
        run_train(corpus, "--reason", "why not")
    assert TrainedModel.objects.count() == 1

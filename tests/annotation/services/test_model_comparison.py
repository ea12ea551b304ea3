"""The comparison a training stores: the candidate, the engine in use and the zero-shot
engine scored on the same held-out documents, each named; a candidate that does not
load is not scored as if it were the engine in use; the time limit holds."""

import pytest
from django.utils import timezone

from annotation.models import TrainedModel
from annotation.services.model_comparison import compare_engines
from annotation.services.model_store import ModelUnavailable
from tests.support.archived_models import archived_model

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("rules_only_engine")]


@pytest.fixture
def heldout(pick):
    return pick("001-79436")


@pytest.fixture
def candidate(corpus):
    return TrainedModel.objects.create(corpus=corpus, kind="recognizer", version=2, status="running")


def test_a_candidate_that_does_not_load_is_an_error_and_the_others_are_scored(candidate, heldout, tmp_path):
    fractions = []
    compared = compare_engines(candidate, tmp_path / "missing", heldout, lambda f, m="": fractions.append(f))
    assert compared["candidate"]["error"].startswith("the new recognizer did not load (rules only")
    assert "ER_di" not in compared["candidate"]
    in_use = compared["in_use"]
    assert in_use["engine"] == "rules" and in_use["documents"] == 1 and compared["documents"] == 1
    assert 0 <= in_use["ER_di"] <= 1 and 0 <= in_use["ER_qi"] <= 1 and "CODE" in in_use["recall_by_type"]
    # Nothing promoted: the zero-shot engine is the one in use, scored once.
    assert compared["zero_shot"]["same_as"] == "in_use" and compared["zero_shot"]["ER_qi"] == in_use["ER_qi"]
    assert compared["in_use_model"] == ""
    assert fractions == sorted(fractions) and fractions[-1] == 1.0  # up to the end, failed engine included


def test_the_engine_in_use_has_the_promoted_models_and_the_zero_shot_engine_none(corpus, candidate, heldout, tmp_path):
    archived_model(corpus, "recognizer", 1, is_active=True, activated_at=timezone.now())
    compared = compare_engines(candidate, tmp_path / "missing", heldout, lambda f, m="": None)
    assert compared["in_use_model"] == "recognizer v1"
    assert compared["in_use"]["engine"] == "recognizer v1" and compared["zero_shot"]["engine"] == "rules"
    assert compared["candidate"]["engine"] == "recognizer v1 with recognizer v2"
    assert "same_as" not in compared["zero_shot"] and "ER_di" in compared["zero_shot"]


def test_past_the_time_limit_no_engine_is_scored(candidate, heldout, tmp_path, settings):
    settings.SANITIZE_TRAINING = {**settings.SANITIZE_TRAINING, "comparison_time_limit_s": 1e-6}
    compared = compare_engines(candidate, tmp_path / "missing", heldout, lambda f, m="": None)
    assert compared["in_use"]["skipped"] == "the comparison's time limit (0 s) was reached"
    assert "ER_di" not in compared["zero_shot"]


def test_no_held_out_documents_no_comparison(candidate, tmp_path):
    compared = compare_engines(candidate, tmp_path, [], lambda f, m="": None)
    assert compared == {"in_use_model": "", "documents": 0, "skipped": "no held-out documents to compare on"}


def test_an_engine_in_use_whose_model_cannot_be_fetched_is_not_compared(corpus, candidate, heldout, tmp_path):
    in_use = archived_model(corpus, "recognizer", 1, is_active=True, activated_at=timezone.now())
    in_use.checksum = "0" * 64
    in_use.save()
    with pytest.raises(ModelUnavailable, match=r"recognizer v1 model .*not the recorded 0000"):
        compare_engines(candidate, tmp_path / "missing", heldout, lambda f, m="": None)

"""The policy's answers that the API and the pages ask on every request."""

import pytest

from annotation import permissions as policy
from annotation.enums import LayerStatus
from annotation.models import AnnotationLayer, Document
from annotation.services.layer_states import REVIEWED_LOCKED

pytestmark = pytest.mark.django_db


@pytest.fixture
def reviewed_layer(corpus, people):
    document = Document.objects.create(corpus=corpus, doc_id="case-1", text="Mr Smith lives in Oslo.")
    return AnnotationLayer.objects.create(document=document, annotator=people["ann"], status=LayerStatus.REVIEWED)


def test_a_refusal_names_the_status_to_those_who_may_act_in_three_queries_at_most(
    reviewed_layer, people, django_assert_max_num_queries
):
    # The user's roles in the corpus, their review assignment when they are a reviewer,
    # and the review order (the workspace page asks it for every locked layer).
    with django_assert_max_num_queries(3):
        assert policy.write_refusal(people["manager"], reviewed_layer) == REVIEWED_LOCKED
    with django_assert_max_num_queries(3):
        assert policy.write_refusal(people["rita"], reviewed_layer) == "You may read this layer but not change it."

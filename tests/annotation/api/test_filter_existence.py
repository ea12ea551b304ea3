"""A filter never reveals whether an object exists outside the user's reach: asking for
another corpus's corpus, document, layer, mention or entity (or user, doc_id) gives
exactly the answer an id or name that exists nowhere gives. The asking user is the
outsider, manager of the other corpus; the scenario's corpus is out of their reach.
Each filter also finds the outsider's own objects, so an empty answer is not simply a
filter that matches nothing."""

import pytest

from annotation.models import AnnotationLayer, Mention, Release

pytestmark = pytest.mark.django_db

UNKNOWN_ID = 10**9


def _targets(scenario) -> dict:
    """For each kind of value: (outside the outsider's reach, within it)."""
    mine_layer = AnnotationLayer.objects.filter(document=scenario["other_document"]).order_by("id").first()
    mine_mention = Mention.objects.filter(layer=mine_layer).order_by("id").first()
    releases = [
        Release.objects.create(corpus=corpus, source="reviewed", strategy="label")
        for corpus in (scenario["corpus"], scenario["other_corpus"])
    ]
    return {
        "corpus": (scenario["corpus"].pk, scenario["other_corpus"].pk),
        "document": (scenario["document"].pk, scenario["other_document"].pk),
        "layer": (scenario["ann_layer"].pk, mine_layer.pk),
        "mention": (scenario["ann_mention"].pk, mine_mention.pk),
        "entity": (scenario["ann_mention"].entity_id, mine_mention.entity_id),
        "username": ("ann_annotator", mine_layer.annotator.username),
        "doc_id": (scenario["document"].doc_id, scenario["other_document"].doc_id),
        "release": (releases[0].pk, releases[1].pk),
    }


# (endpoint, query parameter, kind of value, whether the outsider's own value finds something)
FILTERS = [
    ("/api/memberships/", "corpus", "corpus", True),
    ("/api/memberships/", "user", "username", False),
    ("/api/documents/", "corpus", "corpus", True),
    ("/api/documents/", "doc_id", "doc_id", True),
    ("/api/layers/", "document", "document", True),
    ("/api/layers/", "corpus", "corpus", True),
    ("/api/layers/", "annotator", "username", True),
    ("/api/mentions/", "layer", "layer", True),
    ("/api/mentions/", "entity", "entity", True),
    ("/api/mentions/", "document", "document", True),
    ("/api/entities/", "layer", "layer", True),
    ("/api/audit-events/", "corpus", "corpus", True),
    ("/api/audit-events/", "document", "document", False),
    ("/api/audit-events/", "layer", "layer", False),
    ("/api/audit-events/", "actor", "username", False),
    ("/api/import-jobs/", "corpus", "corpus", False),
    ("/api/preannotation-runs/", "corpus", "corpus", False),
    ("/api/trained-models/", "corpus", "corpus", False),
    ("/api/releases/", "corpus", "corpus", True),
    ("/api/release-documents/", "release", "release", False),
    ("/api/reidentification-runs/", "corpus", "corpus", False),
    ("/api/reidentification-runs/", "release", "release", False),
]


@pytest.mark.parametrize(("endpoint", "param", "kind", "finds_own"), FILTERS)
def test_an_id_out_of_reach_is_answered_like_an_unknown_one(scenario, api, endpoint, param, kind, finds_own):
    client = api(scenario["outsider"])
    outside, own = _targets(scenario)[kind]
    unknown = "nobody_such" if kind in ("username", "doc_id") else UNKNOWN_ID
    out_of_reach = client.get(endpoint, {param: outside})
    nowhere = client.get(endpoint, {param: unknown})
    assert (out_of_reach.status_code, out_of_reach.json()) == (nowhere.status_code, nowhere.json())
    assert out_of_reach.status_code == 200 and out_of_reach.json()["count"] == 0
    if finds_own:
        assert client.get(endpoint, {param: own}).json()["count"] > 0


@pytest.mark.parametrize(
    ("endpoint", "param"), [(e, p) for e, p, kind, _ in FILTERS if kind not in ("username", "doc_id")]
)
def test_an_id_filter_refuses_what_is_not_an_id_naming_the_parameter(scenario, api, endpoint, param):
    response = api(scenario["outsider"]).get(endpoint, {param: "1.5"})
    assert response.status_code == 400
    assert param in response.json()


def test_the_filters_list_covers_every_filter_of_the_api(scenario):
    """A filter added later is added to FILTERS too (the test above then covers it)."""
    from annotation.api import filters

    declared = set()
    for filterset in filters.ScopedFilterSet.__subclasses__():
        endpoint = {
            "MembershipFilter": "/api/memberships/",
            "DocumentFilter": "/api/documents/",
            "LayerFilter": "/api/layers/",
            "MentionFilter": "/api/mentions/",
            "EntityFilter": "/api/entities/",
            "AuditEventFilter": "/api/audit-events/",
            "ImportJobFilter": "/api/import-jobs/",
            "PreannotationRunFilter": "/api/preannotation-runs/",
            "TrainedModelFilter": "/api/trained-models/",
            "ReleaseFilter": "/api/releases/",
            "ReleaseDocumentFilter": "/api/release-documents/",
            "ReidentificationRunFilter": "/api/reidentification-runs/",
        }[filterset.__name__]
        for name, declared_filter in filterset.base_filters.items():
            if isinstance(declared_filter, filters.IdFilter) or name in ("user", "annotator", "actor", "doc_id"):
                declared.add((endpoint, name))
    assert declared == {(endpoint, param) for endpoint, param, _, _ in FILTERS}

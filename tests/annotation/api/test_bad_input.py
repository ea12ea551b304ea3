"""The requests schemathesis found answering 500 on main, each answered cleanly now:
a 400 naming the field, or a 404 for an id that is not one; and commands naming a
corpus do not tell an outsider that it exists."""

import json

import pytest

from annotation.models import Corpus, ReviewPair

pytestmark = pytest.mark.django_db


def test_a_corpus_is_created_with_the_mask_style_sent(scenario, api):
    response = api(scenario["manager"]).post("/api/corpora/", {"name": "Labelled", "mask_style": "labels"})
    assert response.status_code == 201
    assert Corpus.objects.get(name="Labelled").mask_style == "labels"


def test_an_unknown_mask_style_is_refused_naming_the_field(scenario, api):
    response = api(scenario["manager"]).post("/api/corpora/", {"name": "Odd", "mask_style": "blur"})
    assert response.status_code == 400
    assert "mask_style" in response.json()
    assert not Corpus.objects.filter(name="Odd").exists()


@pytest.mark.parametrize("path", ["/api/layer-reviews/null,null/", "/api/layer-reviews/null,null/notes/"])
def test_a_layer_review_id_that_is_not_a_number_is_not_found(scenario, api, path):
    assert api(scenario["manager"]).get(path).status_code == 404


@pytest.mark.parametrize(
    ("action", "field"), [("confirm", "layer_version"), ("masked-reading", "reidentifiable"), ("notes", "body")]
)
def test_options_on_a_layer_review_action_describes_its_command(scenario, api, action, field):
    response = api(scenario["rita"]).options(f"/api/layer-reviews/{scenario['ann_layer'].pk}/{action}/")
    assert response.status_code == 200
    assert field in response.json()["actions"]["POST"]


@pytest.mark.parametrize("name", ["ann_annotator\x00", "\x00"])
def test_a_nul_in_a_username_is_refused_naming_the_field(scenario, api, name):
    body = {"corpus": scenario["corpus"].pk, "first": name, "second": "bob_annotator"}
    response = api(scenario["manager"]).post("/api/review-pairs/", body, format="json")
    assert response.status_code == 400
    assert response.json() == {"first": ["Null characters are not allowed."]}
    assert not ReviewPair.objects.exists()


def test_a_lone_surrogate_in_a_username_is_refused_naming_the_field(scenario, api):
    raw = f'{{"corpus": {scenario["corpus"].pk}, "first": "ann\\udc00", "second": "bob_annotator"}}'
    response = api(scenario["manager"]).post("/api/review-pairs/", raw, content_type="application/json")
    assert response.status_code == 400
    assert list(response.json()) == ["first"]


def test_a_nul_in_a_member_path_is_refused_naming_the_username(scenario, api):
    corpus = scenario["corpus"].pk
    response = api(scenario["manager"]).patch(
        f"/api/corpora/{corpus}/members/ann%00/", {"roles": ["annotator"]}, format="json"
    )
    assert response.status_code == 400
    assert list(response.json()) == ["username"]


def test_a_nul_in_an_export_parameter_is_refused_naming_it(scenario, api):
    corpus = scenario["corpus"].pk
    response = api(scenario["manager"]).get(f"/api/corpora/{corpus}/export/masks/", {"annotator": "ann\x00"})
    assert response.status_code == 400
    assert list(response.json()) == ["annotator"]


def test_an_id_filter_beyond_what_the_database_stores_is_refused_naming_it(scenario, api):
    response = api(scenario["manager"]).get("/api/entities/", {"layer": str(2**70)})
    assert response.status_code == 400
    assert list(response.json()) == ["layer"]


@pytest.mark.parametrize(
    ("endpoint", "body"),
    [
        ("/api/review-pairs/", {"first": "ann_annotator", "second": "bob_annotator"}),
        ("/api/memberships/", {"user": "ann_annotator", "role": "annotator"}),
        ("/api/trained-models/", {"kind": "recognizer"}),
        ("/api/preannotation-runs/", {}),
    ],
)
def test_a_command_on_a_corpus_out_of_reach_is_answered_like_one_on_no_corpus(scenario, api, endpoint, body):
    client = api(scenario["outsider"])
    out_of_reach = client.post(endpoint, {**body, "corpus": scenario["corpus"].pk}, format="json")
    nowhere = client.post(endpoint, {**body, "corpus": 10**9}, format="json")
    assert out_of_reach.status_code == nowhere.status_code == 400
    assert json.loads(out_of_reach.content.replace(str(scenario["corpus"].pk).encode(), b"ID")) == json.loads(
        nowhere.content.replace(str(10**9).encode(), b"ID")
    )


@pytest.mark.parametrize("path_id", ["%C2%B2", "1.5", "null"])
def test_an_entity_id_that_is_not_a_number_is_not_found(scenario, api, path_id):
    """The superscript two counts as a digit for str.isdigit(), not for int()."""
    body = {"identifier_type": "QUASI", "layer_version": 1}
    assert api(scenario["ann"]).patch(f"/api/entities/{path_id}/", body, format="json").status_code == 404

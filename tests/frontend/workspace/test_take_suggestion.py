"""The workspace shows the engine's confidential proposal beside its identifier suggestion,
and "Take it" (the g key posts take=suggestion) applies both on the server."""

import pytest

from annotation.enums import ConfidentialStatus
from annotation.models import AuditEvent, Prediction
from annotation.services.decisions import set_entity_decision
from annotation.services.layers import assign_layer
from annotation.tasks import submit_preannotation

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("rules_only_engine", "eager_tasks")]

POLAT = "001-83927"


@pytest.fixture
def layer(corpus, people, pick, import_documents, django_capture_on_commit_callbacks):
    import_documents(corpus, pick(POLAT))
    layer = assign_layer(corpus.documents.get(), people["ann"], actor=people["manager"])
    with django_capture_on_commit_callbacks(execute=True):
        submit_preannotation(corpus, actor=people["manager"])
    return layer


@pytest.fixture
def party(layer):
    return layer.mentions.filter(span_text="TKP/ML-TIKKO").first().entity


def take(client, layer, entity, identifier):
    layer.refresh_from_db()
    data = {"layer_version": layer.version, "identifier_type": identifier, "take": "suggestion"}
    return client.post(f"/layers/{layer.pk}/entities/{entity.pk}/decision/?current_entity={entity.pk}", data)


def test_the_panel_shows_the_confidential_proposal_and_its_reason(layer, party, client_for, people):
    panel = client_for(people["ann"]).get(f"/layers/{layer.pk}/entities/{party.pk}/").content.decode()
    assert 'and confidential <strong class="conf-suggested">Political opinion or union membership</strong>' in panel
    assert 'data-take="suggestion"' in panel and ">Take it <kbd>g</kbd>" in panel
    assert "<li>confidential: political party, opinion or trade union: “TKP/ML-TIKKO” is in the word list</li>" in panel


def test_take_applies_the_identifier_and_the_confidential_status(layer, party, client_for, people):
    identifier = Prediction.objects.filter(mentions__entity=party).first().identifier_type
    # The client's value is not trusted: the server takes the prediction's.
    response = take(client_for(people["ann"]), layer, party, "DIRECT" if identifier != "DIRECT" else "QUASI")
    assert response.status_code == 200
    body = response.content.decode()
    assert "Took the suggestion:" in body and "Political opinion or union membership." in body
    assert set(party.mentions.values_list("identifier_type", "confidential_status")) == {(identifier, "POLITICS")}
    assert '<span class="muted">· taken</span>' in body  # the redrawn panel
    assert AuditEvent.objects.filter(action="entity.decision", actor=people["ann"]).count() == 1


def test_take_keeps_the_annotators_own_confidential_status(layer, party, client_for, people):
    set_entity_decision(party, actor=people["ann"], confidential_status=ConfidentialStatus.HEALTH)
    client = client_for(people["ann"])
    panel = client.get(f"/layers/{layer.pk}/entities/{party.pk}/").content.decode()
    assert "Your confidential status stays" in panel
    take(client, layer, party, "QUASI")
    assert set(party.mentions.values_list("confidential_status", flat=True)) == {"HEALTH"}


def test_another_annotator_cannot_take_on_this_layer(layer, party, client_for, people):
    response = take(client_for(people["bob"]), layer, party, "QUASI")
    assert response.status_code in (403, 404)
    assert set(party.mentions.values_list("identifier_type", "confidential_status")) == {(None, "NOT_CONFIDENTIAL")}


def test_the_entity_list_hints_at_the_proposal_until_a_category_is_set(layer, party, client_for, people):
    client = client_for(people["ann"])

    def row() -> str:
        page = client.get(f"/layers/{layer.pk}/").content.decode()
        return page[page.index(f'id="ent-{party.pk}"') :].split("</li>")[0]

    assert 'title="the engine proposes confidential: politics">→ politics<' in row()
    set_entity_decision(party, actor=people["ann"], confidential_status=ConfidentialStatus.POLITICS)
    assert "→ politics" not in row() and '<span class="conf-flag">politics</span>' in row()


def test_the_panel_says_whether_a_trained_model_judged_the_entity_and_how_sure_it_was(layer, party, client_for, people):
    client = client_for(people["ann"])
    url = f"/layers/{layer.pk}/entities/{party.pk}/"
    panel = client.get(url).content.decode()  # a rules-only run: no model judged it
    assert "decided by rules (no trained model judged it)" in panel and "unsure" not in panel
    Prediction.objects.filter(mentions__entity=party).update(mask_probability=0.55)
    panel = client.get(url).content.decode()
    assert "trained models' P(mask) 0.55" in panel
    assert "The trained models are unsure here (P(mask) 0.55)" in panel  # min(.55, .45) = .45 >= .3
    Prediction.objects.filter(mentions__entity=party).update(mask_probability=0.92)
    panel = client.get(url).content.decode()
    assert "trained models' P(mask) 0.92" in panel and "unsure here" not in panel  # .08 < .3

"""A change refused because the engine refreshed the pre-annotation meanwhile says so
(nothing the annotator changed was touched); a change by a person is the usual conflict."""

from annotation.models import Mention, PreannotationRun, Prediction
from annotation.services.mentions import create_mention
from annotation.services.preannotation_apply import apply_predictions

from .conftest import TEXT, at

ENGINE = (
    "The pre-annotation was refreshed; nothing you changed was touched. Your last change was not saved: do it again."
)
PERSON = "changed in another tab or by someone else"


def refresh_by_engine(layer, corpus, text: str, entity_type: str) -> None:
    """A run proposes one span and puts it into the open layer, as a task does (by nobody)."""
    run = PreannotationRun.objects.create(corpus=corpus)
    start, end = at(text)
    prediction = Prediction.objects.create(
        run=run,
        document=layer.document,
        entity_key=0,
        start_offset=start,
        end_offset=end,
        span_text=TEXT[start:end],
        entity_type=entity_type,
        identifier_type="QUASI",
    )
    assert apply_predictions(layer, [prediction]).added == 1


def decide(client, layer, mention, version):
    return client.post(
        f"/layers/{layer.pk}/entities/{mention.entity_id}/decision/",
        {"identifier_type": "DIRECT", "layer_version": version},
    )


def test_a_change_refused_after_an_engine_refresh_says_the_engine_did_it(layer, people, client_for, corpus):
    ann = people["ann"]
    mention = create_mention(
        layer, actor=ann, start_offset=at("Izmir")[0], end_offset=at("Izmir")[1], entity_type="LOC"
    )
    seen = layer.version  # what the page showed
    refresh_by_engine(layer, corpus, "3 May 1997", "DATETIME")
    refresh_by_engine(layer, corpus, "Mrs Zoe\u0301 Demir", "PERSON")  # two refreshes: still only the engine
    response = decide(client_for(ann), layer, mention, seen)
    body = response.content.decode()
    assert response.status_code == 409
    assert ENGINE in body and PERSON not in body
    assert 'id="doc-text"' in body and f'data-m="{mention.pk}"' in body  # the full refresh is still sent
    mention.refresh_from_db()
    assert mention.identifier_type is None
    assert Mention.objects.filter(layer=layer).count() == 2  # the second refresh replaced the first proposal


def test_a_change_refused_after_a_persons_change_is_the_usual_conflict(layer, people, client_for, corpus):
    ann = people["ann"]
    mention = create_mention(
        layer, actor=ann, start_offset=at("Izmir")[0], end_offset=at("Izmir")[1], entity_type="LOC"
    )
    seen = layer.version
    refresh_by_engine(layer, corpus, "3 May 1997", "DATETIME")
    second = at("Izmir", 1)
    create_mention(layer, actor=ann, start_offset=second[0], end_offset=second[1], entity_type="LOC")  # another tab
    body = decide(client_for(ann), layer, mention, seen).content.decode()
    assert PERSON in body and ENGINE not in body

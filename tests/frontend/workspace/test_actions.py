"""The workspace's HTMX actions: each answers with only what changed, refuses stale and
forbidden edits clearly, and changes nothing then."""

import re

from annotation.models import AuditEvent, Mention
from annotation.services.decisions import set_entity_decision
from annotation.services.mentions import create_mention

from .conftest import TEXT, at


def post(client, layer, path, **data):
    layer.refresh_from_db()
    data.setdefault("layer_version", layer.version)
    return client.post(f"/layers/{layer.pk}/{path}", data)


def blocks(response) -> list[str]:
    return re.findall(r'<p class="blk" id="b(\d+)" hx-swap-oob="true">', response.content.decode())


def test_the_page_renders_every_run_with_its_code_point_offset(layer, people, client_for):
    create_mention(
        layer, actor=people["ann"], start_offset=at("Izmir")[0], end_offset=at("Izmir")[1], entity_type="LOC"
    )
    page = client_for(people["ann"]).get(f"/layers/{layer.pk}/").content.decode()
    assert "Galip Yalman" in page and 'data-editable="1"' in page
    runs = re.findall(r'data-o="(\d+)"[^>]*>([^<]*)<', page)
    # Every run's text is the document text at its offset (code points, not UTF-16).
    assert runs and all(
        TEXT[int(o) : int(o) + len(t.replace("&#x27;", "'"))] == t.replace("&#x27;", "'") for o, t in runs
    )
    assert "".join(t for _, t in runs) == TEXT.replace("\n", "")


def test_creating_a_mention_snaps_the_selection_and_returns_its_line(layer, people, client_for):
    client = client_for(people["ann"])
    start = TEXT.index("alip Yal")  # a rough selection inside the name
    response = post(client, layer, "mentions/", start=start, end=start + 8, entity_type="PERSON")
    assert response.status_code == 200
    mention = Mention.objects.get()
    assert mention.span_text == "Mr Galip Yalman"  # whole words, with the title (guidelines)
    assert blocks(response) == ["0"]
    assert 'id="entity-list"' in response.content.decode()  # a new entity: the list is redrawn
    assert f'data-version="{layer.version + 1}"' in response.content.decode()
    assert f'data-select="{mention.entity_id}:{mention.pk}"' in response.content.decode()


def test_resizing_a_mention_snaps_and_keeps_edit_type(layer, people, client_for):
    ann = people["ann"]
    mention = create_mention(
        layer, actor=ann, start_offset=at("Izmir")[0], end_offset=at("Izmir")[1], entity_type="LOC"
    )
    start = TEXT.index("lives in Izmir")
    response = post(
        client_for(ann), layer, f"mentions/{mention.pk}/", start=start + 2, end=start + len("lives in Izmir")
    )
    assert response.status_code == 200
    mention.refresh_from_db()
    assert mention.span_text == "lives in Izmir" and mention.edit_type == "insert"
    assert blocks(response) == ["0"]


def test_a_decision_redraws_exactly_the_lines_of_the_entity(layer, people, client_for):
    ann = people["ann"]
    first = create_mention(layer, actor=ann, start_offset=at("Izmir")[0], end_offset=at("Izmir")[1], entity_type="LOC")
    create_mention(layer, actor=ann, start_offset=at("Izmir", 1)[0], end_offset=at("Izmir", 1)[1], entity_type="LOC")
    response = post(client_for(ann), layer, f"entities/{first.entity_id}/decision/", identifier_type="QUASI")
    body = response.content.decode()
    assert response.status_code == 200
    assert blocks(response) == ["0", "2"]  # both lines holding "Izmir", not the empty one between
    assert body.count("d-QUASI") == 2
    assert f'id="ent-{first.entity_id}"' in body and 'id="entity-list"' not in body
    assert set(Mention.objects.values_list("identifier_type", flat=True)) == {"QUASI"}


def test_a_stale_edit_is_refused_and_the_current_state_is_shown(layer, people, client_for):
    ann = people["ann"]
    mention = create_mention(
        layer, actor=ann, start_offset=at("Izmir")[0], end_offset=at("Izmir")[1], entity_type="LOC"
    )
    stale = layer.version - 1
    response = post(
        client_for(ann), layer, f"entities/{mention.entity_id}/decision/", identifier_type="DIRECT", layer_version=stale
    )
    body = response.content.decode()
    assert response.status_code == 409
    assert "changed in another tab or by someone else" in body
    assert 'id="doc-text"' in body and f'data-m="{mention.pk}"' in body
    mention.refresh_from_db()
    assert mention.identifier_type is None


def test_a_reviewer_reads_the_masked_document_before_the_annotations(layer, people, client_for, corpus):
    from annotation.services.layers import add_reviewer

    add_reviewer(layer, people["rita"], actor=people["manager"])
    client = client_for(people["rita"])
    page = client.get(f"/layers/{layer.pk}/")  # she reviews it, but the masked reading comes first...
    assert page.status_code == 302 and page["Location"] == f"/layers/{layer.pk}/review/"
    response = post(client, layer, "mentions/", start=0, end=3, entity_type="MISC")
    assert response.status_code == 403 and "Read the masked document" in response.content.decode()
    assert Mention.objects.count() == 0
    assert client_for(people["bob"]).get(f"/layers/{layer.pk}/").status_code == 404  # ...bob may not even see it


def test_a_change_without_the_layer_version_is_refused_naming_the_field(layer, people, client_for):
    client = client_for(people["ann"])
    response = client.post(f"/layers/{layer.pk}/mentions/", {"start": 0, "end": 3, "entity_type": "MISC"})
    assert response.status_code == 400 and "(layer_version)" in response.content.decode()
    assert Mention.objects.count() == 0


def test_errors_are_shown_as_messages(layer, people, client_for):
    client = client_for(people["ann"])
    gap = TEXT.index("\n\n")
    response = post(client, layer, "mentions/", start=gap, end=gap + 2, entity_type="MISC")
    assert response.status_code == 422 and "The span contains only whitespace." in response.content.decode()
    comma = TEXT.index(", lives")
    response = post(client, layer, "mentions/", start=comma, end=comma + 2, entity_type="MISC")
    assert response.status_code == 422 and "no word to annotate" in response.content.decode()
    response = post(client, layer, "mentions/", start=0, end=3, entity_type="NAME")
    assert response.status_code == 422 and "entity_type &#x27;NAME&#x27; is not one of" in response.content.decode()


def test_a_selection_inside_an_emoji_sequence_takes_the_whole_grapheme(layer, people, client_for):
    start = TEXT.index("👨")
    response = post(client_for(people["ann"]), layer, "mentions/", start=start, end=start + 1, entity_type="MISC")
    assert response.status_code == 200
    mention = Mention.objects.get()
    # man + zero-width joiner + scales + variation selector: 4 code points, one grapheme.
    assert (mention.start_offset, mention.end_offset) == (start, start + 4)
    assert mention.span_text == TEXT[start : start + 4] == "👨\u200d⚖\ufe0f"


def test_merge_split_undo_and_occurrences_through_the_workspace(layer, people, client_for):
    ann = people["ann"]
    client = client_for(ann)
    full = create_mention(
        layer,
        actor=ann,
        start_offset=at("Mr Galip Yalman")[0],
        end_offset=at("Mr Galip Yalman")[1],
        entity_type="PERSON",
        identifier_type="DIRECT",
    )
    short = create_mention(
        layer, actor=ann, start_offset=at("Mr Yalman")[0], end_offset=at("Mr Yalman")[1], entity_type="PERSON"
    )
    assert post(client, layer, f"entities/{full.entity_id}/merge/", source=short.entity_id).status_code == 200
    short.refresh_from_db()
    assert short.entity_id == full.entity_id and short.identifier_type == "DIRECT"
    assert post(client, layer, f"mentions/{short.pk}/split/").status_code == 200
    short.refresh_from_db()
    assert short.entity_id != full.entity_id
    response = post(client, layer, "undo/")
    assert "Undid splitting" in response.content.decode()
    short.refresh_from_db()
    assert short.entity_id == full.entity_id
    assert AuditEvent.objects.filter(action="undo").count() == 1
    # "Izmir" occurs twice; annotate one, then the other occurrence joins it.
    izmir = create_mention(layer, actor=ann, start_offset=at("Izmir")[0], end_offset=at("Izmir")[1], entity_type="LOC")
    response = post(client, layer, f"entities/{izmir.entity_id}/occurrences/")
    assert "Annotated 1 more occurrence(s)." in response.content.decode()
    assert list(Mention.objects.filter(entity_id=izmir.entity_id).values_list("start_offset", flat=True)) == [
        at("Izmir")[0],
        at("Izmir", 1)[0],
    ]


def test_entity_panel_lists_mentions_in_context(layer, people, client_for):
    ann = people["ann"]
    mention = create_mention(
        layer, actor=ann, start_offset=at("Izmir")[0], end_offset=at("Izmir")[1], entity_type="LOC"
    )
    set_entity_decision(mention.entity, actor=ann, identifier_type="QUASI")
    panel = client_for(ann).get(f"/layers/{layer.pk}/entities/{mention.entity_id}/").content.decode()
    assert "“Izmir”" in panel and "lives in" in panel
    assert 'class="dec-btn dec-QUASI on"' in panel
    assert "Annotate the 1 other occurrence" in panel

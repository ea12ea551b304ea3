import pytest

from annotation.services.layers import add_reviewer, assign_layer
from annotation.services.mentions import create_mention


@pytest.fixture
def setup(corpus, people, pick, import_documents):
    """One imported document (annotator1's reviewed layer) on which ann and bob each
    have a layer with one mention; rita reviews ann's layer. The outsider manages a
    second corpus with its own document."""
    import_documents(corpus, pick("001-79436"))
    import_documents(people["other_corpus"], pick("001-83927"))
    document = corpus.documents.get()
    ann_layer = assign_layer(document, people["ann"], actor=people["manager"])
    bob_layer = assign_layer(document, people["bob"], actor=people["manager"])
    ann_mention = create_mention(ann_layer, actor=people["ann"], start_offset=54, end_offset=62, entity_type="CODE")
    bob_mention = create_mention(bob_layer, actor=people["bob"], start_offset=54, end_offset=62, entity_type="CODE")
    add_reviewer(ann_layer, people["rita"], actor=people["manager"])
    for layer in (ann_layer, bob_layer):
        layer.refresh_from_db()
    return {
        **people,
        "corpus": corpus,
        "document": document,
        "imported_layer": document.layers.get(annotator__username="annotator1"),
        "other_document": people["other_corpus"].documents.get(),
        "ann_layer": ann_layer,
        "bob_layer": bob_layer,
        "ann_mention": ann_mention,
        "bob_mention": bob_mention,
    }

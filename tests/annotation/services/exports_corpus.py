"""A demo-like corpus for the export tests: two real TAB cases with their finished
layers (as imported), and a small document on which ann has an unfinished layer with
one undecided mention and bob a confirmed one. Mentions are written directly: these
tests are about what an export contains, not about how mentions are made."""

from annotation.enums import LayerStatus
from annotation.models import AnnotationLayer, Document, Entity, Mention

SMALL_TEXT = (
    "The applicant, Mr John Smith, was born in 1961 and lives in Oslo. "
    "On 3 May 1997 Mr Smith met John Smith's lawyer in Oslo.  "
)
SMALL_DOC = "case-1"
REAL_DOCS = ("001-79436", "001-83927")

# (start, end, text, entity type, identifier type) by hand from SMALL_TEXT: "The
# applicant, " is 15 characters, so "Mr John Smith" spans 15..28, and so on.
ANN_MENTIONS = [
    (15, 28, "Mr John Smith", "PERSON", "DIRECT"),
    (42, 46, "1961", "DATETIME", "QUASI"),
    (60, 64, "Oslo", "LOC", "NO_MASK"),
    (69, 79, "3 May 1997", "DATETIME", None),  # undecided: the layer is not finished
]
BOB_MENTIONS = [
    (15, 28, "Mr John Smith", "PERSON", "DIRECT"),
    (60, 64, "Oslo", "LOC", "QUASI"),
    (69, 79, "3 May 1997", "DATETIME", "NO_MASK"),
]


def add_layer(document: Document, user, status: str, mentions: list[tuple]) -> AnnotationLayer:
    layer = AnnotationLayer.objects.create(
        document=document, annotator=user, status=status, position=document.layers.count()
    )
    for number, (start, end, text, entity_type, identifier) in enumerate(mentions):
        assert document.text[start:end] == text, (start, end, text)  # the hand-computed offsets
        entity = Entity.objects.create(layer=layer, tab_entity_id=f"{user.username}_e{number}")
        Mention.objects.create(
            layer=layer,
            entity=entity,
            tab_mention_id=f"{user.username}_em{number}",
            start_offset=start,
            end_offset=end,
            span_text=text,
            entity_type=entity_type,
            identifier_type=identifier,
            edit_type="insert",
        )
    return layer


def build_export_corpus(corpus, people, pick, import_documents) -> dict:
    import_documents(corpus, pick(*REAL_DOCS))
    small = Document.objects.create(
        corpus=corpus, doc_id=SMALL_DOC, text=SMALL_TEXT, person_to_protect="John Smith", position=2
    )
    return {
        "small": small,
        "ann_layer": add_layer(small, people["ann"], LayerStatus.IN_PROGRESS, ANN_MENTIONS),
        "bob_layer": add_layer(small, people["bob"], LayerStatus.CONFIRMED, BOB_MENTIONS),
    }

"""A layer for the workspace's re-identification risk meter: the five-person background
(``five_people``) stored as a collection, and a document about Ada Quist whose only
distinctive word is her town, Harrowgate (twice: one entity, two mentions).

Measured with the tfidf-svc attacker: the text as written names her (rank 1 of 5, the
leading term "Harrowgate", which no other background mentions); with the Harrowgate
entity masked as [LOC] nothing written is hers alone ("harbour" is also Dora's), so she
falls below rank 1."""

from annotation.models import AnnotationLayer, BackgroundDocument, Corpus, Document
from annotation.services.layers import assign_layer
from annotation.services.mentions import create_mention

from .five_people import BACKGROUND

COLLECTION = "five-people"
PERSON = "Ada Quist"
TEXT = "The applicant lives in Harrowgate and works in the Harrowgate harbour."
TOWN = TEXT.index("Harrowgate")
TOWN_AGAIN = TEXT.index("Harrowgate", TOWN + 1)
HARBOUR = TEXT.index("harbour")


def store_background(collection: str = COLLECTION) -> None:
    BackgroundDocument.objects.bulk_create(
        BackgroundDocument(collection=collection, url=f"{collection}:{i}", title=row["name"], text=row["text"])
        for i, row in enumerate(BACKGROUND)
    )


def harrowgate_layer(
    corpus: Corpus, annotator, *, person: str = PERSON, doc_id: str = "ada-1", text: str = TEXT
) -> AnnotationLayer:
    """``annotator``'s layer of the Ada document (``text``: its words, however laid out),
    with the Harrowgate entity annotated (LOC, undecided) and the corpus learning from
    the five-person background."""
    if not BackgroundDocument.objects.filter(collection=COLLECTION).exists():
        store_background()
    Corpus.objects.filter(pk=corpus.pk).update(background_collection=COLLECTION)
    corpus.refresh_from_db()
    document = Document.objects.create(corpus=corpus, doc_id=doc_id, text=text, person_to_protect=person)
    layer = assign_layer(document, annotator, actor=None)
    first = text.index("Harrowgate")
    for start in (first, text.index("Harrowgate", first + 1)):
        create_mention(layer, actor=annotator, start_offset=start, end_offset=start + 10, entity_type="LOC")
    layer.refresh_from_db()
    return layer

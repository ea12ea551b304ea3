"""The five-person fixture (tests/support/five_people.py) as a corpus to release with
attack-guided masking: the protected texts as documents, each with its person to protect
and an empty reviewed layer (the strategy masks nothing; guided masking does the work),
and the background texts as the corpus's background collection."""

from annotation.enums import LayerStatus
from annotation.models import AnnotationLayer, BackgroundDocument, Corpus, Document
from tests.support.five_people import BACKGROUND, PROTECTED

COLLECTION = "five-people-guided"


def five_people_corpus(corpus: Corpus, annotator, collection: str = COLLECTION) -> Corpus:
    BackgroundDocument.objects.bulk_create(
        BackgroundDocument(collection=collection, url=f"https://example.org/{n}", title=row["name"], text=row["text"])
        for n, row in enumerate(BACKGROUND)
    )
    corpus.background_collection = collection
    corpus.save(update_fields=["background_collection"])
    for position, row in enumerate(PROTECTED):
        document = Document.objects.create(
            corpus=corpus, doc_id=row["doc_id"], text=row["text"], person_to_protect=row["person"], position=position
        )
        AnnotationLayer.objects.create(document=document, annotator=annotator, status=LayerStatus.REVIEWED)
    return corpus

"""The five-person population (tests/support/five_people.py) as a corpus of the app: a
background collection, one document per protected text, and a succeeded release whose
sanitized texts are the fixture's protected texts (so its TRIR is the fixture's 0.8).

Ada's original names her ("Ms Ada Quist") where the release wrote "The applicant", so
her leaking terms sit 1 character earlier in the original than in the release."""

from annotation.enums import LayerStatus
from annotation.models import AnnotationLayer, BackgroundDocument, Corpus, Document, Release, ReleaseDocument
from tests.support.five_people import BACKGROUND, PROTECTED

COLLECTION = "five-people"
ADA_ORIGINAL_OPENING = "Ms Ada Quist"  # 12 characters, replaced by "The applicant" (13)


def import_five_people(collection: str = COLLECTION) -> None:
    BackgroundDocument.objects.bulk_create(
        BackgroundDocument(collection=collection, url=f"{collection}:{number}", title=row["name"], text=row["text"])
        for number, row in enumerate(BACKGROUND)
    )


def background_release(corpus: Corpus, **options) -> Release:
    """The five-person background as ``corpus``'s background collection, and a release
    of the protected texts (``released_five_people``'s options)."""
    import_five_people()
    corpus.background_collection = COLLECTION
    corpus.save()
    return released_five_people(corpus, **options)


def released_five_people(corpus: Corpus, *, status: str = Release.Status.SUCCEEDED, reviewer=None) -> Release:
    """A release of ``corpus`` (documents created) whose texts are the protected ones;
    with ``reviewer``, each document has a reviewed layer of theirs (the release's source)."""
    release = Release.objects.create(corpus=corpus, source="reviewed", strategy="label", status=status)
    for position, row in enumerate(PROTECTED):
        text, spans = row["text"], []
        if row["doc_id"] == "doc-ada":
            opening = "The applicant"
            text = ADA_ORIGINAL_OPENING + row["text"][len(opening) :]
            spans = [{"start": 0, "end": len(ADA_ORIGINAL_OPENING), "replacement": opening,
                      "entity_type": "PERSON", "identifier_type": "DIRECT", "reason": "label"}]  # fmt: skip
        document = Document.objects.create(
            corpus=corpus, doc_id=row["doc_id"], text=text, person_to_protect=row["person"], position=position
        )
        if reviewer is not None:
            AnnotationLayer.objects.create(document=document, annotator=reviewer, status=LayerStatus.REVIEWED)
        ReleaseDocument.objects.create(
            release=release, document=document, status="done", sanitized_text=row["text"], spans=spans
        )
    return release

import pytest

from annotation.models import AnnotationLayer, Document
from tests.support.job_rows import sent  # noqa: F401 (the job tests' fixture)

TEXT = (
    "The applicant, Mr John Smith, was born in 1961 and lives in Oslo. "
    "On 3 May 1997 Mr Smith met John Smith's lawyer in Oslo.  "
)


@pytest.fixture
def layer(corpus, people):
    document = Document.objects.create(corpus=corpus, doc_id="case-1", text=TEXT, person_to_protect="John Smith")
    return AnnotationLayer.objects.create(document=document, annotator=people["ann"])


def span(text: str, occurrence: int = 0) -> tuple[int, int]:
    """Offsets of the n-th occurrence of ``text`` in TEXT."""
    start = -1
    for _ in range(occurrence + 1):
        start = TEXT.index(text, start + 1)
    return start, start + len(text)

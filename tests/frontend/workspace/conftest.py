import pytest
from django.test import Client

from annotation.models import AnnotationLayer, Document

# A short case with repeated names, an emoji outside the BMP and a combining accent.
TEXT = (
    "The applicant, Mr Galip Yalman 👨‍⚖️, lives in Izmir.\n"
    "\n"
    "On 3 May 1997 Mr Yalman met his lawyer, Mrs Zoe\u0301 Demir, in Izmir. Galip Yalman complained."
)


@pytest.fixture
def layer(corpus, people):
    document = Document.objects.create(corpus=corpus, doc_id="ws-1", text=TEXT, person_to_protect="Galip Yalman")
    return AnnotationLayer.objects.create(document=document, annotator=people["ann"])


@pytest.fixture
def client_for():
    def make(user) -> Client:
        client = Client(HTTP_HX_REQUEST="true")
        client.force_login(user)
        return client

    return make


def at(text: str, occurrence: int = 0) -> tuple[int, int]:
    start = -1
    for _ in range(occurrence + 1):
        start = TEXT.index(text, start + 1)
    return start, start + len(text)

"""Shared by the release page tests: one real TAB document (001-79436) with its
finished layers, and a numbered-placeholder release of it run to the end."""

import pytest

from annotation.models import Release
from tests.frontend.conftest import client_for

CANPOLAT = "001-79436"


@pytest.fixture
def source(pick):
    return pick(CANPOLAT)[0]


@pytest.fixture
def documents(corpus, source, import_documents):
    import_documents(corpus, [source])
    return corpus.documents.get()


def post_start(client, corpus, capture, **data):
    """POST the start form (the release's tasks run when the request commits)."""
    with capture(execute=True):
        return client.post(f"/corpora/{corpus.pk}/releases/", data)


@pytest.fixture
def release(corpus, people, documents, django_capture_on_commit_callbacks):
    """A numbered-placeholder release of the reviewed layer, run to the end."""
    response = post_start(
        client_for(people["manager"]),
        corpus,
        django_capture_on_commit_callbacks,
        source="reviewed",
        strategy="placeholder",
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    return Release.objects.get()

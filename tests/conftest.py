"""Shared fixtures: real TAB documents from the repository's copy of the dev sample,
users in each role, and API clients."""

import copy
import json
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from rest_framework.test import APIClient

from annotation.enums import Role
from annotation.models import Corpus, CorpusMembership
from annotation.services.corpus_import import import_tab
from annotation.services.layers import add_reviewer, assign_layer
from annotation.services.mentions import create_mention
from tests.support.s3_server import s3_server, s3_storage  # noqa: F401 - fixtures for every test

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "data" / "tab" / "tab_dev_sample.json"
SHARED_TAB = REPO.parent / "shared" / "tab"


@pytest.fixture(autouse=True)
def _media_in_tmp(settings, tmp_path):
    """Stored files, trained models' scratch directories and the model cache in the
    test's own folder, never under var/."""
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.SANITIZE_MODEL_ROOT = tmp_path / "models"
    settings.SANITIZE_MODEL_CACHE = tmp_path / "model-cache"


@pytest.fixture(autouse=True)
def _fresh_cache():
    """The cache, and the attackers each process keeps fitted, outlive database
    rollbacks: empty them so ids reused by a later test meet no stale keys or fits."""
    from django.core.cache import cache

    from annotation.services.reidentification_attackers import forget_fitted

    cache.clear()
    forget_fitted()
    yield
    cache.clear()
    forget_fitted()


@pytest.fixture
def eager_tasks():
    """Run Celery tasks in-process for this test, whatever the broker configuration."""
    from sanitize_app.celery import app

    previous = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = previous


@pytest.fixture(scope="session")
def sample_documents() -> list[dict]:
    """The 41 real TAB documents (never mutate: use ``copy.deepcopy``)."""
    return json.loads(SAMPLE.read_text(encoding="utf-8"))


@pytest.fixture
def write_tab(tmp_path):
    """Write a list of TAB documents to a file and return its path."""

    def write(documents: list[dict], name: str = "corpus.json") -> Path:
        path = tmp_path / name
        path.write_text(json.dumps(documents, ensure_ascii=False), encoding="utf-8")
        return path

    return write


@pytest.fixture
def pick(sample_documents):
    """Deep copies of sample documents chosen by doc_id."""

    def choose(*doc_ids: str) -> list[dict]:
        by_id = {document["doc_id"]: document for document in sample_documents}
        return [copy.deepcopy(by_id[doc_id]) for doc_id in doc_ids]

    return choose


def make_user(username: str, *, active: bool = True):
    user = get_user_model().objects.create_user(username=username, password="pw-" + username)
    user.is_active = active
    user.save()
    return user


@pytest.fixture
def corpus(db):
    return Corpus.objects.create(name="ECHR test")


@pytest.fixture
def people(corpus):
    """A manager, two annotators and a reviewer of ``corpus``, plus an outsider who
    manages another corpus."""
    manager = make_user("mia_manager")
    manager.user_permissions.add(Permission.objects.get(codename="add_corpus"))
    ann = make_user("ann_annotator")
    bob = make_user("bob_annotator")
    rita = make_user("rita_reviewer")
    outsider = make_user("oscar_outsider")
    for user, role in ((manager, Role.MANAGER), (ann, Role.ANNOTATOR), (bob, Role.ANNOTATOR), (rita, Role.REVIEWER)):
        CorpusMembership.objects.create(corpus=corpus, user=user, role=role)
    other = Corpus.objects.create(name="Other corpus")
    CorpusMembership.objects.create(corpus=other, user=outsider, role=Role.MANAGER)
    return {"manager": manager, "ann": ann, "bob": bob, "rita": rita, "outsider": outsider, "other_corpus": other}


@pytest.fixture
def import_documents(write_tab):
    """Import TAB documents into a corpus through the real importer."""

    def run(corpus: Corpus, documents: list[dict]):
        with write_tab(documents).open("rb") as stream:
            return import_tab(stream, corpus, actor=None, source="fixture")

    return run


@pytest.fixture
def api():
    """An API client logged in as the given user."""

    def client_for(user) -> APIClient:
        client = APIClient()
        client.force_authenticate(user)
        return client

    return client_for


def version(layer) -> int:
    """The layer's version as stored now: what a client sends with its next change."""
    return type(layer).objects.values_list("version", flat=True).get(pk=layer.pk)


def mask_person(layer, actor) -> None:
    """Annotate every occurrence of the layer's person to protect as DIRECT, so that the
    layer passes the confirmation checks."""
    text, person = layer.document.text, layer.document.person_to_protect
    start = text.find(person)
    while start >= 0:
        create_mention(
            layer,
            actor=actor,
            start_offset=start,
            end_offset=start + len(person),
            entity_type="PERSON",
            identifier_type="DIRECT",
        )
        start = text.find(person, start + len(person))
    layer.refresh_from_db()


@pytest.fixture
def scenario(corpus, people, pick, import_documents):
    """One imported document (annotator1's reviewed layer) on which ann and bob each
    have a layer with one mention; rita reviews ann's layer. The outsider manages a
    second corpus with its own document."""
    import_documents(corpus, pick("001-79436"))
    # The other corpus has its own annotators: an import enrols no other corpus's account.
    other = pick("001-83927")[0]
    other["annotations"] = {f"other_{name}": layer for name, layer in other["annotations"].items()}
    other["quality_checked"] = [f"other_{name}" for name in other.get("quality_checked", [])]
    import_documents(people["other_corpus"], [other])
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


@pytest.fixture
def rules_only_engine(settings):
    """The pre-annotation engine without the spaCy pipeline (fast; the rules still find
    names, codes, dates...). The engine cache is emptied around the test."""
    from annotation.services.engine import forget_engines

    settings.SANITIZE_ENGINE = {**settings.SANITIZE_ENGINE, "spacy_pipeline": ""}
    forget_engines()
    yield
    forget_engines()


def tab_mention(
    text: str, layer: str, number: int, span_text: str, entity_type: str, identifier: str, doc_id: str = "d"
) -> dict:
    """A TAB ``entity_mentions`` item for the first occurrence of ``span_text`` in
    ``text``, entity and mention numbered alike (one mention per entity)."""
    start = text.index(span_text)
    return {
        "entity_type": entity_type,
        "entity_mention_id": f"{doc_id}_{layer}_em{number}",
        "start_offset": start,
        "end_offset": start + len(span_text),
        "span_text": span_text,
        "edit_type": "check",
        "identifier_type": identifier,
        "entity_id": f"{doc_id}_{layer}_e{number}",
        "confidential_status": "NOT_CONFIDENTIAL",
    }


@pytest.fixture
def desk(corpus, people):
    """Five documents (d1..d5) and three active annotators (ann, bob, cleo), in that
    order: the assignment tests' corpus."""
    from annotation.models import Document

    cleo = make_user("cleo_annotator")
    CorpusMembership.objects.create(corpus=corpus, user=cleo, role=Role.ANNOTATOR)
    docs = [
        Document.objects.create(corpus=corpus, doc_id=f"d{i}", text=f"Mr Smith {i} lives in Oslo.", position=i)
        for i in range(1, 6)
    ]
    return {**people, "corpus": corpus, "cleo": cleo, "docs": docs, "annotators": [people["ann"], people["bob"], cleo]}

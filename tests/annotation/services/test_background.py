"""The background corpus: import (all or nothing), full-text search and the attacker's
pretreated reading, on the embedded SQLite (FTS5) and on PostgreSQL (text search) alike."""

import json

import pytest

from annotation.corpus_io.errors import TabImportError
from annotation.models import BackgroundDocument
from annotation.services.background import DatabaseSearchBackend, import_background, pretreated_background
from annotation.services.errors import DomainError
from annotation.services.reidentification_attackers import pretreatment

pytestmark = pytest.mark.django_db

ACTORS = [
    {"name": "Phyllis Love", "public_knowledge": "Love was born in Des Moines, Iowa. She joined the Actors Studio."},
    {"name": "Galip Yalman", "public_knowledge": "Galip Yalman was a lawyer in Ankara. Ankara is the capital."},
    {"name": "Jane Doe", "public_knowledge": "Jane Doe lived in Ankara, Turkey, and in Des Moines."},
]


@pytest.fixture
def actors_file(tmp_path):
    path = tmp_path / "actors.json"
    path.write_text(json.dumps(ACTORS), encoding="utf-8")
    return path


def test_wikiactors_rows_are_imported_with_an_address_each(actors_file):
    assert import_background(actors_file, "wiki") == 3
    stored = dict(BackgroundDocument.objects.values_list("title", "url"))
    assert stored == {
        "Phyllis Love": "wiki:phyllis_love",
        "Galip Yalman": "wiki:galip_yalman",
        "Jane Doe": "wiki:jane_doe",
    }
    # Importing again adds nothing; --replace starts the collection over.
    assert import_background(actors_file, "wiki") == 0
    assert import_background(actors_file, "wiki", replace=True) == 3
    assert BackgroundDocument.objects.count() == 3


def test_a_row_without_text_rejects_the_whole_file(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps([ACTORS[0], {"name": "Nobody", "public_knowledge": ""}]), encoding="utf-8")
    with pytest.raises(TabImportError) as error:
        import_background(path, "wiki")
    assert "row 2 (Nobody) has no text" in str(error.value)
    assert not BackgroundDocument.objects.exists()


def test_json_lines_with_urls(tmp_path):
    path = tmp_path / "pages.jsonl"
    path.write_text(
        "\n".join(
            json.dumps({"title": t, "url": f"https://example.org/{i}", "text": t * 3}) for i, t in enumerate("ab")
        ),
        encoding="utf-8",
    )
    assert import_background(path, "web") == 2
    assert set(BackgroundDocument.objects.values_list("url", flat=True)) == {
        "https://example.org/0",
        "https://example.org/1",
    }


def test_search_returns_documents_containing_every_phrase(actors_file):
    backend = DatabaseSearchBackend()
    assert not backend.available and "import_background" in backend.unavailable_reason
    import_background(actors_file, "wiki")
    assert backend.available
    assert set(backend.urls(["Ankara"])) == {"wiki:galip_yalman", "wiki:jane_doe"}
    assert backend.urls(["Ankara", "Des Moines"]) == ["wiki:jane_doe"]
    # A phrase is matched as a phrase, not as loose words.
    assert backend.urls(["Moines Des"]) == []
    assert backend.urls(["Galip Yalman"]) == ["wiki:galip_yalman"]
    # The best-ranked document first: "Ankara" twice beats once.
    assert backend.urls(["Ankara"], limit=1) == ["wiki:galip_yalman"]


def test_search_within_collections_and_forgetting_results(actors_file, tmp_path):
    import_background(actors_file, "wiki")
    other = tmp_path / "other.json"
    other.write_text(json.dumps([{"name": "Ankara Times", "public_knowledge": "News from Ankara."}]), encoding="utf-8")
    import_background(other, "news")
    assert DatabaseSearchBackend(["news"]).urls(["Ankara"]) == ["news:ankara_times"]
    everything = DatabaseSearchBackend()
    assert len(everything.urls(["Ankara"])) == 3
    BackgroundDocument.objects.filter(collection="news").delete()
    assert len(everything.urls(["Ankara"])) == 3  # remembered
    everything.forget()
    assert len(everything.urls(["Ankara"])) == 2


def test_quotes_in_phrases_do_not_break_the_query(actors_file):
    import_background(actors_file, "wiki")
    assert DatabaseSearchBackend().urls(['Ankara "capital']) == []


def test_a_pretreated_background_is_still_searched_and_an_empty_one_is_refused(actors_file):
    import_background(actors_file, "wiki")
    texts = pretreated_background("wiki", pretreatment())
    assert [text.person for text in texts] == ["Phyllis Love", "Galip Yalman", "Jane Doe"]
    assert "ankara" in texts[1].words and "lawyer" in texts[1].words
    assert "gpe" in texts[1].augmented and "ankara" not in texts[1].augmented  # the place became its label
    assert set(DatabaseSearchBackend().urls(["Ankara"])) == {"wiki:galip_yalman", "wiki:jane_doe"}
    with pytest.raises(DomainError, match="'nobody' has no document") as refused:
        pretreated_background("nobody", pretreatment())
    assert refused.value.field == "background_collection"


def test_documents_another_worker_pretreated_meanwhile_are_not_pretreated_again(monkeypatch):
    """Two workers on one stale collection share it: a batch already saved by the other
    (its pretreatment key stored) is skipped, not parsed again."""
    from annotation.services import background

    monkeypatch.setattr(background, "PRETREATMENT_BATCH", 1)
    BackgroundDocument.objects.bulk_create(
        BackgroundDocument(collection="c", url=f"c:{i}", title=f"P{i}", text=f"Person {i} text.") for i in range(4)
    )
    parsed = []

    class OtherWorkerMeanwhile:
        key = "test-key"

        def background(self, texts):
            parsed.extend(texts)
            # The other worker saves every document but this one while it is parsed.
            BackgroundDocument.objects.filter(collection="c").exclude(text=texts[0]).update(pretreatment=self.key)
            return [(["w"], ["a"])]

    assert background.pretreat_stale("c", OtherWorkerMeanwhile()) == 4
    assert len(parsed) == 1
    assert set(BackgroundDocument.objects.values_list("pretreatment", flat=True)) == {"test-key"}

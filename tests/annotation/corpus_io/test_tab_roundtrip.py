"""Import then export gives back the same documents, field for field."""

import copy
import io
import json

import pytest

from annotation.corpus_io.tab_writer import iter_tab_documents, write_tab_json
from annotation.models import Corpus
from annotation.services.corpus_import import import_tab
from tests.conftest import SAMPLE, SHARED_TAB

TAB_FILES = [SAMPLE] + sorted(SHARED_TAB.glob("*.json"))


def export(corpus: Corpus) -> list[dict]:
    out = io.StringIO()
    write_tab_json(iter_tab_documents(corpus.documents.all()), out)
    return json.loads(out.getvalue())


def assert_same_documents(exported: list[dict], original: list[dict]) -> None:
    assert [d["doc_id"] for d in exported] == [d["doc_id"] for d in original]
    for got, want in zip(exported, original, strict=True):
        assert set(got) == set(want), got["doc_id"]
        assert list(got["annotations"]) == list(want["annotations"]), got["doc_id"]
        for annotator, layer in want["annotations"].items():
            got_mentions = got["annotations"][annotator]["entity_mentions"]
            assert len(got_mentions) == len(layer["entity_mentions"])
            for got_mention, want_mention in zip(got_mentions, layer["entity_mentions"], strict=True):
                assert got_mention == want_mention, (got["doc_id"], annotator, want_mention["entity_mention_id"])
        assert got == want, got["doc_id"]


@pytest.mark.parametrize("path", TAB_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_round_trip_of_every_tab_file_is_exact(db, path):
    original = json.loads(path.read_text(encoding="utf-8"))
    corpus = Corpus.objects.create(name=f"round trip {path.name}")
    with path.open("rb") as stream:
        summary = import_tab(stream, corpus, actor=None)
    assert summary.documents == len(original)
    assert summary.mentions == sum(
        len(layer["entity_mentions"]) for document in original for layer in document["annotations"].values()
    )
    assert_same_documents(export(corpus), original)


def test_optional_and_unknown_keys_survive_the_round_trip(db, pick, write_tab):
    document = pick("001-79436")[0]
    layer = document["annotations"]["annotator1"]
    # Absent optional keys stay absent; an empty related_mentions stays empty.
    del document["quality_checked"]
    del document["meta"]
    layer["entity_mentions"][0]["related_mentions"] = []
    layer["entity_mentions"][1]["related_mentions"] = [layer["entity_mentions"][2]["entity_mention_id"]]
    del layer["entity_mentions"][3]["identifier_type"]
    # Keys the application does not model are written back verbatim.
    document["source_url"] = "https://hudoc.echr.coe.int/eng?i=001-79436"
    layer["note"] = {"hours": 1.5}
    layer["entity_mentions"][4]["comment"] = "check with partner"
    corpus = Corpus.objects.create(name="optional keys")
    with write_tab([document]).open("rb") as stream:
        import_tab(stream, corpus, actor=None)
    (exported,) = export(corpus)
    assert "quality_checked" not in exported and "meta" not in exported
    assert exported == document


def test_second_import_is_appended_after_the_first(db, pick, write_tab):
    first, second = pick("001-79436", "001-83927")
    corpus = Corpus.objects.create(name="two files")
    for document, name in ((first, "a.json"), (second, "b.json")):
        with write_tab([document], name).open("rb") as stream:
            import_tab(stream, corpus, actor=None)
    assert [d["doc_id"] for d in export(corpus)] == ["001-79436", "001-83927"]


def test_utf8_byte_order_mark_is_accepted(db, pick, tmp_path):
    document = pick("001-79436")[0]
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps([document]).encode())
    corpus = Corpus.objects.create(name="bom")
    with path.open("rb") as stream:
        assert import_tab(stream, corpus, actor=None).documents == 1
    assert export(corpus) == [copy.deepcopy(document)]

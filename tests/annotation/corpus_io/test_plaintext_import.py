"""Plain-text folders with a table of persons to protect."""

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from annotation.models import Corpus, Document


@pytest.fixture
def folder(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "case-1.txt").write_text("The applicant, Ms Anna Berg 👩‍⚖️, lives in Oslo.\n", encoding="utf-8")
    (docs / "case-2.txt").write_text("Mr Jonas Lie was born in 1961.", encoding="utf-8")
    return docs


def test_folder_and_csv_become_documents(db, folder, tmp_path):
    table = tmp_path / "persons.csv"
    table.write_text("file,person,dataset_type\ncase-1.txt,Anna Berg,train\ncase-2,Jonas Lie,\n", encoding="utf-8")
    call_command("import_text", str(folder), persons=str(table), corpus="letters")
    documents = {d.doc_id: d for d in Corpus.objects.get(name="letters").documents.all()}
    assert set(documents) == {"case-1", "case-2"}
    assert documents["case-1"].person_to_protect == "Anna Berg"
    assert documents["case-1"].task == "Task: Annotate the document to anonymise the following person: Anna Berg"
    assert documents["case-1"].dataset_type == "train"
    assert documents["case-1"].text.startswith("The applicant, Ms Anna Berg 👩‍⚖️")
    # The database counts code points exactly as Python does.
    assert documents["case-1"].text_length == len(documents["case-1"].text)


def test_json_table_is_accepted(db, folder, tmp_path):
    table = tmp_path / "persons.json"
    table.write_text('{"case-1.txt": "Anna Berg", "case-2.txt": "Jonas Lie"}', encoding="utf-8")
    call_command("import_text", str(folder), persons=str(table), corpus="letters")
    assert Document.objects.filter(corpus__name="letters").count() == 2


def test_missing_person_and_bad_encoding_are_reported_and_nothing_is_stored(db, folder, tmp_path):
    (folder / "case-3.txt").write_bytes("Caf\xe9".encode("latin-1"))
    table = tmp_path / "persons.csv"
    table.write_text("file,person\ncase-1.txt,Anna Berg\ncase-3.txt,Someone\ncase-9.txt,Ghost\n", encoding="utf-8")
    with pytest.raises(CommandError) as caught:
        call_command("import_text", str(folder), persons=str(table), corpus="letters")
    message = str(caught.value)
    assert "document case-2" in message and "no person to protect" in message
    assert "document case-3" in message and "not UTF-8" in message
    assert "case-9.txt, which is not in" in message
    assert not Corpus.objects.filter(name="letters").exists()
    assert Document.objects.count() == 0

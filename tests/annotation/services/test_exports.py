"""The export service: the same options for the page, the API and the commands.

Expected spans and file names are written out by hand from the small document of
``exports_corpus`` (offsets checked against its text when it is built)."""

import io
import json
from datetime import date

import pytest
from django.core.management import CommandError, call_command

from annotation.models import PreannotationRun, Prediction, RunDocument
from annotation.services.exports import (
    ExportError,
    ExportFormat,
    ExportOptions,
    LayerScope,
    MaskSource,
    corpus_annotators,
    prepare_export,
)

from .exports_corpus import SMALL_DOC, build_export_corpus

DECIDED = {"DIRECT", "QUASI", "NO_MASK"}
DAY = date(2025, 3, 1)


@pytest.fixture
def demo(corpus, people, pick, import_documents):
    return {**build_export_corpus(corpus, people, pick, import_documents), **people, "corpus": corpus}


def exported(corpus, **options):
    return json.loads(prepare_export(corpus, ExportOptions(**options), today=DAY).text())


def by_doc(documents: list[dict]) -> dict[str, dict]:
    return {document["doc_id"]: document for document in documents}


def all_mentions(documents: list[dict]):
    for document in documents:
        for annotator, layer in document["annotations"].items():
            for mention in layer["entity_mentions"]:
                yield document["doc_id"], annotator, mention


def test_the_default_exports_finished_layers_only(demo):
    documents = exported(demo["corpus"])
    assert [d["doc_id"] for d in documents] == ["001-79436", "001-83927", SMALL_DOC]
    docs = by_doc(documents)
    assert set(docs["001-79436"]["annotations"]) == {"annotator1"}
    assert set(docs["001-83927"]["annotations"]) == {"annotator1", "annotator10"}
    assert set(docs[SMALL_DOC]["annotations"]) == {"bob_annotator"}  # ann's layer is in progress
    undecided = [(doc, who, m["span_text"]) for doc, who, m in all_mentions(documents) if "identifier_type" not in m]
    assert undecided == []
    assert {m.get("identifier_type") for _, _, m in all_mentions(documents)} <= DECIDED


def test_all_layers_include_the_unfinished_layer_and_its_undecided_mention(demo):
    docs = by_doc(exported(demo["corpus"], layers=LayerScope.ALL))
    assert set(docs[SMALL_DOC]["annotations"]) == {"ann_annotator", "bob_annotator"}
    ann = docs[SMALL_DOC]["annotations"]["ann_annotator"]["entity_mentions"]
    assert [(m["span_text"], m.get("identifier_type")) for m in ann] == [
        ("Mr John Smith", "DIRECT"),
        ("1961", "QUASI"),
        ("Oslo", "NO_MASK"),
        ("3 May 1997", None),  # undecided: the key is absent, as in the TAB files
    ]


def test_chosen_annotators_export_only_their_layers(demo):
    docs = by_doc(exported(demo["corpus"], annotators=("annotator10", "bob_annotator")))
    assert docs["001-79436"]["annotations"] == {}  # annotator1 alone annotated it
    assert set(docs["001-83927"]["annotations"]) == {"annotator10"}
    assert docs["001-83927"]["quality_checked"] == ["annotator10"]
    assert set(docs[SMALL_DOC]["annotations"]) == {"bob_annotator"}


def test_a_chosen_annotator_without_a_finished_layer_is_named(demo):
    with pytest.raises(ExportError) as refused:
        prepare_export(demo["corpus"], ExportOptions(annotators=("ann_annotator",)))
    assert refused.value.field == "annotators"
    assert refused.value.message == (
        "ann_annotator has no finished layer in corpus ECHR test (1 layer, none confirmed yet): "
        "choose all layers to export work in progress."
    )
    # With all layers, the same choice exports ann's layer alone.
    docs = by_doc(exported(demo["corpus"], layers=LayerScope.ALL, annotators=("ann_annotator",)))
    assert set(docs[SMALL_DOC]["annotations"]) == {"ann_annotator"}


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("rita_reviewer", "rita_reviewer is not an annotator of corpus ECHR test."),
        ("zed", "zed is not an annotator of corpus ECHR test."),
    ],
)
def test_only_the_corpus_annotators_can_be_chosen(demo, name, message):
    with pytest.raises(ExportError, match=message):
        prepare_export(demo["corpus"], ExportOptions(layers=LayerScope.ALL, annotators=(name,)))


def test_an_annotator_member_without_layers_is_listed_and_refused_by_name(demo, people):
    from annotation.enums import Role
    from annotation.models import CorpusMembership

    CorpusMembership.objects.create(corpus=demo["corpus"], user=people["rita"], role=Role.ANNOTATOR)
    rows = {row.username: (row.layers, row.finished) for row in corpus_annotators(demo["corpus"])}
    assert rows == {
        "annotator1": (2, 2),
        "annotator10": (1, 1),
        "ann_annotator": (1, 0),
        "bob_annotator": (1, 1),
        "rita_reviewer": (0, 0),
    }
    with pytest.raises(ExportError, match="rita_reviewer has no layer in corpus ECHR test."):
        prepare_export(demo["corpus"], ExportOptions(layers=LayerScope.ALL, annotators=("rita_reviewer",)))


def test_masked_output_of_one_annotator_equals_the_hand_computed_spans(demo):
    masks = {"format": ExportFormat.MASKS}
    # bob (confirmed): DIRECT "Mr John Smith" 15..28 and QUASI "Oslo" 60..64; "3 May 1997" is NO_MASK.
    assert exported(demo["corpus"], annotators=("bob_annotator",), **masks) == {SMALL_DOC: [[15, 28], [60, 64]]}
    # ann (in progress, so only with all layers): DIRECT 15..28 and QUASI "1961" 42..46.
    assert exported(demo["corpus"], layers=LayerScope.ALL, annotators=("ann_annotator",), **masks) == {
        SMALL_DOC: [[15, 28], [42, 46]]
    }
    with pytest.raises(ExportError, match="ann_annotator has no finished layer"):
        prepare_export(demo["corpus"], ExportOptions(annotators=("ann_annotator",), **masks))


@pytest.mark.parametrize("annotators", [(), ("bob_annotator", "annotator1")])
def test_a_masked_output_file_is_one_annotators(demo, annotators):
    with pytest.raises(ExportError, match="choose exactly one annotator") as refused:
        prepare_export(demo["corpus"], ExportOptions(ExportFormat.MASKS, annotators=annotators))
    assert refused.value.field == "annotators"


def test_masked_output_of_the_preannotation(demo):
    options = ExportOptions(ExportFormat.MASKS, source=MaskSource.PREANNOTATION)
    with pytest.raises(ExportError, match="No document of corpus ECHR test has been pre-annotated."):
        prepare_export(demo["corpus"], options)
    run = PreannotationRun.objects.create(corpus=demo["corpus"], status=PreannotationRun.Status.SUCCEEDED)
    RunDocument.objects.create(run=run, document=demo["small"], status=RunDocument.Status.DONE)
    for key, (start, end, identifier) in enumerate([(15, 28, "DIRECT"), (42, 46, "NO_MASK"), (60, 64, "QUASI")]):
        Prediction.objects.create(
            run=run,
            document=demo["small"],
            entity_key=key,
            start_offset=start,
            end_offset=end,
            entity_type="MISC",
            identifier_type=identifier,
        )
    export = prepare_export(demo["corpus"], options, today=DAY)
    assert json.loads(export.text()) == {SMALL_DOC: [[15, 28], [60, 64]]}
    assert export.filename == "ECHR-test-masks-preannotation-2025-03-01.json"
    with pytest.raises(ExportError, match="not an annotator's: choose no annotator"):
        prepare_export(
            demo["corpus"], ExportOptions(ExportFormat.MASKS, annotators=("bob_annotator",), source="preannotation")
        )


@pytest.mark.parametrize(
    ("options", "filename"),
    [
        ({}, "ECHR-test-tab-finished-2025-03-01.json"),
        ({"layers": "all"}, "ECHR-test-tab-all-layers-2025-03-01.json"),
        (
            {"annotators": ("annotator10", "bob_annotator")},
            "ECHR-test-tab-annotator10+bob_annotator-finished-2025-03-01.json",
        ),
        (
            {"annotators": ("annotator1", "annotator10", "bob_annotator", "ann_annotator"), "layers": "all"},
            "ECHR-test-tab-4-annotators-all-layers-2025-03-01.json",
        ),
        (
            {"format": "masks", "annotators": ("bob_annotator",)},
            "ECHR-test-masks-bob_annotator-finished-2025-03-01.json",
        ),
    ],
)
def test_the_file_name_says_corpus_format_scope_and_date(demo, options, filename):
    assert prepare_export(demo["corpus"], ExportOptions(**options), today=DAY).filename == filename


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"format": "csv"}, "format"),
        ({"layers": "some"}, "layers"),
        ({"format": "masks", "source": "oracle"}, "source"),
    ],
)
def test_unknown_options_are_named(demo, options, field):
    with pytest.raises(ExportError, match=f"Unknown {field} ") as refused:
        prepare_export(demo["corpus"], ExportOptions(**options))
    assert refused.value.field == field


def test_the_tab_file_is_produced_one_document_at_a_time(demo):
    export = prepare_export(demo["corpus"], ExportOptions())
    pieces = list(export.chunks)
    assert export.stream is True
    assert len(pieces) == 3 + 2  # "[", one piece per document, "]"
    assert json.loads(pieces[3].removeprefix(", "))["doc_id"] == SMALL_DOC


# The same options reach the service from the commands and the API.


def test_export_tab_command_defaults_to_finished_layers(demo, tmp_path):
    out = tmp_path / "corpus.json"
    call_command("export_tab", corpus="ECHR test", output=str(out), stderr=io.StringIO())
    assert set(by_doc(json.loads(out.read_text()))[SMALL_DOC]["annotations"]) == {"bob_annotator"}
    call_command("export_tab", "--layers", "all", "--annotators", "ann_annotator", corpus="ECHR test", output=str(out))
    docs = by_doc(json.loads(out.read_text()))
    assert set(docs[SMALL_DOC]["annotations"]) == {"ann_annotator"} and docs["001-83927"]["annotations"] == {}
    with pytest.raises(CommandError, match="ann_annotator has no finished layer"):
        call_command("export_tab", "--annotators", "ann_annotator", corpus="ECHR test", output=str(out))


def test_export_masks_command_takes_the_layer_scope(demo, tmp_path):
    out = tmp_path / "masks.json"
    with pytest.raises(CommandError, match="ann_annotator has no finished layer"):
        call_command("export_masks", corpus="ECHR test", annotator="ann_annotator", output=str(out))
    call_command("export_masks", corpus="ECHR test", annotator="ann_annotator", layers="all", output=str(out))
    assert json.loads(out.read_text()) == {SMALL_DOC: [[15, 28], [42, 46]]}


def test_the_api_exports_with_the_same_options(demo, api):
    client = api(demo["manager"])
    url = f"/api/corpora/{demo['corpus'].pk}/export/"

    def tab(**params):
        response = client.get(url + "tab/", params)
        assert response.status_code == 200
        return by_doc(json.loads(b"".join(response.streaming_content)))

    assert set(tab()[SMALL_DOC]["annotations"]) == {"bob_annotator"}
    assert set(tab(layers="all")[SMALL_DOC]["annotations"]) == {"ann_annotator", "bob_annotator"}
    assert set(tab(finished_only="false")[SMALL_DOC]["annotations"]) == {"ann_annotator", "bob_annotator"}
    assert set(tab(layers="all", annotators="ann_annotator")[SMALL_DOC]["annotations"]) == {"ann_annotator"}
    masks = client.get(url + "masks/", {"annotator": "bob_annotator"})
    assert masks.json() == {SMALL_DOC: [[15, 28], [60, 64]]}
    assert 'filename="ECHR-test-masks-bob_annotator-finished-' in masks["Content-Disposition"]
    refused = client.get(url + "masks/", {"annotator": "ann_annotator"})
    assert refused.status_code == 400 and "ann_annotator has no finished layer" in refused.json()["annotators"]

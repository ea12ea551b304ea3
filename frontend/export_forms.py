"""The corpus export form: what to export (TAB corpus JSON or a masked-output file) and
from which layers, turned into the export service's options."""

from django import forms

from annotation.services.exports import AnnotatorLayers, ExportFormat, ExportOptions, LayerScope, MaskSource

PREANNOTATION = "preannotation"
ANNOTATOR_PREFIX = "annotator:"


def _layers_label(row: AnnotatorLayers) -> str:
    if not row.layers:
        return f"{row.username} (no layer)"
    return f"{row.username} ({row.finished} of {row.layers} layer{'s' if row.layers != 1 else ''} finished)"


class ExportForm(forms.Form):
    format = forms.ChoiceField(
        label="Export",
        choices=[
            (ExportFormat.TAB, "TAB corpus JSON: every document, with the chosen layers"),
            (ExportFormat.MASKS, "Masked-output file {doc_id: [[start, end], ...]}: the TAB evaluation script's input"),
        ],
        initial=ExportFormat.TAB,
        widget=forms.RadioSelect,
    )
    layers = forms.ChoiceField(
        label="Layers",
        choices=[
            (LayerScope.FINISHED, "Finished layers only (confirmed, under review, reviewed)"),
            (LayerScope.ALL, "All layers, unfinished ones too (their undecided mentions have no identifier_type)"),
        ],
        initial=LayerScope.FINISHED,
        widget=forms.RadioSelect,
    )
    annotators = forms.MultipleChoiceField(
        label="Annotators",
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="For the TAB corpus JSON: only the ticked annotators' layers. None ticked: every annotator.",
    )
    masks_of = forms.ChoiceField(
        label="Masked-output file of",
        required=False,
        help_text="An annotator's DIRECT and QUASI mentions, or the spans the pre-annotation engine masks.",
    )

    def __init__(self, *args, annotators: list[AnnotatorLayers], preannotated: int, **kwargs):
        kwargs.setdefault("auto_id", "export_%s")  # unique beside the corpus page's own forms
        super().__init__(*args, **kwargs)
        self.fields["annotators"].choices = [(row.username, _layers_label(row)) for row in annotators]
        engine = f"{preannotated} document{'s' if preannotated != 1 else ''}" if preannotated else "not run yet"
        self.fields["masks_of"].choices = [
            (PREANNOTATION, f"Pre-annotation engine ({engine})"),
            *((ANNOTATOR_PREFIX + row.username, _layers_label(row)) for row in annotators),
        ]
        first = next((row.username for row in annotators if row.finished), None)
        self.fields["masks_of"].initial = ANNOTATOR_PREFIX + first if first else PREANNOTATION

    def clean(self):
        data = super().clean()
        if data.get("format") == ExportFormat.MASKS and not data.get("masks_of"):
            raise forms.ValidationError("Choose whose masked-output file to export: an annotator or the engine.")
        return data

    def options(self) -> ExportOptions:
        """The export service's options for this (valid) form; fields that do not apply
        to the chosen format are ignored (they stay visible without JavaScript)."""
        data = self.cleaned_data
        if data["format"] == ExportFormat.TAB:
            return ExportOptions(ExportFormat.TAB, data["layers"], tuple(data["annotators"]))
        if data["masks_of"] == PREANNOTATION:
            return ExportOptions(ExportFormat.MASKS, data["layers"], (), MaskSource.PREANNOTATION)
        name = data["masks_of"].removeprefix(ANNOTATOR_PREFIX)
        return ExportOptions(ExportFormat.MASKS, data["layers"], (name,), MaskSource.ANNOTATOR)

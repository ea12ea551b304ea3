"""The evaluation page's form: which source to evaluate and against which gold layers."""

from urllib.parse import urlencode

from django import forms

MAX_UPLOAD_BYTES = 50 * 1024 * 1024
FILE = "file"


class EvaluationForm(forms.Form):
    """A source named by a string ("preannotation", "annotator:NAME") or a masked-output
    file: attaching a file evaluates the file. ``masked`` carries an uploaded file's
    checked spans back for its CSV downloads (the file itself is never stored)."""

    source = forms.CharField(required=False, label="Source", widget=forms.Select)
    file = forms.FileField(
        required=False,
        label="or a masked-output file",
        help_text='The official evaluation format {"doc_id": [[start, end], ...]}; it is read, not stored.',
        widget=forms.ClearableFileInput(attrs={"accept": ".json,application/json"}),
    )
    annotators = forms.MultipleChoiceField(
        required=False,
        label="Gold standard",
        widget=forms.CheckboxSelectMultiple,
        help_text="None ticked: every annotator but the evaluated one.",
    )
    all_layers = forms.BooleanField(
        required=False,
        label="Include unfinished layers",
        help_text="Off: finished layers only (confirmed, under review or reviewed), as the TAB release.",
    )
    masked = forms.CharField(required=False, widget=forms.HiddenInput)
    label = forms.CharField(required=False, widget=forms.HiddenInput)

    def __init__(self, *args, sources: list[tuple[str, str]], annotators: list[tuple[str, str]], **kwargs):
        super().__init__(*args, **kwargs)
        choices = list(sources)
        if not any(value == "preannotation" for value, _ in choices):
            # Still offered: choosing it says that nothing has been pre-annotated yet.
            choices.insert(0, ("preannotation", "Pre-annotation engine (no run yet)"))
        self.fields["source"].widget.choices = choices
        self.fields["annotators"].choices = annotators

    def clean(self):
        data = super().clean()
        upload = data.get("file")
        if upload:
            if upload.size > MAX_UPLOAD_BYTES:
                raise forms.ValidationError(f"{upload.name} is larger than {MAX_UPLOAD_BYTES // 2**20} MB.")
            data["source"] = FILE
        elif data.get("masked"):
            data["source"] = FILE
        elif not data.get("source"):
            raise forms.ValidationError("Choose a source to evaluate, or attach a masked-output file.")
        elif data["source"] != "preannotation" and not data["source"].startswith("annotator:"):
            raise forms.ValidationError(
                f"Unknown source {data['source']!r}: use preannotation, annotator:NAME or upload a file."
            )
        return data

    @property
    def finished_only(self) -> bool:
        return not (self.is_bound and self.is_valid() and self.cleaned_data["all_layers"])

    def query(self, **extra) -> str:
        """The query string of this (valid, non-file) choice: results are linkable."""
        data = self.cleaned_data
        pairs = [("source", data["source"]), *(("annotators", name) for name in data["annotators"])]
        if data["all_layers"]:
            pairs.append(("all_layers", "on"))
        pairs += list(extra.items())
        return urlencode(pairs)

from django import forms


class ImportUploadForm(forms.Form):
    file = forms.FileField(
        label="TAB JSON file",
        help_text="An official TAB file (train, dev or test) or one exported by this tool. All or nothing.",
        widget=forms.ClearableFileInput(attrs={"accept": ".json,application/json"}),
    )


class DocumentSearchForm(forms.Form):
    q = forms.CharField(
        required=False, label="Search", widget=forms.TextInput(attrs={"placeholder": "doc_id or person"})
    )
    dataset_type = forms.ChoiceField(
        required=False, choices=[("", "All splits"), ("train", "train"), ("dev", "dev"), ("test", "test")]
    )

"""Forms of the team and assignment pages. They only read the input: every rule
(roles, usernames, last manager, who may be assigned) is checked by the services, whose
messages the pages show."""

from django import forms

from annotation.enums import DatasetType, Role

ROLE_WIDGET = forms.CheckboxSelectMultiple


class RolesForm(forms.Form):
    # Not required here: "no role at all" is refused by the service with its own message.
    roles = forms.MultipleChoiceField(choices=Role.choices, widget=ROLE_WIDGET, required=False)


class AccountForm(RolesForm):
    username = forms.CharField(max_length=150, required=False)
    first_name = forms.CharField(max_length=150, required=False, label="First name")
    last_name = forms.CharField(max_length=150, required=False, label="Last name")
    email = forms.CharField(max_length=254, required=False, label="E-mail")


class AccountSearchForm(forms.Form):
    MIN_LENGTH = 2
    find = forms.CharField(
        required=False,
        label="Find an account",
        widget=forms.TextInput(attrs={"placeholder": "username or e-mail", "type": "search", "autocomplete": "off"}),
    )


class DocumentFilterForm(forms.Form):
    """The document filters of the assignment page (GET, and repeated in its POSTs so
    that "all matching" means the same documents)."""

    dataset_type = forms.ChoiceField(required=False, label="Split", choices=[("", "All splits"), *DatasetType.choices])
    status = forms.ChoiceField(
        required=False,
        label="Status",
        choices=[
            ("", "Any status"),
            ("unassigned", "Unassigned"),
            ("open", "Open (assigned or in progress)"),
            ("finished", "Finished"),
        ],
    )
    preannotated = forms.ChoiceField(
        required=False,
        label="Pre-annotation",
        choices=[("", "Any pre-annotation"), ("yes", "Pre-annotated"), ("no", "Not pre-annotated")],
    )
    q = forms.CharField(
        required=False,
        label="Search",
        widget=forms.TextInput(attrs={"placeholder": "doc id or person", "type": "search"}),
    )

    FIELDS = ("dataset_type", "status", "preannotated", "q")

    def filter_arguments(self) -> dict:
        """Keyword arguments of ``assignment.document_filter`` (call after ``is_valid``)."""
        data = self.cleaned_data
        preannotated = {"yes": True, "no": False}.get(data.get("preannotated") or "")
        return {
            "dataset_type": data.get("dataset_type") or None,
            "status": data.get("status") or None,
            "has_preannotation": preannotated,
            "query": data.get("q") or "",
        }


STRATEGIES = (
    ("balanced", "Balanced", "Each document to N annotators, always the least loaded (the TAB practice)."),
    ("round_robin", "Round robin", "One annotator per document, in turn."),
    ("explicit", "Explicit", "Exactly the pairs you list, one per line: document id and username."),
)
